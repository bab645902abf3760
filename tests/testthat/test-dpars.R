# Distributional regression (R/dpars.R; the core's glm/dpars.hpp): a gaussian location-scale
# model against mgcv's gaulss() (maximum likelihood of the same model), a zero-inflated
# Poisson with a predictor of zi against pscl::zeroinfl(), posterior_epred(dpar = ),
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

test_that("distributional formulas refuse what is not available, naming the fix", {
  d <- location_scale_data(50)
  d$g <- factor(rep(1:5, 10))
  expect_error(vhmc_glm(bf(y ~ x, phi ~ z), data = d), "`formula` models `phi`.*Its auxiliary parameters: sigma")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ z), data = d, family = poisson()), "no auxiliary parameter")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ z + (1 | g)), data = d), "group-level terms in the formula of sigma")
  expect_error(vhmc_glm(bf(y ~ x + (1 | g), sigma ~ z), data = d), "combines distributional formulas with group-level terms")
  expect_error(vhmc_glm(bf(y ~ x, sigma ~ 0 + z), data = d), "removes the intercept")
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
