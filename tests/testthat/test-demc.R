# demc(): differential-evolution MCMC for targets written in R, exact on known posteriors,
# both modes of a mixture in a box weighed right, one model run per chain and iteration,
# reproducible on any number of cores, and its refusals.

test_that("demc() gives the conjugate posteriors with declared bounds and priors", {
  # p ~ U(0, 1), 13 of 20: Beta(14, 8); lambda ~ Exponential(0.1), counts 3, 5, 4: Gamma(13, 3.1)
  ld <- function(th) dbinom(13, 20, th[["p"]], log = TRUE) + sum(dpois(c(3, 5, 4), th[["lambda"]], log = TRUE))
  fit <- quiet_sample(list(log_density = ld), lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                      prior = list(lambda = exponential(0.1)), sampler = demc(), iter = 6000, seed = 3)
  expect_identical(posterior::nchains(fit$draws), 4L)
  expect_moments(fit, c(14 / 22, 13 / 3.1), c(sqrt(14 * 8 / (22^2 * 23)), sqrt(13) / 3.1))
  expect_identical(names(fit$diagnostics[[1]]), "accept_stat__")
  expect_length(fit$demc, 4L)
  expect_true(all(vapply(fit$demc, `[[`, numeric(1), "moves_sampling") > 300))
  # One model run per chain and iteration (and one at each start), none for gradients.
  runs <- fit$counts$log_density_calls
  expect_equal(runs, fit$counts$n_potential)
  expect_true(all(runs <= 6001) && all(runs > 5900))
  expect_identical(fit$counts$gradient_calls, rep(0, 4))
  expect_output(print(fit), "differential-evolution MCMC")
  expect_identical(unique(fit$model_runs$phase), c("start", "warmup", "sampling"))
  expect_equal(sum(fit$model_runs$log_density[-1]), sum(runs))
  expect_output(print(summary(fit)), "Model runs \\(log_density calls\\): start [0-9]+; warmup [0-9,]+; sampling")
})

test_that("demc() finds both modes of a mixture inside a box and weighs them", {
  ld <- function(th) log(0.3 * dnorm(th[["x"]], -4, 0.5) + 0.7 * dnorm(th[["x"]], 4, 0.5)) +
    dnorm(th[["y"]], 0, 1, log = TRUE)
  fit <- quiet_sample(list(log_density = ld), lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
                      sampler = demc(), iter = 10000, seed = 2)
  right <- posterior::as_draws_array(posterior::mutate_variables(fit$draws, right = as.numeric(x > 0)))
  s <- summarise_capped(posterior::subset_draws(right, "right"), "mean", "mcse_mean")
  expect_lt(abs(s$mean - 0.7) / s$mcse_mean, 4)
  # Every chain on its own weighs the modes right (its own MCSE): it visits both.
  chains <- posterior::extract_variable_matrix(right, "right")
  z <- apply(chains, 2, function(v) abs(mean(v) - 0.7) / posterior::mcse_mean(v))
  expect_true(all(z < 4), info = paste(round(z, 2), collapse = " "))
  expect_true(all(apply(chains, 2, function(v) any(v == 0) && any(v == 1))))
})

test_that("demc() draws are the same on one core and two; a stuck population warns", {
  ld <- function(th) -sum(th^2) / 2
  run <- function(cores) quiet_sample(list(log_density = ld), init = "random", parameters = c("a", "b"),
                                      sampler = demc(), iter = 400, seed = 9, cores = cores)
  expect_identical(posterior::as_draws_array(run(1)), posterior::as_draws_array(run(2)))
  # A density finite at the start only: no proposal is ever accepted.
  spike <- function(th) if (all(th == 0)) 0 else -Inf
  caught <- NULL
  withCallingHandlers(
    quiet_sample(list(log_density = spike), init = c(a = 0, b = 0), sampler = demc(), iter = 200, seed = 1,
                 warnings = TRUE),
    warning = function(w) {
      if (inherits(w, "vhmc_demc_stuck")) caught <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  expect_match(caught, "Chains 1, 2, 3, 4 accepted fewer than 1%")
})

test_that("demc() refuses what it cannot sample, with the fix", {
  ld <- function(th) -sum(th^2) / 2
  expect_error(vhmc_sample(ld, parameters = c("a", "b"), sampler = demc(), chains = 2, progress = FALSE),
               "at least 3 chains")
  expect_error(vhmc_glm(mpg ~ wt, data = mtcars, sampler = demc(), progress = FALSE), "exact gradients")
  expect_error(demc(snooker = 2), "snooker")
  expect_error(demc(gamma = -1), "gamma")
  expect_error(demc(archive_every = 0), "archive_every")
})

test_that("demc()'s settled config agrees with the core's defaults", {
  cfg <- vhmc:::sampler_config(demc(), list(chains = 4L), list())
  core <- vhmc:::vhmc_config_defaults("vhmc_demc")
  expect_setequal(names(cfg), names(core))
  for (k in names(core)) expect_equal(cfg[[k]], core[[k]], info = k)
})
