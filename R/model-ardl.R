#' Bayesian autoregressive distributed lag (ARDL) models
#'
#' Fits an ARDL(p, q) time-series regression (Asaad 2017): the response is regressed on
#' an intercept, its own lags 1..`p` and every regressor at lags 0..`q`,
#'
#' \deqn{y_t = w_0 + \sum_{k=1}^p w_k y_{t-k} + \sum_{l=0}^{q} \sum_{i=1}^m w_{p+lm+i}
#' x_{i,t-l} + e_t,}
#'
#' using the rows \eqn{t = t_0 + 1, \dots, T} with \eqn{t_0 = \max(p, q)} (the likelihood is
#' conditional on the first \eqn{t_0} observations). The coefficients are named `(Intercept)`,
#' `L1.y`, ..., `Lp.y`, then lag-major `L0.x1`, `L0.x2`, ..., `L1.x1`, `L1.x2`, ...; with
#' one `q` per regressor, lag `l` of regressor `i` is present when `l <= q[i]`.
#' `y ~ 1` (or a univariate `ts` without regressors) is an AR(`p`) model; `y ~ 0 + ...`
#' drops the intercept.
#'
#' Two noise models:
#' * `noise_precision = NULL` (default): gaussian noise with unknown sigma. The lagged data
#'   are fitted by [vhmc_glm()] with `family = gaussian()`, so priors, samplers,
#'   initial values and every method of GLM fits work as there (`predict()` and
#'   `fitted()` give one-step-ahead predictions from observed lags).
#'   The default priors are those of [vhmc_glm()] (weakly informative, autoscaled to the
#'   data), not the slides' unscaled \eqn{N(0, 10^2)}: vhmc_glm's intercept prior applies at
#'   the predictor means, where an unscaled prior would conflict with a series whose level
#'   is far from 0. Give `prior = normal(0, 10)` and `prior_intercept = normal(0, 10)` for
#'   fixed scales (as the arK test does).
#' * `noise_precision = alpha`: the fixed-precision model of the slides' Proposition,
#'   \eqn{e_t \sim N(0, \alpha^{-1})}, \eqn{w \sim N(0, \beta^{-1} I)} with
#'   \eqn{\beta} = `prior_precision`. The posterior is Gaussian, \eqn{N(\mu, \Sigma)} with
#'   \eqn{\Sigma = (\alpha Z'Z + \beta I)^{-1}} and \eqn{\mu = \alpha \Sigma Z'y};
#'   [exact_posterior()] returns it. The model is evaluated in C++ by the gaussian GLM
#'   potential with the noise precision fixed: full gradients from the sufficient
#'   statistics \eqn{Z'Z}, \eqn{Z'y} (cost \eqn{O(d^2)} per gradient, whatever the length
#'   of the series), and per-row minibatch gradients for the stochastic-gradient samplers
#'   [sghmc()] and [sgld()], \eqn{\tilde g(w) = -\alpha (N/B) \sum_{t \in S} (y_t -
#'   w'z_t) z_t + \beta w}. The coefficients are sampled as they are (no centring or
#'   scaling), so `sghmc(metric = "unit", step_size = ...)` runs on \eqn{w} itself, in the
#'   units of the ARDL slides' experiments. A series whose level is far from 0 then has
#'   strongly correlated intercept and lag coefficients, which the diagonal metric of the
#'   stochastic-gradient samplers does not undo (they mix slowly): demean or standardise
#'   the series for them. This model is mainly a test bed: its exact posterior checks
#'   samplers (see `vignette("sghmc-ardl")`).
#'
#' Data: a data frame (rows in time order, or ordered by the column named by `time`), a
#' multivariate `ts` (`mts`, formula variables are its columns), or a univariate `ts`
#' (named in the formula by the response, e.g. `lh ~ 1` with `data = lh`). Every series must
#' be numeric and complete: an ARDL model needs equally spaced observations, so missing
#' values are an error, not dropped.
#'
#' @param formula `response ~ regressors`: each term a numeric variable (or a
#'   transformation such as `log(x)`); no factors or interactions. `y ~ 1` for an
#'   autoregression.
#' @param data A data frame, a `ts` or an `mts` object; if missing, variables are taken
#'   from the formula's environment.
#' @param p Number of lags of the response (a whole number >= 0).
#' @param q Largest lag of the regressors: one whole number >= 0 for all, or one per
#'   regressor (in the order of the formula). Ignored (may be `NULL`) without regressors.
#' @param time Optional name of a column of `data` (numbers, dates or date-times) that
#'   orders the rows; it is kept for [forecast()] and plots and is not a regressor.
#' @param noise_precision `NULL` (default) to estimate sigma, or the fixed noise
#'   precision \eqn{\alpha > 0} (noise variance \eqn{1/\alpha}).
#' @param prior_precision Prior precision \eqn{\beta > 0} of every coefficient in the
#'   fixed-precision model (prior sd \eqn{1/\sqrt\beta}, on the data's scale). Only with
#'   `noise_precision`.
#' @param prior,prior_intercept,prior_aux Priors of the sigma-estimated model, as in
#'   [vhmc_glm()] (see [priors]); the lagged response counts as a predictor for
#'   autoscaling. Not used with `noise_precision` (use `prior_precision`).
#' @param init Initial values as in [vhmc_glm()] (with `noise_precision`: the
#'   coefficients only, no `sigma`).
#' @inheritParams vhmc_glm
#' @param ... Must be empty; here so that misspelt arguments give an error.
#' @return A fit of class `c("vhmc_ardl", ...)`: with estimated sigma also a `vhmc_glm`,
#'   otherwise a `vhmc_fit` with the coefficients only. Fits of both noise models have
#'   [posterior_linpred()], [posterior_epred()], [posterior_predict()] and [log_lik()] (for
#'   the fitted time points, one step ahead from their observed lags), [bayes_R2()],
#'   [loo_R2()], [update()][update.vhmc_fit], loo's `loo()`, `waic()` and `loo_compare()`
#'   and bayesplot's `pp_check()`; predictions beyond the data come from [forecast()].
#'   Element `ardl` holds the lag orders,
#'   the response and regressor names, the lagged design `Z` and response, the series, the
#'   time index and the last observations [forecast()] starts from.
#' @seealso [forecast.vhmc_ardl()], [exact_posterior()], [vhmc_glm()]
#' @examples
#' \donttest{
#' # AR(2) of the luteinizing hormone series (a univariate ts)
#' fit <- vhmc_ardl(lh ~ 1, data = lh, p = 2, chains = 2, iter = 500, seed = 1,
#'                  progress = FALSE)
#' fit
#' fc <- forecast(fit, h = 6, seed = 1)
#' fc
#' plot(fc)
#'
#' # ARDL(1, 1) on a data frame with a time column (Freeny's quarterly revenue)
#' d <- data.frame(quarter = as.numeric(time(freeny.y)),
#'                 freeny[c("y", "price.index", "income.level")])
#' fit2 <- vhmc_ardl(y ~ price.index + income.level, data = d, p = 1, q = 1,
#'                   time = "quarter", chains = 2, iter = 500, seed = 1, progress = FALSE)
#' coef(fit2)
#' future <- data.frame(price.index = c(4.26, 4.25), income.level = c(6.20, 6.21))
#' forecast(fit2, newdata = future, seed = 1)
#'
#' # An mts: formula variables are its columns
#' fit4 <- vhmc_ardl(log(drivers) ~ law, data = Seatbelts, p = 2, q = 0, chains = 2,
#'                   iter = 500, seed = 1, progress = FALSE)
#' coef(fit4)
#'
#' # Fixed noise precision: the exact Gaussian posterior is known
#' fit3 <- vhmc_ardl(lh ~ 1, data = lh, p = 1, noise_precision = 4, chains = 2,
#'                   iter = 500, seed = 1, progress = FALSE)
#' cbind(nuts = colMeans(as.matrix(fit3)), exact = exact_posterior(fit3)$mu)
#' # ... and by SGHMC on minibatches of 8 rows (approximate: no Metropolis correction), on
#' # the demeaned series: uncentred, intercept and lag would be correlated -0.97
#' lh0 <- lh - mean(lh)
#' fit5 <- vhmc_ardl(lh0 ~ 1, data = lh0, p = 1, noise_precision = 4,
#'                   sampler = sghmc(batch_size = 8), chains = 2, iter = 2000, seed = 1,
#'                   progress = FALSE)
#' cbind(sghmc = apply(as.matrix(fit5), 2, sd), exact = exact_posterior(fit5)$sd)
#' }
#' @export
vhmc_ardl <- function(formula, data, p = 1, q = 1, time = NULL, noise_precision = NULL,
                      prior_precision = 0.01,
                      prior = normal(0, 2.5, autoscale = TRUE),
                      prior_intercept = normal(0, 10, autoscale = TRUE),
                      prior_aux = exponential(1, autoscale = TRUE),
                      sampler = nuts(), chains = 4, iter = 2000, warmup = NULL,
                      thin = 1, seed = NULL, cores = getOption("mc.cores", 1L), init = NULL,
                      progress = interactive(), ...) {
  call <- match.call()
  check_no_dots(list(...), "vhmc_ardl")
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop_arg("formula", sprintf("must be a two-sided formula such as y ~ x (or y ~ 1 for an AR model), not %s",
                                if (inherits(formula, "formula")) deparse1(formula) else describe(formula)))
  }
  check_no_bar_terms(formula, "vhmc_ardl")
  fixed <- !is.null(noise_precision)
  if (fixed) {
    noise_precision <- check_number(noise_precision, "noise_precision", 0, Inf, open = c(TRUE, FALSE))
    prior_precision <- check_number(prior_precision, "prior_precision", 0, Inf, open = c(TRUE, FALSE))
    given <- c(prior = !missing(prior), prior_intercept = !missing(prior_intercept),
               prior_aux = !missing(prior_aux))
    for (a in names(given)) {
      if (given[[a]]) {
        stop_arg(a, "is for the model with sigma estimated, but `noise_precision` is given",
                 "With a fixed noise precision the prior is N(0, 1/prior_precision) on every coefficient: set `prior_precision`.")
      }
    }
  } else if (!missing(prior_precision)) {
    stop_arg("prior_precision", "applies only with a fixed `noise_precision`",
             "Give `noise_precision`, or set the priors with `prior`, `prior_intercept` and `prior_aux`.")
  }
  check_sampler_arg(sampler)
  args <- check_run_args(chains, iter, warmup, thin, cores)
  progress <- check_flag(progress, "progress")
  jit_off_until_return()
  meta <- ardl_build(formula, if (missing(data)) NULL else data, p, q, time)
  meta$noise_precision <- if (fixed) noise_precision
  meta$prior_precision <- if (fixed) prior_precision
  model <- if (fixed) ardl_fixed_model(meta) else ardl_glm_model(meta)
  model$label <- ardl_label(meta, nrow(meta$Z))
  fit <- if (fixed) {
    ardl_fixed_fit(model, meta, sampler, args, seed, init, progress, call)
  } else {
    fit_glm_model(model, model$family, list(prior = prior, prior_intercept = prior_intercept,
                                            prior_aux = prior_aux),
                  sampler, args, seed, init, progress, call)
  }
  fit$ardl <- meta
  class(fit) <- c("vhmc_ardl", class(fit))
  fit
}

ardl_label <- function(meta, n) {
  sprintf("%s of %s, %s, %d observations (%d lost to lags)", ardl_order_label(meta), meta$response,
          if (!is.null(meta$noise_precision)) sprintf("fixed noise precision %s, prior precision %s",
                                                      format(meta$noise_precision), format(meta$prior_precision))
          else "gaussian noise with sigma estimated",
          n, meta$t0)
}

# The sigma-estimated model is a gaussian GLM of the lagged design: the model object that
# vhmc_glm() builds from a model frame, built here from Z directly (same response rules,
# priors, checks and methods).
ardl_glm_model <- function(meta) {
  family <- resolve_family(stats::gaussian())
  check_weight_support(NULL, nrow(meta$Z), family)
  resp <- glm_response(meta$y, family, NULL, meta$response)
  list(type = "glm", family = family, x = meta$Z, y = resp$y, weights = NULL, prior_weights = NULL,
       columns = design_columns(meta$Z, NULL),
       trials = NULL, response_matrix = FALSE, offset = NULL, intercept = meta$intercept,
       coef_names = colnames(meta$Z), xlevels = NULL, contrasts = NULL, na.action = NULL,
       nobs = nrow(meta$Z))
}

ardl_fixed_model <- function(meta) {
  list(type = "ardl", coef_names = colnames(meta$Z), intercept = meta$intercept, nobs = nrow(meta$Z))
}

# The fixed-precision model (Asaad 2017) on the core's gaussian GLM potential with the noise
# precision fixed: U(w) = (alpha/2) ||y - Zw||^2 + (beta/2) ||w||^2, full gradients from the
# sufficient statistics, minibatch gradients (sghmc(), sgld()) from the rows of Z. Z is used
# as it is (no centring, no scaling): the prior N(0, 1/beta) applies to every coefficient,
# intercept included, and the sampler's coordinates are w itself, so a step size with
# `metric = "unit"` is in the units of the slides' algorithms.
ardl_fixed_fit <- function(model, meta, sampler, args, seed, init, progress, call) {
  Z <- meta$Z
  beta <- meta$prior_precision
  intercept <- meta$intercept
  slopes <- setdiff(seq_len(ncol(Z)), if (intercept) 1L)
  coef_prior <- function(k) {
    prior_for_core(resolve_prior(normal(0, 1 / sqrt(beta)), "prior_precision", "coef", k = k))
  }
  spec <- list(X = Z, skip = as.integer(intercept), y = meta$y, weights = NULL, offset = NULL,
               center = NULL, scale = NULL, family = resolve_family(stats::gaussian())$code,
               intercept = intercept, y_center = 0, y_scale = 1, prior_intercept = coef_prior(1L),
               prior = coef_prior(length(slopes)), prior_aux = list(), n_cutpoints = 0L,
               noise_precision = meta$noise_precision)
  target <- glm_target(spec, model)
  seed <- resolve_seed(seed)
  inits <- glm_inits(init, target, spec, args$chains, seed)
  fit_chains(target, sampler, args, seed, inits, init, progress, call, model)
}
