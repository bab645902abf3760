# Methods for the generics of loo (a Suggests), registered only when it is loaded: PSIS-LOO,
# WAIC and model comparison of GLM and ARDL fits, all from log_lik().

# The pointwise log likelihood (S x N, draws in chain order) and the relative efficiencies of
# exp(log_lik) from the chains, which PSIS-LOO (Vehtari, Gelman and Gabry 2017) needs.
loo_inputs <- function(x, cores = getOption("mc.cores", 1)) {
  ll <- log_lik(x)
  chain_id <- rep(seq_len(fit_nchains(x)), each = fit_niterations(x))
  list(ll = ll, r_eff = loo::relative_eff(exp(ll), chain_id = chain_id, cores = cores))
}

# loo_inputs() plus the PSIS object of the leave-one-out importance ratios 1 / p(y_i | theta),
# for LOO expectations (loo_R2()) and bayesplot's LOO plots (pp_check()).
loo_psis <- function(x, what) {
  require_suggested("loo", what)
  li <- loo_inputs(x)
  li$psis <- loo::psis(-li$ll, r_eff = li$r_eff)
  li
}

#' LOO, WAIC and model comparison for vhmc fits
#'
#' Methods for the generics of the loo package, which take GLM and ARDL fits (both noise
#' models) directly. `loo()` computes Pareto-smoothed importance-sampling leave-one-out
#' cross-validation from [log_lik()], with relative efficiencies from the chains; `waic()`
#' the widely applicable information criterion, `loo::waic(log_lik(fit))` (both: Vehtari,
#' Gelman and Gabry 2017). `loo_compare()` computes `loo()` (or `waic()`) of every fit and
#' compares them with loo's `loo_compare()`: the best model (highest expected log
#' predictive density) comes first, and `elpd_diff` and `se_diff` are the differences from
#' it. The models are named as the arguments of the call (`loo_compare(fit1, fit2)` gives
#' rows `fit1` and `fit2`) unless `model_names` are given. Fits must be of the same
#' observations (the same response values, in the same order); ARDL fits with different lag
#' orders lose different numbers of rows and cannot be compared as they are.
#'
#' @param x A fit from [vhmc_glm()] or [vhmc_ardl()].
#' @param ... `loo()`, `waic()`: passed on to `loo::loo()` and `loo::waic()`.
#'   `loo_compare()`: more fits.
#' @param cores Cores used by loo.
#' @param criterion `"loo"` (default) or `"waic"`.
#' @param model_names Optional names of the models, one per fit.
#' @return `loo()`: a `psis_loo` object; `waic()`: a `waic` object; `loo_compare()`: a
#'   `compare.loo` matrix.
#' @seealso [kfold()][kfold.vhmc_fit], K-fold cross-validation by refitting.
#' @references Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model
#'   evaluation using leave-one-out cross-validation and WAIC. *Statistics and Computing*
#'   27, 1413-1432.
#' @examples
#' \donttest{
#' if (requireNamespace("loo", quietly = TRUE)) {
#'   fit1 <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                    progress = FALSE)
#'   fit2 <- vhmc_glm(mpg ~ wt + hp, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                    progress = FALSE)
#'   print(loo::loo(fit1))
#'   print(loo::waic(fit2))
#'   print(loo::loo_compare(fit1, fit2))
#'   ar1 <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                    progress = FALSE)
#'   ar1_fixed <- vhmc_ardl(lh ~ 1, data = lh, p = 1, noise_precision = 4, chains = 2,
#'                          iter = 500, seed = 1, progress = FALSE)
#'   print(loo::loo_compare(ar1, ar1_fixed))
#' }
#' }
#' @name loo.vhmc_fit
#' @exportS3Method loo::loo vhmc_fit
loo.vhmc_fit <- function(x, ..., cores = getOption("mc.cores", 1)) {
  check_predictive(x, "loo", "x")
  li <- loo_inputs(x, cores)
  loo::loo(li$ll, r_eff = li$r_eff, cores = cores, ...)
}

#' @rdname loo.vhmc_fit
#' @exportS3Method loo::waic vhmc_fit
waic.vhmc_fit <- function(x, ...) {
  check_predictive(x, "waic", "x")
  loo::waic(log_lik(x), ...)
}

#' @rdname loo.vhmc_fit
#' @exportS3Method loo::loo_compare vhmc_fit
loo_compare.vhmc_fit <- function(x, ..., criterion = c("loo", "waic"), model_names = NULL) {
  criterion <- match.arg(criterion)
  fits <- c(list(x), list(...))
  nm <- model_names %||% call_names(as.list(substitute(list(x, ...)))[-1L])
  if (!is.character(nm) || length(nm) != length(fits) || anyNA(nm) || anyDuplicated(nm)) {
    stop_arg("model_names", sprintf("must be %d distinct names, one per fit", length(fits)))
  }
  for (k in seq_along(fits)) {
    if (!is_vhmc_fit(fits[[k]])) {
      stop_arg("...", sprintf("holds `%s`, which is %s, not a vhmc fit", nm[k], describe_class(fits[[k]])),
               "Give only vhmc fits, or compare loo objects with loo::loo_compare(loo(fit1), other_loo).")
    }
    check_predictive(fits[[k]], "loo_compare", nm[k])
  }
  check_same_observations(fits, nm)
  ic <- lapply(fits, if (criterion == "loo") loo::loo else loo::waic)
  loo::loo_compare(stats::setNames(ic, nm))
}

# Model names from the expressions of the arguments (`fit1`, `update(fit1, p = 2)`); values
# spliced in by do.call() are named model1, model2, ... as loo names unnamed loo objects.
call_names <- function(exprs) {
  vapply(seq_along(exprs), function(k) {
    e <- exprs[[k]]
    if (is.name(e) || is.call(e)) deparse1(e) else sprintf("model%d", k)
  }, "")
}

# Fits compared by loo must predict the same observations: same number and same response.
check_same_observations <- function(fits, nm) {
  y <- lapply(fits, observed_response, what = "loo_compare")
  fix <- paste("loo_compare() needs fits of the same observations: refit them on the same rows",
               "(check `data`, `subset` and `na.action`; ARDL fits lose their first max(p, q) rows to the lags).")
  for (k in seq_along(fits)[-1L]) {
    if (length(y[[k]]) != length(y[[1L]])) {
      stop_arg("...", sprintf("holds fits of different observations: `%s` has %d and `%s` has %d",
                              nm[1L], length(y[[1L]]), nm[k], length(y[[k]])), fix)
    }
    if (!isTRUE(all.equal(y[[k]], y[[1L]], check.attributes = FALSE))) {
      stop_arg("...", sprintf("holds fits of different observations: the responses of `%s` and `%s` differ",
                              nm[1L], nm[k]), fix)
    }
    if (!isTRUE(all.equal(frequency_weights(fits[[k]], length(y[[k]])),
                          frequency_weights(fits[[1L]], length(y[[1L]]))))) {
      stop_arg("...", sprintf(paste("holds fits with different observation weights: `%s` and `%s` weight",
                                    "the rows differently, so their log likelihoods sum different data"),
                              nm[1L], nm[k]),
               "Compare fits with the same `weights` (or refit them with the same weights).")
    }
  }
}

# The frequency weights a fit gave its n rows (1 each without `weights`).
frequency_weights <- function(fit, n) as.numeric(fit$model$prior_weights %||% rep(1, n))
