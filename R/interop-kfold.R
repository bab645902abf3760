# K-fold cross-validation of GLM fits: a method for loo's kfold() generic (loo is a Suggests;
# registered only when it is loaded), as rstanarm's and brms's. Each fold's model is refitted
# through update() with the fit's own settings on the other rows, the refits run in parallel
# through the chains' backend (R/chains.R), and the held-out rows' log predictive densities
# come from log_lik(newdata =).

#' K-fold cross-validation of GLM fits
#'
#' A method for loo's `kfold()` generic, as rstanarm's and brms's: the observations are split
#' into `K` folds; for each fold the model is refitted to the other observations, with the
#' fit's own settings (sampler, chains, iterations, priors, family: [update()][update.vhmc_fit]
#' with only the rows and the seed changed), and the held-out observations' expected log
#' predictive density is estimated from the refit's draws, \eqn{\log \frac{1}{S}\sum_s
#' p(y_i \mid \theta^{(s)})}, computed stably from [log_lik()] (Vehtari, Gelman and Gabry
#' 2017, eq. 20). `elpd_kfold` is their sum; `p_kfold` the log predictive density of the
#' full fit minus `elpd_kfold`, the effective number of parameters (as brms computes it);
#' `kfoldic = -2 elpd_kfold`. The result prints as loo's objects and goes into
#' `loo::loo_compare()` with other `kfold()` results (or `loo()` results, with loo's
#' warning that the two estimates differ).
#'
#' Reproducibility: the folds are `loo::kfold_split_random(K, N)` drawn with the fit's seed
#' (`set.seed(fit$args$seed)`, leaving the user's random number stream untouched), and fold
#' `k` is refitted with the seed `fit$args$seed + k` (modulo \eqn{2^{31} - 1}), so that
#' `kfold()` of a fit gives the same result every time, whatever `cores` is. The refits run
#' in parallel over the folds on `cores` processes, by the backend the chains use (forked
#' processes, a socket cluster with `options(vhmc.backend = "psock")`, or the user's future
#' plan), each refit running its chains one after another. A refit's warnings are given
#' afterwards, naming their fold.
#'
#' The data are recovered from the fit's call: `data` (needed) as it is now, less the rows
#' that `subset` and `na.action` dropped; an error says so if they no longer give the fit's
#' responses. A fold whose held-out rows have the only observations of a level of a factor
#' predictor is an error before any refit (that level's effect could not be estimated; use
#' stratified folds, `loo::kfold_split_stratified()`). For a multilevel fit, held-out rows
#' of a level the training rows have use that level's effects; rows of a level they do not
#' have (all its rows held out, as with `loo::kfold_split_grouped()`) are predicted as a new
#' group: their effects are drawn from the term's normal distribution with each draw's
#' covariance (`log_lik(allow_new_levels = TRUE)`), so elpd_kfold then measures the
#' prediction of new groups.
#'
#' Not available for fits with `weights` (as in rstanarm: the held-out rows' log likelihood
#' would need weights that `log_lik(newdata =)` does not apply), for ARDL fits (leaving out
#' random time points breaks the lags the others are predicted from; compare lag orders with
#' `loo_compare()`, or refit on the series' start and [forecast()] the rest) or for fits of
#' [vhmc_sample()], which have no observations.
#'
#' @param x A fit from [vhmc_glm()], made with `data`.
#' @param K The number of folds, at least 2 and at most the number of observations
#'   (ignored when `folds` is given).
#' @param folds Optional fold of each observation: whole numbers 1 to K, each used, one per
#'   row the fit used (in the order of the data, after `subset` and `na.action`), e.g. from
#'   `loo::kfold_split_stratified()` or `loo::kfold_split_grouped()`.
#' @param save_fits Keep the K refits in the result (`fits`, a K x 2 list matrix of each
#'   fit and its held-out rows, as rstanarm's).
#' @param cores Number of folds refitted at the same time.
#' @param ... Must be empty.
#' @return An object of class `c("kfold", "loo")`: `estimates` (rows `elpd_kfold`,
#'   `p_kfold`, `kfoldic`; columns `Estimate`, `SE`), `pointwise` (the same per
#'   observation), `elpd_kfold`, `se_elpd_kfold`, and with `save_fits` `fits`; attributes
#'   `K`, `folds`, `dims` (draws, observations) and `model_name`.
#' @references Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model
#'   evaluation using leave-one-out cross-validation and WAIC. *Statistics and Computing*
#'   27, 1413-1432.
#' @seealso [loo()][loo.vhmc_fit] (PSIS-LOO, no refits), [update()][update.vhmc_fit],
#'   [log_lik()].
#' @examples
#' \donttest{
#' if (requireNamespace("loo", quietly = TRUE)) {
#'   fit1 <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                    progress = FALSE)
#'   fit2 <- vhmc_glm(mpg ~ wt + hp, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                    progress = FALSE)
#'   kf1 <- loo::kfold(fit1, K = 4)
#'   kf2 <- loo::kfold(fit2, K = 4)
#'   kf1
#'   loo::loo_compare(kf1, kf2)
#' }
#' }
#' @exportS3Method loo::kfold vhmc_fit
kfold.vhmc_fit <- function(x, K = 10, folds = NULL, save_fits = FALSE,
                           cores = getOption("mc.cores", 1), ...) {
  check_no_dots(list(...), "kfold.vhmc_fit")
  check_kfold_fit(x)
  check_flag(save_fits, "save_fits")
  cores <- check_count(cores, "cores")
  rows <- fitted_rows(x)
  folds <- kfold_folds(if (missing(K)) NULL else K, folds, nrow(rows$data), x$args$seed)
  check_fold_levels(x, rows$data, folds)
  results <- run_folds(x, rows, folds, cores, save_fits)
  kfold_result(x, folds, results, call_names(list(substitute(x))), save_fits)
}

# Fits kfold() can refit: GLM fits without weights.
check_kfold_fit <- function(x) {
  check_predictive(x, "kfold", "x")
  if (inherits(x, "vhmc_ardl")) {
    stop_arg("x", "is an ARDL fit: leaving out random time points breaks the lags the other points are predicted from",
             "Compare lag orders with loo_compare(), or refit on the series' start and forecast() the rest.")
  }
  if (!is.null(x$model$prior_weights)) {
    stop_arg("x", "was fitted with `weights`, which kfold() does not take (as rstanarm's): the held-out rows' log likelihood would need weights that log_lik(newdata =) does not apply",
             "Use loo(fit), whose log likelihood is weighted, or refit without weights.")
  }
}

# The data the fit was made from, as now found where its formula was made (where update()
# refits), and `index`, the positions in them of the fitted rows (after `subset` and
# `na.action`); `data`, those rows. Checked against the fit's responses.
fitted_rows <- function(x) {
  call <- x$call
  fix <- "kfold() refits the model on the fitted rows of `data`: refit with data = a data frame, and keep it unchanged."
  if (is.null(call$data)) stop_arg("x", "was fitted without `data`", fix)
  env <- fit_environment(x)
  all_data <- tryCatch(as.data.frame(eval(call$data, env)), error = function(e) {
    stop_arg("x", sprintf("was fitted with data = %s, which cannot be found now (%s)", deparse1(call$data), conditionMessage(e)), fix)
  })
  index <- seq_len(nrow(all_data))
  if (!is.null(call$subset)) {
    keep <- eval(call$subset, all_data, env)
    index <- index[if (is.logical(keep)) keep & !is.na(keep) else keep]
  }
  if (!is.null(x$model$na.action)) index <- index[-x$model$na.action]
  data <- all_data[index, , drop = FALSE]
  y <- if (length(index) == length(x$model$y)) glm_design(x, data, need_response = TRUE)$y
  if (!isTRUE(all.equal(y, x$model$y, check.attributes = FALSE))) {
    stop_arg("x", sprintf("was fitted with data = %s, whose rows no longer give the fit's responses (changed since the fit?)",
                          deparse1(call$data)), fix)
  }
  list(data = data, index = index)
}

# The folds: `folds` checked (one whole number 1..K per row, every fold used), or K random
# folds drawn with the fit's seed.
kfold_folds <- function(K, folds, N, seed) {
  if (is.null(folds)) {
    K <- check_count(K %||% 10, "K", min = 2)
    if (K > N) stop_arg("K", sprintf("(%d) exceeds the %d observations", K, N), "Use at most one fold per observation.")
    return(with_local_seed(seed, loo::kfold_split_random(K, N)))
  }
  if (!is.numeric(folds) || length(folds) != N || anyNA(folds) || any(folds != round(folds)) || any(folds < 1)) {
    stop_arg("folds", sprintf("must be %d whole numbers >= 1, the fold of each fitted row, not %s", N, describe(folds)),
             "Make them with loo::kfold_split_random(), kfold_split_stratified() or kfold_split_grouped().")
  }
  folds <- as.integer(folds)
  n_folds <- max(folds)
  if (n_folds < 2L || !all(seq_len(n_folds) %in% folds)) {
    stop_arg("folds", sprintf("must use every fold from 1 to their maximum, at least 2; they use %s",
                              paste(sort(unique(folds)), collapse = ", ")))
  }
  if (!is.null(K) && !identical(as.numeric(K), as.numeric(n_folds))) {
    stop_arg("K", sprintf("is %s, but `folds` has %d folds", describe(K), n_folds), "Give `folds` alone.")
  }
  folds
}

# A fold that holds every row of a level of a factor predictor leaves it out of training.
check_fold_levels <- function(x, data, folds) {
  model <- x$model
  if (!length(model$xlevels)) return(invisible())
  mf <- stats::model.frame(stats::delete.response(model$terms), data, na.action = stats::na.pass)
  for (v in names(model$xlevels)) {
    for (k in seq_len(max(folds))) {
      lost <- setdiff(unique(as.character(mf[[v]][folds == k])), as.character(mf[[v]][folds != k]))
      if (!length(lost)) next
      stop_arg("folds", sprintf("hold every row of level \"%s\" of `%s` in fold %d, so that fold's refit could not estimate its effect",
                                lost[1L], v, k),
               sprintf("Use folds that keep every level in each training set, e.g. loo::kfold_split_stratified(K, x = <the %s column>).", v))
    }
  }
}

# The K refits, in parallel through the chains' backend; each fold's result is its held-out
# rows' elpd (and fit), or the error that stopped it, with the warnings it raised.
run_folds <- function(x, rows, folds, cores, save_fits) {
  fold_fun <- function(k) {
    warned <- character()
    out <- withCallingHandlers(
      tryCatch(refit_fold(x, rows, folds, k, save_fits), error = function(e) {
        list(interrupted = inherits(e, "vhmc_interrupted"), error = conditionMessage(e))
      }),
      warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      })
    out$warnings <- warned
    out
  }
  results <- catch_interrupt(run_chains(fold_fun, max(folds), cores, globals = function() call_globals(x)))
  if (any(vapply(results, function(r) isTRUE(r$interrupted), logical(1)))) stop(interrupted_error())
  for (k in seq_along(results)) {
    if (nzchar(results[[k]]$error %||% "")) {
      stop(sprintf("kfold(): the refit of fold %d failed: %s", k, results[[k]]$error), call. = FALSE)
    }
    for (w in unique(results[[k]]$warnings)) warning(sprintf("kfold(), fold %d: %s", k, w), call. = FALSE)
  }
  results
}

# Fold k: the model refitted to the other rows (the fitted data's positions as `subset`, so
# that the refit's call reproduces it) with the fold's seed, and the held-out rows' elpd.
refit_fold <- function(x, rows, folds, k, save_fits) {
  seed <- fold_seed(x$args$seed, k)
  fit <- do.call(update, list(x, subset = rows$index[folds != k], seed = seed, cores = 1L, progress = FALSE))
  ll <- log_lik(fit, newdata = rows$data[folds == k, , drop = FALSE],
                allow_new_levels = !is.null(fit$model$glmer), seed = if (!is.null(fit$model$glmer)) seed)
  list(elpd = log_mean_exp(ll), fit = if (save_fits) fit, error = "")
}

fold_seed <- function(seed, k) as.integer((as.numeric(seed) + k) %% .Machine$integer.max)

# log(mean(exp(column))) of each column, without overflow.
log_mean_exp <- function(ll) {
  m <- apply(ll, 2L, max)
  m + log(colMeans(exp(sweep(ll, 2L, m))))
}

# The user's objects the fit's call reads (its data, priors, ...), for refits in another
# process (R/globals.R): those of a function whose body is the call, in the formula's
# environment, where update() evaluates it.
call_globals <- function(x) {
  f <- function() NULL
  body(f) <- x$call
  environment(f) <- fit_environment(x)
  user_globals(list(f))
}

# The kfold object, as loo's: pointwise elpd_kfold, p_kfold (brms's: the full fit's log
# predictive density minus elpd_kfold) and kfoldic; their sums and standard errors.
kfold_result <- function(x, folds, results, name, save_fits) {
  elpd <- numeric(length(folds))
  for (k in seq_along(results)) elpd[folds == k] <- results[[k]]$elpd
  lpd <- log_mean_exp(log_lik(x))
  pointwise <- cbind(elpd_kfold = elpd, p_kfold = lpd - elpd, kfoldic = -2 * elpd)
  N <- nrow(pointwise)
  estimates <- cbind(Estimate = colSums(pointwise), SE = sqrt(N * apply(pointwise, 2L, stats::var)))
  out <- list(estimates = estimates, pointwise = pointwise, elpd_kfold = estimates[1L, 1L],
              se_elpd_kfold = estimates[1L, 2L])
  if (save_fits) {
    out$fits <- array(list(), c(length(results), 2L), list(NULL, c("fit", "omitted")))
    for (k in seq_along(results)) out$fits[k, ] <- list(results[[k]]$fit, which(folds == k))
  }
  structure(out, class = c("kfold", "loo"), K = length(results), folds = folds,
            dims = c(fit_ndraws(x), N), model_name = name)
}
