# surrogate_mh(): Metropolis-Hastings with surrogate transitions for targets written in R,
# exact on known posteriors with declared bounds and priors, one model run per chain and
# iteration after its exploration, every run counted, reproducible on any number of cores;
# a mode search that fails or ends at a local mode does not keep a chain there; its refusals.

test_that("surrogate_mh() gives the conjugate posteriors with declared bounds and priors", {
  # p ~ U(0, 1), 13 of 20: Beta(14, 8); lambda ~ Exponential(0.1), counts 3, 5, 4: Gamma(13, 3.1)
  runs <- 0
  ld <- function(th) {
    runs <<- runs + 1
    dbinom(13, 20, th[["p"]], log = TRUE) + sum(dpois(c(3, 5, 4), th[["lambda"]], log = TRUE))
  }
  fit <- quiet_sample(list(log_density = ld), lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                      prior = list(lambda = exponential(0.1)), sampler = surrogate_mh(max_points = 300), seed = 3)
  expect_moments(fit, c(14 / 22, 13 / 3.1), c(sqrt(14 * 8 / (22^2 * 23)), sqrt(13) / 3.1))
  expect_gt(min(posterior::summarise_draws(fit$draws, "ess_bulk")$ess_bulk), 1000)
  expect_length(fit$surrogate_mh, 4L)
  rep1 <- fit$surrogate_mh[[1]]
  expect_lt(rep1$surrogate_error, 0.5)
  expect_identical(rep1$refits, 3)
  expect_true(all(vapply(fit$surrogate_mh, `[[`, numeric(1), "moves_sampling") > 500))
  # The automatic warmup ends after the third refit; at most one run per chain and iteration
  # after the exploration (3 x 6 x 2 refinement draws and 200 pilot draws in all).
  expect_identical(fit$args$warmup_auto, TRUE)
  expect_identical(posterior::niterations(fit$draws), 1000L)
  expect_identical(rep1$exploration_evaluations, 4 * 18 + 200)
  expect_lte(sum(fit$counts$log_density_calls), 4 * 18 + 200 + 4 * (1 + 250 + 1000))
  expect_identical(fit$counts$gradient_calls, rep(0, 4))
  expect_equal(sum(fit$model_runs$log_density), runs)
  expect_output(print(fit), "surrogate transitions")
})

test_that("surrogate_mh() draws are the same on one core and two, with the same seed", {
  ld <- function(th) -0.5 * (th[["a"]]^2 - 1.6 * th[["a"]] * th[["b"]] + th[["b"]]^2) / 0.36
  run <- function(cores) quiet_sample(list(log_density = ld), lower = c(a = -5, b = -5), upper = c(a = 5, b = 5),
                                      sampler = surrogate_mh(max_points = 200), iter = 600, seed = 9, cores = cores)
  a <- run(1)
  expect_identical(posterior::as_draws_array(a), posterior::as_draws_array(run(2)))
  expect_moments(a, c(0, 0), c(1, 1), k = 5)
})

test_that("surrogate_mh(): every chain starts from the best mode the searches found", {
  # Two modes inside the box, 30 nats apart: the searches started from a space-filling
  # design's best points; a chain whose search ends at the minor mode is moved (message).
  ld <- function(th) log(exp(-30) * dnorm(th[["x"]], -4, 0.5) + dnorm(th[["x"]], 4, 0.5)) + dnorm(th[["y"]], log = TRUE)
  expect_message(
    fit <- suppressWarnings(vhmc_sample(ld, lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
                                        init = list(c(x = -4, y = 0), c(x = 4, y = 0), c(x = 3, y = 1), c(x = 5, y = -1)),
                                        sampler = surrogate_mh(max_points = 200), iter = 600, seed = 2, progress = FALSE)),
    "Chain 1 started [0-9.]+ log-density units below the best point")
  expect_gt(min(posterior::extract_variable_matrix(fit$draws, "x")), 0)
  # Given initial values are kept (no mode search): the chain at the minor mode is moved by the
  # core, which reports how far below the best it was (30 nats between the modes' peaks).
  expect_identical(fit$surrogate_mh[[1]]$relocated, 1)
  gap <- fit$surrogate_mh[[1]]$relocated_gap
  expect_identical(which(gap > 0), 1L)
  expect_gt(gap[1], 25)
  expect_lt(gap[1], 35)
  msgs <- character()
  withCallingHandlers(
    suppressWarnings(vhmc_sample(ld, lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
                                 sampler = surrogate_mh(max_points = 200), iter = 400, seed = 2, progress = FALSE)),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_false(any(grepl("random initial values", msgs)))
})

test_that("surrogate_mh(): a surrogate that cannot drive the chains leaves every move to DE-MCzs, and says so", {
  ld <- function(th) dnorm(th[["x"]], log = TRUE) + dnorm(th[["y"]], 1, 2, log = TRUE)
  expect_warning(
    fit <- suppressMessages(vhmc_sample(ld, lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
                                        sampler = surrogate_mh(max_points = 200, max_error = 0), iter = 2000,
                                        seed = 3, progress = FALSE)),
    class = "vhmc_surrogate_mh_unusable")
  r <- fit$surrogate_mh[[1]]
  expect_identical(r$de_share, 1)
  expect_identical(r$de_runs_sampling, r$runs_sampling)
  s <- posterior::summarise_draws(fit$draws, "mean", "mcse_mean")
  expect_true(all(abs(s$mean - c(0, 1)) < 4 * s$mcse_mean))
})

test_that("surrogate_mh(): a model that fails in part of the box rejects those points", {
  # The space-filling design covers the whole box, where the model errors for x > 5.
  ld <- function(th) {
    if (th[["x"]] > 5) stop("the solver failed")
    dnorm(th[["x"]], log = TRUE) + dnorm(th[["y"]], log = TRUE)
  }
  fit <- suppressMessages(suppressWarnings(vhmc_sample(ld, lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
                                                       sampler = surrogate_mh(max_points = 200), iter = 600,
                                                       seed = 4, progress = FALSE)))
  expect_lt(max(posterior::extract_variable_matrix(fit$draws, "x")), 5)
  expect_identical(fit$start$method, "mode")
})

test_that("a failed mode search borrows the best mode for a sampler that screens", {
  a <- suppressMessages(vhmc:::borrowed_anchors(list(list(mode = 0, value = 1, evaluations = 5), NULL),
                                                list(list(chain = 2L, reason = "singular")), c(5, 7), c(0, 0)))
  expect_identical(a[[2]]$mode, 0)
  expect_identical(a[[2]]$evaluations, 7)
  expect_message(vhmc:::borrowed_anchors(list(list(mode = 0, value = 1), NULL),
                                  list(list(chain = 2L, reason = "why")), c(5, 7), c(0, 0)),
                 "chain 2 failed \\(why\\); it starts from chain 1's mode")
  expect_error(vhmc:::borrowed_anchors(list(NULL, NULL), list(list(chain = 1L, reason = "why")), c(5, 7), c(0, 0)),
               class = "vhmc_no_mode")
})

test_that("surrogate_mh() refuses what it cannot sample, with the fix", {
  expect_error(vhmc_glm(mpg ~ wt, data = mtcars, sampler = surrogate_mh(), progress = FALSE),
               "surrogate_mh\\(\\), a gradient-free population sampler.*exact gradients")
  expect_error(surrogate_mh(steps = 0), "steps")
  expect_error(surrogate_mh(pilot = 1.5), "pilot")
  expect_error(surrogate_mh(refine = -1), "refine")
  expect_error(surrogate_mh(max_points = "a"), "max_points")
  expect_error(surrogate_mh(pilot = 2), "`pilot` must be a single whole number >= 3")
  expect_error(surrogate_mh(de_moves = 1.5), "`de_moves` must lie in \\[0, 1\\]")
  expect_error(surrogate_mh(max_error = -1), "`max_error` must lie in")
})

test_that("surrogate_mh()'s settled config agrees with the core's defaults", {
  cfg <- vhmc:::sampler_config(surrogate_mh(), list(chains = 4L), list())
  core <- vhmc:::vhmc_config_defaults("vhmc_surrogate_mh")
  expect_setequal(names(cfg), names(core))
  for (k in names(core)) expect_equal(cfg[[k]], core[[k]], info = k)
})
