# Expected responses and R-squared of GLM and ARDL fits, and the one place the predictive
# methods (posterior_linpred, posterior_epred, posterior_predict, log_lik, bayes_R2, loo_R2,
# pp_check) get their draws and data from.

# The family, the design (glm_design(): response, trials, weights) and, for a fixed-precision
# ARDL fit, the known noise sd as `aux`. `what` names the calling method in errors: ARDL fits take no
# `newdata` (new rows need the series' lags), and fits of R log densities have no data model.
predictive_design <- function(object, newdata = NULL, need_response = FALSE, what) {
  check_predictive(object, what)
  if (inherits(object, "vhmc_ardl")) {
    ardl_no_newdata(object, newdata, what)
    if (!inherits(object, "vhmc_glm")) return(ardl_fixed_design(object))
  }
  list(family = object$model$family, design = glm_design(object, newdata, need_response))
}

check_predictive <- function(object, what, arg = "object") {
  if (inherits(object, c("vhmc_glm", "vhmc_ardl"))) return(invisible())
  stop_arg(arg, sprintf("is %s, not a fit of vhmc_glm() or vhmc_ardl(), so %s() has no observations or data model to work with",
                        if (is_vhmc_fit(object)) "a vhmc_sample() fit of an R log density" else
                          describe_class(object), what),
           "Compute predictions from the draws (as_draws_df(fit)) yourself, or fit the model with vhmc_glm() or vhmc_ardl().")
}

# predictive_design() plus the S x N draws of the linear predictor and of the family's
# auxiliary parameter (one per draw, or the known noise sd of a fixed-precision ARDL fit;
# NULL for families without one).
predictive_parts <- function(object, newdata = NULL, ndraws = NULL, need_response = FALSE, what,
                             re = re_options(object, NULL, FALSE, "gaussian", NULL)) {
  parts <- predictive_design(object, newdata, need_response, what)
  draws <- glm_draws(object, ndraws)
  parts$eta <- linpred_draws(draws$beta, parts$design)
  lp <- if (!is.null(re)) glmer_linpreds(object, draws$m, newdata, re)
  if (!is.null(re)) parts$eta <- parts$eta + lp$eta
  if (length(draws$aux)) parts$aux <- draws$aux
  parts$aux <- with_dpar_draws(parts$aux, object$model, draws$m, newdata, lp)
  parts$trials <- parts$design$trials
  parts
}

# The observed response on the scale of posterior_predict() (binomial: numbers of successes).
observed_response <- function(object, what) {
  parts <- predictive_design(object, need_response = TRUE, what = what)
  parts$family$entry$observed(parts$design$y, parts$design$trials)
}

# Draws (S x N) of the expected response on the scale of posterior_predict() (binomial: the
# expected numbers of successes, trials times the probability) and of the model's variance of
# each observation around it (the family's, R/family-*.R: sigma^2 for the gaussian, n mu (1 -
# mu) for the binomial, ...). `what` names the method that needs them.
response_moments <- function(parts, what) {
  entry <- parts$family$entry
  if (entry$ordinal) {
    stop_arg("object", sprintf("is a %s fit: its response is a category, which has no mean or variance for %s()",
                               parts$family$family, what),
             "Use loo() to compare ordinal models, or summarise posterior_epred(fit), the category probabilities.")
  }
  mean <- entry$epred(parts)
  if (entry$trials) mean <- mean * trials_matrix(parts)
  list(mean = mean, var = entry$variance(parts))
}

#' Posterior draws of the expected response
#'
#' `posterior_epred()` returns draws of the expected value of the response given the
#' predictors, one row per posterior draw and one column per observation, as brms and
#' rstanarm. For most families it is the inverse link applied to the linear predictor,
#' `posterior_linpred(fit, transform = TRUE)`; where the mean involves the auxiliary
#' parameters it includes them: \eqn{\exp(\mu + \sigma^2/2)} for [lognormal()],
#' \eqn{(1 - z)\mu} for the zero-inflated counts, \eqn{(1 - h)\mu / (1 - P(0))} for the
#' hurdle counts. For the binomial family it is the success probability (as in rstanarm;
#' multiply by the trials for expected numbers of successes). For [cumulative()] models it is
#' an array draws x observations x categories of the categories' probabilities, as brms's.
#' For an ARDL fit it is the one-step-ahead mean of every fitted time point given its observed
#' lags, for both noise models; forecasts beyond the data come from [forecast()].
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_ardl()].
#' @param newdata A data frame with the predictors (and offsets) of new observations;
#'   `NULL` (default) uses the fitted data. Not available for ARDL fits (use [forecast()]).
#' @param ndraws Use only `ndraws` draws, evenly spaced over all chains (all by default).
#' @inheritParams posterior_linpred
#' @param dpar The name of an auxiliary parameter (`"sigma"`, `"zi"`, ...; see
#'   [vhmc_families]): its draws per observation instead of the mean, as brms's `dpar`
#'   (a distributional model's varies with the observations, [bf()]).
#' @param ... Must be empty.
#' @return An S x N matrix (ordinal models: an S x N x K array).
#' @seealso [posterior_linpred()], [posterior_predict()]
#' @examples
#' \donttest{
#' fit <- vhmc_glm(am ~ wt, data = mtcars, family = binomial(), chains = 2, iter = 500,
#'                 seed = 1, progress = FALSE)
#' p <- posterior_epred(fit, newdata = data.frame(wt = c(2.5, 3.5)))
#' apply(p, 2, quantile, probs = c(0.05, 0.5, 0.95))
#' ar <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' dim(posterior_epred(ar, ndraws = 100))  # 100 draws x 47 one-step-ahead means
#' }
#' @export
posterior_epred <- function(object, ...) UseMethod("posterior_epred")

#' @rdname posterior_epred
#' @export
#' @rawNamespace S3method(rstantools::posterior_epred, vhmc_fit)
posterior_epred.vhmc_fit <- function(object, newdata = NULL, ndraws = NULL, re.form = NULL,
                                     allow_new_levels = FALSE, sample_new_levels = "gaussian",
                                     seed = NULL, dpar = NULL, ...) {
  check_no_dots(list(...), "posterior_epred.vhmc_fit")
  check_predictive(object, "posterior_epred")
  re <- re_options(object, re.form, allow_new_levels, sample_new_levels, seed)
  parts <- predictive_parts(object, newdata, ndraws, what = "posterior_epred", re = re)
  if (!is.null(dpar)) return(dpar_epred(parts, dpar))
  mu <- parts$family$entry$epred(parts)
  if (length(dim(mu)) == 2L) dimnames(mu) <- NULL
  if (length(dim(mu)) == 3L) dimnames(mu) <- list(NULL, NULL, object$model$levels)
  mu
}

# `dpar` names one of the family's auxiliary parameters (not its cutpoints).
check_dpar_name <- function(dpar, family) {
  ok <- family$aux$name[!family$aux$sized_by_data]
  if (!is.character(dpar) || length(dpar) != 1L || !dpar %in% ok) {
    stop_arg("dpar", sprintf("must name an auxiliary parameter of the %s family, not %s", family$family, describe(dpar)),
             if (length(ok)) sprintf("Use one of %s.", paste0("\"", ok, "\"", collapse = ", ")) else "This family has none.")
  }
  invisible()
}

# The draws (S x N) of auxiliary parameter `dpar` per observation.
dpar_epred <- function(parts, dpar) {
  check_dpar_name(dpar, parts$family)
  v <- parts$aux[[dpar]]
  if (is.matrix(v)) return(unname(v))
  matrix(v, length(v), ncol(parts$eta))
}

#' Bayesian and LOO R-squared
#'
#' `bayes_R2()` computes Gelman, Goodrich, Gabry and Vehtari (2019, eq. 3) R-squared for
#' every posterior draw: the variance of the expected responses over the observations,
#' divided by that variance plus the model's residual variance, \eqn{\sigma^2} (gaussian),
#' the mean over the observations of \eqn{n\mu(1-\mu)} (binomial, \eqn{n} trials) or of
#' \eqn{\mu} (poisson). Binomial models are on the scale of the numbers of successes, as in
#' rstanarm. For ARDL fits it is the R-squared of the one-step-ahead means, with the known
#' noise variance \eqn{1/\alpha} for a fixed `noise_precision`. Observation weights are not
#' used (each row counts once, as in rstanarm).
#'
#' `loo_R2()` is the LOO-adjusted R-squared of rstanarm and brms, \eqn{1 -
#' V(e^{loo}) / V(y)}, with \eqn{e^{loo}} the residuals of the leave-one-out predictive
#' means, computed by Pareto-smoothed importance sampling of [log_lik()] (Vehtari, Gelman and
#' Gabry 2017). Its uncertainty comes from the Bayesian bootstrap over the observations
#' (Rubin 1981): Dirichlet(1, ..., 1) weights, one set per posterior draw; values are
#' truncated to \[-1, 1\] as in rstanarm. It needs the loo package.
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_ardl()].
#' @param summary Return a one-row summary (`Estimate` = mean, `Est.Error` = sd and the
#'   quantiles `probs`) instead of the draws.
#' @param probs Probabilities of the quantiles in the summary.
#' @param ndraws Use only `ndraws` posterior draws, evenly spaced over all chains.
#' @param newdata `bayes_R2()`: a data frame of new observations whose predictors the
#'   R-squared is computed over (`NULL`, default: the fitted data). The response is not
#'   needed, except that binomial numbers of trials are read from a `cbind(successes,
#'   failures)` response when newdata has it (otherwise one trial per row). Not for ARDL
#'   fits.
#' @param seed Optional seed for the bootstrap weights of `loo_R2()`; the user's random number
#'   stream is left untouched when given.
#' @param re.form `bayes_R2()` of a fit with group-level terms: which terms the expected
#'   responses include (`NULL` all, `NA` none: the R-squared of the fixed effects alone), as
#'   in [posterior_linpred()].
#' @param ... Must be empty.
#' @return A vector of draws, or with `summary = TRUE` a 1-row matrix.
#' @references Gelman, A., Goodrich, B., Gabry, J. and Vehtari, A. (2019). R-squared for
#'   Bayesian regression models. *The American Statistician* 73(3), 307-309.
#'
#'   Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model evaluation using
#'   leave-one-out cross-validation and WAIC. *Statistics and Computing* 27, 1413-1432.
#'
#'   Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130-134.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt + hp, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' bayes_R2(fit, summary = TRUE)
#' if (requireNamespace("loo", quietly = TRUE)) loo_R2(fit, summary = TRUE, seed = 1)
#' ar <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' bayes_R2(ar, summary = TRUE)
#' }
#' @export
bayes_R2 <- function(object, ...) UseMethod("bayes_R2")

#' @rdname bayes_R2
#' @export
#' @rawNamespace S3method(rstantools::bayes_R2, vhmc_fit)
bayes_R2.vhmc_fit <- function(object, summary = FALSE, probs = c(0.025, 0.975), ndraws = NULL,
                              newdata = NULL, re.form = NULL, ...) {
  check_no_dots(list(...), "bayes_R2.vhmc_fit")
  check_flag(summary, "summary")
  re <- re_options(object, re.form, FALSE, "gaussian", NULL)
  moments <- response_moments(predictive_parts(object, newdata, ndraws, what = "bayes_R2", re = re,
                                               need_response = has_response(object, newdata)), "bayes_R2")
  if (ncol(moments$mean) < 2L) stop_arg("object", "has one observation; R-squared needs two or more")
  # Gelman et al. (2019), eq. 3: V(mu_s) / (V(mu_s) + var_res_s), V the sample variance.
  fit_var <- row_var(moments$mean)
  r2 <- fit_var / (fit_var + rowMeans(moments$var))
  if (summary) summarise_r2(r2, probs) else r2
}

#' @rdname bayes_R2
#' @export
loo_R2 <- function(object, ...) UseMethod("loo_R2")

#' @rdname bayes_R2
#' @export
#' @rawNamespace S3method(rstantools::loo_R2, vhmc_fit)
loo_R2.vhmc_fit <- function(object, summary = FALSE, probs = c(0.025, 0.975), seed = NULL, ...) {
  check_no_dots(list(...), "loo_R2.vhmc_fit")
  check_flag(summary, "summary")
  y <- observed_response(object, "loo_R2")
  expected <- response_moments(predictive_parts(object, what = "loo_R2"), "loo_R2")$mean
  li <- loo_psis(object, "loo_R2()")
  eloo <- y - loo::E_loo(expected, li$psis, type = "mean", log_ratios = -li$ll)$value
  # Bayesian bootstrap (Rubin 1981): Dirichlet(1, ..., 1) weights over the observations.
  boot <- function() {
    w <- matrix(stats::rexp(nrow(expected) * length(y)), nrow(expected))
    w / rowSums(w)
  }
  w <- if (is.null(seed)) boot() else with_local_seed(resolve_seed(seed), boot())
  r2 <- 1 - weighted_row_var(w, eloo) / weighted_row_var(w, y)
  r2 <- pmin(pmax(r2, -1), 1)
  if (summary) summarise_r2(r2, probs) else r2
}

# Whether newdata (when given) has every variable of a binomial fit's response, so that its
# numbers of trials can be read.
has_response <- function(object, newdata) {
  if (is.null(newdata) || !inherits(object, "vhmc_glm") ||
      !isTRUE(object$model$family$entry$trials)) return(FALSE)
  all(all.vars(object$model$terms[[2L]]) %in% names(newdata))
}

# Sample variance (denominator N - 1) of each row.
row_var <- function(m) rowSums((m - rowMeans(m))^2) / (ncol(m) - 1L)

# Variance of x under each row of normalised weights w, times N / (N - 1) as row_var().
weighted_row_var <- function(w, x) {
  n <- length(x)
  (drop(w %*% x^2) - drop(w %*% x)^2) * n / (n - 1)
}

# brms-style one-row summary of R-squared draws.
summarise_r2 <- function(r2, probs) {
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs < 0 | probs > 1)) {
    stop_arg("probs", sprintf("must be probabilities in [0, 1], not %s", describe(probs)))
  }
  q <- stats::quantile(r2, probs, names = FALSE)
  matrix(c(mean(r2), stats::sd(r2), q), 1L,
         dimnames = list("R2", c("Estimate", "Est.Error", paste0("Q", 100 * probs))))
}
