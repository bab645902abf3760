# Riemannian-manifold HMC with the Fisher metric (rmhmc()): exact against known posteriors
# and NUTS, its settings validated, models without a Fisher metric refused in R.

test_that("rmhmc() validates its arguments", {
  expect_error(rmhmc(steps = 0), "`steps`")
  expect_error(rmhmc(step_size = -1), "`step_size`")
  expect_error(rmhmc(target_accept = 1), "`target_accept`")
  expect_error(rmhmc(fixed_point_tol = 0), "`fixed_point_tol`")
  expect_error(rmhmc(fixed_point_iter = 0.5), "`fixed_point_iter`")
  expect_s3_class(rmhmc(), c("vhmc_rmhmc", "vhmc_sampler"))
})

test_that("rmhmc() refuses models without a Fisher metric before any chain runs", {
  d <- data.frame(x = c(-1, 0, 1, 2), y = c(0.1, 0.9, 2.2, 2.8))
  expect_error(vhmc_glm(y ~ x, data = d, sampler = rmhmc(), progress = FALSE),
               "`sampler` is rmhmc\\(\\), which needs the Fisher information")
  expect_error(vhmc_sample(function(th) -sum(th^2) / 2, function(th) -th, init = c(a = 0),
                           sampler = rmhmc(), progress = FALSE),
               "binomial\\(logit\\) or poisson\\(log\\)")
})

test_that("rmhmc on a logistic regression agrees with glm() under flat priors", {
  set.seed(3)
  n <- 400
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- rbinom(n, 1, plogis(-0.3 + 0.8 * d$x1 - 0.5 * d$x2))
  ref <- glm(y ~ x1 + x2, data = d, family = binomial())
  fit <- vhmc_glm(y ~ x1 + x2, data = d, family = binomial(), prior = flat(),
                  prior_intercept = flat(), sampler = rmhmc(), chains = 4, iter = 1500, seed = 2,
                  progress = FALSE)
  m <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = names(coef(ref))),
                                  "mean", "sd", "mcse_mean")
  # The posterior mean differs from the MLE by O(1/n); compare within MCSE plus 5% of a se.
  se <- sqrt(diag(vcov(ref)))
  expect_true(all(abs(m$mean - coef(ref)) < 4 * m$mcse_mean + 0.05 * se))
  expect_true(all(abs(m$sd / se - 1) < 0.1))
  expect_equal(sum(sampler_diagnostics(fit)$divergent__), 0)
  expect_true(all(vapply(fit$rmhmc, function(a) a$fixed_point_iterations, numeric(1)) > 0))
  expect_equal(dim(fit$adaptation[[1]]$inv_metric), c(3, 3))
})

test_that("rmhmc on a poisson regression agrees with NUTS; a fixed step size is kept", {
  set.seed(5)
  n <- 300
  d <- data.frame(x = rnorm(n))
  d$y <- rpois(n, exp(0.5 + 0.4 * d$x))
  args <- list(y ~ x, data = d, family = poisson(), chains = 4, seed = 4, progress = FALSE)
  rm <- do.call(vhmc_glm, c(args, list(sampler = rmhmc(step_size = 0.6), iter = 1500)))
  nu <- do.call(vhmc_glm, c(args, list(iter = 4000)))
  expect_equal(unique(sampler_diagnostics(rm)$stepsize__), 0.6)
  a <- posterior::summarise_draws(rm$draws, "mean", "mcse_mean")
  b <- posterior::summarise_draws(nu$draws, "mean", "mcse_mean")
  expect_true(all(abs(a$mean - b$mean) < 4 * sqrt(a$mcse_mean^2 + b$mcse_mean^2)))
  expect_match(paste(capture.output(print(rm)), collapse = " "), "Riemannian-manifold HMC")
})

test_that("rmhmc draws are reproducible", {
  set.seed(7)
  d <- data.frame(x = rnorm(100))
  d$y <- rbinom(100, 1, plogis(d$x))
  run <- function() vhmc_glm(y ~ x, data = d, family = binomial(), sampler = rmhmc(), chains = 2,
                             iter = 300, seed = 11, progress = FALSE)
  expect_identical(as.array(run()), as.array(run()))
})
