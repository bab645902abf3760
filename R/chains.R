# Running chains: sequentially, forked (parallel::mclapply), on a PSOCK cluster, or through
# the user's future plan. Every chain carries its own seed stream id, so where it runs never
# changes its draws.

#' @importFrom parallel mclapply makePSOCKcluster stopCluster parLapply clusterEvalQ
NULL

future_plan_active <- function() {
  if (!requireNamespace("future", quietly = TRUE) ||
      !requireNamespace("future.apply", quietly = TRUE)) {
    return(FALSE)
  }
  !inherits(future::plan(), "sequential")
}

run_chains <- function(chain_fun, chains, cores) {
  ids <- seq_len(chains)
  if (future_plan_active()) {
    return(future.apply::future_lapply(ids, chain_fun, future.seed = NULL,
                                       future.packages = "vhmc"))
  }
  workers <- min(cores, chains)
  if (workers <= 1L) return(run_chains_here(chain_fun, ids))
  # options(vhmc.backend = "psock") forces a socket cluster where forking is available
  # (useful in GUIs that do not tolerate forks, and to test that path).
  backend <- getOption("vhmc.backend", "auto")
  if (.Platform$OS.type == "unix" && !identical(backend, "psock")) {
    return(run_chains_forked(chain_fun, ids, workers))
  }
  cl <- parallel::makePSOCKcluster(workers)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  parallel::clusterEvalQ(cl, library(vhmc))
  tryCatch(parallel::parLapply(cl, ids, chain_fun), error = function(e) {
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
run_chains_forked <- function(chain_fun, ids, workers) {
  res <- suppressWarnings(parallel::mclapply(ids, chain_fun, mc.cores = workers,
                                             mc.preschedule = FALSE, mc.set.seed = FALSE))
  failed <- vapply(res, inherits, logical(1), what = "try-error")
  if (any(failed)) {
    stop(sprintf("chain %d failed in its worker process: %s", which(failed)[1],
                 conditionMessage(attr(res[[which(failed)[1]]], "condition"))), call. = FALSE)
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

# Stop with the first chain-level failure, or with a clean interrupt message.
stop_on_chain_failure <- function(results) {
  interrupted <- vapply(results, function(r) isTRUE(r$interrupted), logical(1))
  if (any(interrupted)) {
    cond <- structure(class = c("vhmc_interrupted", "error", "condition"),
      list(message = "sampling was interrupted by the user; no fit was returned.", call = NULL))
    stop(cond)
  }
  errs <- vapply(results, function(r) r$error %||% "", character(1))
  if (any(nzchar(errs))) {
    i <- which(nzchar(errs))[1]
    stop(sprintf("chain %d stopped: %s", i, sub("[.]?$", ".", errs[i])), call. = FALSE)
  }
  invisible(results)
}
