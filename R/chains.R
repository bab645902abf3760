# Running chains: sequentially, on threads of this process (a target in C++ alone), forked
# (parallel::mclapply), on a PSOCK cluster, or through the user's future plan. Every chain
# carries its own seed stream id, so where it runs never changes its draws.

#' @importFrom parallel mclapply makePSOCKcluster stopCluster parLapply clusterEvalQ
NULL

future_plan_active <- function() {
  if (!requireNamespace("future", quietly = TRUE) ||
      !requireNamespace("future.apply", quietly = TRUE)) {
    return(FALSE)
  }
  !inherits(future::plan(), "sequential")
}

# globals: NULL, or a function returning the user's objects and packages that chain_fun
# needs in another process (R/globals.R), computed only when a chain runs in one. threads:
# NULL, or function(ids, workers) running the chains on threads of this process, taken
# unless options(vhmc.backend) asks for processes ("fork" or "psock").
run_chains <- function(chain_fun, chains, cores, globals = NULL, threads = NULL) {
  ids <- seq_len(chains)
  chain_fun <- chain_catching_interrupt(chain_fun)
  remote <- function() if (is.null(globals)) chain_fun else with_user_globals(globals(), chain_fun)
  if (future_plan_active()) {
    return(future.apply::future_lapply(ids, remote(), future.seed = NULL,
                                       future.packages = "vhmc"))
  }
  workers <- min(cores, chains)
  if (workers <= 1L) return(run_chains_here(chain_fun, ids))
  # options(vhmc.backend = "psock") forces a socket cluster where forking is available
  # (useful in GUIs that do not tolerate forks, and to test that path); "fork" forks where
  # threads would do.
  backend <- getOption("vhmc.backend", "auto")
  if (!is.null(threads) && identical(backend, "auto")) return(threads(ids, workers))
  if (.Platform$OS.type == "unix" && !identical(backend, "psock")) {
    return(run_chains_forked(chain_fun, ids, workers))
  }
  cl <- parallel::makePSOCKcluster(workers)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  parallel::clusterEvalQ(cl, library(vhmc))
  tryCatch(parallel::parLapply(cl, ids, remote()), error = function(e) {
    stop(sprintf(paste("a chain's worker process failed (%s); it may have been killed or have",
                       "crashed. Run with cores = 1 to see the error in this session."),
                 conditionMessage(e)), call. = FALSE)
  })
}

# One chain after another in this process. A chain that saw Ctrl-C returns (the core polls
# for it and clears R's pending interrupt), so the remaining chains are not started.
run_chains_here <- function(chain_fun, ids) {
  res <- vector("list", length(ids))
  for (i in ids) {
    res[[i]] <- chain_fun(i)
    if (isTRUE(res[[i]]$interrupted)) break
  }
  res
}

# Forked workers. A worker that dies (killed, quit(), a segfault in user code) delivers no
# result: mclapply gives NULL and a generic warning, replaced here by an error naming the
# chain.
# A full garbage collection first: a worker shares this session's memory until it writes to
# a page, and a full collection in a worker writes the mark of every live object, so every
# page of the heap is copied, in each worker. Collecting here resets R's count of minor
# collections, and the workers' own allocations then stay within minor collections. Measured
# on brms's inhaler model with brms loaded (3 million live cells): 4 chains on 2 cores took
# 4.0-4.4 s without it, 2.2-2.7 s with it (system time 1.3 s -> 0.5 s); the collection itself
# took 0.28 s there, 0.03 s in a session with only vhmc.
run_chains_forked <- function(chain_fun, ids, workers) {
  gc(verbose = FALSE, full = TRUE)
  res <- suppressWarnings(parallel::mclapply(ids, chain_fun, mc.cores = workers,
                                             mc.preschedule = FALSE, mc.set.seed = FALSE))
  failed <- vapply(res, inherits, logical(1), what = "try-error")
  if (any(failed)) {
    # parallel's own failures ("fatal error in wrapper code") come without a condition
    err <- res[[which(failed)[1]]]
    why <- if (is.null(attr(err, "condition"))) trimws(as.character(err)) else conditionMessage(attr(err, "condition"))
    stop(sprintf("chain %d failed in its worker process: %s", which(failed)[1], why), call. = FALSE)
  }
  dead <- which(vapply(res, is.null, logical(1)))
  if (length(dead)) {
    many <- length(dead) > 1L
    stop(sprintf(paste("the worker process%s of chain%s %s ended without returning a result: %s",
                       "killed, called quit(), or crashed (e.g. a segfault in compiled user code).",
                       "Run with cores = 1 to see what happened in this session."),
                 if (many) "es" else "", if (many) "s" else "", paste(dead, collapse = ", "),
                 if (many) "they were" else "it was"), call. = FALSE)
  }
  res
}

# Ctrl-C gives one condition whatever it interrupts: a "vhmc_interrupted" error. The core
# polls for it between iterations and returns the chain marked interrupted; an interrupt
# inside R code (the user's functions, the mode search, a forked or socket worker's chain)
# is R's "interrupt" condition, turned into the same result or error here.
interrupted_error <- function() {
  structure(class = c("vhmc_interrupted", "error", "condition"),
            list(message = "sampling was interrupted by the user; no fit was returned.", call = NULL))
}

catch_interrupt <- function(expr) tryCatch(expr, interrupt = function(e) stop(interrupted_error()))

# A chain function whose interrupt in R code returns the chain marked interrupted, as the
# core's own poll does (a forked worker would otherwise die with "fatal error in wrapper code").
chain_catching_interrupt <- function(chain_fun) {
  force(chain_fun)
  function(chain) {
    tryCatch(chain_fun(chain), interrupt = function(e) list(interrupted = TRUE, error = ""))
  }
}

# Stop with the first chain-level failure, or with a clean interrupt message.
stop_on_chain_failure <- function(results) {
  interrupted <- vapply(results, function(r) isTRUE(r$interrupted), logical(1))
  if (any(interrupted)) stop(interrupted_error())
  errs <- vapply(results, function(r) r$error %||% "", character(1))
  if (any(nzchar(errs))) {
    i <- which(nzchar(errs))[1]
    stop(sprintf("chain %d stopped: %s", i, sub("[.]?$", ".", errs[i])), call. = FALSE)
  }
  invisible(results)
}
