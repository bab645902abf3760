# How chains run and fail: Ctrl-C between sequential chains, worker processes that die,
# messages that name the chain and keep the user's own error text.

test_that("a chain that saw Ctrl-C stops the remaining sequential chains at once", {
  started <- integer()
  chain_fun <- function(chain) {
    started <<- c(started, chain)
    list(interrupted = chain == 2L, error = "")
  }
  res <- run_chains(chain_fun, chains = 4, cores = 1)
  expect_identical(started, 1:2)
  expect_error(stop_on_chain_failure(res), class = "vhmc_interrupted")
})

test_that("a forked worker that dies is named, with what can have happened", {
  skip_on_os("windows")
  skip_on_cran()
  parent <- Sys.getpid()
  ld <- function(th) {
    if (Sys.getpid() != parent && th[1] > 1) tools::pskill(Sys.getpid(), tools::SIGKILL)
    -sum(th^2) / 2
  }
  withr::local_options(vhmc.backend = "auto")
  expect_error(vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 2, cores = 2,
                           iter = 500, seed = 1, progress = FALSE),
               "worker processes of chains 1, 2 ended without returning a result: they were killed, called quit\\(\\), or crashed")
})

test_that("a malformed value from the user's function away from the inits is an error", {
  ld <- function(th) if (th[1] > 1.5) numeric(0) else -sum(th^2) / 2
  expect_error(vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 1, iter = 500,
                           seed = 1, progress = FALSE),
               "chain 1 stopped: `log_density` returned a numeric of length 0 at \\(a = .*\\) during sampling, where it must return a single number")
  gr <- function(th) if (th[1] > 1.5) th else -th[1]
  expect_error(vhmc_sample(function(th) -sum(th^2) / 2, function(th) if (th[1] > 1.5) 1 else -th,
                           init = c(a = 0, b = 0), chains = 1, iter = 500, seed = 1, progress = FALSE),
               "`gradient` returned 1 at .* where it must return a numeric vector of length 2")
  # finite-difference gradients see the same check
  expect_error(vhmc_sample(function(th) if (th[1] > 1.5) "x" else -sum(th^2) / 2,
                           init = c(a = 0, b = 0), chains = 1, iter = 500, seed = 1, progress = FALSE) |>
                 suppressMessages(),
               "`log_density` returned \"x\" \\(a character string\\)")
  # NA is a point of zero density, not a malformed value: the N(0, 1) survives a hole
  ld_na <- function(th) if (th[1] > 4) NA_real_ else -sum(th^2) / 2
  fit <- suppressWarnings(vhmc_sample(ld_na, function(th) -th, init = c(a = 0, b = 0), chains = 2,
                                      iter = 1000, seed = 1, progress = FALSE))
  expect_lt(abs(stats::sd(as.matrix(fit)[, "a"]) - 1), 0.1)
})

test_that("the user's own R error text is shown, during sampling and when a chain stops", {
  ld <- function(th) {
    if (th[1] > 0.5) stop("my own error text")
    -sum(th^2) / 2
  }
  msgs <- character()
  withCallingHandlers(
    vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 1, iter = 300, seed = 1,
                progress = FALSE),
    warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_true(any(grepl("raised an R error during sampling (the first: my own error text)", msgs,
                        fixed = TRUE)))
  env <- new.env()
  env$n_errors <- 3
  env$first_error <- "my own error text"
  res <- target_error_report(list(error = "no acceptably small step size could be found"), env)
  expect_error(stop_on_chain_failure(list(res)),
               "chain 1 stopped: no acceptably small step size could be found \\(`log_density` or `gradient` raised an R error during sampling; the first: my own error text\\)")
})
