# Methods for GLM fits (class vhmc_glm): point summaries, prediction, posterior predictive
# draws and pointwise log likelihoods. Everything is computed from the saved draws and the
# stored model matrix; newdata go through the fit's terms, xlevels and contrasts.

# Coefficient draws (S x p) and, for the gaussian family, sigma draws (fixed-precision ARDL
# fits have no family and no sigma: coefficients only).
glm_draws <- function(object, ndraws = NULL) {
  m <- as.matrix(object)
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws")
    if (ndraws > nrow(m)) {
      stop_arg("ndraws", sprintf("(%d) exceeds the %d draws in the fit", ndraws, nrow(m)))
    }
    # Evenly spaced over all chains: deterministic, and not one chain's autocorrelated start.
    m <- m[unique(round(seq(1, nrow(m), length.out = ndraws))), , drop = FALSE]
  }
  coef_names <- object$model$coef_names
  list(beta = m[, coef_names, drop = FALSE],
       sigma = if (isTRUE(object$model$family$has_aux)) m[, "sigma"])
}

# Design pieces for the fit's data (newdata = NULL) or for new data.
glm_design <- function(object, newdata = NULL, need_response = FALSE) {
  model <- object$model
  if (is.null(newdata)) {
    return(list(x = model$x, offset = model$offset, y = model$y, trials = model$trials,
                weights = model$weights, prior_weights = model$prior_weights,
                matrix = model$response_matrix))
  }
  if (!is.data.frame(newdata) && !is.list(newdata)) {
    stop_arg("newdata", sprintf("must be a data frame, not %s", describe(newdata)))
  }
  tt <- model$terms
  if (!need_response) tt <- stats::delete.response(tt)
  mf <- tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = model$xlevels),
                 error = function(e) stop_arg("newdata", sprintf("does not fit the model: %s",
                                                                  conditionMessage(e))))
  x <- stats::model.matrix(tt, mf, contrasts.arg = model$contrasts)
  if (anyNA(x)) {
    # Name the variables, not the model-matrix columns (a logical x gives column "xTRUE").
    terms_of <- attr(stats::terms(tt), "term.labels")[attr(x, "assign")[colSums(is.na(x)) > 0]]
    bad <- unique(unlist(lapply(terms_of, function(t) all.vars(str2lang(t)))))
    stop_arg("newdata", sprintf("has missing values in %s", paste0("`", bad, "`", collapse = ", ")),
             "Predictions need every predictor; remove or impute those rows.")
  }
  offset <- stats::model.offset(mf)
  call_offset <- object$call$offset
  if (!is.null(call_offset)) {
    extra <- eval(call_offset, newdata, environment(formula(model$terms)))
    offset <- (offset %||% 0) + extra
  }
  if (!is.null(offset)) offset <- rep_len(as.numeric(offset), nrow(x))
  out <- list(x = x, offset = offset, y = NULL, trials = NULL, weights = NULL,
              prior_weights = NULL, matrix = FALSE)
  if (need_response) {
    resp <- glm_response(stats::model.response(mf), model$family, NULL, deparse1(tt[[2L]]))
    out[c("y", "trials", "weights", "matrix")] <- resp[c("y", "trials", "weights", "matrix")]
  }
  out
}

# The row names of the fitted observations (1..n unless the data had others).
model_row_names <- function(model) {
  as.character(model$row_names %||% seq_len(nrow(model$x)))
}

linpred_draws <- function(beta, design) {
  eta <- tcrossprod(beta, design$x)
  if (!is.null(design$offset)) eta <- sweep(eta, 2L, design$offset, `+`)
  dimnames(eta) <- NULL
  eta
}

#' Posterior draws of the linear predictor
#'
#' `posterior_linpred()` returns draws of the linear predictor (or, with
#' `transform = TRUE`, of the mean response: the inverse link applied to it), one row per
#' posterior draw and one column per observation.
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_ardl()] (both noise models; for ARDL fits
#'   the fitted time points, one step ahead from their observed lags).
#' @param transform Apply the inverse link (mean response) instead of returning the linear
#'   predictor.
#' @param newdata A data frame with the predictors (and offsets) of new observations;
#'   `NULL` (default) uses the fitted data. Factor levels must be among those of the fit.
#' @param ndraws Use only `ndraws` draws, evenly spaced over all chains (all by default).
#' @param ... Unused.
#' @return An S x N matrix.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(am ~ wt, data = mtcars, family = binomial(), chains = 2, iter = 500,
#'                 seed = 1, progress = FALSE)
#' dim(posterior_linpred(fit))
#' p <- posterior_linpred(fit, transform = TRUE, newdata = data.frame(wt = 3))
#' quantile(p, c(0.05, 0.5, 0.95))
#' }
#' @export
posterior_linpred <- function(object, ...) UseMethod("posterior_linpred")

#' @rdname posterior_linpred
#' @export
#' @rawNamespace S3method(rstantools::posterior_linpred, vhmc_glm)
posterior_linpred.vhmc_glm <- function(object, transform = FALSE, newdata = NULL,
                                       ndraws = NULL, ...) {
  check_flag(transform, "transform")
  parts <- predictive_parts(object, newdata, ndraws, what = "posterior_linpred")
  eta <- parts$eta
  if (transform) eta[] <- parts$family$linkinv(eta)
  eta
}

#' Draws from the posterior predictive distribution
#'
#' Simulates new responses, one per posterior draw and observation: normal with the
#' draw's sigma (gaussian), binomial numbers of successes (binomial), Poisson counts
#' (poisson).
#'
#' @inheritParams posterior_linpred
#' @param trials Binomial family only: numbers of trials of the new observations (one value
#'   or one per row). For the fitted data the observed trials are used; for `newdata` the
#'   default is 1 (a 0/1 outcome).
#' @param seed Optional seed; the user's random number stream is left untouched when given.
#' @return An S x N matrix of simulated responses.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' yrep <- posterior_predict(fit, seed = 2)
#' dim(yrep)
#' }
#' @export
posterior_predict <- function(object, ...) UseMethod("posterior_predict")

#' @rdname posterior_predict
#' @export
#' @rawNamespace S3method(rstantools::posterior_predict, vhmc_glm)
posterior_predict.vhmc_glm <- function(object, newdata = NULL, ndraws = NULL, trials = NULL,
                                       seed = NULL, ...) {
  parts <- predictive_parts(object, newdata, ndraws, what = "posterior_predict")
  family <- parts$family
  design <- parts$design
  mu <- family$linkinv(parts$eta)
  S <- nrow(mu)
  N <- ncol(mu)
  if (family$family == "binomial") {
    size <- trials %||% (if (is.null(newdata)) design$trials) %||% 1
    if (!is.numeric(size) || any(!is.finite(size)) || any(size < 0) || any(size != round(size)) ||
        !length(size) %in% c(1L, N)) {
      stop_arg("trials", sprintf("must be non-negative whole numbers, one or %d of them", N))
    }
    size <- matrix(rep_len(size, N), S, N, byrow = TRUE)
  }
  simulate <- function() {
    out <- switch(family$family,
      gaussian = stats::rnorm(S * N, mu, parts$sigma),
      binomial = stats::rbinom(S * N, size, mu),
      poisson = stats::rpois(S * N, mu)
    )
    matrix(out, S, N)
  }
  if (is.null(seed)) simulate() else with_local_seed(resolve_seed(seed), simulate())
}

#' Pointwise log likelihood
#'
#' The log likelihood of every observation at every posterior draw, normalising constants
#' included, in the layout the loo package expects (`loo::loo(log_lik(fit))`). Weighted
#' observations contribute their weight times their log likelihood.
#'
#' @inheritParams posterior_linpred
#' @param newdata A data frame with the response and predictors of new observations, or
#'   `NULL` (default) for the fitted data.
#' @return An S x N matrix.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' ll <- log_lik(fit)
#' dim(ll)
#' }
#' @export
log_lik <- function(object, ...) UseMethod("log_lik")

#' @rdname log_lik
#' @export
#' @rawNamespace S3method(rstantools::log_lik, vhmc_glm)
log_lik.vhmc_glm <- function(object, newdata = NULL, ndraws = NULL, ...) {
  parts <- predictive_parts(object, newdata, ndraws, need_response = TRUE, what = "log_lik")
  family <- parts$family
  design <- parts$design
  eta <- parts$eta
  N <- ncol(eta)
  y <- matrix(design$y, nrow(eta), N, byrow = TRUE)
  freq <- design$weights %||% rep(1, N)
  ll <- switch(family$family,
    gaussian = stats::dnorm(y, eta, parts$sigma, log = TRUE),
    poisson = stats::dpois(y, exp(eta), log = TRUE),
    binomial = {
      n <- design$trials %||% rep(1, N)
      freq <- if (design$matrix) design$prior_weights %||% rep(1, N) else rep(1, N)
      s <- round(y * matrix(n, nrow(eta), N, byrow = TRUE))
      nm <- matrix(n, nrow(eta), N, byrow = TRUE)
      lp <- if (family$link == "logit") stats::plogis else stats::pnorm
      # log p and log(1 - p) without cancellation; 0 * log(0) terms are 0.
      lchoose(nm, s) + ifelse(s > 0, s * lp(eta, log.p = TRUE), 0) +
        ifelse(nm - s > 0, (nm - s) * lp(-eta, log.p = TRUE), 0)
    }
  )
  ll <- sweep(ll, 2L, freq, `*`)
  dimnames(ll) <- NULL
  ll
}

#' Predictions from a GLM fit
#'
#' Posterior means of the linear predictor (`type = "link"`) or of the mean response
#' (`type = "response"`), with posterior standard deviations when `se.fit = TRUE`. For
#' draws rather than summaries use [posterior_linpred()] and [posterior_predict()].
#'
#' @param object A fit from [vhmc_glm()].
#' @param newdata A data frame of new observations, or `NULL` for the fitted data.
#' @param type `"link"` or `"response"`.
#' @param se.fit Also return posterior standard deviations.
#' @param ... Unused.
#' @return A named vector of predictions, or with `se.fit = TRUE` a list with `fit` and
#'   `se.fit`.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(count ~ spray, data = InsectSprays, family = poisson(), chains = 2,
#'                 iter = 500, seed = 1, progress = FALSE)
#' predict(fit, newdata = data.frame(spray = c("A", "C")), type = "response")
#' }
#' @export
predict.vhmc_glm <- function(object, newdata = NULL, type = c("link", "response"),
                             se.fit = FALSE, ...) {
  type <- match.arg(type)
  check_flag(se.fit, "se.fit")
  draws <- posterior_linpred(object, transform = type == "response", newdata = newdata)
  rn <- if (is.null(newdata)) model_row_names(object$model) else rownames(as.data.frame(newdata))
  # For the fitted data, rows dropped by na.action = na.exclude come back as NA (as glm()).
  pad <- function(v) if (is.null(newdata)) stats::napredict(object$model$na.action, v) else v
  fit <- pad(stats::setNames(colMeans(draws), rn))
  if (!se.fit) return(fit)
  list(fit = fit, se.fit = pad(stats::setNames(apply(draws, 2L, stats::sd), rn)))
}

#' Point summaries of a GLM fit
#'
#' `coef()` gives the posterior medians of the coefficients (as rstanarm does), `vcov()`
#' their posterior covariance, `fitted()` the posterior mean of the mean response of each
#' observation and `residuals()` the observed response minus it (for the binomial family
#' the response is the proportion of successes).
#'
#' @param object A fit from [vhmc_glm()].
#' @param ... Unused.
#' @return `coef`: a named vector; `vcov`: a matrix; `fitted`, `residuals`: vectors with
#'   one value per observation (with `na.action = na.exclude`, `NA` for the rows dropped
#'   for missing values, as [stats::glm()] does); `nobs`: the number of observations with non-zero weight;
#'   `formula`: the model formula.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' coef(fit)
#' sqrt(diag(vcov(fit)))
#' head(residuals(fit))
#' }
#' @name coef.vhmc_glm
#' @export
coef.vhmc_glm <- function(object, ...) {
  apply(glm_draws(object)$beta, 2L, stats::median)
}

#' @rdname coef.vhmc_glm
#' @export
vcov.vhmc_glm <- function(object, ...) {
  stats::cov(glm_draws(object)$beta)
}

#' @rdname coef.vhmc_glm
#' @export
fitted.vhmc_glm <- function(object, ...) predict(object, type = "response")

#' @rdname coef.vhmc_glm
#' @export
residuals.vhmc_glm <- function(object, ...) {
  mu <- colMeans(posterior_linpred(object, transform = TRUE))
  stats::naresid(object$model$na.action, stats::setNames(object$model$y - mu, model_row_names(object$model)))
}

#' @rdname coef.vhmc_glm
#' @export
nobs.vhmc_glm <- function(object, ...) object$model$nobs

#' @rdname coef.vhmc_glm
#' @param x A fit from [vhmc_glm()].
#' @export
formula.vhmc_glm <- function(x, ...) formula(x$model$terms)

#' Posterior intervals
#'
#' Central posterior intervals (quantiles) of the parameters.
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_sample()].
#' @param prob Probability mass of each interval.
#' @param pars Names of the parameters (all by default).
#' @param ... Unused.
#' @return A matrix with one row per parameter and columns for the lower and upper bounds.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' posterior_interval(fit, prob = 0.8)
#' }
#' @export
posterior_interval <- function(object, ...) UseMethod("posterior_interval")

#' @rdname posterior_interval
#' @export
#' @rawNamespace S3method(rstantools::posterior_interval, vhmc_fit)
posterior_interval.vhmc_fit <- function(object, prob = 0.9, pars = NULL, ...) {
  check_number(prob, "prob", 0, 1, open = c(TRUE, TRUE))
  m <- as.matrix(object)
  if (!is.null(pars)) {
    unknown <- setdiff(pars, colnames(m))
    if (length(unknown)) {
      stop_arg("pars", sprintf("names unknown parameters: %s", paste(unknown, collapse = ", ")))
    }
    m <- m[, pars, drop = FALSE]
  }
  alpha <- (1 - prob) / 2
  out <- t(apply(m, 2L, stats::quantile, probs = c(alpha, 1 - alpha), names = FALSE))
  dimnames(out) <- list(colnames(m), paste0(format(100 * c(alpha, 1 - alpha), trim = TRUE), "%"))
  out
}
