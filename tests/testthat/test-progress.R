# progress = TRUE prints from the start: the mode search (when it starts, while it runs and
# when it ends) and every chain after its first iteration, every 10% and every few seconds.
# (The fits are short: their warnings about ESS are beside the point here.)

test_that("the mode search and the chains print from the start (issue 24, item 7)", {
  tg <- gaussian_target(0, 1)
  out <- capture.output(fit <- suppressWarnings(
    vhmc_sample(tg$log_density, tg$gradient, parameters = c("a", "b"), chains = 2, iter = 200,
                seed = 1, progress = TRUE)))
  expect_identical(fit$start$method, "mode")
  expect_identical(out[1], "Chain 1: mode search (L-BFGS, then the Hessian by central differences)")
  expect_match(out[2], "^Chain 1: mode search: done after [0-9]+ evaluations \\([0-9.]+ s\\)$")
  expect_identical(out[3], "Chain 2: mode search (L-BFGS, then the Hessian by central differences)")
  first <- grep("^Chain 1: iteration", out)[1]
  expect_match(out[first], "^Chain 1: iteration +1 / [0-9]+ \\[ +0%\\] \\(warmup\\)$")
  # a GLM's Newton mode is shared by the chains
  d <- data.frame(y = c(1.2, 0.3, 2.2, 1.9, 3.1, 2.6), x = 1:6)
  glm_out <- capture.output(suppressWarnings(
    vhmc_glm(y ~ x, data = d, chains = 1, iter = 100, seed = 1, progress = TRUE)))
  expect_identical(glm_out[1], "Mode search (Newton's method, shared by all chains)")
  expect_match(glm_out[2], "^Mode search: done after [0-9]+ evaluations")
  # nothing without progress
  quiet <- capture.output(quiet_fit <- suppressWarnings(
    vhmc_sample(tg$log_density, tg$gradient, parameters = c("a", "b"), chains = 1, iter = 100,
                seed = 1, progress = FALSE)))
  expect_length(quiet, 0L)
})

test_that("a slow target prints every few seconds, in the mode search and in the chains (issue 24, item 7)", {
  # 20 ms a call and no gradient printed nothing for tens of seconds. Here each call takes
  # 2 ms and the interval is shortened to 1 ns (vhmc.progress_seconds): every evaluation of
  # the mode search and every iteration prints.
  withr::local_options(vhmc.progress_seconds = 1e-9)
  slow <- function(th) {
    Sys.sleep(0.002)
    -sum(th^2) / 2
  }
  out <- capture.output(suppressWarnings(suppressMessages(
    vhmc_sample(slow, parameters = c("a", "b"), chains = 1, iter = 30, seed = 1, progress = TRUE))))
  expect_true(any(grepl("^Chain 1: mode search: 5 evaluations \\([0-9]+ s\\)$", out)))
  expect_true(any(grepl("^Chain 1: iteration +2 / ", out)))  # not a multiple of 10%
  # the same draws with and without progress
  tg <- gaussian_target(0, 1)
  fit <- function(progress) {
    suppressWarnings(suppressMessages(vhmc_sample(tg$log_density, parameters = c("a", "b"),
                                                  chains = 1, iter = 100, seed = 1, progress = progress)))
  }
  capture.output(with_progress <- fit(TRUE))
  expect_identical(as.array(with_progress), as.array(fit(FALSE)))
})
