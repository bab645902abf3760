# Conversions of a vhmc_fit's draws to posterior, coda and base R formats.
#
# All conversions return the post-warmup, thinned draws only. Draws are
# numbered 1..niterations within each chain (posterior's convention) and
# chains 1..nchains; flattened formats (matrix, data frame, draws_matrix,
# draws_df) stack the chains one after another ("chain-major": all draws of
# chain 1, then all draws of chain 2, ...), as rstan and posterior do. The coda
# conversion instead labels draws with the sampler's iteration numbers
# (warmup + 1, warmup + 1 + thin, ...).

# Draws of a fit, optionally restricted to some variables.
select_fit_draws <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE) {
  draws <- fit_draws(x)
  check_flag(group_effects, "group_effects")
  if (!group_effects && length(b <- group_effect_names(x))) {
    draws <- posterior::subset_draws(draws, variable = setdiff(posterior::variables(draws), b))
  }
  if (!is.null(variable)) {
    if (!is.character(variable) || anyNA(variable)) {
      stop("`variable` must be NULL or a character vector of variable names.",
           call. = FALSE)
    }
    if (!isTRUE(regex)) {
      unknown <- setdiff(variable, posterior::variables(draws))
      if (length(unknown)) {
        stop("Unknown variable(s) in `variable`: ",
             paste0("'", unknown, "'", collapse = ", "),
             ". Available: ",
             paste0("'", posterior::variables(draws), "'", collapse = ", "),
             ".", call. = FALSE)
      }
    }
    draws <- posterior::subset_draws(draws, variable = variable, regex = regex)
  }
  draws
}

#' Convert a vhmc fit to posterior draws objects
#'
#' Methods for the \pkg{posterior} generics [posterior::as_draws()],
#' [posterior::as_draws_array()], [posterior::as_draws_df()],
#' [posterior::as_draws_matrix()] and [posterior::as_draws_list()]. They
#' return the post-warmup, thinned draws of all chains, with the variable
#' names as given to the sampler (e.g. `"a"` or `"beta[1]"`). Iterations are
#' numbered `1, 2, ...` within each chain (use [as.mcmc.list.vhmc_fit()] for
#' the sampler's own iteration numbers). The generics are re-exported by vhmc,
#' so `library(posterior)` is not needed.
#'
#' `as_draws()` returns the draws in their native format, a
#' [posterior::draws_array].
#'
#' @param x A `vhmc_fit` object.
#' @param variable Optional character vector of variable names to keep
#'   (default: all variables).
#' @param regex Logical; if `TRUE`, `variable` is a set of regular expressions
#'   matched against the variable names.
#' @param group_effects For multilevel fits ([vhmc_glm()] with group-level terms): `FALSE`
#'   leaves out the group-level effects `b[...]` (keeping the fixed effects, `sigma` and
#'   `Sigma[...]`), which for models with many levels are most of the draws.
#' @param ... Ignored.
#' @return A `draws_array`, `draws_df`, `draws_matrix` or `draws_list`.
#' @seealso [as.matrix.vhmc_fit()], [as.mcmc.list.vhmc_fit()],
#'   [sampler_diagnostics()]
#' @name as_draws.vhmc_fit
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' as_draws_array(fit)
#' head(as_draws_df(fit, variable = "a"))
#' posterior::summarise_draws(as_draws(fit))
#' }
NULL

#' @rdname as_draws.vhmc_fit
#' @method as_draws vhmc_fit
#' @export
as_draws.vhmc_fit <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE, ...) {
  select_fit_draws(x, variable, regex, group_effects)
}

#' @rdname as_draws.vhmc_fit
#' @method as_draws_array vhmc_fit
#' @export
as_draws_array.vhmc_fit <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE, ...) {
  posterior::as_draws_array(select_fit_draws(x, variable, regex, group_effects))
}

#' @rdname as_draws.vhmc_fit
#' @method as_draws_df vhmc_fit
#' @export
as_draws_df.vhmc_fit <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE, ...) {
  posterior::as_draws_df(select_fit_draws(x, variable, regex, group_effects))
}

#' @rdname as_draws.vhmc_fit
#' @method as_draws_matrix vhmc_fit
#' @export
as_draws_matrix.vhmc_fit <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE, ...) {
  posterior::as_draws_matrix(select_fit_draws(x, variable, regex, group_effects))
}

#' @rdname as_draws.vhmc_fit
#' @method as_draws_list vhmc_fit
#' @export
as_draws_list.vhmc_fit <- function(x, variable = NULL, regex = FALSE, group_effects = TRUE, ...) {
  posterior::as_draws_list(select_fit_draws(x, variable, regex, group_effects))
}

#' Variable names of a vhmc fit
#'
#' Method for the [posterior::variables()] generic (re-exported by vhmc).
#'
#' @param x A `vhmc_fit` object.
#' @param ... Ignored.
#' @return A character vector of variable names, in the order of the draws.
#' @method variables vhmc_fit
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' variables(fit)
#' }
variables.vhmc_fit <- function(x, ...) {
  fit_variables(x)
}

#' Convert a vhmc fit to base R matrices, arrays and data frames
#'
#' Post-warmup, thinned draws in plain base R containers.
#'
#' * `as.matrix()` returns a `(iterations * chains) x variables` matrix; the
#'   chains are stacked one after another (all draws of chain 1 first, then
#'   chain 2, ...), the same order as rstan's `as.matrix()` and
#'   [posterior::as_draws_matrix()].
#' * `as.array()` returns an `iterations x chains x variables` array with
#'   dimnames named `iterations`, `chains` and `variables` (iterations and
#'   chains numbered from 1).
#' * `as.data.frame()` returns one row per draw, with one column per variable
#'   (names kept exactly, e.g. `beta[1]`) followed by `.chain`, `.iteration`
#'   (1-based within a chain) and `.draw` (1-based over all chains), the
#'   layout of [posterior::as_draws_df()] but as a plain `data.frame`.
#'
#' @param x A `vhmc_fit` object.
#' @param variable Optional character vector of variable names to keep
#'   (default: all variables).
#' @param row.names,optional Ignored (present for compatibility with the
#'   [as.data.frame()] generic).
#' @param ... Ignored.
#' @return A matrix, array or data frame.
#' @seealso [as_draws.vhmc_fit] for posterior formats,
#'   [as.mcmc.list.vhmc_fit()] for coda.
#' @name as.matrix.vhmc_fit
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' dim(as.matrix(fit))
#' dim(as.array(fit))
#' head(as.data.frame(fit))
#' }
NULL

#' @rdname as.matrix.vhmc_fit
#' @export
as.matrix.vhmc_fit <- function(x, variable = NULL, ...) {
  a <- unclass(select_fit_draws(x, variable))
  d <- dim(a)
  vars <- dimnames(a)[[3]]
  m <- matrix(a, nrow = d[1] * d[2], ncol = d[3])
  dimnames(m) <- list(draws = NULL, variables = vars)
  m
}

#' @rdname as.matrix.vhmc_fit
#' @export
as.array.vhmc_fit <- function(x, variable = NULL, ...) {
  a <- unclass(select_fit_draws(x, variable))
  d <- dim(a)
  out <- array(as.vector(a), dim = d)
  dimnames(out) <- list(
    iterations = as.character(seq_len(d[1])),
    chains = as.character(seq_len(d[2])),
    variables = dimnames(a)[[3]]
  )
  out
}

#' @rdname as.matrix.vhmc_fit
#' @export
as.data.frame.vhmc_fit <- function(x, row.names = NULL, optional = FALSE,
                                   variable = NULL, ...) {
  a <- unclass(select_fit_draws(x, variable))
  d <- dim(a)
  vars <- dimnames(a)[[3]]
  out <- vector("list", length(vars))
  names(out) <- vars
  for (k in seq_along(vars)) {
    out[[k]] <- as.vector(a[, , k])
  }
  out$.chain <- rep(seq_len(d[2]), each = d[1])
  out$.iteration <- rep(seq_len(d[1]), times = d[2])
  out$.draw <- seq_len(d[1] * d[2])
  as.data.frame(out, check.names = FALSE, stringsAsFactors = FALSE)
}

#' Convert a vhmc fit to a coda mcmc.list
#'
#' Method for [coda::as.mcmc.list()] (re-exported by vhmc). Each chain
#' becomes a [coda::mcmc()] object holding its post-warmup, thinned draws.
#'
#' The sampler keeps the post-warmup iterations `warmup + 1`,
#' `warmup + 1 + thin`, `warmup + 1 + 2 * thin`, ... (iterations counted from
#' 1 including warmup), so each chain's `mcpar` is
#' `c(warmup + 1, warmup + 1 + (n - 1) * thin, thin)` with `n` the number of
#' saved draws per chain, and `time()` gives these iteration numbers.
#'
#' Note that coda's diagnostics differ from the ones vhmc reports (which come
#' from \pkg{posterior}): [coda::gelman.diag()] is the classic, non-split,
#' non-rank-normalised potential scale reduction factor and
#' [coda::effectiveSize()] has no between-chain term.
#'
#' @param x A `vhmc_fit` object.
#' @param variable Optional character vector of variable names to keep
#'   (default: all variables).
#' @param ... Ignored.
#' @return A [coda::mcmc.list()] with one [coda::mcmc()] object per chain.
#' @method as.mcmc.list vhmc_fit
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' mc <- as.mcmc.list(fit)
#' coda::mcpar(mc[[1]])
#' coda::gelman.diag(mc)
#' }
as.mcmc.list.vhmc_fit <- function(x, variable = NULL, ...) {
  a <- unclass(select_fit_draws(x, variable))
  d <- dim(a)
  vars <- dimnames(a)[[3]]
  start <- fit_warmup(x) + 1L
  thin <- fit_thin(x)
  end <- start + (d[1] - 1L) * thin
  chains <- lapply(seq_len(d[2]), function(ch) {
    m <- matrix(a[, ch, ], nrow = d[1], ncol = d[3],
                dimnames = list(NULL, vars))
    coda::mcmc(m, start = start, end = end, thin = thin)
  })
  coda::mcmc.list(chains)
}

# ---- re-exported generics ---------------------------------------------------

#' @importFrom posterior as_draws
#' @export
posterior::as_draws

#' @importFrom posterior as_draws_array
#' @export
posterior::as_draws_array

#' @importFrom posterior as_draws_df
#' @export
posterior::as_draws_df

#' @importFrom posterior as_draws_matrix
#' @export
posterior::as_draws_matrix

#' @importFrom posterior as_draws_list
#' @export
posterior::as_draws_list

#' @importFrom posterior variables
#' @export
posterior::variables

#' @importFrom coda as.mcmc.list
#' @export
coda::as.mcmc.list
