# Methods for GLM fits (class vhmc_glm): point summaries, prediction, posterior predictive
# draws and pointwise log likelihoods. Everything is computed from the saved draws and the
# stored model matrix; newdata go through the fit's terms, xlevels and contrasts.

# Coefficient draws (S x p) and the draws of the family's auxiliary parameters by name
# (R/family-registry.R, aux_draws(); empty for fixed-precision ARDL fits: coefficients only).
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
  list(beta = m[, coef_names, drop = FALSE], aux = aux_draws(object$model, m), m = m)
}

# Design pieces for the fit's data (newdata = NULL) or for new data.
glm_design <- function(object, newdata = NULL, need_response = FALSE) {
  model <- object$model
  if (is.null(newdata)) {
    return(list(x = model$x, offset = model$offset, y = model$y, trials = model$trials,
                weights = model$weights, prior_weights = model$prior_weights,
                matrix = model$response_matrix, cens = model$cens))
  }
  if (!is.data.frame(newdata) && !is.list(newdata)) {
    stop_arg("newdata", sprintf("must be a data frame, not %s", describe(newdata)))
  }
  tt <- model$terms
  if (!need_response) tt <- stats::delete.response(tt)
  mf <- newdata_frame(tt, newdata, model$xlevels)
  x <- stats::model.matrix(tt, mf, contrasts.arg = model$contrasts)
  check_newdata_complete(x, tt)
  x <- x[, fixed_coef_names(model), drop = FALSE]  # without the intercept a family's cutpoints replace
  x <- with_smooth_columns(x, model, newdata)
  out <- list(x = x, offset = newdata_offset(object, mf, newdata, nrow(x)), y = NULL,
              trials = NULL, weights = NULL, prior_weights = NULL, matrix = FALSE)
  if (need_response) {
    censored <- newdata_censoring(model, stats::model.response(mf), newdata)
    resp <- glm_response(censored$y, model$family, NULL, deparse1(tt[[2L]]), fitting = FALSE)
    out[c("y", "trials", "weights", "matrix")] <- resp[c("y", "trials", "weights", "matrix")]
    out["cens"] <- list(censored$cens)
  }
  out
}

# The model frame of newdata, its variables checked against the types they were fitted
# with (as predict.lm() does: a number given as text, a factor or a Date would otherwise be
# turned into a nonsense design). model.frame()'s own "is not a factor" warning is replaced
# by that check's error.
newdata_frame <- function(tt, newdata, xlevels) {
  mf <- withCallingHandlers(
    tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = xlevels),
             error = function(e) stop_arg("newdata", sprintf("does not fit the model: %s", conditionMessage(e)))),
    warning = function(w) if (grepl("is not a factor", conditionMessage(w))) invokeRestart("muffleWarning"))
  fitted <- attr(tt, "dataClasses")
  given <- vapply(mf, stats::.MFclass, "")
  given <- given[names(given) %in% names(fitted)]
  wanted <- fitted[names(given)]
  # As predict.lm() (.checkMFClasses(), ordNotOK = FALSE): ordered and unordered factors
  # substitute for each other, and a factor for a character variable.
  same <- given == wanted | (given %in% c("ordered", "factor") & wanted %in% c("ordered", "factor", "character"))
  if (all(same)) return(mf)
  v <- names(given)[!same][1L]
  stop_arg("newdata", sprintf("gives `%s` as %s, but it was fitted as %s", v,
                              class_label(mf[[v]], given[[v]]), wanted[[v]]),
           if (wanted[[v]] == "factor") sprintf("Give one of its levels (%s).", paste(utils::head(xlevels[[v]], 5L), collapse = ", ")) else
             sprintf("Give it as %s, as in the fitted data.", wanted[[v]]))
}

class_label <- function(x, mf_class) if (mf_class == "other") class(x)[1L] else mf_class

# Predictions need every predictor: name the variables with missing values, not the
# model-matrix columns (a logical x gives column "xTRUE").
check_newdata_complete <- function(x, tt) {
  if (!anyNA(x)) return(invisible())
  terms_of <- attr(stats::terms(tt), "term.labels")[attr(x, "assign")[colSums(is.na(x)) > 0]]
  bad <- unique(unlist(lapply(terms_of, function(t) all.vars(str2lang(t)))))
  stop_arg("newdata", sprintf("has missing values in %s", paste0("`", bad, "`", collapse = ", ")),
           "Predictions need every predictor; remove or impute those rows.")
}

# The offset of new rows: offset() terms of the formula come from the model frame; the
# call's `offset =` argument is evaluated in newdata and must use its columns and give one
# value per row (offset = log(mtcars$hp) names the fitted data: recycled, it would give
# every new row the offsets of the first fitted rows).
newdata_offset <- function(object, mf, newdata, n) {
  offset <- stats::model.offset(mf)
  call_offset <- object$call$offset
  if (is.null(call_offset)) return(if (!is.null(offset)) as.numeric(offset))
  fix <- paste("Write the offset in the model's variables, e.g. offset = log(hp) with `data`, or",
               "offset(log(hp)) in the formula, so that it is evaluated in newdata.")
  if (!any(free_variables(call_offset) %in% names(newdata))) {
    stop_arg("offset", sprintf("of the fit (%s) uses no column of `newdata`, so it cannot give the new rows' offsets",
                               deparse1(call_offset)), fix)
  }
  extra <- eval(call_offset, as.data.frame(newdata), environment(formula(object$model$terms)))
  if (!is.numeric(extra) || length(extra) != n) {
    stop_arg("offset", sprintf("of the fit (%s) gives %d values for the %d rows of `newdata`",
                               deparse1(call_offset), length(extra), n), fix)
  }
  as.numeric((offset %||% 0) + extra)
}

# The variables an expression reads, without the names after `$` or `@` (mtcars$hp reads
# mtcars, not a column hp).
free_variables <- function(expr) {
  if (is.name(expr)) return(as.character(expr))
  if (!is.call(expr)) return(character())
  parts <- as.list(expr)
  if (deparse1(parts[[1L]]) %in% c("$", "@")) parts <- parts[1:2]
  unique(unlist(lapply(parts[-1L], free_variables)))
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
#' @param re.form For fits with group-level terms: which terms enter the linear predictor,
#'   `NULL` (default) all of them, `NA` or `~0` none, or a formula of some of them (such as
#'   `~ (1 | g)`), as in lme4 and rstanarm.
#' @param allow_new_levels For fits with group-level terms: whether `newdata` may have
#'   levels of a grouping factor that the fit has not seen (`FALSE`, the default, makes them
#'   an error that names them).
#' @param sample_new_levels How the effects of a new level are drawn: `"gaussian"` (default)
#'   from the term's normal distribution with the draw's covariance, independently for each
#'   new level and posterior draw; `"uncertainty"`, for each new level and draw, the effects of
#'   a level of the fit chosen at random; `"old_levels"`, for each new level, one level of the
#'   fit chosen at random, for all draws (brms's three options). For a nested term
#'   (`(1 | g1/g2)`) a level new in `g1:g2` but known in `g1` keeps its `g1` effect.
#' @param seed Optional seed of the new levels' draws (as `predict()`'s and
#'   `posterior_predict()`'s); the user's random number stream is left untouched when given.
#' @param ... Must be empty.
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
                                       ndraws = NULL, re.form = NULL, allow_new_levels = FALSE,
                                       sample_new_levels = "gaussian", seed = NULL, ...) {
  check_no_dots(list(...), "posterior_linpred.vhmc_glm")
  check_flag(transform, "transform")
  re <- re_options(object, re.form, allow_new_levels, sample_new_levels, seed)
  parts <- predictive_parts(object, newdata, ndraws, what = "posterior_linpred", re = re)
  eta <- parts$eta
  if (transform) eta[] <- parts$family$linkinv(eta)
  eta
}

#' Draws from the posterior predictive distribution
#'
#' Simulates new responses, one per posterior draw and observation: normal with the
#' draw's sigma (gaussian), binomial numbers of successes (binomial), Poisson counts
#' (poisson), negative binomial counts with the draw's reciprocal dispersion
#' (`neg_binomial_2()`), Gamma outcomes with the draw's shape (`Gamma(link = "log")`).
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
                                       seed = NULL, re.form = NULL, allow_new_levels = FALSE,
                                       sample_new_levels = "gaussian", ...) {
  check_no_dots(list(...), "posterior_predict.vhmc_glm")
  # The new levels' draws take a stream of their own, not the responses' (seed).
  re <- re_options(object, re.form, allow_new_levels, sample_new_levels, if (!is.null(seed)) seed + 7919)
  parts <- predictive_parts(object, newdata, ndraws, what = "posterior_predict", re = re)
  family <- parts$family
  S <- nrow(parts$eta)
  N <- ncol(parts$eta)
  if (family$entry$trials) {
    size <- trials %||% (if (is.null(newdata)) parts$design$trials) %||% 1
    if (!is.numeric(size) || any(!is.finite(size)) || any(size < 0) || any(size != round(size)) ||
        !length(size) %in% c(1L, N)) {
      stop_arg("trials", sprintf("must be non-negative whole numbers, one or %d of them", N))
    }
    parts$trials <- rep_len(size, N)
  }
  simulate <- function() matrix(family$entry$simulate(parts), S, N)
  if (is.null(seed)) simulate() else with_local_seed(resolve_seed(seed), simulate())
}

#' Pointwise log likelihood
#'
#' The log likelihood of every observation at every posterior draw, normalising constants
#' included, in the layout the loo package expects (`loo::loo(log_lik(fit))`). Weighted
#' observations contribute their weight times their log likelihood.
#'
#' For a fit with group-level terms, new observations of a level the fit has not seen are an
#' error unless `allow_new_levels = TRUE`: their effects are then drawn as
#' `sample_new_levels` says (by default from the term's normal distribution with each draw's
#' covariance), so the log likelihood is that of an observation of a new group, which
#' [kfold()][kfold.vhmc_fit] uses for held-out levels.
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
log_lik.vhmc_glm <- function(object, newdata = NULL, ndraws = NULL, re.form = NULL,
                             allow_new_levels = FALSE, sample_new_levels = "gaussian",
                             seed = NULL, ...) {
  check_no_dots(list(...), "log_lik.vhmc_glm")
  re <- re_options(object, re.form, allow_new_levels, sample_new_levels, seed)
  parts <- predictive_parts(object, newdata, ndraws, need_response = TRUE, what = "log_lik", re = re)
  family <- parts$family
  design <- parts$design
  N <- ncol(parts$eta)
  y <- matrix(design$y, nrow(parts$eta), N, byrow = TRUE)
  # Frequency weights multiply; a binomial's trials are in its likelihood, not its weights.
  freq <- if (!family$entry$trials) design$weights %||% rep(1, N) else
    if (design$matrix) design$prior_weights %||% rep(1, N) else rep(1, N)
  ll <- family$entry$log_lik(y, parts)
  if (!is.null(design$cens)) ll <- censored_log_lik(ll, y, design$cens, parts)
  ll <- sweep(ll, 2L, freq, `*`)
  dimnames(ll) <- NULL
  ll
}

#' Predictions from a GLM fit
#'
#' Posterior means of the linear predictor (`type = "link"`) or of the mean response
#' (`type = "response"`), with posterior standard deviations when `se.fit = TRUE`, and
#' with intervals when asked: `interval = "confidence"` gives central posterior intervals
#' of the linear predictor or mean response, `interval = "prediction"` central intervals
#' of new observations (quantiles of [posterior_predict()], as rstanarm's
#' `predictive_interval()`; on the response scale, so `type = "response"` unless the link
#' is the identity). For draws rather than summaries use
#' [posterior_linpred()] and [posterior_predict()].
#'
#' @param object A fit from [vhmc_glm()].
#' @param newdata A data frame of new observations, or `NULL` for the fitted data. Its
#'   variables must have the types they were fitted with (a number given as text is an
#'   error, as in [stats::predict.lm()]).
#' @param type `"link"` or `"response"`.
#' @param se.fit Also return posterior standard deviations.
#' @param interval `"none"` (default), `"confidence"` or `"prediction"`.
#' @param level Probability mass of the intervals.
#' @param seed Optional seed of the simulations behind prediction intervals (and of new
#'   levels' effects); the user's random number stream is left untouched when given.
#' @inheritParams posterior_linpred
#' @param ... Must be empty.
#' @return A named vector of predictions; with an interval, a matrix with columns `fit`,
#'   `lwr` and `upr` (as [stats::predict.lm()]); with `se.fit = TRUE` a list with `fit`
#'   (either of those) and `se.fit`.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(count ~ spray, data = InsectSprays, family = poisson(), chains = 2,
#'                 iter = 500, seed = 1, progress = FALSE)
#' nd <- data.frame(spray = c("A", "C"))
#' predict(fit, newdata = nd, type = "response")
#' predict(fit, newdata = nd, type = "response", interval = "prediction", seed = 1)
#' }
#' @export
predict.vhmc_glm <- function(object, newdata = NULL, type = c("link", "response"),
                             se.fit = FALSE, interval = c("none", "confidence", "prediction"),
                             level = 0.95, seed = NULL, re.form = NULL, allow_new_levels = FALSE,
                             sample_new_levels = "gaussian", ...) {
  check_no_dots(list(...), "predict.vhmc_glm")
  type <- match_choice(type, "type", c("link", "response"))
  interval <- match_choice(interval, "interval", c("none", "confidence", "prediction"))
  check_flag(se.fit, "se.fit")
  check_number(level, "level", 0, 1, open = c(TRUE, TRUE))
  if (interval == "prediction" && type == "link" && !link_on_response_scale(object$model$family)) {
    stop_arg("interval", "is \"prediction\", but prediction intervals are for new observations, on the response scale",
             "Use type = \"response\", or interval = \"confidence\" for the linear predictor.")
  }
  draw <- if (type == "response") posterior_epred else posterior_linpred
  draws <- draw(object, newdata = newdata, re.form = re.form, allow_new_levels = allow_new_levels,
                sample_new_levels = sample_new_levels, seed = seed)
  rn <- if (is.null(newdata)) model_row_names(object$model) else rownames(as.data.frame(newdata))
  # For the fitted data, rows dropped by na.action = na.exclude come back as NA (as glm()).
  pad <- function(v) if (is.null(newdata)) stats::napredict(object$model$na.action, v) else v
  if (length(dim(draws)) == 3L) return(predict_categories(draws, object$model$levels, rn, se.fit, interval))
  fit <- pad(stats::setNames(colMeans(draws), rn))
  if (interval != "none") {
    spread <- if (interval == "confidence") draws else
      posterior_predict(object, newdata = newdata, seed = seed, re.form = re.form,
                        allow_new_levels = allow_new_levels, sample_new_levels = sample_new_levels)
    fit <- cbind(fit = fit, interval_bounds(spread, level, pad, c("lwr", "upr")))
  }
  if (!se.fit) return(fit)
  list(fit = fit, se.fit = pad(stats::setNames(apply(draws, 2L, stats::sd), rn)))
}

# predict() of an ordinal fit: the posterior mean probability of each category (N x K),
# with their posterior sds; intervals of probabilities come from posterior_epred().
predict_categories <- function(draws, levels, rn, se.fit, interval) {
  if (interval != "none") {
    stop_arg("interval", "must be \"none\" for an ordinal model, whose predictions are category probabilities",
             "Take quantiles of posterior_epred(fit) (draws x observations x categories), or of posterior_predict(fit).")
  }
  fit <- apply(draws, c(2L, 3L), mean)
  dimnames(fit) <- list(rn, levels)
  if (!se.fit) return(fit)
  se <- apply(draws, c(2L, 3L), stats::sd)
  dimnames(se) <- dimnames(fit)
  list(fit = fit, se.fit = se)
}

# Central intervals of each column of S x N draws: an N x 2 matrix named `names`, padded
# for na.exclude by `pad`.
interval_bounds <- function(draws, level, pad = identity, names = NULL) {
  alpha <- (1 - level) / 2
  q <- apply(draws, 2L, stats::quantile, probs = c(alpha, 1 - alpha), names = FALSE)
  out <- cbind(pad(q[1L, ]), pad(q[2L, ]))
  colnames(out) <- names %||% paste0(format(100 * c(alpha, 1 - alpha), trim = TRUE), "%")
  out
}

#' Predictive intervals
#'
#' Central intervals of the posterior predictive distribution of each observation: the
#' quantiles of [posterior_predict()], as rstanarm's `predictive_interval()`.
#'
#' @inheritParams posterior_predict
#' @param prob Probability mass of each interval.
#' @return A matrix with one row per observation and columns for the lower and upper
#'   bounds.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' predictive_interval(fit, newdata = data.frame(wt = c(2.5, 3.5)), seed = 1)
#' }
#' @export
predictive_interval <- function(object, ...) UseMethod("predictive_interval")

#' @rdname predictive_interval
#' @export
#' @rawNamespace S3method(rstantools::predictive_interval, vhmc_glm)
predictive_interval.vhmc_glm <- function(object, prob = 0.9, newdata = NULL, ndraws = NULL,
                                         seed = NULL, re.form = NULL, allow_new_levels = FALSE,
                                         sample_new_levels = "gaussian", ...) {
  check_no_dots(list(...), "predictive_interval.vhmc_glm")
  check_number(prob, "prob", 0, 1, open = c(TRUE, TRUE))
  interval_bounds(posterior_predict(object, newdata = newdata, ndraws = ndraws, seed = seed, re.form = re.form,
                                    allow_new_levels = allow_new_levels, sample_new_levels = sample_new_levels),
                  prob)
}

#' Point summaries of a GLM fit
#'
#' `coef()` gives the posterior medians of the coefficients (as rstanarm does), `vcov()`
#' their posterior covariance, `fitted()` the posterior mean of the mean response of each
#' observation and `residuals()` residuals at it: `type = "response"` (default, as
#' rstanarm) the observed response minus it (for the binomial family the response is the
#' proportion of successes), `"pearson"` and `"deviance"` as [stats::glm()] defines them
#' (Pearson residuals divide by the family's standard deviation at the mean and multiply
#' by the square root of the weight; deviance residuals are the signed square roots of the
#' observations' deviance contributions).
#'
#' @param object A fit from [vhmc_glm()].
#' @param type Type of residuals: `"response"`, `"pearson"` or `"deviance"`.
#' @param ... Must be empty.
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
  check_no_dots(list(...), "coef.vhmc_glm")
  apply(glm_draws(object)$beta, 2L, stats::median)
}

#' @rdname coef.vhmc_glm
#' @export
vcov.vhmc_glm <- function(object, ...) {
  check_no_dots(list(...), "vcov.vhmc_glm")
  stats::cov(glm_draws(object)$beta)
}

#' @rdname coef.vhmc_glm
#' @export
fitted.vhmc_glm <- function(object, ...) {
  check_no_dots(list(...), "fitted.vhmc_glm")
  predict(object, type = "response")
}

#' @rdname coef.vhmc_glm
#' @export
residuals.vhmc_glm <- function(object, type = c("response", "pearson", "deviance"), ...) {
  check_no_dots(list(...), "residuals.vhmc_glm")
  type <- match_choice(type, "type", c("response", "pearson", "deviance"))
  model <- object$model
  entry <- model$family$entry
  if (entry$ordinal) {
    stop_arg("object", sprintf("is a %s fit, whose response is a category: it has no numeric residuals", model$family$family),
             "Compare the observed categories with posterior_predict(fit), or use loo().")
  }
  if (type == "deviance" && is.null(entry$dev_resids)) {
    stop_arg("type", sprintf("is \"deviance\", which the %s family does not define", model$family$family),
             "Use type = \"response\" or \"pearson\".")
  }
  mu <- colMeans(posterior_epred(object))
  y <- model$y
  w <- model$weights %||% rep(1, length(y))
  # Posterior medians of the aux parameters; a modelled one's per observation.
  aux <- lapply(predictive_parts(object, what = "residuals")$aux,
                function(a) if (is.matrix(a)) apply(a, 2L, stats::median) else stats::median(a))
  r <- switch(type,
    response = y - mu,
    pearson = (y - mu) * sqrt(w) / sqrt(pearson_variance(object, mu, aux)),
    deviance = sign(y - mu) * sqrt(pmax(entry$dev_resids(y, mu, w, aux), 0))
  )
  stats::naresid(model$na.action, stats::setNames(r, model_row_names(model)))
}

# The variance behind Pearson residuals at the posterior medians: the family's variance
# function as glm() uses it (without a dispersion) where it has one, else the model's variance.
pearson_variance <- function(object, mu, aux) {
  family <- object$model$family
  if (!is.null(family$entry$pearson_variance)) return(family$entry$pearson_variance(mu, aux))
  eta <- matrix(colMeans(posterior_linpred(object)), 1L)
  as.numeric(family$entry$variance(list(eta = eta, aux = aux, family = family, trials = object$model$trials)))
}

#' @rdname coef.vhmc_glm
#' @export
nobs.vhmc_glm <- function(object, ...) object$model$nobs

# Where the fit's formula was made (a bf()'s: its mean formula's), where kfold() and
# conditional_effects() find the data again.
fit_environment <- function(x) {
  f <- formula(x)
  environment(if (inherits(f, "vhmc_bf")) f$formula else f)
}

#' @rdname coef.vhmc_glm
#' @param x A fit from [vhmc_glm()].
#' @export
formula.vhmc_glm <- function(x, ...) {
  f <- x$model$formula %||% formula(x$model$terms)
  if (is.null(x$model$dpar_formulas)) return(f)
  do.call(bf, c(list(f), unname(x$model$dpar_formulas)))  # with its distributional formulas
}

#' Posterior intervals
#'
#' Central posterior intervals (quantiles) of the parameters.
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_sample()].
#' @param prob Probability mass of each interval.
#' @param pars Names of the parameters (all by default).
#' @param ... Must be empty.
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
  check_no_dots(list(...), "posterior_interval.vhmc_fit")
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

#' @rdname posterior_interval
#' @param parm Names of the parameters, as for [stats::confint()] (all by default).
#' @param level Probability mass of each interval (`confint()`).
#' @details `confint()` gives the same central posterior (credible) intervals, with the
#'   column names of [stats::confint()] (`"2.5 %"`, `"97.5 %"`), so that code written for
#'   `glm()` fits runs on a vhmc fit.
#' @export
confint.vhmc_fit <- function(object, parm = NULL, level = 0.95, ...) {
  check_no_dots(list(...), "confint.vhmc_fit")
  out <- posterior_interval(object, prob = level, pars = parm)
  a <- (1 - level) / 2
  colnames(out) <- paste(format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE, digits = 3), "%")
  out
}
