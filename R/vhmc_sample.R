#' Sample from a target written as R functions
#'
#' Runs Hamiltonian Monte Carlo (by default Stan's NUTS with warmup adaptation) on any
#' log density you can write in R. Use it for models the formula interfaces do not cover.
#'
#' The log density is evaluated on the unconstrained scale: transform bounded parameters
#' yourself (e.g. sample `log_sigma`) and add the log-Jacobian. Additive constants may be
#' dropped. If the log density or the gradient returns a non-finite value (`NA`, `NaN`,
#' `-Inf`) or raises an R error during sampling, the point is treated as having zero density
#' (the trajectory is rejected and counted as divergent); the number of such evaluations is
#' reported in `fit$counts$target_errors`, and an R error also gives a warning with its
#' message. A value of the wrong shape (not numeric, or of the wrong length, such as
#' `numeric(0)`) is a programming error: sampling stops with an error naming the function,
#' what it returned and where.
#'
#' @param log_density A function of a named numeric vector returning the log density (a
#'   single number).
#' @param gradient A function returning the gradient of `log_density` (a numeric vector of
#'   the same length). `NULL` (default) uses central finite differences, which costs
#'   `2 * d` log-density evaluations per gradient and is less accurate.
#' @param init Initial values: `NULL` draws each coordinate uniformly in (-2, 2) per chain
#'   (redrawing up to 100 times until the log density is finite); a named numeric vector
#'   used for every chain; a list with one vector per chain; or a function returning a
#'   vector, called with the chain id if it takes an argument.
#' @param parameters Parameter names (a character vector), or their number; needed only
#'   when `init = NULL`. Otherwise names come from `init`, defaulting to `theta[1]`, ...
#' @param sampler A sampler from [nuts()] (default), [hmc()], [surrogate_hmc()] or
#'   [variational_hmc()]. The stochastic-gradient samplers [sghmc()] and [sgld()] need
#'   minibatches of a likelihood and work with [vhmc_glm()] only.
#' @param chains Number of chains.
#' @param iter Iterations per chain, warmup included.
#' @param warmup Warmup (adaptation) iterations per chain; discarded.
#' @param thin Keep every `thin`-th post-warmup iteration.
#' @param seed A whole number. The same seed gives the same draws whatever `cores` or
#'   future plan. `NULL` draws a seed from R's random number generator.
#' @param cores Number of chains run in parallel (forked processes on Unix, a PSOCK cluster
#'   elsewhere). When a `future` plan other than sequential is set, chains go through
#'   `future.apply` instead and `cores` is ignored.
#' @param progress Print progress messages (per chain, every 10% of iterations).
#' @return A `vhmc_fit` object: see [print.vhmc_fit()], [summary.vhmc_fit()],
#'   [as_draws_array.vhmc_fit()], [as.mcmc.list.vhmc_fit()] and [sampler_diagnostics()].
#'   After sampling, warnings name any convergence problem and its fix.
#' @examples
#' \donttest{
#' # A correlated bivariate normal
#' S <- matrix(c(1, 0.9, 0.9, 1), 2)
#' P <- solve(S)
#' fit <- vhmc_sample(
#'   log_density = function(th) -0.5 * sum(th * (P %*% th)),
#'   gradient = function(th) -as.vector(P %*% th),
#'   init = c(x = 0, y = 0), chains = 2, iter = 1000, seed = 1, progress = FALSE
#' )
#' fit
#' }
#' @export
vhmc_sample <- function(log_density, gradient = NULL, init = NULL, parameters = NULL,
                        sampler = nuts(), chains = 4, iter = 2000, warmup = floor(iter / 2),
                        thin = 1, seed = NULL, cores = getOption("mc.cores", 1L),
                        progress = interactive()) {
  call <- match.call()
  if (!is.function(log_density)) {
    stop_arg("log_density", sprintf("must be a function of a named numeric vector, not %s",
                                     describe(log_density)))
  }
  if (!is.null(gradient) && !is.function(gradient)) {
    stop_arg("gradient", sprintf("must be NULL or a function, not %s", describe(gradient)))
  }
  if (!is_sampler(sampler)) {
    stop_arg("sampler", "must be a sampler object",
             "Use nuts(), hmc(), surrogate_hmc() or variational_hmc().")
  }
  if (is_sg_sampler(sampler)) {
    stop_arg("sampler", sprintf(paste(
      "is %s(), a stochastic-gradient sampler: it needs minibatch gradients of a likelihood",
      "that factorises over observations, which a log density written as an R function does",
      "not provide"), sampler$name),
      "Use nuts(), hmc(), surrogate_hmc() or variational_hmc() here, or fit a GLM with vhmc_glm(sampler = ...).")
  }
  args <- check_run_args(chains, iter, warmup, thin, cores)
  sampler <- prepare_sampler(sampler, args$warmup)
  progress <- check_flag(progress, "progress")
  seed <- resolve_seed(seed)

  inits <- resolve_inits(init, parameters, args$chains, seed, log_density)
  par_names <- names(inits[[1]])
  check_target_at(log_density, gradient, inits[[1]])
  if (is.null(gradient)) {
    message("No gradient supplied: using central finite differences (2 x ", length(par_names),
            " log-density evaluations per gradient). Supply `gradient` for speed and accuracy.")
  }
  refresh <- if (progress) max(1L, args$iter %/% 10L) else 0L
  grad_fun <- gradient %||% function(theta) fd_gradient(log_density, theta)
  potential_at <- function(theta) {
    names(theta) <- par_names
    list(value = -log_density(theta), gradient = -grad_fun(theta))
  }
  sampler <- with_laplace(sampler, potential_at, unname(inits[[1]]))

  chain_fun <- function(chain) {
    potential <- r_potential(log_density, gradient, par_names)
    run <- list(iter = args$iter, warmup = args$warmup, thin = args$thin, seed = seed,
                chain = chain, refresh = refresh)
    res <- vhmc_chain_r_target(potential, unname(inits[[chain]]), sampler, run)
    target_error_report(res, environment(potential))
  }
  results <- run_chains(chain_fun, args$chains, args$cores)
  stop_on_chain_failure(results)
  warn_target_errors(results)
  parts <- collect_chains(results, par_names)
  fit <- new_vhmc_fit(
    draws = parts$draws, diagnostics = parts$diagnostics, adaptation = parts$adaptation,
    counts = parts$counts, timing = parts$timing, sampler = sampler,
    model = list(type = "custom"),
    args = c(args[c("chains", "iter", "warmup", "thin")], list(seed = seed, cores = args$cores)),
    inits = inits, call = call
  )
  fit$surrogate <- chain_surrogates(results)
  fit$variational <- chain_variationals(results)
  if (isTRUE(sampler$importance)) {
    fit$variational <- add_importance(fit$variational, results, function(th) {
      apply(th, 1L, function(row) -log_density(stats::setNames(row, par_names)))
    })
  }
  check_fit(fit)
  check_surrogate(fit)
  check_variational(fit)
  fit
}

check_run_args <- function(chains, iter, warmup, thin, cores) {
  chains <- check_count(chains, "chains")
  iter <- check_count(iter, "iter")
  warmup <- check_count(warmup, "warmup", 0)
  thin <- check_count(thin, "thin")
  if (warmup >= iter) {
    stop_arg("warmup", sprintf("(%d) must be smaller than `iter` (%d)", warmup, iter),
             "Increase `iter` or lower `warmup`: post-warmup iterations are the draws kept.")
  }
  if (thin > iter - warmup) {
    stop_arg("thin", sprintf("(%d) exceeds the %d post-warmup iterations", thin, iter - warmup))
  }
  cores <- check_count(cores, "cores")
  list(chains = chains, iter = iter, warmup = warmup, thin = thin, cores = cores)
}

# Initial values, one named vector per chain. Random inits are drawn under a local seed
# derived from `seed`, so they are reproducible and leave the user's RNG alone.
resolve_inits <- function(init, parameters, chains, seed, log_density) {
  if (is.null(init)) {
    par_names <- parameter_names(parameters)
    return(with_local_seed(seed, lapply(seq_len(chains), function(chain) {
      for (attempt in seq_len(100)) {
        th <- stats::setNames(stats::runif(length(par_names), -2, 2), par_names)
        lp <- tryCatch(log_density(th), error = function(e) NA_real_)
        if (is.numeric(lp) && length(lp) == 1L && is.finite(lp)) return(th)
      }
      stop_arg("init", sprintf(paste("is NULL, but 100 random starting points drawn uniformly",
                                     "in (-2, 2) all gave a non-finite log density (chain %d)"), chain),
               "Supply `init` values where `log_density` is finite.")
    })))
  }
  if (is.function(init)) {
    inits <- lapply(seq_len(chains), function(chain) {
      if (length(formals(init)) == 0L) init() else init(chain)
    })
  } else if (is.list(init)) {
    if (length(init) != chains) {
      stop_arg("init", sprintf("is a list of length %d but there are %d chains", length(init), chains),
               "Give one vector per chain, or a single vector for all chains.")
    }
    inits <- init
  } else {
    inits <- rep(list(init), chains)
  }
  par_names <- if (is.null(parameters)) NULL else parameter_names(parameters)
  lapply(seq_along(inits), function(chain) normalize_init(inits[[chain]], chain, par_names,
                                                          names(inits[[1]])))
}

normalize_init <- function(x, chain, par_names, first_names) {
  if (!is.numeric(x) || length(x) == 0L || anyNA(x) || any(!is.finite(x))) {
    stop_arg("init", sprintf("must give finite numeric values (chain %d has %s)", chain, describe(x)))
  }
  x <- unlist(x)
  d <- length(x)
  nm <- names(x)
  if (!is.null(nm) && (anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm))) {
    bad <- if (anyNA(nm) || any(!nzchar(nm))) "empty names" else
      sprintf("duplicated names (%s)", paste0("`", unique(nm[duplicated(nm)]), "`", collapse = ", "))
    stop_arg("init", sprintf("for chain %d has %s; every parameter needs its own name", chain, bad),
             "Name each value once, e.g. c(a = 0, b = 1), or give `parameters`.")
  }
  if (is.null(par_names)) par_names <- first_names %||% sprintf("theta[%d]", seq_len(d))
  if (length(par_names) != d) {
    stop_arg("init", sprintf("has length %d for chain %d, but %d parameters are expected (%s)",
                             d, chain, length(par_names), paste(utils::head(par_names, 5), collapse = ", ")))
  }
  if (!is.null(names(x)) && !identical(names(x), par_names)) {
    stop_arg("init", sprintf("for chain %d has names (%s) that differ from the parameter names (%s)",
                             chain, paste(names(x), collapse = ", "), paste(par_names, collapse = ", ")))
  }
  stats::setNames(as.numeric(x), par_names)
}

parameter_names <- function(parameters) {
  if (is.null(parameters)) {
    stop_arg("init", "is NULL and `parameters` is not given, so the number of parameters is unknown",
             "Give `init` values or `parameters` (their names or number).")
  }
  if (is.character(parameters) && length(parameters) > 0 && !anyNA(parameters)) {
    if (anyDuplicated(parameters)) stop_arg("parameters", "must not contain duplicated names")
    return(parameters)
  }
  if (is_count(parameters)) return(sprintf("theta[%d]", seq_len(parameters)))
  stop_arg("parameters", sprintf("must be parameter names or their number, not %s", describe(parameters)))
}

# The user's functions must work at the initial values before any chain starts.
check_target_at <- function(log_density, gradient, theta) {
  lp <- tryCatch(log_density(theta), error = function(e) {
    stop_arg("log_density", sprintf("failed at the initial values: %s", conditionMessage(e)))
  })
  if (!is.numeric(lp) || length(lp) != 1L || !is.finite(lp)) {
    stop_arg("log_density", sprintf("must return a single finite number at the initial values, but returned %s",
                                     describe(lp)), "Check the function or choose other `init` values.")
  }
  if (is.null(gradient)) return(invisible())
  gr <- tryCatch(gradient(theta), error = function(e) {
    stop_arg("gradient", sprintf("failed at the initial values: %s", conditionMessage(e)))
  })
  if (!is.numeric(gr) || length(gr) != length(theta)) {
    stop_arg("gradient", sprintf("must return a numeric vector of length %d (one per parameter), but returned %s",
                                 length(theta), describe(gr)))
  }
  if (any(!is.finite(gr))) {
    stop_arg("gradient", "returned non-finite values at the initial values",
             "Check the function or choose other `init` values.")
  }
  invisible()
}

# The potential the core evaluates: U = -log_density and grad U, returned together as
# c(U, grad U). A value of the right shape that is not finite (NA, NaN, Inf) is a point of
# zero density, as is an R error in the user's function: the core rejects or marks the
# trajectory divergent, and both are counted (n_errors) and, for errors, the first message
# kept. A value of the wrong shape (numeric(0), a string, a vector of the wrong length) is a
# programming error, not a region of zero density: it comes back as a message (a character
# string), which the core (src/glue_sample.cpp) turns into an error that stops the chain.
r_potential <- function(log_density, gradient, par_names) {
  n_errors <- 0
  first_error <- NULL
  d <- length(par_names)
  ld <- checked_call(log_density, "log_density", 1L, par_names)
  grad_fun <- if (is.null(gradient)) function(theta) fd_gradient(ld, theta) else
    checked_call(gradient, "gradient", d, par_names)
  function(theta, need_grad) {
    names(theta) <- par_names
    out <- tryCatch({
      lp <- ld(theta)
      if (need_grad) c(-lp, -grad_fun(theta)) else -lp
    }, vhmc_malformed = function(e) conditionMessage(e), error = function(e) {
      if (is.null(first_error)) first_error <<- conditionMessage(e)
      NaN
    })
    if (is.character(out)) return(out)
    if (!all(is.finite(out))) {
      n_errors <<- n_errors + 1
      return(NaN)
    }
    as.numeric(out)
  }
}

# The chain's count of non-finite evaluations and, when the user's function raised R errors,
# the first message: appended to the chain's own error so that it is never hidden.
target_error_report <- function(res, env) {
  res$target_errors <- env$n_errors
  res$first_target_error <- env$first_error
  if (nzchar(res$error) && !is.null(env$first_error)) {
    res$error <- sprintf("%s (`log_density` or `gradient` raised an R error during sampling; the first: %s)",
                         res$error, env$first_error)
  }
  res
}

# R errors inside the user's functions are points of zero density, but say so.
warn_target_errors <- function(results) {
  first <- unlist(lapply(results, `[[`, "first_target_error"))
  if (!length(first)) return(invisible())
  warning(sprintf(paste("`log_density` or `gradient` raised an R error during sampling (the first:",
                        "%s); those points were treated as having zero density. If that was not",
                        "intended, fix the function."), first[1]), call. = FALSE)
}

# f(theta), checked to be numeric of length `len` (NA/NaN/Inf allowed); anything else
# signals a "vhmc_malformed" condition naming the function, what it returned and where.
checked_call <- function(f, what, len, par_names) {
  function(theta) {
    v <- f(theta)
    if (!is.numeric(v) || length(v) != len) {
      at <- paste(sprintf("%s = %s", par_names, format(signif(theta, 4), trim = TRUE)), collapse = ", ")
      msg <- sprintf(paste("`%s` returned %s at (%s) during sampling, where it must return %s.",
                           "A malformed value is a programming error, not a point of zero density;",
                           "fix the function (return NA or -Inf for zero density)"),
                     what, describe(v), at,
                     if (len == 1L) "a single number" else sprintf("a numeric vector of length %d", len))
      stop(structure(class = c("vhmc_malformed", "error", "condition"),
                     list(message = msg, call = NULL)))
    }
    as.numeric(v)
  }
}

# Central differences with steps scaled to each coordinate (relative error about 1e-10).
fd_gradient <- function(f, theta) {
  h <- 6e-6 * pmax(1, abs(theta))
  vapply(seq_along(theta), function(j) {
    e <- theta
    e[j] <- theta[j] + h[j]
    up <- f(e)
    e[j] <- theta[j] - h[j]
    (up - f(e)) / (2 * h[j])
  }, numeric(1))
}
