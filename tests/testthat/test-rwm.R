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
