# The six reference posteriors of posteriordb (fixtures/posteriordb.rds, built by
# tools/posteriordb-fixture.R from ../shared/validation/posteriordb), each as a vhmc_glm
# call whose model is exactly the reference model, priors included.

posteriordb <- function() readRDS(test_path("fixtures", "posteriordb.rds"))

# Fits one reference posterior; returns list(draws = S x variables matrix named as the
# reference, fit, reference).
fit_posteriordb <- function(name, chains = 4, iter = 2000, seed = 1, ...) {
  db <- posteriordb()
  ref <- db$reference[[name]]
  fit_args <- list(chains = chains, iter = iter, seed = seed, progress = FALSE, ...)
  spec <- switch(name,
    "kidiq-kidscore_momiq" = list(
      formula = kid_score ~ 1 + mom_iq, data = as.data.frame(db$data$kidiq[c("kid_score", "mom_iq")]),
      priors = list(prior = flat(), prior_intercept = flat(), prior_aux = cauchy(0, 2.5)),
      rename = c("(Intercept)" = "beta[1]", mom_iq = "beta[2]")),
    "kidiq-kidscore_interaction" = list(
      formula = kid_score ~ 1 + mom_hs + mom_iq + mom_hs:mom_iq,
      data = as.data.frame(db$data$kidiq[c("kid_score", "mom_hs", "mom_iq")]),
      priors = list(prior = flat(), prior_intercept = flat(), prior_aux = cauchy(0, 2.5)),
      rename = c("(Intercept)" = "beta[1]", mom_hs = "beta[2]", mom_iq = "beta[3]",
                 "mom_hs:mom_iq" = "beta[4]")),
    "earnings-logearn_interaction_z" = {
      e <- db$data$earnings
      list(formula = log(earn) ~ 1 + z_height + male + z_height:male,
           data = data.frame(earn = e$earn, male = e$male,
                             z_height = (e$height - mean(e$height)) / stats::sd(e$height)),
           priors = list(prior = flat(), prior_intercept = flat(), prior_aux = flat()),
           rename = c("(Intercept)" = "beta[1]", z_height = "beta[2]", male = "beta[3]",
                      "z_height:male" = "beta[4]"))
    },
    "sblrc-blr" = list(
      formula = y ~ 0 + X, data = list(y = db$data$sblrc$y, X = db$data$sblrc$X),
      priors = list(prior = normal(0, 10), prior_aux = normal(0, 10)),
      rename = stats::setNames(sprintf("beta[%d]", 1:5), paste0("X", 1:5))),
    "arK-arK" = {
      y <- db$data$arK$y
      K <- db$data$arK$K
      t <- seq.int(K + 1L, length(y))
      lags <- sapply(seq_len(K), function(k) y[t - k])
      colnames(lags) <- paste0("lag", seq_len(K))
      list(formula = y ~ lag1 + lag2 + lag3 + lag4 + lag5,
           data = data.frame(y = y[t], lags),
           priors = list(prior = normal(0, 10), prior_intercept = normal(0, 10),
                         prior_aux = cauchy(0, 2.5)),
           rename = c("(Intercept)" = "alpha", stats::setNames(sprintf("beta[%d]", 1:5),
                                                                paste0("lag", 1:5))))
    },
    "diamonds-diamonds" = {
      d <- db$data$diamonds
      list(formula = Y ~ Xc, data = list(Y = d$Y, Xc = d$X[, -1]),
           priors = list(prior = normal(0, 1), prior_intercept = student_t(3, 8, 10),
                         prior_aux = student_t(3, 0, 10)),
           rename = stats::setNames(sprintf("b[%d]", 1:24), paste0("Xc", 1:24)))
    }
  )
  fit <- do.call(vhmc_glm, c(list(formula = spec$formula, data = spec$data), spec$priors, fit_args))
  draws <- posterior::as_draws_df(fit)
  if (name == "diamonds-diamonds") {
    # The reference's Intercept is at the predictor means (the model centres X).
    xbar <- colMeans(spec$data$Xc)
    b <- as.matrix(posterior::subset_draws(posterior::as_draws_matrix(fit), variable = paste0("Xc", 1:24)))
    draws$Intercept <- draws[["(Intercept)"]] + as.vector(b %*% xbar)
    draws <- posterior::subset_draws(draws, variable = setdiff(posterior::variables(draws), "(Intercept)"))
  }
  vars <- posterior::variables(draws)
  hit <- match(names(spec$rename), vars)
  vars[hit] <- spec$rename
  posterior::variables(draws) <- vars
  list(fit = fit, draws = draws, reference = ref)
}

# Agreement with a reference: |mean - ref| <= 4 * combined MCSE and sd within 10 %, per variable.
compare_reference <- function(draws, ref) {
  s <- posterior::summarise_draws(draws, mean = mean, sd = stats::sd, mcse = posterior::mcse_mean,
                                  ess_sd = posterior::ess_sd)
  s <- data.frame(variable = s$variable, mean = as.numeric(s$mean), sd = as.numeric(s$sd),
                  mcse = as.numeric(s$mcse), ess_sd = as.numeric(s$ess_sd))
  m <- merge(ref, s, by = "variable", suffixes = c("_ref", ""))
  m$z <- abs(m$mean - m$mean_ref) / sqrt(m$mcse^2 + m$mcse_mean^2)
  m$sd_ratio <- m$sd / m$sd_ref
  m
}
