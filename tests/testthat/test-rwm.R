# Adaptive random-walk Metropolis: exact (frozen proposal after warmup), against known
# posteriors; no gradient evaluated; reproducible.

test_that("rwm() validates its arguments", {
  expect_error(rwm(target_accept = 1), "`target_accept` must lie in \\(0, 1\\)")
  expect_error(rwm(scale = 0), "`scale`")
  expect_error(rwm(adapt_covariance = NA), "`adapt_covariance`")
  expect_s3_class(rwm(), c("vhmc_rwm", "vhmc_sampler"))
})

test_that("rwm recovers a correlated Gaussian and learns its covariance", {
  S <- matrix(c(1, 0.9, 0.9, 1), 2)
  P <- solve(S)
  fit <- vhmc_sample(function(th) -0.5 * sum(th * (P %*% th)), init = c(a = 0, b = 0),
                     sampler = rwm(), chains = 4, iter = 6000, seed = 1, progress = FALSE)
  expect_moments(fit, c(0, 0), c(1, 1))
  m <- as.matrix(fit)
  expect_lt(abs(cor(m)[1, 2] - 0.9), 0.03)
  # the proposal covariance learned in warmup is the posterior's, up to its scale
  C <- fit$adaptation[[1]]$inv_metric
  expect_lt(abs(C[1, 2] / sqrt(C[1, 1] * C[2, 2]) - 0.9), 0.05)
  acc <- mean(sampler_diagnostics(fit)$accept_stat__)
  expect_gt(acc, 0.15)
  expect_lt(acc, 0.45)
  expect_identical(fit$counts$n_grad, rep(0, 4))
  expect_identical(fit$counts$n_potential, rep(6001, 4))  # one per iteration and the initial values
})

test_that("rwm on a GLM agrees with glm() under flat priors", {
  set.seed(3)
  n <- 400
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- rbinom(n, 1, plogis(-0.3 + 0.8 * d$x1 - 0.5 * d$x2))
  ref <- glm(y ~ x1 + x2, data = d, family = binomial())
  fit <- vhmc_glm(y ~ x1 + x2, data = d, family = binomial(), prior = flat(),
                  prior_intercept = flat(), sampler = rwm(), chains = 4, iter = 5000, seed = 2,
                  progress = FALSE)
  se <- sqrt(diag(vcov(ref)))
  m <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = names(coef(ref))),
                                  "mean", "sd", "mcse_mean")
  expect_true(all(abs(m$mean - coef(ref)) < 4 * m$mcse_mean + 0.05 * se))
  expect_true(all(abs(m$sd / se - 1) < 0.1))
})

test_that("rwm draws are the same sequentially and in parallel, and print", {
  ld <- function(th) -sum(th^2) / 2
  a <- vhmc_sample(ld, init = c(x = 0), sampler = rwm(), chains = 2, iter = 400, seed = 5,
                   progress = FALSE) |> suppressWarnings()
  b <- vhmc_sample(ld, init = c(x = 0), sampler = rwm(), chains = 2, iter = 400, seed = 5,
                   cores = 2, progress = FALSE) |> suppressWarnings()
  expect_identical(a$draws, b$draws)
  expect_match(capture.output(print(a))[1], "random-walk Metropolis")
  expect_false(any(grepl("Divergences", capture.output(print(a)))))
})

# Issue 24: when every proposal of the first covariance window was rejected, the window's
# covariance was 0, so was its ridge (1e-3 tr(S) / d), and the chain never moved again
# while its scale ran away. The proposal is now shrunk toward the covariance in force and
# updated only after enough accepted moves, and it starts at the Laplace covariance.
ill_conditioned <- function() {
  P <- diag(c(0.01, 100))  # sds 10 and 0.1
  function(t) -0.5 * sum(t * (P %*% t))
}

# The fit of expr, whose convergence warnings (short runs) are muted; a stuck chain fails.
without_stuck_chains <- function(expr) {
  stuck <- 0L
  fit <- withCallingHandlers(expr, warning = function(w) {
    if (inherits(w, "vhmc_rwm_stuck")) stuck <<- stuck + 1L
    invokeRestart("muffleWarning")
  })
  expect_identical(stuck, 0L)
  fit
}

expect_moving_chains <- function(fit, min_rate = 0.1) {
  n <- fit$args$iter - fit$args$warmup
  moves <- vapply(fit$rwm, `[[`, numeric(1), "moves_sampling")
  expect_length(moves, fit$args$chains)
  expect_true(all(moves >= min_rate * n), info = paste("moves:", paste(moves, collapse = " ")))
  for (a in fit$adaptation) {
    expect_true(all(is.finite(a$inv_metric)) && min(eigen(a$inv_metric, symmetric = TRUE)$values) > 0)
    expect_true(is.finite(a$step_size) && a$step_size > 0 && a$step_size < 10)
  }
}

test_that("rwm: the issue's reproduction is a healthy fit (no frozen chain)", {
  fit <- without_stuck_chains(vhmc_sample(ill_conditioned(), parameters = 2, sampler = rwm(), chains = 2,
                                          iter = 600, seed = 1, progress = FALSE))
  expect_moving_chains(fit)
  acc <- tapply(sampler_diagnostics(fit)$accept_stat__, sampler_diagnostics(fit)$.chain, mean)
  expect_true(all(acc > 0.1 & acc < 0.4), info = paste(round(acc, 3), collapse = " "))
  expect_moments(fit, c(0, 0), c(10, 0.1))
  # started at the mode, the proposal starts from the Laplace covariance, here the posterior's
  expect_true(all(vapply(fit$rwm, `[[`, numeric(1), "covariance_updates") > 0))
})

test_that("rwm never freezes on the ill-conditioned target from random starts (several seeds)", {
  for (seed in 1:6) {
    fit <- without_stuck_chains(vhmc_sample(ill_conditioned(), parameters = 2, sampler = rwm(), chains = 4,
                                            iter = 600, seed = seed, init = "random", progress = FALSE))
    expect_moving_chains(fit)
    expect_moments(fit, c(0, 0), c(10, 0.1))
  }
})

test_that("rwm with a long warmup tunes the acceptance rate to its target", {
  fit <- vhmc_sample(ill_conditioned(), parameters = 2, sampler = rwm(), chains = 4, iter = 6000,
                     seed = 3, init = "random", progress = FALSE)
  acc <- mean(sampler_diagnostics(fit)$accept_stat__)
  expect_lt(abs(acc - 0.234), 0.04)
  expect_moments(fit, c(0, 0), c(10, 0.1))
})

test_that("rwm on a GLM from random initial values and from the mode: every chain moves", {
  set.seed(24)
  n <- 150
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n, sd = 5), x3 = rbinom(n, 1, 0.3))
  d$y <- rbinom(n, 1, plogis(0.5 + 0.7 * d$x1 - 0.1 * d$x2 + 0.4 * d$x3))
  for (init in list(NULL, "random")) {
    fit <- without_stuck_chains(vhmc_glm(y ~ x1 + x2 + x3, data = d, family = binomial(), sampler = rwm(),
                                         chains = 4, iter = 3000, seed = 5, init = init, progress = FALSE))
    expect_moving_chains(fit)
    ref <- vhmc_glm(y ~ x1 + x2 + x3, data = d, family = binomial(), chains = 4, iter = 2000, seed = 5,
                    progress = FALSE)
    a <- posterior::summarise_draws(fit$draws, "mean", "sd", "mcse_mean", "mcse_sd")
    b <- posterior::summarise_draws(ref$draws, "mean", "sd", "mcse_mean", "mcse_sd")
    expect_true(all(abs(a$mean - b$mean) < 4 * sqrt(a$mcse_mean^2 + b$mcse_mean^2)))
    expect_true(all(abs(a$sd - b$sd) < 4 * sqrt(a$mcse_sd^2 + b$mcse_sd^2)))
  }
})

test_that("rwm: a chain that accepts (almost) no proposal after warmup is a named warning", {
  ld <- function(th) -sum(th^2) / 2
  stuck <- NULL
  fit <- withCallingHandlers(
    vhmc_sample(ld, init = c(a = 0, b = 0), sampler = rwm(scale = 1e4, adapt_covariance = FALSE),
                chains = 2, iter = 400, seed = 1, progress = FALSE),
    warning = function(w) {
      if (inherits(w, "vhmc_rwm_stuck")) stuck <<- w
      invokeRestart("muffleWarning")
    })
  expect_s3_class(stuck, c("vhmc_rwm_stuck", "warning"))
  w <- stuck
  expect_match(conditionMessage(w), "chains 1, 2 accepted 0, 0 of 200 proposals after warmup")
  expect_match(conditionMessage(w), "rwm\\(scale = NULL\\)")
  expect_identical(vapply(fit$rwm, `[[`, numeric(1), "moves_sampling"), c(0, 0))
  # the adapted sampler on the same target moves, and does not warn so
  ok <- without_stuck_chains(vhmc_sample(ld, init = c(a = 0, b = 0), sampler = rwm(), chains = 2,
                                         iter = 2000, seed = 1, progress = FALSE))
  expect_moving_chains(ok)
})
