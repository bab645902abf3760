# The negative binomial (rstanarm's neg_binomial_2) and Gamma (log link) families: flat-prior
# posteriors against maximum likelihood, rstanarm's default priors against long rstanarm
# runs (tools/rstanarm-families-fixture.R), their predictive methods and responses.

quiet <- function(expr) suppressWarnings(suppressMessages(expr))

# sim_counts(), flat_fit() and expect_matches_mle() are in helper-glm-mle.R.

test_that("neg_binomial_2 under flat priors matches MASS::glm.nb", {
  skip_on_cran()
  d <- sim_counts()
  ref <- MASS::glm.nb(k ~ x1 + g + offset(log(expo)), data = d)
  fit <- flat_fit(k ~ x1 + g + offset(log(expo)), d, neg_binomial_2())
  expect_matches_mle(fit, coef(ref), sqrt(diag(vcov(ref))))
  phi <- as.matrix(fit)[, "reciprocal_dispersion"]
  expect_lt(abs(mean(phi) - ref$theta), 0.1 * ref$SE.theta + 4 * sd(phi) / sqrt(200))
  expect_equal(sd(phi), ref$SE.theta, tolerance = 0.1)
})

test_that("Gamma(log) under flat priors matches glm() and the ML shape", {
  skip_on_cran()
  d <- sim_counts(seed = 2)
  ref <- glm(y ~ x1 + g, data = d, family = Gamma(link = "log"))
  fit <- flat_fit(y ~ x1 + g, d, Gamma(link = "log"))
  # glm()'s standard errors use the moment estimate of the dispersion; the ML shape is the
  # likelihood's, whose curvature the posterior follows.
  shape <- MASS::gamma.shape(ref)
  se <- sqrt(diag(vcov(ref, dispersion = 1 / shape$alpha)))
  expect_matches_mle(fit, coef(ref), se)
  a <- as.matrix(fit)[, "shape"]
  expect_lt(abs(mean(a) - shape$alpha), 0.1 * shape$SE + 4 * sd(a) / sqrt(200))
  expect_equal(sd(a), shape$SE, tolerance = 0.1)
})

test_that("with rstanarm's default priors both families match long rstanarm runs", {
  skip_on_cran()
  ref <- readRDS(test_path("fixtures", "rstanarm_families.rds"))
  for (r in ref) {
    data <- if (r$data == "quine") MASS::quine else na.omit(airquality[, c("Ozone", "Temp", "Wind")])
    family <- if (r$family == "neg_binomial_2") neg_binomial_2() else Gamma(link = "log")
    fit <- quiet(vhmc_glm(r$formula, data = data, family = family, prior = normal(0, r$prior_scale),
                          prior_intercept = normal(0, r$prior_intercept_scale),
                          prior_aux = exponential(r$aux_rate), chains = 4, iter = 4000, seed = 5,
                          progress = FALSE))
    s <- posterior::summarise_draws(fit$draws, "mean", "sd", "mcse_mean")
    rs <- r$summary[match(s$variable, r$summary$variable), ]
    expect_false(anyNA(rs$mean), info = r$data)
    z <- abs(s$mean - rs$mean) / sqrt(s$mcse_mean^2 + rs$mcse_mean^2)
    expect_true(all(z < 4), info = paste(r$data, "z:", paste(round(z, 2), collapse = " ")))
    expect_true(all(abs(s$sd / rs$sd - 1) < 0.1),
                info = paste(r$data, "sd ratio:", paste(round(s$sd / rs$sd, 3), collapse = " ")))
  }
})

nb_fit <- quiet(vhmc_glm(Days ~ Sex + Age + Lrn, data = MASS::quine, family = neg_binomial_2(),
                         chains = 2, iter = 600, seed = 1, progress = FALSE))
ga_fit <- quiet(vhmc_glm(Ozone ~ Temp + Wind, data = airquality, family = Gamma(link = "log"),
                         chains = 2, iter = 600, seed = 1, progress = FALSE))

test_that("prediction, predictive draws and the log likelihood use the auxiliary parameter", {
  for (fit in list(nb_fit, ga_fit)) {
    aux_name <- fit$model$family$aux_name
    b <- as.matrix(fit)
    aux <- b[, aux_name]
    mu <- posterior_epred(fit)
    expect_equal(mu, exp(posterior_linpred(fit)))
    y <- fit$model$y
    ll <- log_lik(fit)
    ref <- if (aux_name == "shape") {
      dgamma(matrix(y, nrow(mu), ncol(mu), byrow = TRUE), shape = aux, rate = aux / mu, log = TRUE)
    } else {
      dnbinom(matrix(y, nrow(mu), ncol(mu), byrow = TRUE), size = aux, mu = mu, log = TRUE)
    }
    expect_equal(ll, ref)
    # Predictive draws: mean mu and the family's variance, over many draws of one row.
    yrep <- posterior_predict(fit, seed = 1)
    expect_identical(dim(yrep), dim(mu))
    expect_true(all(yrep >= 0))
    one <- rep(1, 20)
    draws <- posterior_predict(fit, newdata = if (aux_name == "shape") data.frame(Temp = 80 * one, Wind = 9 * one) else
      MASS::quine[rep(1, 20), ], seed = 2)
    expect_equal(mean(draws), mean(posterior_epred(fit, newdata = if (aux_name == "shape")
      data.frame(Temp = 80, Wind = 9) else MASS::quine[1, ])), tolerance = 0.1)
    r2 <- bayes_R2(fit)
    expect_true(all(r2 > 0 & r2 < 1))
    expect_true(is.numeric(predict(fit, type = "response")))
    if (requireNamespace("loo", quietly = TRUE)) expect_s3_class(quiet(loo::loo(fit)), "psis_loo")
    if (requireNamespace("bayesplot", quietly = TRUE)) expect_s3_class(bayesplot::pp_check(fit, ndraws = 10, seed = 1), "ggplot")
  }
  expect_output(print(prior_summary(nb_fit)), "Auxiliary \\(reciprocal_dispersion\\)")
  expect_output(print(prior_summary(ga_fit)), "Auxiliary \\(shape\\)")
  expect_true("shape" %in% colnames(as.matrix(ga_fit)))
})

test_that("bad responses name the response and the family", {
  d <- data.frame(x = 1:6, k = c(0, 1, 2, -1, 3, 4), kf = c(0, 1.5, 2, 1, 3, 4), y = c(1, 2, 0, 3, 4, 5))
  expect_error(vhmc_glm(k ~ x, data = d, family = neg_binomial_2()),
               "response `k` has negative values; negative binomial counts must be >= 0")
  expect_error(vhmc_glm(kf ~ x, data = d, family = neg_binomial_2()),
               "response `kf` has non-integer values; negative binomial counts must be whole numbers")
  expect_error(vhmc_glm(y ~ x, data = d, family = Gamma(link = "log")),
               "response `y` has values <= 0; the Gamma family needs positive outcomes")
  expect_error(vhmc_glm(y ~ x, data = d, family = Gamma()), "response `y` has values <= 0; the Gamma family")
  expect_error(neg_binomial_2(link = "logit"), "`link` of neg_binomial_2\\(\\) must be one of \"log\", \"identity\", \"sqrt\"")
  expect_error(vhmc_glm(y ~ x, data = d, family = neg_binomial_2(), prior_aux = normal(1, 2)),
               "half-normal on reciprocal_dispersion and needs location 0")
  expect_error(vhmc_glm(I(y + 1) ~ x, data = d, family = Gamma("log"), init = c(`(Intercept)` = 0, x = 0, shape = -1)),
               "gives shape = -1 for chain 1; shape must be positive")
})
