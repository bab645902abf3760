# Multilevel GLMs: lme4's group structure for every formula form, the exact posterior of a
# gaussian random-intercept model, the priors' marginals, the two parameterisations, the
# methods, and prediction for new levels.

quiet <- function(expr) suppressWarnings(suppressMessages(expr))
summ <- function(fit, ...) suppressWarnings(posterior::summarise_draws(fit$draws, ...))

grouped_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  d <- data.frame(x = rnorm(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
                  g1 = factor(sample(letters[1:6], n, TRUE)), g2 = factor(sample(LETTERS[1:4], n, TRUE)),
                  g3 = factor(sample(1:9, n, TRUE)))
  d$y <- 1 + 0.5 * d$x + rnorm(6)[d$g1] + 0.5 * rnorm(4)[d$g2] + rnorm(n)
  d
}

test_that("every formula form gives lme4's group structure (mkReTrms)", {
  skip_if_not_installed("lme4")
  d <- grouped_data()
  forms <- list(y ~ x + (1 | g1), y ~ (x | g1), y ~ (x || g1), y ~ (1 | g1) + (0 + x | g2),
                y ~ (1 | g1) + (1 | g2), y ~ (1 | g1 / g2), y ~ (1 | g1:g2), y ~ (f | g1),
                y ~ (1 + x | g1) + (1 | g3))
  for (f in forms) {
    info <- deparse1(f)
    fr <- stats::model.frame(lme4::subbars(f), d)
    ref <- lme4::mkReTrms(lme4::findbars(f), fr)
    ours <- vhmc:::glmer_terms(vhmc:::glmer_bars(f), fr)
    expect_identical(vapply(ours, `[[`, "", "label"), names(ref$Ztlist), info = info)
    for (t in seq_along(ours)) {
      expect_identical(ours[[t]]$cnms, unname(ref$cnms[[t]]), info = info)
      fl <- ref$flist[[attr(ref$flist, "assign")[t]]]
      expect_identical(ours[[t]]$levels, levels(fl), info = info)
      expect_equal(as.matrix(vhmc:::term_matrix(ours[[t]])), as.matrix(ref$Ztlist[[t]]),
                   ignore_attr = TRUE, info = info)
    }
  }
})

# The exact posterior of y = X beta + b_g + e, e ~ N(0, sigma^2), b ~ N(0, (s sigma)^2),
# flat beta, sigma ~ Exp(rate), s ~ Exp(1) (decov's default for one effect, relative to
# sigma): beta and b integrate out, and a grid over (log sigma, log s) gives the moments.
exact_random_intercept <- function(y, X, g, rate) {
  g <- as.integer(factor(g))
  n_j <- tabulate(g)
  Sx <- rowsum(X, g)
  Sy <- rowsum(y, g)[, 1]
  XtX <- crossprod(X)
  Xty <- drop(crossprod(X, y))
  yty <- sum(y^2)
  grid <- expand.grid(ls = seq(log(sd(y)) - 2, log(sd(y)) + 1, length.out = 140),
                      lt = seq(-6, 2.5, length.out = 160))
  terms <- lapply(seq_len(nrow(grid)), function(k) {
    sig <- exp(grid$ls[k])
    s <- exp(grid$lt[k])
    cj <- s^2 / (1 + n_j * s^2)  # (I + s^2 11')^-1 = I - c_j 11'
    A <- (XtX - crossprod(Sx * sqrt(cj))) / sig^2
    bvec <- (Xty - colSums(Sx * (cj * Sy))) / sig^2
    q <- (yty - sum(cj * Sy^2)) / sig^2
    R <- chol(A)
    bh <- backsolve(R, forwardsolve(t(R), bvec))
    logdetV <- 2 * length(y) * log(sig) + sum(log1p(n_j * s^2))
    lp <- -0.5 * logdetV - sum(log(diag(R))) - 0.5 * (q - sum(bvec * bh)) +
      log(rate) - rate * sig + log(s) - s + log(sig)  # priors, Jacobians of the log grid
    list(lp = lp, bh = bh, V = chol2inv(R), sig = sig, tau = s * sig)
  })
  lp <- vapply(terms, `[[`, 0, "lp")
  w <- exp(lp - max(lp))
  w <- w / sum(w)
  bh <- t(vapply(terms, `[[`, numeric(ncol(X)), "bh"))
  mean_b <- colSums(w * bh)
  second <- Reduce(`+`, Map(function(t, wk) wk * (t$V + tcrossprod(t$bh)), terms, w))
  m <- function(x) sum(w * x)
  sig <- vapply(terms, `[[`, 0, "sig")
  tau <- vapply(terms, `[[`, 0, "tau")
  list(mean = c(mean_b, sigma = m(sig), tau = m(tau)),
       sd = c(sqrt(diag(second) - mean_b^2), sigma = sqrt(m(sig^2) - m(sig)^2), tau = sqrt(m(tau^2) - m(tau)^2)))
}

check_exact <- function(fit, exact, vars) {
  dr <- posterior::as_draws_array(fit)
  tau <- posterior::mutate_variables(posterior::subset_draws(dr, variable = grep("^Sigma\\[", posterior::variables(dr), value = TRUE)),
                                     tau = sqrt(.data[[grep("^Sigma", posterior::variables(dr), value = TRUE)]]))
  s <- suppressWarnings(posterior::summarise_draws(posterior::bind_draws(posterior::subset_draws(dr, variable = vars),
                                                                         posterior::subset_draws(tau, variable = "tau")),
                                                   "mean", "sd", "mcse_mean"))
  z <- abs(as.numeric(s$mean) - exact$mean) / as.numeric(s$mcse_mean)
  expect_true(all(z < 4), info = paste("z:", paste(round(z, 2), collapse = " ")))
  ratio <- as.numeric(s$sd) / exact$sd
  expect_true(all(abs(ratio - 1) < 0.1), info = paste("sd ratio:", paste(round(ratio, 3), collapse = " ")))
}

test_that("a gaussian random-intercept model matches its exact posterior (sleepstudy, simulated)", {
  skip_on_cran()
  skip_if_not_installed("lme4")
  cases <- list(sleep = list(d = lme4::sleepstudy, f = Reaction ~ Days + (1 | Subject), rate = 1 / 50),
                sim = list(d = grouped_data(seed = 3), f = y ~ x + (1 | g1), rate = 1))
  for (cs in cases) {
    fit <- quiet(vhmc_glm(cs$f, data = cs$d, prior = flat(), prior_intercept = flat(),
                          prior_aux = exponential(cs$rate), chains = 4, iter = 3000, seed = 4, progress = FALSE))
    mf <- stats::model.frame(lme4::subbars(cs$f), cs$d)
    X <- stats::model.matrix(lme4::nobars(cs$f), mf)
    y <- stats::model.response(mf)
    g <- mf[[length(mf)]]
    exact <- exact_random_intercept(y, X, g, cs$rate)
    check_exact(fit, exact, c(colnames(X), "sigma"))
  }
})

# Means within 4 MCSE and sds within 10 % of the known prior moments, for columns of q
# (draws in the fit's chain order).
expect_prior_moments <- function(q, fit, mean, sd) {
  n_chain <- posterior::nchains(fit$draws)
  arr <- array(q, c(nrow(q) / n_chain, n_chain, ncol(q)), dimnames = list(NULL, NULL, colnames(q)))
  s <- suppressWarnings(posterior::summarise_draws(posterior::as_draws_array(arr), "mean", "sd", "mcse_mean"))
  z <- abs(as.numeric(s$mean) - mean) / as.numeric(s$mcse_mean)
  expect_true(all(z < 4), info = paste("z:", paste(round(z, 2), collapse = " ")))
  expect_true(all(abs(as.numeric(s$sd) / sd - 1) < 0.1),
              info = paste("sd ratio:", paste(round(as.numeric(s$sd) / sd, 3), collapse = " ")))
}

test_that("prior-only runs reproduce the decov and LKJ marginals", {
  skip_on_cran()
  d <- grouped_data(seed = 5)
  fit <- quiet(vhmc_glm(y ~ x + (1 + x | g1), data = d, prior_PD = TRUE,
                        prior_covariance = decov(regularization = 2, shape = 2, scale = 0.5),
                        chains = 4, iter = 4000, seed = 6, progress = FALSE))
  m <- as.matrix(fit)
  S11 <- m[, "Sigma[g1:(Intercept),(Intercept)]"]
  S21 <- m[, "Sigma[g1:x,(Intercept)]"]
  S22 <- m[, "Sigma[g1:x,x]"]
  # trace = 2 s^2 sigma^2 with s ~ Gamma(2, scale 0.5); shares ~ Dirichlet(1, 1); LKJ(2):
  # (rho + 1) / 2 ~ Beta(2, 2).
  qs <- cbind(s = sqrt((S11 + S22) / (2 * m[, "sigma"]^2)), share = S11 / (S11 + S22), rho = S21 / sqrt(S11 * S22))
  expect_prior_moments(qs, fit, mean = c(1, 0.5, 0), sd = c(sqrt(2) * 0.5, sqrt(1 / 12), 2 * sqrt(4 / (16 * 5))))
  fit <- quiet(vhmc_glm(I(y > 1) ~ x + (1 + x | g1), data = d, family = binomial(), prior_PD = TRUE,
                        prior_covariance = lkj(regularization = 1, scale = 2, df = 3),
                        chains = 4, iter = 4000, seed = 7, progress = FALSE))
  m <- as.matrix(fit)
  sd1 <- sqrt(m[, "Sigma[g1:(Intercept),(Intercept)]"])
  rho <- m[, "Sigma[g1:x,(Intercept)]"] / sqrt(m[, "Sigma[g1:(Intercept),(Intercept)]"] * m[, "Sigma[g1:x,x]"])
  # Half-t(3, 0, 2): P(sd < 2) = 2 pt(1, 3) - 1; LKJ(1) for p = 2: rho uniform on (-1, 1).
  p2 <- 2 * pt(1, 3) - 1
  expect_prior_moments(cbind(below2 = sd1 < 2, rho = rho), fit, mean = c(p2, 0), sd = c(sqrt(p2 * (1 - p2)), 1 / sqrt(3)))
})

sleep_fit <- function(...) {
  quiet(vhmc_glm(Reaction ~ Days + (Days | Subject), data = lme4::sleepstudy, chains = 4,
                 iter = 2000, seed = 8, progress = FALSE, ...))
}

# Posterior means and sds of `vars` in fits a and b agree within 4 combined MCSE (the sds'
# own MCSE: variances of 18 groups have heavy tails, whose sample sds scatter by several
# percent at 4000 draws).
expect_same_means <- function(a, b, vars) {
  sa <- summ(a, "mean", "mcse_mean", "sd", "mcse_sd")
  sb <- summ(b, "mean", "mcse_mean", "sd", "mcse_sd")
  ia <- match(vars, sa$variable)
  ib <- match(vars, sb$variable)
  n <- function(s, col, i) as.numeric(s[[col]][i])
  z <- abs(n(sa, "mean", ia) - n(sb, "mean", ib)) / sqrt(n(sa, "mcse_mean", ia)^2 + n(sb, "mcse_mean", ib)^2)
  expect_true(all(z < 4), info = paste("z:", paste(round(z, 2), collapse = " ")))
  zs <- abs(n(sa, "sd", ia) - n(sb, "sd", ib)) / sqrt(n(sa, "mcse_sd", ia)^2 + n(sb, "mcse_sd", ib)^2)
  expect_true(all(zs < 4), info = paste("sd z:", paste(round(zs, 2), collapse = " ")))
}

test_that("centred, non-centred and integrated-out effects give the same posterior", {
  skip_on_cran()
  skip_if_not_installed("lme4")
  fc <- sleep_fit(parameterization = "centered")
  fn <- sleep_fit(parameterization = "noncentered")
  fm <- sleep_fit()
  expect_true(all(fc$model$glmer$centred))
  expect_false(any(fn$model$glmer$centred))
  expect_true(fm$model$glmer$marginal)
  expect_false(fc$model$glmer$marginal)
  # The chains sample intercept, slope, log sigma and the 3 covariance parameters only; b is
  # reported for all 18 levels.
  expect_equal(length(fm$adaptation[[1]]$inv_metric), 6L)
  expect_equal(posterior::nvariables(fm$draws), posterior::nvariables(fc$draws))
  vars <- c("(Intercept)", "Days", "sigma", "Sigma[Subject:(Intercept),(Intercept)]", "Sigma[Subject:Days,Days]",
            "Sigma[Subject:Days,(Intercept)]", "b[(Intercept) Subject:308]", "b[Days Subject:372]")
  expect_same_means(fc, fn, vars)
  expect_same_means(fm, fc, vars)
  expect_output(print(fc), "\\(Days \\| Subject\\) 18 levels, centred \\(parameterization = \"centered\"\\)")
  expect_output(print(fm), "18 levels, integrated out \\(effects drawn from their conditional\\)")
})

test_that("integrated-out effects: the same draws for a seed on any number of cores; refused where impossible", {
  skip_on_cran()
  d <- grouped_data(n = 120, seed = 9)
  one <- quiet(vhmc_glm(y ~ x + (x | g1), data = d, chains = 2, iter = 300, seed = 3, cores = 1, progress = FALSE))
  two <- quiet(vhmc_glm(y ~ x + (x | g1), data = d, chains = 2, iter = 300, seed = 3, cores = 2, progress = FALSE))
  expect_true(one$model$glmer$marginal)
  expect_identical(posterior::as_draws_array(one), posterior::as_draws_array(two))
  expect_error(vhmc_glm(y > 1 ~ x + (1 | g1), data = d, family = binomial(), parameterization = "marginal"),
               "cannot be integrated out: the binomial\\(logit\\) likelihood has no closed form for it")
  expect_error(vhmc_glm(y ~ x + (1 | g1) + (1 | g2), data = d, parameterization = "marginal"),
               "the formula has 2 group-level terms")
  pd <- quiet(vhmc_glm(y ~ x + (1 | g1), data = d, prior_PD = TRUE, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_false(pd$model$glmer$marginal)
})

test_that("methods: fixef, ranef, coef, VarCorr, ngrps, sigma, and rstanarm's names", {
  skip_if_not_installed("lme4")
  fit <- quiet(vhmc_glm(Reaction ~ Days + (Days | Subject), data = lme4::sleepstudy, chains = 2,
                        iter = 600, seed = 9, progress = FALSE))
  expect_s3_class(fit, c("vhmc_glmer", "vhmc_glm", "vhmc_fit"), exact = TRUE)
  nm <- colnames(as.matrix(fit))
  expect_true(all(c("b[(Intercept) Subject:308]", "b[Days Subject:308]",
                    "Sigma[Subject:(Intercept),(Intercept)]", "Sigma[Subject:Days,(Intercept)]",
                    "Sigma[Subject:Days,Days]") %in% nm))
  m <- as.matrix(fit)
  expect_equal(fixef(fit), apply(m[, c("(Intercept)", "Days")], 2, median))
  re <- ranef(fit)$Subject
  expect_identical(dim(re), c(18L, 2L))
  expect_equal(re["309", "Days"], median(m[, "b[Days Subject:309]"]))
  expect_equal(coef(fit)$Subject["309", "Days"], fixef(fit)[["Days"]] + re["309", "Days"])
  vc <- VarCorr(fit)
  expect_equal(attr(vc$Subject, "stddev")[["Days"]], sqrt(median(m[, "Sigma[Subject:Days,Days]"])))
  expect_equal(vc$Subject["Days", "Days"], median(m[, "Sigma[Subject:Days,Days]"]))
  vd <- as.data.frame(vc)
  expect_identical(names(vd), c("grp", "var1", "var2", "vcov", "sdcor"))
  expect_identical(vd$grp, c("Subject", "Subject", "Subject", "Residual"))
  expect_identical(vd$var1[1:3], c("(Intercept)", "Days", "(Intercept)"))
  expect_identical(vd$var2[1:3], c(NA, NA, "Days"))
  expect_equal(vd$sdcor[4], sigma(fit))
  expect_output(print(vc), "Residual")
  expect_identical(ngrps(fit), c(Subject = 18L))
  expect_equal(sigma(fit), median(m[, "sigma"]))
  # The fitted rows' linear predictor: fixed plus group-level part.
  eta <- posterior_linpred(fit)
  i <- 11
  s <- lme4::sleepstudy$Subject[i]
  expect_equal(eta[, i], m[, "(Intercept)"] + m[, "Days"] * lme4::sleepstudy$Days[i] +
                 m[, sprintf("b[(Intercept) Subject:%s]", s)] + m[, sprintf("b[Days Subject:%s]", s)] *
                 lme4::sleepstudy$Days[i], ignore_attr = TRUE)
  expect_equal(posterior_linpred(fit, re.form = NA)[, i], m[, "(Intercept)"] + m[, "Days"] * lme4::sleepstudy$Days[i],
               ignore_attr = TRUE)
  # as_draws without the group effects keeps everything else.
  fixed <- posterior::variables(as_draws_df(fit, group_effects = FALSE))
  expect_identical(fixed, c("(Intercept)", "Days", "sigma", "Sigma[Subject:(Intercept),(Intercept)]",
                            "Sigma[Subject:Days,(Intercept)]", "Sigma[Subject:Days,Days]"))
  expect_identical(posterior::variables(as_draws_matrix(fit, group_effects = FALSE)), fixed)
  expect_error(as_draws_array(fit, group_effects = NA), "group_effects")
  # prior_summary() lists the covariance prior with the others (as specified and as used).
  expect_output(print(prior_summary(fit)), "Covariance of the group-level terms \\(1 term\\)\n  specified: decov\\(")
  lkj_fit <- quiet(update(fit, prior_covariance = lkj(scale = 2), iter = 200))
  expect_output(print(prior_summary(lkj_fit)), "adjusted:  lkj\\(regularization = 1, scale = [0-9.]+, df = 1\\)")
})

test_that("new levels: an error by default; gaussian, uncertainty and old_levels draws", {
  skip_if_not_installed("lme4")
  fit <- quiet(vhmc_glm(Reaction ~ Days + (Days | Subject), data = lme4::sleepstudy, chains = 2,
                        iter = 1000, seed = 10, progress = FALSE))
  nd <- data.frame(Days = 0, Subject = c("308", "new1", "new2"))
  expect_error(posterior_linpred(fit, newdata = nd), "levels of `Subject` the fit has not seen: new1, new2")
  m <- as.matrix(fit)
  fixed <- m[, "(Intercept)"]
  g <- posterior_linpred(fit, newdata = nd, allow_new_levels = TRUE, seed = 1) - fixed
  expect_equal(g[, 1], m[, "b[(Intercept) Subject:308]"], ignore_attr = TRUE)
  # Independent draws for each new level, with the term's variance.
  expect_lt(abs(cor(g[, 2], g[, 3])), 0.15)
  expect_equal(var(g[, 2]), mean(m[, "Sigma[Subject:(Intercept),(Intercept)]"]), tolerance = 0.2)
  old <- posterior_linpred(fit, newdata = nd, allow_new_levels = TRUE, sample_new_levels = "old_levels", seed = 1) - fixed
  b_int <- m[, grep("^b\\[\\(Intercept\\)", colnames(m))]
  same <- apply(b_int, 2, function(col) isTRUE(all.equal(unname(col), unname(old[, 2]))))
  expect_equal(sum(same), 1L)  # one existing level for every draw
  unc <- posterior_linpred(fit, newdata = nd, allow_new_levels = TRUE, sample_new_levels = "uncertainty", seed = 1) - fixed
  from <- vapply(seq_len(nrow(m)), function(s) which(abs(b_int[s, ] - unc[s, 2]) < 1e-9)[1], 1L)
  expect_false(anyNA(from))
  expect_gt(length(unique(from)), 10L)  # a level drawn per posterior draw
  expect_error(posterior_linpred(fit, re.form = ~ (1 | Other)), "names terms the fit does not have")
})

test_that("nuts, hmc and rwm sample multilevel models; rmhmc, surrogate and variational HMC on sampled effects are refused before any chain", {
  skip_on_cran()
  d <- grouped_data(n = 120, seed = 12)
  ref <- quiet(vhmc_glm(y ~ x + (1 | g1), data = d, chains = 2, iter = 2000, seed = 2, progress = FALSE))
  r <- summ(ref, "mean", "sd", "mcse_mean")
  for (s in list(hmc(), rwm())) {
    fit <- quiet(vhmc_glm(y ~ x + (1 | g1), data = d, sampler = s, chains = 2,
                          iter = if (inherits(s, "vhmc_rwm")) 20000 else 2000, seed = 2, progress = FALSE))
    m <- summ(fit, "mean", "mcse_mean")
    z <- abs(as.numeric(m$mean) - as.numeric(r$mean)) / sqrt(as.numeric(m$mcse_mean)^2 + as.numeric(r$mcse_mean)^2)
    expect_true(all(z < 5), info = paste(class(s)[1], paste(round(z, 2), collapse = " ")))
  }
  # Refused from the target's capabilities, before anything runs (the other samplers take
  # them: test-sg-glmer.R, test-glmer-modes.R).
  expect_error(vhmc_glm(y ~ x + (1 | g1), data = d, sampler = rmhmc()), "rmhmc\\(\\), which needs a metric tensor")
  expect_error(vhmc_glm(y ~ x + (1 | g1), data = d, init = c(a = 1)), "`init` must be NULL or \"random\"")
  expect_error(vhmc_glm(y ~ x + (1 | g1), data = d, prior_covariance = normal()), "must be decov\\(\\) or lkj\\(\\)")
  expect_error(vhmc_glm(y ~ x + (1 | g1), data = d, parameterization = "centred"), "must be one of \"auto\"")
})

# Nested data: `n_outer` outer levels with `per` inner levels each (lme4's (1 | g1/g2)).
nested_data <- function(n = 600, n_outer = 8, per = 5, seed = 1) {
  set.seed(seed)
  o <- sample(n_outer, n, TRUE)
  i <- sample(per, n, TRUE)
  d <- data.frame(x = rnorm(n), u = runif(n), g1 = factor(o), g2 = factor(i), w = sample(1:3, n, TRUE),
                  off = rnorm(n, 0, 0.1))
  d$y <- 1 + 0.5 * d$x + rnorm(n_outer)[o] + 0.6 * rnorm(n_outer * per)[(o - 1) * per + i] +
    0.3 * rnorm(n_outer)[o] * d$x + rnorm(n)
  d
}

# The potential of a fitted multilevel model with every term centred or not (`centred`),
# with its gaussian likelihood from the cells (`cells`) or the row pass.
fit_potential <- function(fit, centred, cells) {
  model <- fit$model
  spec <- vhmc:::glm_spec(model, vhmc:::resolve_family(gaussian()), model$priors)
  spec$groups <- vhmc:::glmer_spec_groups(model, model$priors, spec$y_scale, centred)
  spec$cells <- cells
  ptr <- vhmc:::vhmc_glm_model(spec)
  list(dim = vhmc:::vhmc_glm_layout(ptr)$dim, eval = function(theta) vhmc:::vhmc_glm_potential(ptr, theta))
}

test_that("the gaussian likelihood from cells equals the row pass's (nested, several terms, one term)", {
  d <- nested_data()
  forms <- list(y ~ x + (1 | g1 / g2), y ~ x + (x | g1 / g2), y ~ x + (1 + u | g1) + (1 | g2),
                y ~ x + (x | g1:g2))
  set.seed(3)
  for (f in forms) {
    for (extra in list(list(), list(weights = d$w, offset = d$off))) {
      fit <- quiet(do.call(vhmc_glm, c(list(f, data = d, chains = 1, iter = 20, seed = 1, progress = FALSE,
                                            parameterization = "noncentered"), extra)))
      nt <- length(fit$model$glmer$terms)
      for (centred in list(rep(FALSE, nt), rep(TRUE, nt), seq_len(nt) %% 2 == 1)) {
        rows <- fit_potential(fit, centred, FALSE)
        cells <- fit_potential(fit, centred, TRUE)
        expect_identical(cells$dim, rows$dim)
        theta <- matrix(rnorm(5 * rows$dim, sd = 0.7), 5)
        r <- rows$eval(theta)
        cl <- cells$eval(theta)
        info <- paste(deparse1(f), length(extra), paste(centred, collapse = ","))
        expect_equal(cl$value, r$value, tolerance = 1e-10, info = info)
        expect_lt(max(abs(cl$gradient - r$gradient)) / max(1, abs(r$gradient)), 1e-10)
      }
    }
  }
})

test_that("nested gaussian fits: integrated out by default, from the cells when sampled, one posterior", {
  skip_on_cran()
  d <- nested_data(n = 800, seed = 4)
  fit <- function(...) quiet(vhmc_glm(y ~ x + (1 | g1 / g2), data = d, weights = w, chains = 4, iter = 2000, seed = 5,
                                      progress = FALSE, ...))
  marginal <- fit()
  cells <- fit(parameterization = "centered")
  rows <- withr::with_options(list(vhmc.glmer_cells = FALSE), fit(parameterization = "centered"))
  expect_identical(marginal$model$glmer$likelihood, "marginal")
  expect_identical(cells$model$glmer$likelihood, "cells")
  expect_identical(rows$model$glmer$likelihood, "rows")
  expect_equal(cells$model$glmer$cells, nlevels(interaction(d$g1, d$g2, drop = TRUE)))
  # The chains sample intercept, slope, log sigma and one sd per term; every effect is reported.
  expect_equal(length(marginal$adaptation[[1]]$inv_metric), 5L)
  expect_identical(posterior::variables(marginal$draws), posterior::variables(cells$draws))
  expect_output(print(cells), "gaussian likelihood from per-cell statistics: 40 cells of the grouping factors, 800 rows")
  expect_output(print(marginal), "\\(1 \\| g1\\) 8 levels, integrated out")
  vars <- c("(Intercept)", "x", "sigma", "Sigma[g2:g1:(Intercept),(Intercept)]", "Sigma[g1:(Intercept),(Intercept)]",
            "b[(Intercept) g1:3]", "b[(Intercept) g2:g1:2:3]")
  expect_same_means(cells, rows, vars)
  expect_same_means(marginal, cells, vars)
  expect_error(withr::with_options(list(vhmc.glmer_cells = "yes"), vhmc_glm(y ~ x + (1 | g1 / g2), data = d)),
               "vhmc.glmer_cells")
})

test_that("crossed factors with few cells use them; with as many cells as rows, the row pass", {
  skip_on_cran()
  d <- grouped_data(n = 300, seed = 6)
  few <- quiet(vhmc_glm(y ~ x + (1 | g1) + (1 | g2), data = d, chains = 2, iter = 300, seed = 1, progress = FALSE))
  expect_identical(few$model$glmer$likelihood, "cells")
  expect_equal(few$model$glmer$cells, nlevels(interaction(d$g1, d$g2, drop = TRUE)))
  set.seed(7)
  d$a <- factor(sample(60, nrow(d), TRUE))
  d$b <- factor(sample(60, nrow(d), TRUE))
  many <- quiet(vhmc_glm(y ~ x + (1 | a) + (1 | b), data = d, chains = 2, iter = 300, seed = 1, progress = FALSE))
  expect_gt(many$model$glmer$cells, 250)
  expect_identical(many$model$glmer$likelihood, "rows")
  expect_false(vhmc:::glmer_cells_pay(73421, 73421, 2, 2))  # InstEval: every cell one row
})
