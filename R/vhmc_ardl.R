#' Bayesian autoregressive distributed lag (ARDL) models
#'
#' Fits an ARDL(p, q) time-series regression (SPEC section A6): the response is regressed on
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
#'   data), not SPEC A6's unscaled \eqn{N(0, 10^2)}: vhmc_glm's intercept prior applies at
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
                      sampler = nuts(), chains = 4, iter = 2000, warmup = floor(iter / 2),
                      thin = 1, seed = NULL, cores = getOption("mc.cores", 1L), init = NULL,
                      progress = interactive(), ...) {
  call <- match.call()
  check_no_dots(list(...), "vhmc_ardl")
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop_arg("formula", sprintf("must be a two-sided formula such as y ~ x (or y ~ 1 for an AR model), not %s",
                                if (inherits(formula, "formula")) deparse1(formula) else describe(formula)))
  }
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
  if (!is_sampler(sampler)) {
    stop_arg("sampler", "must be a sampler object",
             "Use nuts(), hmc(), surrogate_hmc(), variational_hmc(), sghmc() or sgld().")
  }
  meta <- ardl_build(formula, if (missing(data)) NULL else data, p, q, time)
  Z <- meta$Z
  yy <- meta$y
  m <- length(meta$regressors)
  meta$noise_precision <- if (fixed) noise_precision
  meta$prior_precision <- if (fixed) prior_precision
  series <- list(yname = meta$response, intercept = meta$intercept)
  label <- sprintf("%s of %s, %s, %d observations (%d lost to lags)", ardl_order_label(meta),
                   series$yname,
                   if (fixed) sprintf("fixed noise precision %s, prior precision %s",
                                      format(noise_precision), format(prior_precision))
                   else "gaussian noise with sigma estimated",
                   nrow(Z), meta$t0)

  if (!fixed) {
    # Safe internal names for the formula; the readable names are restored afterwards.
    internal <- sprintf("z%d.", seq_len(ncol(Z)))
    internal[colnames(Z) == "(Intercept)"] <- "(Intercept)"
    lagged <- as.data.frame(Z[, setdiff(colnames(Z), "(Intercept)"), drop = FALSE])
    keep <- colnames(Z) != "(Intercept)"
    names(lagged) <- internal[keep]
    lagged$.y. <- yy
    fml <- stats::reformulate(if (any(keep)) internal[keep] else "1", response = ".y.",
                              intercept = series$intercept)
    environment(fml) <- baseenv()
    # Messages of vhmc_glm() name the internal columns: translate them.
    readable <- colnames(Z)
    translate <- function(msg) {
      for (j in rev(seq_along(internal))) msg <- gsub(internal[j], readable[j], msg, fixed = TRUE)
      gsub("`.y.`", paste0("`", series$yname, "`"), msg, fixed = TRUE)
    }
    fit <- withCallingHandlers(
      vhmc_glm(fml, data = lagged, family = gaussian(), prior = prior,
               prior_intercept = prior_intercept, prior_aux = prior_aux,
               sampler = sampler, chains = chains, iter = iter, warmup = warmup,
               thin = thin, seed = seed, cores = cores,
               init = ardl_glm_init(init, colnames(Z), internal), progress = progress),
      warning = function(w) {
        warning(translate(conditionMessage(w)), call. = FALSE)
        invokeRestart("muffleWarning")
      },
      error = function(e) stop(translate(conditionMessage(e)), call. = FALSE))
    fit <- ardl_rename_glm(fit, colnames(Z), internal, series$yname)
    fit$model$label <- label
  } else {
    fit <- ardl_fixed_sample(Z, yy, noise_precision, prior_precision, sampler, chains, iter,
                             warmup, thin, seed, cores, init, progress, call)
    fit$model$label <- label
  }
  fit$ardl <- meta
  fit$call <- call
  class(fit) <- c("vhmc_ardl", class(fit))
  fit
}

# The fixed-precision model (SPEC A6) on the core's gaussian GLM potential with the noise
# precision fixed: U(w) = (alpha/2) ||y - Zw||^2 + (beta/2) ||w||^2, full gradients from the
# sufficient statistics, minibatch gradients (sghmc(), sgld()) from the rows of Z. Z is used
# as it is (no centring, no scaling): the prior N(0, 1/beta) applies to every coefficient,
# intercept included, and the sampler's coordinates are w itself, so a step size with
# `metric = "unit"` is in the units of the slides' algorithms.
ardl_fixed_sample <- function(Z, y, alpha, beta, sampler, chains, iter, warmup, thin, seed,
                              cores, init, progress, call) {
  args <- check_run_args(chains, iter, warmup, thin, cores)
  sampler <- prepare_sampler(sampler, args$warmup)
  progress <- check_flag(progress, "progress")
  intercept <- colnames(Z)[1L] == "(Intercept)"
  slopes <- setdiff(seq_len(ncol(Z)), if (intercept) 1L)
  coef_prior <- function(k) {
    prior_for_core(resolve_prior(normal(0, 1 / sqrt(beta)), "prior_precision", "coef", k = k))
  }
  spec <- list(X = Z, skip = as.integer(intercept), y = y, weights = NULL, offset = NULL,
               center = NULL, scale = NULL, slopes = slopes, family = "gaussian_identity",
               intercept = intercept, prior_intercept = coef_prior(1L),
               prior = coef_prior(length(slopes)), prior_aux = prior_for_core(flat()),
               has_aux = FALSE, noise_precision = alpha)
  model <- list(type = "ardl", coef_names = colnames(Z), intercept = intercept, nobs = nrow(Z))
  glm_sample(spec, model, sampler, args, resolve_seed(seed), init, progress, call)
}

# Everything about the data and lags, checked, before any sampling: the series, the lagged
# design Z and response y (SPEC A6), and what forecasts start from.
ardl_build <- function(formula, data, p, q, time = NULL) {
  p <- check_lag(p, "p")
  series <- ardl_series(formula, data, time, environment(formula))
  m <- ncol(series$x)
  q <- check_q(q, m, colnames(series$x))
  if (p == 0L && m == 0L) {
    stop_arg("p", "is 0 and the formula has no regressors, so the model has no lagged terms",
             "Use p >= 1 for an autoregression, or add regressors to the formula.")
  }
  t0 <- max(p, q, 0L)
  n_series <- length(series$y)
  d <- as.integer(series$intercept) + p + sum(q + 1L)
  min_rows <- d + 2L
  if (n_series - t0 < min_rows) {
    stop_arg("data", sprintf(paste("has %d observations, too few for ARDL(p = %d, q = %s): %d are lost",
                                   "to the lags and the %d coefficients need at least %d more rows"),
                             n_series, p, if (m) paste(q, collapse = ", ") else "-", t0, d, min_rows),
             "Use smaller lag orders `p` and `q`, or a longer series.")
  }
  design <- ardl_design(series$y, series$x, p, q, series$intercept, series$yname)
  list(p = p, q = q, formula = formula, response = series$yname,
       regressors = colnames(series$x), intercept = series$intercept,
       Z = design$Z, y = design$y, t0 = t0, series = series$y, x = series$x,
       time = series$time, time_name = series$time_name, tsp = series$tsp,
       last_y = series$y[seq.int(n_series - p + 1L, length.out = p)],
       last_x = series$x[seq.int(n_series - (if (m) max(q) else 0L) + 1L, length.out = if (m) max(q) else 0L), ,
                         drop = FALSE])
}

ardl_order_label <- function(a) {
  q <- a$q
  qs <- if (!length(q)) "-" else if (length(unique(q)) == 1L) q[1] else
    sprintf("(%s)", paste(q, collapse = ", "))
  sprintf("ARDL(%d, %s)", a$p, qs)
}

check_lag <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x)) {
    stop_arg(arg, sprintf("must be a single whole number >= 0, not %s", describe(x)))
  }
  if (x < 0) stop_arg(arg, sprintf("must be >= 0 (a number of lags), not %s", format(x)))
  if (x != round(x)) stop_arg(arg, sprintf("must be a whole number of lags, not %s", format(x)),
                              sprintf("Use %d or %d.", floor(x), ceiling(x)))
  as.integer(x)
}

# q: one lag order per regressor (recycled from a single value).
check_q <- function(q, m, regressors) {
  if (m == 0L) return(integer())
  if (is.null(q)) {
    stop_arg("q", "is NULL, but the formula has regressors",
             "Give the largest regressor lag (e.g. q = 0 for contemporaneous regressors only).")
  }
  if (!is.numeric(q) || anyNA(q) || any(!is.finite(q)) || length(q) == 0L) {
    stop_arg("q", sprintf("must be whole numbers >= 0, not %s", describe(q)))
  }
  if (length(q) != 1L && length(q) != m) {
    stop_arg("q", sprintf("has length %d, but the formula has %d regressor%s (%s)", length(q), m,
                          if (m > 1) "s" else "", paste0("`", regressors, "`", collapse = ", ")),
             "Give one lag order for all regressors or one per regressor, in the formula's order.")
  }
  if (any(q < 0)) stop_arg("q", sprintf("must be >= 0 (numbers of lags), not %s", paste(q, collapse = ", ")))
  if (any(q != round(q))) stop_arg("q", sprintf("must be whole numbers of lags, not %s", paste(q, collapse = ", ")))
  stats::setNames(rep_len(as.integer(q), m), regressors)
}

# The response and regressor series (numeric, complete, in time order) from the formula.
ardl_series <- function(formula, data, time, env) {
  tsp <- NULL
  time_index <- NULL
  time_name <- NULL
  if (!is.null(time) && (!is.character(time) || length(time) != 1L || is.na(time))) {
    stop_arg("time", sprintf("must be the name of a column of `data`, not %s", describe(time)))
  }
  lhs_vars <- all.vars(formula[[2L]])
  if (!is.null(data) && stats::is.ts(data)) {
    if (!is.null(time)) stop_arg("time", "is not used with a ts object (its time index is used)", "Leave `time` out.")
    tsp <- stats::tsp(data)
    time_index <- as.numeric(stats::time(data))
    if (is.matrix(data)) {
      data <- as.data.frame(unclass(data))
      if (is.null(colnames(data))) stop_arg("data", "is an mts without column names", "Name its columns.")
    } else {
      if (length(lhs_vars) != 1L) stop_arg("formula", "must name the univariate ts `data` by its response")
      data <- stats::setNames(data.frame(as.numeric(data)), lhs_vars)
    }
  } else if (!is.null(data) && !is.data.frame(data)) {
    if (is.matrix(data) && !is.null(colnames(data))) {
      data <- as.data.frame(data)
    } else if (is.list(data)) {
      data <- tryCatch(as.data.frame(data, optional = TRUE), error = function(e)
        stop_arg("data", "is a list whose elements do not form a data frame", "Use series of equal length."))
    } else {
      stop_arg("data", sprintf("must be a data frame, a ts or an mts object, not %s", describe(data)))
    }
  }
  if (!is.null(time)) {
    if (is.null(data)) stop_arg("time", "names a column, but `data` is missing", "Give `data`.")
    if (!time %in% names(data)) {
      stop_arg("time", sprintf("is \"%s\", which is not a column of `data`", time),
               sprintf("Use one of %s.", paste0("\"", utils::head(names(data), 8), "\"", collapse = ", ")))
    }
    tv <- data[[time]]
    if (anyNA(tv)) stop_arg("time", sprintf("column \"%s\" has missing values", time))
    if (anyDuplicated(tv)) stop_arg("time", sprintf("column \"%s\" has repeated values", time),
                                    "An ARDL model needs one row per time point.")
    o <- order(tv)
    data <- data[o, , drop = FALSE]
    time_index <- tv[o]
    time_name <- time
    if (time %in% all.vars(formula)) {
      stop_arg("formula", sprintf("uses the time column `%s`", time),
               "Add a trend as its own numeric column if you want one.")
    }
    data[[time]] <- NULL
  }
  # Variables the formula needs but neither `data` nor the formula's environment has.
  vars <- setdiff(all.vars(formula), ".")
  absent <- vars[!vapply(vars, function(v) (!is.null(data) && v %in% names(data)) ||
                           exists(v, envir = env), logical(1))]
  if (length(absent)) {
    stop_arg("formula", sprintf("uses %s, not found in `data`", paste0("`", absent, "`", collapse = ", ")),
             if (!is.null(data)) sprintf("Check the spelling; `data` has %s.",
                                          paste0("`", utils::head(names(data), 10), "`", collapse = ", ")))
  }
  mf <- tryCatch(stats::model.frame(formula, data = data %||% env, na.action = stats::na.pass),
                 error = function(e) stop_arg("formula", sprintf("could not be evaluated: %s", conditionMessage(e))))
  tt <- attr(mf, "terms")
  if (!is.null(attr(tt, "offset"))) stop_arg("formula", "must not contain an offset")
  labels <- attr(tt, "term.labels")
  if (any(attr(tt, "order") > 1L)) {
    stop_arg("formula", sprintf("has interaction terms (%s)",
                                paste0("`", labels[attr(tt, "order") > 1L], "`", collapse = ", ")),
             "Compute the product as its own numeric column.")
  }
  y <- stats::model.response(mf)
  yname <- deparse1(formula[[2L]])
  if (is.null(time_index) && stats::is.ts(y)) {
    tsp <- stats::tsp(y)
    time_index <- as.numeric(stats::time(y))
  }
  check_series(y, yname, "response")
  x <- matrix(0, nrow = length(y), ncol = length(labels), dimnames = list(NULL, labels))
  for (lab in labels) {
    v <- mf[[lab]]
    if (is.matrix(v) && ncol(v) != 1L) {
      stop_arg("formula", sprintf("term `%s` has %d columns", lab, ncol(v)),
               "Enter each regressor as its own term.")
    }
    check_series(v, lab, "regressor")
    x[, lab] <- as.numeric(v)
  }
  if (is.null(time_index)) time_index <- seq_along(y)
  list(y = as.numeric(y), x = x, yname = yname, intercept = attr(tt, "intercept") == 1L,
       time = time_index, time_name = time_name, tsp = tsp)
}

check_series <- function(v, name, what) {
  if (!is.numeric(v) || is.factor(v)) {
    stop_arg("data", sprintf("%s `%s` is not numeric (it is %s)", what, name,
                             if (is.factor(v)) "a factor" else class(v)[1]),
             "ARDL regressors must be numeric series; code categories as 0/1 columns.")
  }
  bad <- which(is.na(v))
  if (length(bad)) {
    stop_arg("data", sprintf("has missing values inside the series `%s` (at position%s %s)", name,
                             if (length(bad) > 1) "s" else "",
                             paste(utils::head(bad, 6), collapse = ", ")),
             "Lags need complete, equally spaced series: impute the values or keep a complete stretch of rows.")
  }
  bad <- which(!is.finite(v))
  if (length(bad)) {
    stop_arg("data", sprintf("has non-finite values in the series `%s` (at position%s %s)", name,
                             if (length(bad) > 1) "s" else "", paste(utils::head(bad, 6), collapse = ", ")))
  }
  invisible()
}

# The lagged design Z (N x d, SPEC A6 order) and response for rows t0 + 1, ..., T.
ardl_design <- function(y, x, p, q, intercept, yname) {
  n <- length(y)
  m <- ncol(x)
  t0 <- max(p, q, 0L)
  rows <- seq.int(t0 + 1L, n)
  cols <- list()
  nm <- character()
  if (intercept) {
    cols[[1L]] <- rep(1, length(rows))
    nm <- "(Intercept)"
  }
  for (k in seq_len(p)) {
    cols[[length(cols) + 1L]] <- y[rows - k]
    nm <- c(nm, sprintf("L%d.%s", k, yname))
  }
  if (m) {
    for (l in 0:max(q)) {
      for (i in seq_len(m)) {
        if (l <= q[i]) {
          cols[[length(cols) + 1L]] <- x[rows - l, i]
          nm <- c(nm, sprintf("L%d.%s", l, colnames(x)[i]))
        }
      }
    }
  }
  Z <- matrix(unlist(cols, use.names = FALSE), nrow = length(rows), dimnames = list(NULL, nm))
  list(Z = Z, y = y[rows], rows = rows)
}

# User inits named by the readable coefficient names -> the internal formula names.
ardl_glm_init <- function(init, readable, internal) {
  if (is.null(init)) return(NULL)
  rename <- function(v) {
    if (!is.null(names(v))) {
      hit <- match(names(v), readable)
      names(v)[!is.na(hit)] <- internal[hit[!is.na(hit)]]
    }
    v
  }
  if (is.function(init)) return(function(...) rename(init(...)))
  if (is.list(init)) return(lapply(init, rename))
  rename(init)
}

# Readable coefficient names in a vhmc_glm fit of the lagged data.
ardl_rename_glm <- function(fit, readable, internal, yname) {
  map <- function(v) {
    hit <- match(v, internal)
    v[!is.na(hit)] <- readable[hit[!is.na(hit)]]
    v
  }
  posterior::variables(fit$draws) <- map(posterior::variables(fit$draws))
  fit$model$coef_names <- map(fit$model$coef_names)
  colnames(fit$model$x) <- map(colnames(fit$model$x))
  if (!is.null(fit$inits)) fit$inits <- lapply(fit$inits, function(v) stats::setNames(v, map(names(v))))
  # The adapted metrics are named by the sampler's coordinates, e.g. "z2. [x sd]".
  map_prefix <- function(v) {
    for (j in seq_along(internal)) {
      hit <- startsWith(v, internal[j])
      v[hit] <- paste0(readable[j], substring(v[hit], nchar(internal[j]) + 1L))
    }
    v
  }
  fit$adaptation <- lapply(fit$adaptation, function(a) {
    if (is.matrix(a$inv_metric)) {
      dimnames(a$inv_metric) <- lapply(dimnames(a$inv_metric), map_prefix)
    } else if (!is.null(names(a$inv_metric))) {
      names(a$inv_metric) <- map_prefix(names(a$inv_metric))
    }
    a
  })
  fit
}

# Coefficient draws (S x d, design order) and noise sd draws of an ARDL fit.
ardl_draws <- function(object) {
  m <- as.matrix(object)
  Zn <- colnames(object$ardl$Z)
  sigma <- if (!is.null(object$ardl$noise_precision)) {
    rep(1 / sqrt(object$ardl$noise_precision), nrow(m))
  } else {
    as.numeric(m[, "sigma"])
  }
  list(w = m[, Zn, drop = FALSE], sigma = sigma)
}

# The data of a fixed-precision ARDL fit in the form glm_design() gives a GLM's (the lagged
# design and response), with the family and the known noise sd, for predictive_parts().
ardl_fixed_design <- function(object) {
  a <- object$ardl
  list(family = stats::gaussian(), sigma = 1 / sqrt(a$noise_precision),
       design = list(x = a$Z, offset = NULL, y = a$y, trials = NULL, weights = NULL,
                     prior_weights = NULL, matrix = FALSE))
}

# The model formula as the user gave it (a sigma-estimated fit's GLM formula is on the
# internal lagged columns), so that update(fit, . ~ . + x) works.
#' @noRd
#' @export
formula.vhmc_ardl <- function(x, ...) x$ardl$formula

# Posterior medians of the coefficients (also for fixed-precision fits, which are not GLMs).
#' @noRd
#' @export
coef.vhmc_ardl <- function(object, ...) {
  apply(ardl_draws(object)$w, 2L, stats::median)
}

#' @noRd
#' @export
nobs.vhmc_ardl <- function(object, ...) nrow(object$ardl$Z)

#' @noRd
#' @export
prior_summary.vhmc_ardl <- function(object, ...) {
  a <- object$ardl
  if (is.null(a$noise_precision)) return(NextMethod())
  cat(sprintf("Coefficients (%d)\n  normal(location = 0, scale = %s) each (prior precision %s)\n",
              ncol(a$Z), format(1 / sqrt(a$prior_precision)), format(a$prior_precision)))
  cat(sprintf("Noise\n  fixed precision %s (sd %s)\n", format(a$noise_precision),
              format(1 / sqrt(a$noise_precision))))
  invisible(list(prior_precision = a$prior_precision, noise_precision = a$noise_precision))
}

#' Exact posterior of a conjugate model
#'
#' For an ARDL fit with a fixed noise precision (`vhmc_ardl(..., noise_precision = alpha)`)
#' the posterior of the coefficients is Gaussian (SPEC A6, the slides' Proposition):
#' \eqn{N(\mu, \Sigma)} with \eqn{\Sigma = (\alpha Z'Z + \beta I)^{-1}} and
#' \eqn{\mu = \alpha \Sigma Z'y}, computed through the Cholesky factor of
#' \eqn{\alpha Z'Z + \beta I}. Use it to check samplers.
#'
#' @param fit A fit from [vhmc_ardl()] with `noise_precision` given.
#' @param ndraws Optional number of independent draws from the exact posterior.
#' @param seed Optional seed for those draws (the user's random number stream is left
#'   untouched when given).
#' @param ... Unused.
#' @return A list of class `vhmc_exact_posterior` with `mu` (named vector), `Sigma`
#'   (covariance matrix), `sd`, `noise_precision`, `prior_precision`, and with `ndraws`
#'   a matrix `draws` (one row per draw).
#' @examples
#' \donttest{
#' fit <- vhmc_ardl(lh ~ 1, data = lh, p = 2, noise_precision = 4, chains = 2,
#'                  iter = 500, seed = 1, progress = FALSE)
#' ep <- exact_posterior(fit, ndraws = 1000, seed = 1)
#' ep
#' cbind(nuts = apply(as.matrix(fit), 2, sd), exact = ep$sd)
#' }
#' @export
exact_posterior <- function(fit, ...) UseMethod("exact_posterior")

#' @rdname exact_posterior
#' @export
exact_posterior.default <- function(fit, ...) {
  stop_arg("fit", sprintf("has no closed-form posterior (it is %s)", describe_class(fit)),
           "exact_posterior() is available for vhmc_ardl() fits with a fixed `noise_precision`.")
}

#' @rdname exact_posterior
#' @export
exact_posterior.vhmc_ardl <- function(fit, ndraws = NULL, seed = NULL, ...) {
  a <- fit$ardl
  if (is.null(a$noise_precision)) {
    stop_arg("fit", "is an ARDL fit with sigma estimated, whose posterior has no closed form",
             "Refit with `noise_precision = alpha` (fixed noise precision) for the conjugate posterior.")
  }
  Z <- a$Z
  A <- a$noise_precision * crossprod(Z) + diag(a$prior_precision, ncol(Z))
  R <- chol(A)
  Rinv <- backsolve(R, diag(ncol(Z)))
  Sigma <- tcrossprod(Rinv)
  mu <- as.numeric(backsolve(R, forwardsolve(t(R), a$noise_precision * crossprod(Z, a$y))))
  nm <- colnames(Z)
  names(mu) <- nm
  dimnames(Sigma) <- list(nm, nm)
  out <- list(mu = mu, Sigma = Sigma, sd = sqrt(diag(Sigma)),
              noise_precision = a$noise_precision, prior_precision = a$prior_precision)
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws")
    gen <- function() {
      z <- matrix(stats::rnorm(ndraws * ncol(Z)), ndraws)
      sweep(z %*% t(Rinv), 2L, mu, `+`)
    }
    dr <- if (is.null(seed)) gen() else with_local_seed(resolve_seed(seed), gen())
    colnames(dr) <- nm
    out$draws <- dr
  }
  class(out) <- "vhmc_exact_posterior"
  out
}

describe_class <- function(x) sprintf("an object of class %s", paste0("\"", class(x), "\"", collapse = "/"))

#' @export
print.vhmc_exact_posterior <- function(x, digits = 4, ...) {
  cat(sprintf("Exact Gaussian posterior (noise precision %s, prior precision %s)\n",
              format(x$noise_precision), format(x$prior_precision)))
  print(data.frame(mean = x$mu, sd = x$sd), digits = digits)
  if (!is.null(x$draws)) cat(sprintf("with %d independent draws in $draws\n", nrow(x$draws)))
  invisible(x)
}
