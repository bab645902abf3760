# Censored responses (R/censoring.R; the core's censored rows in
# inst/include/vhmc/model/glm/family/censored.hpp): against survival::survreg() under flat
# priors (lognormal right censoring, gaussian left, right and interval censoring) and against
# the maximum of a censored likelihood written here with R's own cdfs (Gamma, inverse
# Gaussian, Student-t); brms's and survival's spellings give the same draws; log_lik(),
# loo(), kfold(), group terms, update(); refusals.

# A right-censored data set: responses from `draw`, censored at exponential times of mean 4.
right_censored <- function(draw, n = 300, seed = 3) {
  set.seed(seed)
  x <- stats::rnorm(n)
  t <- draw(x)
  cpt <- stats::rexp(n, 1 / 4)
  data.frame(x, y = pmin(t, cpt), status = as.integer(t <= cpt), st = ifelse(t <= cpt, "none", "right"))
}

# |posterior mean - reference| in posterior sds, per coefficient.
z_gap <- function(fit, ref, names) {
  m <- as.matrix(fit)[, names, drop = FALSE]
  abs(colMeans(m) - ref) / apply(m, 2, stats::sd)
}

test_that("a right-censored lognormal model matches survreg() under flat priors", {
  d <- right_censored(function(x) stats::rlnorm(length(x), 1 + 0.5 * x, 0.7))
  ref <- survival::survreg(survival::Surv(y, status) ~ x, data = d, dist = "lognormal")
  fit <- vhmc_glm(y | cens(st) ~ x, data = d, family = lognormal(), seed = 1, prior = flat(), prior_intercept = flat())
  expect_match(fit$model$label, sprintf("%d right-censored", sum(d$status == 0)))
  # Posterior means against the maximum likelihood: the gap is the O(1/n) difference between
  # a posterior mean and a mode (measured 0.05 and 0.06 sd) plus Monte Carlo error.
  expect_true(all(z_gap(fit, stats::coef(ref), c("(Intercept)", "x")) < 0.25))
  sigma <- as.matrix(fit)[, "sigma"]
  expect_lt(abs(stats::median(sigma) - ref$scale) / stats::sd(sigma), 0.4)
  # survival's spelling and brms's other codes give the same draws.
  same <- function(f) expect_identical(as.matrix(fit), as.matrix(f))
  same(vhmc_glm(survival::Surv(y, status) ~ x, data = d, family = lognormal(), seed = 1, prior = flat(), prior_intercept = flat()))
  d$code <- ifelse(d$status == 1, 0, 1)
  d$flag <- d$status == 0
  same(vhmc_glm(y | cens(code) ~ x, data = d, family = lognormal(), seed = 1, prior = flat(), prior_intercept = flat()))
  same(vhmc_glm(y | cens(flag) ~ x, data = d, family = lognormal(), seed = 1, prior = flat(), prior_intercept = flat()))
  # log_lik(): the censored rows' log survival probabilities.
  ll <- log_lik(fit)
  m <- as.matrix(fit)
  i <- which(d$status == 0)[1:3]
  eta <- m[, "(Intercept)"] + outer(m[, "x"], d$x[i])
  expect_equal(ll[, i], stats::plnorm(rep(d$y[i], each = nrow(m)), eta, m[, "sigma"], lower.tail = FALSE, log.p = TRUE),
               ignore_attr = TRUE, tolerance = 1e-12)
  j <- which(d$status == 1)[1]
  expect_equal(ll[, j], stats::dlnorm(d$y[j], m[, "(Intercept)"] + m[, "x"] * d$x[j], m[, "sigma"], log = TRUE),
               tolerance = 1e-12)
  skip_if_not_installed("loo")
  expect_s3_class(suppressWarnings(loo::loo(fit)), "psis_loo")
})

test_that("left, right and interval censoring of a gaussian model match survreg()", {
  set.seed(4)
  n <- 400
  x <- stats::rnorm(n)
  y <- 2 + 0.8 * x + stats::rnorm(n)
  kind <- ifelse(y < 1, "left", ifelse(y > 4, "right", ifelse(seq_len(n) %% 3 == 0, "interval", "none")))
  lo <- ifelse(kind == "left", 1, ifelse(kind == "right", 4, ifelse(kind == "interval", floor(y), y)))
  hi <- ifelse(kind == "interval", floor(y) + 1, lo)
  d <- data.frame(x, lo, hi, kind)
  s_lo <- ifelse(kind == "left", NA, lo)
  s_hi <- ifelse(kind == "right", NA, hi)
  ref <- survival::survreg(survival::Surv(s_lo, s_hi, type = "interval2") ~ x, dist = "gaussian")
  fit <- vhmc_glm(lo | cens(kind, hi) ~ x, data = d, seed = 2, prior = flat(), prior_intercept = flat())
  expect_match(fit$model$label, "interval-censored")
  expect_true(all(z_gap(fit, stats::coef(ref), c("(Intercept)", "x")) < 0.25))
  sigma <- as.matrix(fit)[, "sigma"]
  expect_lt(abs(stats::median(sigma) - ref$scale) / stats::sd(sigma), 0.4)
  # The interval rows' log_lik() is log(F(hi) - F(lo)).
  m <- as.matrix(fit)
  i <- which(kind == "interval")[1]
  mu <- m[, "(Intercept)"] + m[, "x"] * x[i]
  expect_equal(log_lik(fit)[, i], log(stats::pnorm(hi[i], mu, m[, "sigma"]) - stats::pnorm(lo[i], mu, m[, "sigma"])),
               tolerance = 1e-10)
  # Surv(type = "interval2") gives the same posterior (its own draws: the same data).
  fit2 <- vhmc_glm(survival::Surv(s_lo, s_hi, type = "interval2") ~ x, data = data.frame(x, s_lo, s_hi), seed = 2,
                   prior = flat(), prior_intercept = flat())
  expect_equal(colMeans(as.matrix(fit2)), colMeans(m), tolerance = 0.02)
})

test_that("censored Gamma, inverse Gaussian and Student-t models match their censored maximum likelihood", {
  mu <- function(x) exp(0.5 + 0.4 * x)
  cases <- list(
    list(fam = stats::Gamma("log"), draw = function(x) stats::rgamma(length(x), shape = 2, rate = 2 / mu(x)),
         ll = function(p, d) {
           m <- exp(p[1] + p[2] * d$x)
           a <- exp(p[3])
           ifelse(d$status == 1, stats::dgamma(d$y, a, a / m, log = TRUE),
                  stats::pgamma(d$y, a, a / m, lower.tail = FALSE, log.p = TRUE))
         }),
    list(fam = stats::inverse.gaussian("log"), draw = function(x) rinvgauss(length(x), mu(x), 3),
         ll = function(p, d) {
           m <- exp(p[1] + p[2] * d$x)
           l <- exp(p[3])
           ifelse(d$status == 1, 0.5 * log(l / (2 * pi * d$y^3)) - l * (d$y - m)^2 / (2 * m^2 * d$y),
                  log_pinvgauss(d$y, m, l, TRUE))
         }),
    list(fam = student(), draw = function(x) mu(x) + 0.5 * stats::rt(length(x), 4),
         ll = function(p, d) {
           m <- p[1] + p[2] * d$x
           s <- exp(p[3])
           nu <- 1 + exp(p[4])
           ifelse(d$status == 1, stats::dt((d$y - m) / s, nu, log = TRUE) - log(s),
                  stats::pt((d$y - m) / s, nu, lower.tail = FALSE, log.p = TRUE))
         }))
  for (case in cases) {
    d <- right_censored(case$draw)
    np <- if (case$fam$family == "student") 4L else 3L
    mle <- stats::optim(c(0.3, 0.3, 0, 1)[seq_len(np)], function(p) -sum(case$ll(p, d)), method = "BFGS",
                        control = list(reltol = 1e-12, maxit = 1000))$par
    fit <- vhmc_glm(y | cens(st) ~ x, data = d, family = case$fam, seed = 1, prior = flat(), prior_intercept = flat())
    # Measured gaps 0.04-0.24 sd (the posterior mean's O(1/n) distance from the mode).
    expect_true(all(z_gap(fit, mle[1:2], c("(Intercept)", "x")) < 0.4), label = case$fam$family)
    expect_equal(sum(sampler_diagnostics(fit)$divergent__), 0)
  }
})

test_that("censoring composes with group terms and refits; kfold() reads the held-out rows' censoring", {
  set.seed(5)
  n <- 240
  g <- factor(sample(1:6, n, TRUE))
  x <- stats::rnorm(n)
  y <- 1 + 0.5 * x + stats::rnorm(6, sd = 0.8)[g] + stats::rnorm(n, sd = 0.6)
  d <- data.frame(x, g, y = pmin(y, 2), st = ifelse(y > 2, "right", "none"))
  fit <- vhmc_glm(y | cens(st) ~ x + (1 | g), data = d, seed = 1, chains = 2, iter = 1500)
  expect_equal(formula(fit), y | cens(st) ~ x + (1 | g), ignore_attr = TRUE)
  expect_lt(abs(mean(as.matrix(fit)[, "x"]) - 0.5), 0.15)
  up <- update(fit, . ~ . - x, iter = 1000)
  expect_match(up$model$label, "y | cens(st) ~ (1 | g)", fixed = TRUE)
  expect_match(up$model$label, "right-censored")
  skip_if_not_installed("loo")
  small <- vhmc_glm(y | cens(st) ~ x, data = d, seed = 1, chains = 2, iter = 1000)
  k <- loo::kfold(small, K = 2)
  expect_true(is.finite(k$estimates["elpd_kfold", "Estimate"]))
  # The censored rows enter the held-out log likelihood as probabilities (<= 0).
  ll <- log_lik(small, newdata = d[d$st == "right", ])
  expect_true(all(ll <= 0))
})

test_that("censoring refusals name the argument and the fix", {
  d <- data.frame(x = 1:10, y = c(1:9, 20), st = rep(c("none", "right"), 5), hi = 2:11)
  expect_error(vhmc_glm(y | cens(st) ~ x, data = d, family = poisson()), "`family`.*cannot censor.*gaussian\\(\\)")
  d$bad <- rep(c("none", "upper"), 5)
  expect_error(vhmc_glm(y | cens(bad) ~ x, data = d), "cens\\(\\) the value \"upper\"")
  d$iv <- rep(c("none", "interval"), 5)
  expect_error(vhmc_glm(y | cens(iv) ~ x, data = d), "no upper bounds")
  d$hi2 <- d$y - 1
  expect_error(vhmc_glm(y | cens(iv, hi2) ~ x, data = d), "not above y")
  expect_error(vhmc_glm(y | cens(st) ~ x, data = d, sampler = sghmc()), "censored rows")
  expect_error(vhmc_glm(y | cens() ~ x, data = d), "cens\\(\\) takes the censoring variable")
  expect_error(vhmc_glm(survival::Surv(x - 1, x, rep(1, 10)) ~ 1, data = d), "counting-process")
})

test_that("pp_check() of a right-censored fit draws Kaplan-Meier curves with the censoring", {
  skip_if_not_installed("bayesplot")
  skip_if_not_installed("ggfortify")
  d <- right_censored(function(x) stats::rlnorm(length(x), 1 + 0.5 * x, 0.7), n = 100)
  fit <- vhmc_glm(y | cens(st) ~ x, data = d, family = lognormal(), seed = 1, chains = 2, iter = 1000)
  p <- bayesplot::pp_check(fit, "km_overlay", seed = 1)
  expect_s3_class(p, "ggplot")
  expect_s3_class(bayesplot::pp_check(fit, seed = 1), "ggplot")
  d$st[1] <- "left"
  left <- vhmc_glm(y | cens(st) ~ x, data = d, family = lognormal(), seed = 1, chains = 2, iter = 1000)
  expect_error(bayesplot::pp_check(left, "km_overlay"), "`plotfun`.*right censoring only")
})
