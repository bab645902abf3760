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
  env$first_error_from <- "gradient"
  res <- target_error_report(list(error = "no acceptably small step size could be found"), env)
  expect_error(stop_on_chain_failure(list(res)),
               "chain 1 stopped: no acceptably small step size could be found \\(`gradient` raised an R error during sampling; the first: my own error text\\)")
})

test_that("a log density written at the top level runs on socket and future workers (issue 24, item 5)", {
  # README example 3 as typed at the prompt: the functions' environment is the global one,
  # which a PSOCK or future worker does not see; P, a helper function and a function of an
  # attached package must be shipped. The draws equal those of cores = 1.
  skip_on_cran()
  genv <- globalenv()
  withr::defer(rm(list = intersect(c("P_item5", "grad_item5"), ls(genv)), envir = genv))
  assign("P_item5", solve(matrix(c(1, 0.8, 0.8, 1), 2)), envir = genv)
  assign("grad_item5", eval(quote(function(th) -drop(P_item5 %*% th)), genv), envir = genv)
  withr::local_package("tools")  # file_path_sans_ext() below is found only when tools is attached
  ld <- eval(quote(function(th) -0.5 * sum(th * (P_item5 %*% th)) + nchar(file_path_sans_ext("a"))), genv)
  gr <- eval(quote(function(th) grad_item5(th)), genv)
  g <- user_globals(list(ld, gr, NULL))
  expect_setequal(names(g$values), c("P_item5", "grad_item5"))
  expect_identical(g$packages, "tools")
  # objects of a closure's own environment travel with it: nothing to ship
  local_ld <- local({
    P <- diag(2)
    function(th) -0.5 * sum(th * (P %*% th))
  })
  expect_length(user_globals(list(local_ld))$values, 0L)
  expect_identical(with_user_globals(user_globals(list(local_ld)), function(i) i * 2)(3), 6)
  run <- function(...) {
    suppressWarnings(vhmc_sample(ld, gr, init = c(x = 0.5, y = -0.5), chains = 2, iter = 300,
                                 seed = 1, progress = FALSE, ...))
  }
  ref <- as.array(run(cores = 1))
  if (.Platform$OS.type == "unix") {
    withr::with_options(list(vhmc.backend = "auto"), expect_identical(as.array(run(cores = 2)), ref))
  }
  withr::with_options(list(vhmc.backend = "psock"), expect_identical(as.array(run(cores = 2)), ref))
  skip_if_not_installed("future.apply")
  old_plan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old_plan), add = TRUE)
  expect_identical(as.array(run(cores = 1)), ref)
  # the workers' global environments are left as they were
  expect_false(future::value(future::future(exists("P_item5", envir = globalenv()))))
})

test_that("a logical NA from the log density is zero density, not a malformed value (issue 24, item 6)", {
  ld <- function(th) if (th[1] > 1.5) NA else -sum(th^2) / 2
  fit <- suppressWarnings(vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 1,
                                      iter = 500, seed = 1, progress = FALSE))
  expect_gt(sum(fit$counts$target_errors), 0)
  expect_true(all(as.matrix(fit)[, "a"] <= 1.5))
})

test_that("an R error of metric_tensor is reported as metric_tensor's (issue 24, item 6)", {
  mt <- function(th) {
    if (th[1] > 1) stop("my metric failed")
    list(G = diag(2), dG = array(0, c(2, 2, 2)))
  }
  w <- character()
  withCallingHandlers(
    vhmc_sample(function(th) -sum(th^2) / 2, function(th) -th, init = c(a = 0, b = 0),
                sampler = rmhmc(), metric_tensor = mt, chains = 1, iter = 200, seed = 1,
                progress = FALSE),
    warning = function(cnd) {
      w <<- c(w, conditionMessage(cnd))
      invokeRestart("muffleWarning")
    })
  expect_true(any(grepl("`metric_tensor` raised an R error during sampling (the first: my metric failed)",
                        w, fixed = TRUE)))
  expect_false(any(grepl("`log_density` or `gradient`", w, fixed = TRUE)))
})

test_that("Ctrl-C is a vhmc_interrupted error on every path, without stray output (issue 24, item 6)", {
  skip_on_os("windows")
  skip_on_cran()
  # SIGINT inside the user's R function, in this process: during the chain, and during the
  # mode search (where system.time() printed "Timing stopped at").
  interrupting <- function(at) {
    n <- 0
    function(th) {
      n <<- n + 1
      if (n == at) {
        tools::pskill(Sys.getpid(), tools::SIGINT)
        Sys.sleep(0.5)
      }
      -sum(th^2) / 2
    }
  }
  out <- capture.output(expect_error(
    vhmc_sample(interrupting(50), function(th) -th, init = c(a = 0, b = 0), chains = 2, iter = 300,
                seed = 1, progress = FALSE), class = "vhmc_interrupted"))
  out <- c(out, capture.output(expect_error(
    vhmc_sample(interrupting(5), function(th) -th, parameters = c("a", "b"), chains = 2, iter = 300,
                seed = 1, progress = FALSE), class = "vhmc_interrupted")))
  expect_false(any(grepl("Timing stopped", out)))
  # SIGINT to a forked worker: its chain reports the interrupt (mclapply's "fatal error in
  # wrapper code" had no condition, and conditionMessage(NULL) failed)
  parent <- Sys.getpid()
  ld <- function(th) {
    if (Sys.getpid() != parent && th[1] > 1) {
      tools::pskill(Sys.getpid(), tools::SIGINT)
      Sys.sleep(0.5)
    }
    -sum(th^2) / 2
  }
  withr::local_options(vhmc.backend = "auto")
  expect_error(vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 2, cores = 2,
                           iter = 500, seed = 1, progress = FALSE),
               "sampling was interrupted by the user", class = "vhmc_interrupted")
  # parallel's own failure of a worker, without a condition object, is still reported
  sigint <- function(i) {
    if (i == 2) {
      tools::pskill(Sys.getpid(), tools::SIGINT)
      Sys.sleep(0.5)
    }
    i
  }
  expect_error(run_chains_forked(sigint, 1:2, 2),
               "chain 2 failed in its worker process: .*fatal error in wrapper code")
})

test_that("a GLM's chains on threads give the draws of every other backend, with progress and Ctrl-C", {
  skip_on_cran()
  set.seed(3)
  d <- data.frame(x = rnorm(300), g = factor(sample(12, 300, TRUE)))
  d$y <- rpois(300, exp(0.2 + 0.4 * d$x + rnorm(12, 0, 0.5)[d$g]))
  run <- function(cores, backend = "auto", chains = 3, progress = FALSE) {
    withr::with_options(list(vhmc.backend = backend), suppressWarnings(
      vhmc_glm(y ~ x + (1 | g), data = d, family = poisson(), chains = chains, cores = cores, iter = 400,
               seed = 5, progress = progress)))
  }
  ref <- as.array(run(cores = 1))
  # three chains on two threads: a thread's potential serves two chains, as in one process
  expect_identical(as.array(run(cores = 2)), ref)
  if (.Platform$OS.type == "unix") expect_identical(as.array(run(cores = 2, backend = "fork")), ref)
  # a marginal gaussian term: its effects drawn after the chains, through the chains' own draws
  marg <- function(cores) {
    suppressWarnings(vhmc_glm(log(y + 1) ~ x + (1 | g), data = d, chains = 3, cores = cores, iter = 300, seed = 5,
                              progress = FALSE))
  }
  expect_identical(as.array(marg(2)), as.array(marg(1)))
  out <- capture.output(fit <- run(cores = 2, chains = 2, progress = TRUE))
  expect_true(all(c("Chain 1: iteration 400 / 400 [100%] (sampling)", "Chain 2: iteration 400 / 400 [100%] (sampling)") %in% out))
  skip_on_os("windows")
  # Ctrl-C reaches R's thread, whose poll stops every chain (a signal during the R code
  # before the chains is R's own interrupt: the same error)
  system(sprintf("(sleep 0.5; kill -INT %d) >/dev/null 2>&1 &", Sys.getpid()))
  expect_error(vhmc_glm(y ~ x + (1 | g), data = d, family = poisson(), chains = 2, cores = 2, iter = 5e5,
                        seed = 5, progress = FALSE), class = "vhmc_interrupted")
})

test_that("a fit's draws_array is posterior's, made without copying the draws", {
  arr <- array(rnorm(60), c(5, 3, 4))
  dimnames(arr) <- list(iteration = seq_len(5), chain = seq_len(3), variable = c("a", "b[1]", "b[2]", "Sigma[g:(Intercept),(Intercept)]"))
  expect_identical(as_draws_array_in_place(arr), posterior::as_draws_array(arr))
})
