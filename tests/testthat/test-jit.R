# vhmc_glm() and vhmc_ardl() run with R's JIT compiler off (R/utils.R explains why) and give
# the session its level back, also when they stop with an error.

# The JIT level seen inside fit_glm_model() while `expr` runs, with the session's set to `level`.
jit_level_inside_fit <- function(level, expr) {
  old <- compiler::enableJIT(level)
  on.exit(compiler::enableJIT(old), add = TRUE)
  box <- new.env()
  tracer <- bquote(assign("seen", compiler::enableJIT(-1L), envir = .(box)))
  suppressMessages(trace("fit_glm_model", where = asNamespace("vhmc"), tracer = tracer, print = FALSE))
  on.exit(suppressMessages(untrace("fit_glm_model", where = asNamespace("vhmc"))), add = TRUE)
  suppressWarnings(force(expr))
  c(inside = box$seen, after = compiler::enableJIT(-1L))
}

test_that("a GLM fit turns the JIT off while it runs and restores the level", {
  lv <- jit_level_inside_fit(2L, vhmc_glm(mpg ~ wt, data = mtcars, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_identical(lv, c(inside = 0L, after = 2L))
  old <- compiler::enableJIT(2L)
  on.exit(compiler::enableJIT(old), add = TRUE)
  expect_error(vhmc_glm(mpg ~ wt, data = mtcars, chains = 0), "chains")
  expect_identical(compiler::enableJIT(-1L), 2L)
})

test_that("vhmc_ardl() turns the JIT off while it runs and restores the level", {
  set.seed(3)
  d <- data.frame(y = as.numeric(arima.sim(list(ar = 0.5), 60)), x = rnorm(60))
  lv <- jit_level_inside_fit(1L, vhmc_ardl(y ~ x, data = d, p = 1, q = 0, chains = 1, iter = 200, seed = 1,
                                           progress = FALSE))
  expect_identical(lv, c(inside = 0L, after = 1L))
})
