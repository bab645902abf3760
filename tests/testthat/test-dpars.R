# Distributional regression (R/dpars.R; the core's glm/dpars.hpp): a gaussian location-scale
# model against mgcv's gaulss() (maximum likelihood of the same model), a zero-inflated
# Poisson with a predictor of zi against pscl::zeroinfl(), group-level terms (the mean's
# against nlme's lme() with varExp(), zi's against glmmTMB), posterior_epred(dpar = ),
# log_lik(), brms's bf() objects, prior_summary(), refusals.

location_scale_data <- function(n = 400, seed = 1) {
  set.seed(seed)
  x <- stats::runif(n)
  z <- stats::rnorm(n)
  data.frame(y = 1 + 2 * x + exp(-0.5 + 0.8 * x + 0.3 * z) * stats::rnorm(n), x, z)
}

flat_dpar <- list(intercept = flat(), coef = flat())

test_that("a gaussian location-scale model matches mgcv's gaulss() under flat priors", {
  d <- location_scale_data()
  fit <- vhmc_glm(bf(y ~ x, sigma ~ x + z), data = d, seed = 1, prior = flat(), prior_intercept = flat(),
                  prior_dpar = flat_dpar)
  expect_match(fit$model$label, "y ~ x, sigma ~ x + z", fixed = TRUE)
  expect_setequal(colnames(as.matrix(fit)), c("(Intercept)", "x", "sigma_(Intercept)", "sigma_x", "sigma_z"))
  g <- mgcv::gam(list(y ~ x, ~ x + z), family = mgcv::gaulss(), data = d)
  m <- as.matrix(fit)
  # The mean's coefficients and each observation's sigma against the maximum likelihood:
  # the gap is the posterior mean's O(1/n) distance from the mode (measured: at most 0.23
  # posterior sd for sigma_i, 0.02 for the coefficients).
  expect_true(all(abs(colMeans(m[, c("(Intercept)", "x")]) - stats::coef(g)[1:2]) / apply(m[, 1:2], 2, stats::sd) < 0.25))
  s <- posterior_epred(fit, dpar = "sigma")
  expect_equal(dim(s), c(4000L, nrow(d)))
  sig_g <- 1 / stats::predict(g, type = "response")[, 2]
  expect_lt(max(abs(colMeans(s) - sig_g) / apply(s, 2, stats::sd)), 0.4)
  # log_lik(): each row's own sigma.
  i <- 5
  mu <- m[, "(Intercept)"] + m[, "x"] * d$x[i]
  si <- exp(m[, "sigma_(Intercept)"] + m[, "sigma_x"] * d$x[i] + m[, "sigma_z"] * d$z[i])
  expect_equal(log_lik(fit)[, i], stats::dnorm(d$y[i], mu, si, log = TRUE), tolerance = 1e-10)
  expect_equal(s[, i], si, tolerance = 1e-10)
  # New data, and a constant parameter's draws repeated per observation.
  nd <- data.frame(x = c(0, 1), z = c(0, 0))
  expect_equal(posterior_epred(fit, newdata = nd, dpar = "sigma")[, 2], exp(m[, "sigma_(Intercept)"] + m[, "sigma_x"]),
               tolerance = 1e-10)
  expect_equal(dim(posterior_predict(fit, newdata = nd, seed = 1)), c(4000L, 2L))
})

test_that("a zero-inflated Poisson with a predictor of zi matches pscl::zeroinfl()", {
  skip_if_not_installed("pscl")
  set.seed(2)
  n <- 600
  x <- stats::rnorm(n)
  z <- stats::rnorm(n)
  zi <- stats::plogis(-0.5 + 1.2 * z)
  y <- ifelse(stats::runif(n) < zi, 0, stats::rpois(n, exp(0.8 + 0.5 * x)))
  d <- data.frame(y, x, z)
  ref <- pscl::zeroinfl(y ~ x | z, data = d, dist = "poisson")
  fit <- vhmc_glm(bf(y ~ x, zi ~ z), data = d, family = zero_inflated_poisson(), seed = 2, prior = flat(),
                  prior_intercept = flat(), prior_dpar = flat_dpar)
  m <- as.matrix(fit)
  cf <- c(stats::coef(ref, "count"), stats::coef(ref, "zero"))
  nm <- c("(Intercept)", "x", "zi_(Intercept)", "zi_z")
  expect_true(all(abs(colMeans(m[, nm]) - cf) / apply(m[, nm], 2, stats::sd) < 0.3))
  expect_true(all(posterior_epred(fit, dpar = "zi") > 0 & posterior_epred(fit, dpar = "zi") < 1))
})

test_that("Student-t with a predictor of nu, brms's bf() objects, prior_summary()", {
  d <- location_scale_data(200, seed = 3)
  fit <- vhmc_glm(bf(y ~ x, nu ~ z), data = d, family = student(), seed = 1, chains = 2, iter = 1000)
  expect_true(all(c("sigma", "nu_(Intercept)", "nu_z") %in% colnames(as.matrix(fit))))
  expect_true(all(posterior_epred(fit, dpar = "nu") > 1))
  out <- capture.output(print(prior_summary(fit)))
  expect_true(any(grepl("Distributional nu: intercept", out)))
  expect_false(any(grepl("Auxiliary \\(nu\\)", out)))
  skip_if_not_installed("brms")
  fb <- vhmc_glm(brms::bf(y ~ x, sigma ~ z), data = d, seed = 1, chains = 2, iter = 1000)
  expect_true("sigma_z" %in% colnames(as.matrix(fb)))
})

test_that("group-level terms of the mean beside a formula of sigma match nlme's lme() with varExp()", {
  set.seed(4)
  n <- 600
  d <- data.frame(x = stats::rnorm(n), z = stats::runif(n), g = factor(sample(30, n, TRUE)))
  b <- stats::rnorm(30, 0, 0.7)
  d$y <- 1 + 0.5 * d$x + b[d$g] + stats::rnorm(n, 0, exp(-0.5 + 1.2 * d$z))
  fit <- vhmc_glm(bf(y ~ x + (1 | g), sigma ~ z), data = d, seed = 1, prior = flat(), prior_intercept = flat(),
                  prior_dpar = flat_dpar)
  expect_s3_class(fit, "vhmc_glmer")
  expect_false(fit$model$priors$prior_covariance$adjusted$relative_to_sigma)  # sigma varies: brms's prior
  # Maximum likelihood: sigma_i = sigma exp(delta z_i), i.e. log sigma_i = log sigma + delta z_i.
  ref <- nlme::lme(y ~ x, random = ~ 1 | g, weights = nlme::varExp(form = ~ z), data = d, method = "ML")
  cf <- c(nlme::fixef(ref), log(ref$sigma), stats::coef(ref$modelStruct$varStruct, unconstrained = FALSE))
  m <- as.matrix(fit)
  nm <- c("(Intercept)", "x", "sigma_(Intercept)", "sigma_z")
  # Measured: within 0.06 posterior sd (the intercept's posterior mean and the ML differ by
  # the group sd's uncertainty).
  expect_true(all(abs(colMeans(m[, nm]) - cf) / apply(m[, nm], 2, stats::sd) < 0.3))
  expect_equal(unname(fixef(fit)[nm]), unname(apply(m[, nm], 2, stats::median)))
  expect_null(attr(VarCorr(fit), "sc"))
  expect_error(sigma(fit), "one sigma per observation.*dpar = \"sigma\"")
})

test_that("group-level terms in the formula of zi match glmmTMB's ziformula", {
  skip_if_not_installed("glmmTMB")
  set.seed(3)
  n <- 1000
  d <- data.frame(x = stats::rnorm(n), z = stats::rnorm(n), g = factor(sample(30, n, TRUE)))
  b <- stats::rnorm(30, 0, 0.5)
  bz <- stats::rnorm(30, 0, 0.8)
  zi <- stats::plogis(-0.5 + d$z + bz[d$g])
  d$y <- ifelse(stats::runif(n) < zi, 0, stats::rpois(n, exp(0.8 + 0.5 * d$x + b[d$g])))
  fit <- vhmc_glm(bf(y ~ x + (1 | g), zi ~ z + (1 | g)), data = d, family = zero_inflated_poisson(), seed = 1,
                  chains = 2, prior = flat(), prior_intercept = flat(), prior_dpar = flat_dpar)
  ref <- suppressWarnings(glmmTMB::glmmTMB(y ~ x + (1 | g), ziformula = ~ z + (1 | g), family = stats::poisson, data = d))
  m <- as.matrix(fit)
  nm <- c("(Intercept)", "x", "zi_(Intercept)", "zi_z")
  cf <- c(glmmTMB::fixef(ref)$cond, glmmTMB::fixef(ref)$zi)
  # Measured: within 0.1 posterior sd; the standard deviations' medians within 4 % of the
  # Laplace-approximate ML.
  expect_true(all(abs(colMeans(m[, nm]) - cf) / apply(m[, nm], 2, stats::sd) < 0.3))
  vc <- VarCorr(fit)
  expect_equal(names(vc), c("g", "g.1"))
  ref_sd <- c(attr(glmmTMB::VarCorr(ref)$cond$g, "stddev"), attr(glmmTMB::VarCorr(ref)$zi$g, "stddev"))
  expect_equal(unname(c(attr(vc$g, "stddev"), attr(vc$g.1, "stddev"))), unname(ref_sd), tolerance = 0.2)
  expect_equal(colnames(ranef(fit)$g), c("(Intercept)", "zi_(Intercept)"))
  expect_match(capture.output(print(fit))[3], "(zi: 1 | g) 30 levels, centred (information ratio", fixed = TRUE)
})

test_that("a term of sigma's formula enters sigma: log_lik(), posterior_epred(), new levels, re.form", {
  set.seed(5)
  n <- 300
  d <- data.frame(x = stats::rnorm(n), z = stats::runif(n), g = factor(sample(10, n, TRUE)))
  d$y <- 1 + 0.5 * d$x + stats::rnorm(n, 0, exp(-0.5 + d$z + stats::rnorm(10, 0, 0.5)[d$g]))
  fit <- vhmc_glm(bf(y ~ x, sigma ~ z + (1 | g)), data = d, seed = 1, chains = 2, iter = 1000)
  m <- as.matrix(fit)
  expect_true(all(c("b[sigma_(Intercept) g:3]", "Sigma[g:sigma_(Intercept),sigma_(Intercept)]") %in% colnames(m)))
  i <- 7
  k <- as.character(d$g[i])
  si <- exp(m[, "sigma_(Intercept)"] + m[, "sigma_z"] * d$z[i] + m[, sprintf("b[sigma_(Intercept) g:%s]", k)])
  expect_equal(posterior_epred(fit, dpar = "sigma")[, i], si, tolerance = 1e-10)
  mu <- m[, "(Intercept)"] + m[, "x"] * d$x[i]
  expect_equal(log_lik(fit)[, i], stats::dnorm(d$y[i], mu, si, log = TRUE), tolerance = 1e-10)
  nd <- data.frame(x = 0, z = 0.5, g = c(k, "new"))
  expect_error(posterior_epred(fit, newdata = nd, dpar = "sigma"), "levels of `g` the fit has not seen")
  s_new <- posterior_epred(fit, newdata = nd, dpar = "sigma", allow_new_levels = TRUE, seed = 2)
  expect_equal(s_new[, 1], exp(m[, "sigma_(Intercept)"] + m[, "sigma_z"] * 0.5 + m[, sprintf("b[sigma_(Intercept) g:%s]", k)]),
               tolerance = 1e-10)
  # A new level's effect is an independent N(0, Sigma_s) draw for each posterior draw s, so
  # z_s = effect_s / sqrt(Sigma_s) are iid standard normal: their mean and mean square are
  # within 4 Monte Carlo standard errors (1 / sqrt(S), sqrt(2 / S)) of 0 and 1.
  z <- (log(s_new[, 2]) - m[, "sigma_(Intercept)"] - m[, "sigma_z"] * 0.5) /
    sqrt(m[, "Sigma[g:sigma_(Intercept),sigma_(Intercept)]"])
  expect_lt(abs(mean(z)), 4 / sqrt(length(z)))
  expect_lt(abs(mean(z^2) - 1), 4 * sqrt(2 / length(z)))
  s0 <- posterior_epred(fit, newdata = nd, dpar = "sigma", re.form = NA)
  expect_equal(s0[, 2], exp(m[, "sigma_(Intercept)"] + m[, "sigma_z"] * 0.5), tolerance = 1e-10)
  expect_equal(dim(posterior_predict(fit, newdata = nd, allow_new_levels = TRUE, seed = 1)), c(1000L, 2L))
  # conditional_effects() shows every formula's variables (as brms), the others at their
  # reference values; a factor of the mean alone gives no contrasts warning in sigma's design.
  d$f <- factor(rep(c("a", "b", "c"), length.out = n))
  fit_f <- suppressWarnings(vhmc_glm(bf(y ~ x + f, sigma ~ z + (1 | g)), data = d, seed = 1, chains = 1, iter = 400))
  expect_named(conditional_effects(fit_f), c("x", "f", "z"))
  # A term of sigma has its own covariance prior (as given: the link scale has no units),
  # and its own internal names.
  expect_match(capture.output(print(prior_summary(fit_f))), "distributional formulas' group-level terms \\(1, link scale\\)",
               all = FALSE)
  expect_false(anyDuplicated(names(fit_f$adaptation[[1]]$inv_metric)) > 0)
  # dpar = "sigma": the effects of sigma's formula, sigma's draws (group terms left out by
  # re_formula = NA), no observations as points.
  ce <- conditional_effects(fit, dpar = "sigma", resolution = 5)
  expect_named(ce, "z")
  expect_equal(attr(ce, "response"), "sigma")
  zs <- ce$z$effect1__
  expect_equal(ce$z$estimate__, vapply(zs, function(v) stats::median(exp(m[, "sigma_(Intercept)"] + m[, "sigma_z"] * v)), 1),
               tolerance = 1e-10)
  expect_null(attr(ce$z, "points"))
  expect_error(conditional_effects(fit, dpar = "sigma", method = "posterior_predict"), "`dpar` shows a parameter's draws")
  expect_error(conditional_effects(fit, dpar = "nu"), "`dpar` must name an auxiliary parameter of the gaussian family")
  expect_no_warning(posterior_epred(fit_f, newdata = data.frame(x = 0, f = "b", z = 0.5, g = "1"), dpar = "sigma"))
  # A formula of group-level terms alone (its intercept kept), and of the intercept alone.
  f1 <- suppressWarnings(vhmc_glm(bf(y ~ x, sigma ~ (1 | g)), data = d, seed = 1, chains = 1, iter = 400))
  expect_true(all(c("sigma_(Intercept)", "b[sigma_(Intercept) g:1]") %in% colnames(as.matrix(f1))))
  f0 <- suppressWarnings(vhmc_glm(bf(y ~ x, sigma ~ 1), data = d, seed = 1, chains = 1, iter = 400))
  expect_true("sigma_(Intercept)" %in% colnames(as.matrix(f0)))
})

test_that("Pearson residuals use each observation's modelled parameter", {
  set.seed(6)
  n <- 200
  d <- data.frame(x = stats::rnorm(n), z = stats::rnorm(n))
  d$y <- stats::rnbinom(n, mu = exp(1 + 0.3 * d$x), size = exp(1 + 0.8 * d$z))
  fit <- suppressWarnings(vhmc_glm(bf(y ~ x, reciprocal_dispersion ~ z), data = d, family = neg_binomial_2(),
                                   seed = 1, chains = 1, iter = 400))
  mu <- colMeans(posterior_epred(fit))
  phi <- apply(posterior_epred(fit, dpar = "reciprocal_dispersion"), 2L, stats::median)
  expect_equal(unname(residuals(fit, type = "pearson")), (d$y - mu) / sqrt(mu + mu^2 / phi), tolerance = 1e-10)
})

test_that("distributional formulas refuse what is not available, naming the fix", {
  d <- location_scale_data(50)
  d$g <- factor(rep(1:5, 10))
  expect_error(vhmc_glm(bf(y ~ x, phi ~ z), data = d), "`formula` models `phi`.*Its auxiliary parameters: sigma")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ z), data = d, family = poisson()), "no auxiliary parameter")
  expect_error(vhmc_glm(bf(y ~ x + (1 | g), sigma ~ z), data = d, parameterization = "marginal"),
               "distributional formulas have no closed form")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ 0 + z), data = d), "removes the intercept")
  expect_error(vhmc_glm(bf(y ~ x + (1 | g), sigma ~ (1 | p | g)), data = d), "do not correlate across formulas")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ mo(z)), data = d), "brms's syntax for a monotonic effect")
  # The user's contrasts reach a parameter's formula by the frame's name of the variable.
  fc <- suppressWarnings(vhmc_glm(bf(mpg ~ factor(cyl), sigma ~ factor(cyl)), data = mtcars, chains = 1, iter = 200,
                                  seed = 1, contrasts = list("factor(cyl)" = "contr.sum")))
  expect_true(all(c("factor(cyl)1", "sigma_factor(cyl)1") %in% colnames(as.matrix(fc))))
  expect_error(bf(y ~ x, sigma ~ z, sigma ~ x), "two formulas")
  expect_error(bf(y ~ x, ~ z), "formulas of auxiliary parameters")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ z), data = d, prior_dpar = normal(0, 1)), "`prior_dpar` must be a list")
  fit <- suppressWarnings(vhmc_glm(bf(y ~ x, sigma ~ z), data = d, chains = 1, iter = 400, seed = 1))
  expect_error(posterior_epred(fit, dpar = "nu"), "`dpar` must name an auxiliary parameter")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ z), data = d, sampler = sghmc()), "`sampler`.*distributional formulas")
  # formula() keeps the distributional formula, and update() changes the mean's.
  expect_s3_class(formula(fit), "vhmc_bf")
  expect_equal(formula(fit)$pforms$sigma, sigma ~ z, ignore_attr = TRUE)
  up <- suppressWarnings(update(fit, . ~ . - x))
  expect_match(up$model$label, "y ~ 1, sigma ~ z", fixed = TRUE)
})

test_that("a smooth of sigma (mcycle) follows mgcv's gaulss(), without divergences", {
  data(mcycle, package = "MASS", envir = environment())
  fit <- vhmc_glm(bf(accel ~ s(times), sigma ~ s(times)), data = mcycle, seed = 1)
  expect_true(all(c("sigma_s(times).fx1", "sds[sigma_s(times)]") %in% colnames(as.matrix(fit))))
  expect_equal(sum(sampler_diagnostics(fit)$divergent__), 0)
  g <- mgcv::gam(list(accel ~ s(times), ~ s(times)), family = mgcv::gaulss(), data = mcycle)
  s <- posterior_epred(fit, dpar = "sigma")
  z <- (colMeans(s) - 1 / stats::predict(g, type = "response")[, 2]) / apply(s, 2, stats::sd)
  # The smoothing of gaulss (REML-like) and the posterior differ most where sigma is
  # smallest (the first milliseconds); measured: median |z| 0.18, max 1.2.
  expect_lt(stats::median(abs(z)), 0.5)
  expect_lt(max(abs(z)), 2)
  nd <- data.frame(times = c(5, 20, 40))
  expect_equal(dim(posterior_epred(fit, newdata = nd, dpar = "sigma")), c(4000L, 3L))
})
