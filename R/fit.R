# The vhmc_fit S3 object: constructor, validation and internal accessors.
#
# A fit is built in R (never in C++) from the plain lists the chain driver
# returns. Iteration bookkeeping (the contract every conversion relies on):
# the sampler runs `iter` iterations per chain, the first `warmup` of which
# are warmup; it keeps the post-warmup iterations warmup + 1,
# warmup + 1 + thin, warmup + 1 + 2 * thin, ..., i.e.
# n_saved = ceiling((iter - warmup) / thin) draws per chain. Inside the draws
# object the saved draws are numbered 1..n_saved (posterior's convention);
# only the coda conversion carries the sampler's own iteration numbers (see
# as.mcmc.list.vhmc_fit).

# Stan-style sampler diagnostic columns, in the order they are shown.
sampler_diagnostic_columns <- c(
  "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
  "divergent__", "energy__"
)

#' Construct a vhmc fit object
#'
#' Internal constructor of class `vhmc_fit`. It validates the structure and
#' returns a list with elements `draws` (a [posterior::draws_array] of
#' post-warmup, thinned draws: iterations x chains x variables),
#' `diagnostics` (one data.frame per chain with Stan-style columns
#' `accept_stat__`, `stepsize__`, `n_leapfrog__`, `divergent__`, `energy__`,
#' `treedepth__`, any subset allowed), `adaptation` (per chain:
#' `list(step_size, inv_metric)`), `counts` and `timing` (one row per chain),
#' `sampler`, `model`, `args` (`chains`, `iter`, `warmup`, `thin`, `seed`,
#' `cores`), `inits` (per chain) and `call`.
#'
#' @param draws A [posterior::draws_array] (or a 3-d array iterations x chains
#'   x variables with variable names) of post-warmup, thinned draws.
#' @param diagnostics List with one data.frame per chain, rows aligned with the
#'   draws' iterations.
#' @param adaptation List with one element per chain, each
#'   `list(step_size = , inv_metric = )`; elements may be `NULL` for samplers
#'   without adaptation.
#' @param counts data.frame, one row per chain, columns `chain`, `n_grad`,
#'   `n_grad_warmup`, `n_grad_sampling`, `n_potential`, `target_errors`.
#' @param timing data.frame, one row per chain, columns `chain`,
#'   `warmup_seconds`, `sampling_seconds`.
#' @param sampler A `vhmc_sampler` object.
#' @param model A list with at least `type` (e.g. `"custom"`).
#' @param args A list with `chains`, `iter`, `warmup`, `thin`, `seed`, `cores`.
#' @param inits List with one named numeric vector per chain.
#' @param call The matched call (or `NULL`).
#' @return An object of class `vhmc_fit`.
#' @keywords internal
#' @noRd
new_vhmc_fit <- function(draws, diagnostics, adaptation, counts, timing,
                         sampler, model, args, inits, call) {
  draws <- check_fit_draws(draws)
  n_iter <- posterior::niterations(draws)
  n_chains <- posterior::nchains(draws)
  check_fit_args(args, n_iter, n_chains)
  diagnostics <- check_fit_diagnostics(diagnostics, n_iter, n_chains)

  # --- adaptation ----------------------------------------------------------
  if (is.null(adaptation)) adaptation <- vector("list", n_chains)
  if (!is.list(adaptation) || length(adaptation) != n_chains) {
    stop("`adaptation` must be a list with one element per chain (",
         n_chains, ").", call. = FALSE)
  }

  # --- counts and timing ---------------------------------------------------
  counts <- check_chain_table(
    counts, "counts",
    c("chain", "n_grad", "n_grad_warmup", "n_grad_sampling", "n_potential",
      "target_errors"),
    n_chains
  )
  timing <- check_chain_table(
    timing, "timing", c("chain", "warmup_seconds", "sampling_seconds"),
    n_chains
  )

  # --- sampler, model, inits, call -----------------------------------------
  if (!inherits(sampler, "vhmc_sampler")) {
    stop("`sampler` must be a vhmc_sampler object.", call. = FALSE)
  }
  if (!is.list(model) || !is.character(model$type)) {
    stop("`model` must be a list with a character `type`.", call. = FALSE)
  }
  if (!is.list(inits) || length(inits) != n_chains) {
    stop("`inits` must be a list with one named numeric vector per chain (",
         n_chains, ").", call. = FALSE)
  }
  if (!is.null(call) && !is.call(call)) {
    stop("`call` must be a call or NULL.", call. = FALSE)
  }

  structure(
    list(
      draws = draws,
      diagnostics = diagnostics,
      adaptation = adaptation,
      counts = counts,
      timing = timing,
      sampler = sampler,
      model = model,
      args = args,
      inits = inits,
      call = call
    ),
    class = "vhmc_fit"
  )
}


# The draws of a fit: a draws_array (or a 3-d array) with unique, non-empty variable names.
check_fit_draws <- function(draws) {
  if (!posterior::is_draws_array(draws)) {
    if (is.array(draws) && length(dim(draws)) == 3L) {
      draws <- posterior::as_draws_array(draws)
    } else {
      stop("`draws` must be a posterior::draws_array (iterations x chains x ",
           "variables); got an object of class ", class(draws)[1], ".",
           call. = FALSE)
    }
  }
  vars <- posterior::variables(draws)
  if (length(vars) == 0L || anyNA(vars) || any(!nzchar(vars)) ||
      anyDuplicated(vars)) {
    stop("`draws` must have unique, non-empty variable names.", call. = FALSE)
  }
  draws
}

# The run's settings, consistent with the draws' shape.
check_fit_args <- function(args, n_iter, n_chains) {
  needed_args <- c("chains", "iter", "warmup", "thin", "seed", "cores")
  if (!is.list(args) || !all(needed_args %in% names(args))) {
    stop("`args` must be a list with elements ",
         paste0("`", needed_args, "`", collapse = ", "), ".", call. = FALSE)
  }
  for (a in c("chains", "iter", "warmup", "thin")) {
    v <- args[[a]]
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0 ||
        v != round(v)) {
      stop("`args$", a, "` must be a single non-negative whole number.",
           call. = FALSE)
    }
  }
  if (args$thin < 1) {
    stop("`args$thin` must be at least 1.", call. = FALSE)
  }
  if (args$chains != n_chains) {
    stop("`args$chains` (", args$chains, ") does not match the number of ",
         "chains in `draws` (", n_chains, ").", call. = FALSE)
  }
  expected_saved <- saved_draws_per_chain(args$iter, args$warmup, args$thin)
  if (n_iter != expected_saved) {
    stop("`draws` has ", n_iter, " iterations per chain but iter = ",
         args$iter, ", warmup = ", args$warmup, ", thin = ", args$thin,
         " keep ceiling((iter - warmup) / thin) = ", expected_saved,
         " (iterations warmup + 1, warmup + 1 + thin, ...).", call. = FALSE)
  }
  invisible()
}

# One data.frame of sampler statistics per chain, a row per saved draw.
check_fit_diagnostics <- function(diagnostics, n_iter, n_chains) {
  if (!is.list(diagnostics) || is.data.frame(diagnostics) ||
      length(diagnostics) != n_chains) {
    stop("`diagnostics` must be a list with one data.frame per chain (",
         n_chains, ").", call. = FALSE)
  }
  lapply(seq_len(n_chains), function(ch) {
    d <- diagnostics[[ch]]
    if (is.matrix(d)) d <- as.data.frame(d)
    if (!is.data.frame(d)) {
      stop("`diagnostics[[", ch, "]]` must be a data.frame.", call. = FALSE)
    }
    if (nrow(d) != n_iter) {
      stop("`diagnostics[[", ch, "]]` has ", nrow(d), " rows; expected ",
           n_iter, " (one per saved draw).", call. = FALSE)
    }
    for (col in c("divergent__", "treedepth__")) {
      if (!is.null(d[[col]])) {
        v <- d[[col]]
        if (!is.numeric(v) && !is.logical(v)) {
          stop("`diagnostics[[", ch, "]]$", col, "` must be numeric.",
               call. = FALSE)
        }
        d[[col]] <- as.integer(v)
      }
    }
    if (!is.null(d[["divergent__"]]) &&
        !all(d[["divergent__"]] %in% c(0L, 1L, NA))) {
      stop("`diagnostics[[", ch, "]]$divergent__` must contain only 0 and 1.",
           call. = FALSE)
    }
    rownames(d) <- NULL
    d
  })
}

# Validate a one-row-per-chain data.frame.
check_chain_table <- function(x, name, cols, n_chains) {
  if (!is.data.frame(x)) {
    stop("`", name, "` must be a data.frame with one row per chain.",
         call. = FALSE)
  }
  missing <- setdiff(cols, names(x))
  if (length(missing)) {
    stop("`", name, "` is missing column(s) ",
         paste0("`", missing, "`", collapse = ", "), ".", call. = FALSE)
  }
  if (nrow(x) != n_chains) {
    stop("`", name, "` has ", nrow(x), " rows; expected one per chain (",
         n_chains, ").", call. = FALSE)
  }
  rownames(x) <- NULL
  x
}

# Number of draws a chain keeps: post-warmup iterations warmup + 1,
# warmup + 1 + thin, ..., up to iter.
saved_draws_per_chain <- function(iter, warmup, thin) {
  as.integer(max(0, ceiling((iter - warmup) / thin)))
}

#' Is an object a vhmc fit?
#' @param x Any object.
#' @return `TRUE` or `FALSE`.
#' @keywords internal
#' @noRd
is_vhmc_fit <- function(x) {
  inherits(x, "vhmc_fit")
}

# Stop unless `x` is a vhmc fit (for functions that are not S3 methods).
assert_vhmc_fit <- function(x, arg = "fit") {
  if (!is_vhmc_fit(x)) {
    stop("`", arg, "` must be a vhmc_fit object (as returned by ",
         "vhmc_sample(), vhmc_glm() or vhmc_ardl()); got an object of class ",
         class(x)[1], ".", call. = FALSE)
  }
  invisible(x)
}

# ---- internal accessors ------------------------------------------------------

fit_draws <- function(fit) fit$draws
fit_variables <- function(fit) posterior::variables(fit$draws)
fit_nchains <- function(fit) posterior::nchains(fit$draws)
fit_niterations <- function(fit) posterior::niterations(fit$draws)
fit_ndraws <- function(fit) posterior::ndraws(fit$draws)
fit_warmup <- function(fit) as.integer(fit$args$warmup)
fit_thin <- function(fit) as.integer(fit$args$thin)

# Sampler iteration numbers (1-based, counting warmup) of the saved draws.
fit_saved_iterations <- function(fit) {
  fit_warmup(fit) + 1L + (seq_len(fit_niterations(fit)) - 1L) * fit_thin(fit)
}

# One diagnostic column stacked over chains (NULL when no chain has it).
fit_diagnostic <- function(fit, column) {
  cols <- lapply(fit$diagnostics, function(d) d[[column]])
  if (all(vapply(cols, is.null, logical(1)))) {
    return(NULL)
  }
  cols
}

#' Number of chains, iterations and draws of a vhmc fit
#'
#' Methods for the [posterior::nchains()], [posterior::niterations()] and
#' [posterior::ndraws()] generics. Iterations are the saved post-warmup draws
#' per chain (after thinning).
#'
#' @param x A `vhmc_fit` object.
#' @return A single integer.
#' @name vhmc_fit-dims
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' nchains(fit)
#' niterations(fit)
#' ndraws(fit)
#' }
NULL

#' @rdname vhmc_fit-dims
#' @method nchains vhmc_fit
#' @export
nchains.vhmc_fit <- function(x) {
  fit_nchains(x)
}

#' @rdname vhmc_fit-dims
#' @method niterations vhmc_fit
#' @export
niterations.vhmc_fit <- function(x) {
  fit_niterations(x)
}

#' @rdname vhmc_fit-dims
#' @method ndraws vhmc_fit
#' @export
ndraws.vhmc_fit <- function(x) {
  fit_ndraws(x)
}

#' @importFrom posterior nchains
#' @export
posterior::nchains

#' @importFrom posterior niterations
#' @export
posterior::niterations

#' @importFrom posterior ndraws
#' @export
posterior::ndraws
