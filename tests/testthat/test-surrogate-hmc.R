# surrogate_hmc() is exact: its draws must agree with NUTS (or the known truth) within Monte
# Carlo error, with a good surrogate and with a deliberately poor one, which may only cost
# efficiency. The hand-over to NUTS is decided from measured seconds, so the tests that
# check the surrogate's own draws keep it with fallback = FALSE, and those of the hand-over
# force it by the acceptance rule, which no clock enters.

# |mean_a - mean_b| and |sd_a - sd_b| within k combined MCSEs, for every variable.
expect_same_posterior <- function(a, b, k = 4) {
  sa <- summarise_capped(a$draws, "mean", "sd", "mcse_mean", "mcse_sd")
  sb <- summarise_capped(b$draws, "mean", "sd", "mcse_mean", "mcse_sd")
  num <- function(x) as.numeric(x)
  zm <- abs(num(sa$mean) - num(sb$mean)) / sqrt(num(sa$mcse_mean)^2 + num(sb$mcse_mean)^2)
  zs <- abs(num(sa$sd) - num(sb$sd)) / sqrt(num(sa$mcse_sd)^2 + num(sb$mcse_sd)^2)
  expect_true(all(zm < k), info = paste("mean z:", paste(round(zm, 2), collapse = " ")))
  expect_true(all(zs < k), info = paste("sd z:", paste(round(zs, 2), collapse = " ")))
}

banana <- local({
  set.seed(2016)
  y <- 1 + 2 * rnorm(100)
  list(
    log_density = function(th) -sum((y - th[1] - th[2]^2)^2) / 8 - sum(th^2) / 2,
    gradient = function(th) {
      r <- sum(y - th[1] - th[2]^2) / 4
      c(r - th[1], 2 * th[2] * r - th[2])
    }
  )
})

test_that("surrogate_hmc() validates its arguments", {
  expect_error(surrogate_hmc(hidden = 0), "`hidden`")
  expect_error(surrogate_hmc(activation = "relu"), "`activation` must be one of")
  expect_error(surrogate_hmc(train_on = "both"), "`train_on`")
  expect_error(surrogate_hmc(lambda = -1), "`lambda`")
  expect_error(surrogate_hmc(explore = 5), "`explore`")
  expect_error(surrogate_hmc(adaptive = NA), "`adaptive`")
  expect_error(surrogate_hmc(fallback = NA), "`fallback`")
  expect_error(surrogate_hmc(riemann = TRUE, fallback = TRUE), "`fallback` = TRUE is not available")
  expect_error(quiet_sample(banana, init = c(a = 0, b = 0), sampler = surrogate_hmc(explore = 400),
                            chains = 1, iter = 400, warmup = 300), "explore = 400")
  expect_snapshot(print(surrogate_hmc()))
})

test_that("surrogate HMC reproduces the banana posterior of NUTS", {
  skip_on_cran()
  ref <- quiet_sample(banana, init = c(a = 0, b = 0), chains = 4, iter = 3000, seed = 1)
  fit <- quiet_sample(banana, init = c(a = 0, b = 0), sampler = surrogate_hmc(hidden = 40, fallback = FALSE),
                      chains = 4, iter = 3000, seed = 2)
  expect_same_posterior(fit, ref)
  info <- surrogate_info(fit)
  expect_equal(info$hidden, rep(40, 4))
  expect_true(all(info$accept > 0.5))
  # after warmup: one true log density per iteration and no true gradient
  expect_equal(fit$counts$n_grad_sampling, rep(0, 4))
  expect_gte(min(fit$counts$n_potential), 1500)
})

test_that("a deliberately poor surrogate costs efficiency, not correctness or acceptance", {
  skip_on_cran()
  # 10-d Gaussian with correlation 0.5 and sds 1..10: known moments.
  d <- 10
  sds <- seq(1, 10, length.out = d)
  target <- equicorrelated_target(sds, 0.5)
  good <- quiet_sample(target, parameters = d, sampler = surrogate_hmc(fallback = FALSE), chains = 4, iter = 2000,
                       seed = 3)
  # Gradient training fits a quadratic base first, which is exact here whatever the bases;
  # ten bases fitted to values (no quadratic base) are a poor surrogate.
  poor <- quiet_sample(target, parameters = d, sampler = surrogate_hmc(hidden = 10, train_on = "value", fallback = FALSE),
                       chains = 4, iter = 3000, seed = 4)
  expect_moments(good, rep(0, d), sds)
  expect_moments(poor, rep(0, d), sds)
  # Trajectory tuning reaches its acceptance target (0.65) in sampling with either surrogate
  # (the poor one by much shorter trajectories; both step sizes are near the cap from the
  # leapfrog's energy error), every chain within [0.45, 1]; what the poor surrogate costs is
  # movement: its squared jumps per iteration, relative to the exploration's NUTS, are a
  # small fraction of the good one's.
  gi <- surrogate_info(good)
  poor_i <- surrogate_info(poor)
  expect_true(all(c(gi$accept, poor_i$accept) > 0.45), info = paste(round(c(gi$accept, poor_i$accept), 2), collapse = " "))
  expect_lt(max(poor_i$integration_time), 0.25 * min(gi$integration_time))
  expect_lt(max(poor_i$jump_ratio), 0.25 * min(gi$jump_ratio))
  expect_lt(max(surrogate_info(good)$grad_rel_error), 0.05)
  expect_true(all(vapply(good$surrogate, `[[`, logical(1), "metric_from_base")))
  expect_true(all(surrogate_info(good)$predicted_ess > 1))
  # The papers' mode: fixed step size and steps (1..steps), the exploration's metric.
  fixed <- quiet_sample(target, parameters = d, chains = 4, iter = 2000, seed = 5,
                        sampler = surrogate_hmc(steps = 12, step_size = 0.5))
  expect_moments(fixed, rep(0, d), sds)
  info <- surrogate_info(fixed)
  expect_equal(info$step_size, rep(0.5, 4))
  expect_equal(info$steps, rep(12, 4))
  expect_false(any(vapply(fixed$surrogate, `[[`, logical(1), "metric_from_base")))
  expect_error(surrogate_hmc(step_size = 0), "`step_size`")
})

test_that("surrogate HMC on a logistic regression agrees with NUTS; adaptive too", {
  skip_on_cran()
  set.seed(5)
  n <- 2000
  X <- matrix(rnorm(n * 4), n)
  dat <- data.frame(y = rbinom(n, 1, plogis(0.3 + X %*% c(1, -0.5, 0.25, 0))), X)
  args <- list(y ~ ., data = dat, family = binomial(), chains = 4, iter = 2000, progress = FALSE)
  ref <- suppressWarnings(do.call(vhmc_glm, c(args, seed = 6)))
  fit <- suppressWarnings(do.call(vhmc_glm, c(args, seed = 7, sampler = list(surrogate_hmc(fallback = FALSE)))))
  ada <- suppressWarnings(do.call(vhmc_glm, c(args, seed = 8,
                                              sampler = list(surrogate_hmc(adaptive = TRUE, hidden = 60)))))
  expect_same_posterior(fit, ref)
  expect_same_posterior(ada, ref)
  expect_true(all(surrogate_info(ada)$n_refresh > 10))
  expect_true(all(surrogate_info(fit)$accept > 0.6))
  # Every chain's sampling acceptance is in the band the tuning promises (surrogate_info()).
  expect_true(all(surrogate_info(fit)$accept_in_band), info = paste(surrogate_info(fit)$accept, collapse = " "))
  expect_match(paste(capture.output(print(fit)), collapse = "\n"), "surrogate: .* softplus bases")
})

test_that("surrogate fits are reproducible and parallel-safe", {
  skip_on_cran()
  skip_on_os("windows")
  a <- quiet_sample(banana, init = c(a = 0, b = 0), sampler = surrogate_hmc(fallback = FALSE), chains = 2,
                    iter = 600, seed = 9, cores = 1)
  b <- quiet_sample(banana, init = c(a = 0, b = 0), sampler = surrogate_hmc(fallback = FALSE), chains = 2,
                    iter = 600, seed = 9, cores = 2)
  expect_identical(as.array(a), as.array(b))
})

test_that("a collapsed acceptance is reported with its fixes", {
  fit <- quiet_sample(banana, init = c(a = 0, b = 0), sampler = surrogate_hmc(hidden = 40, fallback = FALSE),
                      chains = 2, iter = 300, seed = 1)
  expect_silent(vhmc:::check_surrogate(fit))
  fit$diagnostics[[2]]$accept_stat__[] <- 0.05
  expect_warning(vhmc:::check_surrogate(fit),
                 "acceptance rate is below 0.1 in chain 2 \\(0.05\\).*more hidden units")
  expect_error(surrogate_info(quiet_sample(banana, init = c(a = 0, b = 0), chains = 1, iter = 200,
                                           seed = 1)), "not made with surrogate_hmc")
})

test_that("a surrogate that will not pay off hands over to NUTS at the end of warmup", {
  skip_on_cran()
  # Two bases fitted to values (no quadratic base: held-out gradient error ~100%) and 40
  # fixed steps: the surrogate cannot drive trajectories (and the tuning's acceptance is near
  # 0, measured 0.003 and 0.016, below half its target), so every chain continues with NUTS
  # whatever the clock says. fallback = TRUE asks for the check although steps are fixed.
  d <- 10
  sds <- seq(1, 10, length.out = d)
  target <- equicorrelated_target(sds, 0.5)
  run <- function(fallback, seed = 21) {
    vhmc_sample(target$log_density, target$gradient, parameters = d, chains = 2, iter = 1000,
                seed = seed, progress = FALSE,
                sampler = surrogate_hmc(steps = 40, hidden = 2, train_on = "value", fallback = fallback))
  }
  expect_message(fit <- suppressWarnings(run(TRUE)),
                 "chains 1, 2 continued with NUTS on the true gradient: the surrogate could not fit")
  info <- surrogate_info(fit)
  expect_equal(info$fallback, c(TRUE, TRUE))
  expect_equal(info$fallback_unfit, c(TRUE, TRUE))
  expect_true(all(info$grad_rel_error > info$held_out_error_threshold))
  expect_true(all(info$tuning_accept < 0.65 / 2))
  # NUTS's warmup went on after the hand-over, within the warmup, and NUTS samples near its target.
  expect_true(all(info$fallback_warmup > 0))
  expect_equal(info$explore + info$tuning + info$fallback_warmup, fit$timing$warmup_iterations)
  expect_true(all(info$accept > 0.6 & info$accept < 0.97))
  expect_equal(info$accept_target, c(0.8, 0.8))
  expect_true(all(info$accept_in_band), info = paste(info$accept, collapse = " "))
  # NUTS's draws: true gradients while sampling (the surrogate needs none), the moments.
  expect_true(all(fit$counts$n_grad_sampling > 500))
  expect_moments(fit, rep(0, d), sds)
  # Reproducible: the same seed, the same decision and draws.
  again <- suppressWarnings(suppressMessages(run(TRUE)))
  expect_identical(as.array(again), as.array(fit))
  # fallback = FALSE keeps the surrogate (and its poor acceptance, with a warning).
  kept <- suppressWarnings(suppressMessages(run(FALSE)))
  expect_equal(surrogate_info(kept)$fallback, c(FALSE, FALSE))
  expect_equal(kept$counts$n_grad_sampling, c(0, 0))
})

test_that("a target whose gradient is cheap hands over to NUTS before training", {
  skip_on_cran()
  # 150 rows and 15 coefficients: the 600 bases drawn (40 d) make a surrogate gradient about
  # four times a true one, so even an exact surrogate cannot beat NUTS (measured best-case
  # efficiency ~0.1-0.3 against the 2 a hand-over asks): the decision does not depend on the
  # machine's load, and the chains hand over without training.
  set.seed(31)
  n <- 150
  d <- 15
  X <- matrix(rnorm(n * d), n)
  dat <- data.frame(y = rbinom(n, 1, plogis(X %*% rep(c(0.5, -0.5, 0), 5))), X)
  run <- function(sampler, seed = 32) {
    vhmc_glm(y ~ ., data = dat, family = binomial(), sampler = sampler, chains = 2, iter = 1500,
             seed = seed, progress = FALSE)
  }
  expect_message(fit <- suppressWarnings(run(surrogate_hmc())),
                 "chains 1, 2 continued with NUTS on the true gradient without training a surrogate")
  info <- surrogate_info(fit)
  expect_equal(info$fallback_before_training, c(TRUE, TRUE))
  expect_equal(info$fallback, c(TRUE, TRUE))
  expect_true(all(info$predicted_efficiency_ratio < 1))
  # Not even an accurate surrogate's acceptance (0.85) would pay: no trial, however cheap.
  expect_true(all(info$predicted_efficiency_if_accurate < 2))
  expect_true(all(info$predicted_efficiency_if_accurate > info$predicted_efficiency_ratio))
  expect_true(all(info$trial_share > 0))
  # Nothing trained or tuned: NUTS's warmup goes on after the exploration, then NUTS.
  expect_true(all(is.na(info$hidden)))
  expect_equal(info$tuning, c(0, 0))
  expect_equal(info$n_surrogate_grad, c(0, 0))
  expect_equal(info$explore + info$fallback_warmup, fit$timing$warmup_iterations)
  expect_true(all(fit$counts$n_grad_sampling > 500))
  expect_match(paste(capture.output(print(fit)), collapse = "\n"), "none trained")
  # NUTS's warmup went on where the exploration left it, so the chains are nuts()'s, draw
  # for draw (the decision draws from the surrogate's own random stream).
  expect_identical(as.array(fit), as.array(suppressWarnings(run(nuts()))))
  # So with Stan's windows, re-planned at the hand-over for the warmup's whole length.
  expect_identical(as.array(suppressWarnings(suppressMessages(run(surrogate_hmc(adaptation = "stan"))))),
                   as.array(suppressWarnings(run(nuts(adaptation = "stan")))))
  # Reproducible: the same seed, the same decision and draws.
  again <- suppressWarnings(suppressMessages(run(surrogate_hmc())))
  expect_identical(as.array(again), as.array(fit))
  # fallback = FALSE trains (and measures nothing before training).
  kept <- suppressWarnings(suppressMessages(run(surrogate_hmc(fallback = FALSE))))
  kinfo <- surrogate_info(kept)
  expect_equal(kinfo$fallback_before_training, c(FALSE, FALSE))
  expect_true(all(is.na(kinfo$predicted_efficiency_ratio)))
  expect_true(all(is.na(kinfo$trial_share)))
  expect_true(all(kinfo$hidden >= 0) && all(kinfo$tuning > 0))
})

test_that("the hand-over is on for the automatic sampler only, unless asked", {
  f <- vhmc:::surrogate_fallback
  expect_true(f(surrogate_hmc()))
  expect_false(f(surrogate_hmc(steps = 10)))
  expect_false(f(surrogate_hmc(step_size = 0.1)))
  expect_false(f(surrogate_hmc(adaptive = TRUE)))
  expect_false(f(surrogate_hmc(riemann = TRUE)))
  expect_true(f(surrogate_hmc(steps = 10, fallback = TRUE)))
  expect_false(f(surrogate_hmc(fallback = FALSE)))
})

test_that("a chain that hands over because its surrogate could not fit says so", {
  info <- data.frame(chain = 1:2, fallback_unfit = c(TRUE, TRUE), grad_rel_error = c(0.97, 0.91),
                     held_out_error_threshold = 0.5, efficiency_ratio = c(2.9, 14.7), ess_ratio = 0.005,
                     payoff_cost_ratio = c(580, 2940), tuning_accept = 0.4)
  msg <- fallback_message(info, c(TRUE, TRUE), "chains 1, 2")
  expect_match(msg, "could not fit the\\s+log density \\(held-out gradient error 97, 91%, above the 50%")
  expect_match(msg, "whatever its cost")
  # Otherwise the costs are named, as before.
  info$fallback_unfit <- FALSE
  expect_match(fallback_message(info, c(TRUE, FALSE), "chain 1"), "efficiency relative to NUTS 2.9")
})
