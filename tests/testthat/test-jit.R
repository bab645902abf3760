# vhmc_glm() and vhmc_ardl() run with R's JIT compiler off (R/utils.R explains why) and give
# the session its level back, also when they stop with an error.

test_that("a GLM fit turns the JIT off while it runs and restores the level", {
  old <- compiler::enableJIT(2L)
  on.exit(compiler::enableJIT(old), add = TRUE)
  box <- new.env()
  tracer <- bquote(assign("seen", compiler::enableJIT(-1L), envir = .(box)))
  suppressMessages(trace("fit_glm_model", where = asNamespace("vhmc"), tracer = tracer, print = FALSE))
  on.exit(suppressMessages(untrace("fit_glm_model", where = asNamespace("vhmc"))), add = TRUE)
  fit <- suppressWarnings(vhmc_glm(mpg ~ wt, data = mtcars, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_identical(box$seen, 0L)
  expect_identical(compiler::enableJIT(-1L), 2L)
  expect_error(vhmc_glm(mpg ~ wt, data = mtcars, chains = 0), "chains")
  expect_identical(compiler::enableJIT(-1L), 2L)
})

test_that("the JIT's level is the caller's after vhmc_ardl()", {
  old <- compiler::enableJIT(1L)
  on.exit(compiler::enableJIT(old), add = TRUE)
  set.seed(3)
  d <- data.frame(y = as.numeric(arima.sim(list(ar = 0.5), 60)), x = rnorm(60))
  fit <- suppressWarnings(vhmc_ardl(y ~ x, data = d, p = 1, q = 0, chains = 1, iter = 200, seed = 1,
                                    progress = FALSE))
  expect_identical(compiler::enableJIT(-1L), 1L)
})
