#' Bayesian generalised linear models
#'
#' Fits a GLM by Hamiltonian Monte Carlo with the formula conventions of [stats::glm()]:
#' factors, interactions, contrasts, `subset`, `weights`, `offset`, `na.action`, and
#' `y ~ 0 + ...` (or `- 1`) for a model without intercept. The log likelihood and its
#' gradient are evaluated in C++ (one pass over the data per gradient); no model is
#' compiled.
#'
#' The parameters are the coefficients, named as the columns of the model matrix, and for
#' the gaussian family the residual standard deviation `sigma` (sampled on the log scale,
#' reported on its own). Predictors are centred internally, so `prior_intercept` applies to
#' the intercept at the predictor means; the reported `(Intercept)` is on the data's scale.
#' The sampler moves each slope times the standard deviation of its predictor, so that
#' every coordinate has a similar posterior scale whatever the predictors' units (the
#' adapted metric in `fit$adaptation` is on that scale); priors apply to the slopes
#' themselves. The gaussian likelihood is computed from sufficient statistics (the
#' weighted cross-products of the design), so its cost per gradient does not grow with the
#' number of observations.
#'
#' Responses: gaussian takes numbers; binomial takes 0/1 (numbers, logicals, or a factor
#' whose first level is failure), proportions with `weights` giving the numbers of trials,
#' or `cbind(successes, failures)`; poisson takes non-negative whole numbers. `weights` are
#' frequency weights for every family (a weight of 2 counts the row twice), as in rstanarm;
#' for the binomial family they are numbers of trials.
#'
#' The default priors are weakly informative and autoscaled (see [priors]): for the
#' gaussian family they scale with `sd(y)`, and coefficient scales with `1 / sd(x)` (with
#' `1 / range(x)` for two-valued predictors such as dummies).
#' [prior_summary()] prints what was used.
#'
#' @param formula A model formula, as for [stats::glm()].
#' @param data A data frame (or list or environment) with the variables in `formula`; if
#'   missing, they are taken from the formula's environment.
#' @param family `gaussian()` (identity link), `binomial()` (logit or probit link) or
#'   `poisson()` (log link): a family object, a family function or its name.
#' @param prior Prior of the coefficients (one for all or one value per coefficient); see
#'   [priors].
#' @param prior_intercept Prior of the intercept at the predictor means.
#' @param prior_aux Prior of the gaussian family's sigma (half-distributions on
#'   \eqn{(0, \infty)}, `exponential()` or `flat()`). Must be left at its default (or be
#'   `NULL`) for families without sigma.
#' @param sampler A sampler: [nuts()] (default), [hmc()], [surrogate_hmc()], or the
#'   stochastic-gradient samplers [sghmc()] and [sgld()] (minibatch gradients, no
#'   Metropolis correction; approximate).
#' @inheritParams vhmc_sample
#' @param init Initial values: `NULL` (default) draws every parameter uniformly in (-2, 2)
#'   on the sampler's internal scale (centred intercept, log sigma), as Stan does; or
#'   values on the reported scale (a named vector with every coefficient and `sigma`, a
#'   list with one such vector per chain, or a function returning one).
#' @param subset,weights,offset,na.action,contrasts As in [stats::glm()].
#' @param ... Must be empty; here so that misspelt arguments give an error.
#' @return A `vhmc_fit` (class `c("vhmc_glm", "vhmc_fit")`). Besides the methods of every
#'   fit ([print.vhmc_fit()], [summary.vhmc_fit()], [as_draws_array.vhmc_fit()], ...), GLM
#'   fits have [coef()][coef.vhmc_glm], `vcov`, `fitted`, `residuals`,
#'   [predict()][predict.vhmc_glm], [posterior_linpred()], [posterior_epred()],
#'   [posterior_predict()], [posterior_interval()], [log_lik()], [bayes_R2()], [loo_R2()],
#'   `nobs`, `formula`, [prior_summary()] and [update()][update.vhmc_fit], and methods for
#'   loo's `loo()`, `waic()` and `loo_compare()` ([loo.vhmc_fit]) and bayesplot's
#'   `pp_check()` ([pp_check.vhmc_fit]).
#' @seealso [priors], [nuts()], [hmc()]
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt + factor(cyl), data = mtcars, chains = 2, iter = 1000,
#'                 seed = 1, progress = FALSE)
#' fit
#' coef(fit)
#' prior_summary(fit)
#'
#' # Logistic regression with flat priors: close to glm()
#' fit2 <- vhmc_glm(am ~ wt, data = mtcars, family = binomial(), prior = flat(),
#'                  prior_intercept = flat(), chains = 2, iter = 1000, seed = 1,
#'                  progress = FALSE)
#' cbind(vhmc = coef(fit2), glm = coef(glm(am ~ wt, data = mtcars, family = binomial())))
#' predict(fit2, newdata = data.frame(wt = c(2.5, 3.5)), type = "response")
#' }
#' @importFrom stats gaussian binomial poisson
#' @export
vhmc_glm <- function(formula, data, family = gaussian(),
                     prior = normal(0, 2.5, autoscale = TRUE),
                     prior_intercept = normal(0, 10, autoscale = TRUE),
                     prior_aux = exponential(1, autoscale = TRUE),
                     sampler = nuts(), chains = 4, iter = 2000, warmup = floor(iter / 2),
                     thin = 1, seed = NULL, cores = getOption("mc.cores", 1L), init = NULL,
                     progress = interactive(), subset, weights, offset, na.action,
                     contrasts = NULL, ...) {
  call <- match.call()
  check_no_dots(list(...), "vhmc_glm")
  if (!inherits(formula, "formula")) {
    stop_arg("formula", sprintf("must be a formula such as y ~ x, not %s", describe(formula)))
  }
  if (!missing(data) && !is.data.frame(data) && !is.list(data) && !is.environment(data)) {
    stop_arg("data", sprintf("must be a data frame, not %s", describe(data)))
  }
  family <- resolve_family(family)
  aux_default <- missing(prior_aux)
  if (!family$has_aux && !aux_default && !is.null(prior_aux)) {
    stop_arg("prior_aux", sprintf("was given, but the %s family has no auxiliary parameter",
                                  family$family), "Leave `prior_aux` out for this family.")
  }
  if (!is_sampler(sampler)) stop_arg("sampler", "must be a sampler object", "Use nuts(), hmc(), surrogate_hmc(), variational_hmc(), sghmc() or sgld().")
  args <- check_run_args(chains, iter, warmup, thin, cores)
  sampler <- prepare_sampler(sampler, args$warmup)
  progress <- check_flag(progress, "progress")

  # The model frame, exactly as glm() builds it.
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "weights", "na.action", "offset"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  mf$drop.unused.levels <- TRUE
  mf[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf, parent.frame()), error = function(e) model_frame_error(e, formula, data))
  model <- glm_model(mf, family, contrasts)

  priors <- glm_priors(model, family, prior, prior_intercept, if (family$has_aux) prior_aux)
  check_identified(model, family, priors)
  seed <- resolve_seed(seed)
  spec <- glm_spec(model, family, priors)
  model$priors <- priors
  model$label <- sprintf("%s(%s) GLM, %s, %d observations", family$family, family$link,
                         deparse1(formula(model$terms)), model$nobs)
  fit <- glm_sample(spec, model, sampler, args, seed, init, progress, call)
  class(fit) <- c("vhmc_glm", class(fit))
  fit
}

# Runs the chains of a GLM potential (a spec from glm_spec(), or the fixed-precision ARDL
# spec of vhmc_ardl()) and builds the vhmc_fit: initial values, per-chain C++ runs, draws on
# the reported scale, sampler reports, checks. `model` needs coef_names and intercept (for
# the names) plus whatever the fit should carry; args, seed and progress are checked, the
# sampler prepared for warmup.
glm_sample <- function(spec, model, sampler, args, seed, init, progress, call) {
  sampler <- prepare_sg_sampler(sampler, nrow(spec$X))
  inits <- glm_inits(init, spec, model, args$chains, seed)
  potential_at <- function(theta) {
    r <- vhmc_glm_potential(spec, matrix(theta, 1L))
    list(value = r$value[1L], gradient = r$gradient[1L, ])
  }
  newton <- function(init) vhmc_glm_mode(spec, init)
  sampler <- with_laplace(sampler, potential_at, inits$internal[[1]], newton = newton)
  cv <- with_control_variate(sampler, potential_at, inits, init, function(th) {
    stats::setNames(as.numeric(glm_to_user(matrix(th, nrow = 1L), spec)), user_names(spec, model))
  }, newton = newton)
  sampler <- cv$sampler
  inits <- cv$inits

  refresh <- if (progress) max(1L, args$iter %/% 10L) else 0L
  chain_fun <- function(chain) {
    run <- list(iter = args$iter, warmup = args$warmup, thin = args$thin, seed = seed,
                chain = chain, refresh = refresh)
    vhmc_chain_glm(spec, inits$internal[[chain]], sampler, run)
  }
  results <- run_chains(chain_fun, args$chains, args$cores)
  stop_on_chain_failure(results)
  parts <- collect_chains(results, internal_names(spec, model))
  fit <- new_vhmc_fit(
    draws = glm_draws_to_user(parts$draws, spec, model), diagnostics = parts$diagnostics,
    adaptation = parts$adaptation, counts = parts$counts, timing = parts$timing,
    sampler = sampler, model = model,
    args = c(args[c("chains", "iter", "warmup", "thin")], list(seed = seed, cores = args$cores)),
    inits = inits$user, call = call
  )
  fit$surrogate <- chain_surrogates(results)
  fit$variational <- chain_variationals(results)
  if (isTRUE(sampler$importance)) {
    fit$variational <- add_importance(fit$variational, results,
                                      function(th) vhmc_glm_potential(spec, th)$value)
  }
  fit$sg <- add_cv_cost(chain_sg(results), sampler)
  check_fit(fit)
  check_surrogate(fit)
  check_variational(fit)
  fit
}

# model.frame() failures, rephrased: missing values under na.fail name their columns.
model_frame_error <- function(e, formula, data) {
  msg <- conditionMessage(e)
  if (grepl("missing values", msg) && !missing(data) && is.data.frame(data)) {
    vars <- intersect(all.vars(formula), names(data))
    bad <- vars[vapply(vars, function(v) anyNA(data[[v]]), logical(1))]
    stop_arg("data", sprintf("has missing values in %s and na.action is na.fail",
                             paste0("`", bad, "`", collapse = ", ")),
             "Remove those rows or use na.action = na.omit.")
  }
  stop(sprintf("could not build the model frame: %s", msg), call. = FALSE)
}

# Response, design matrix, weights and offset from the model frame, checked.
glm_model <- function(mf, family, contrasts) {
  if (nrow(mf) == 0L) {
    stop_arg("data", "has no rows left after `subset` and `na.action`",
             "Check `subset` and the missing values in the model's variables.")
  }
  mt <- attr(mf, "terms")
  if (attr(mt, "response") == 0L) stop_arg("formula", "has no response (left-hand side)")
  X <- stats::model.matrix(mt, mf, contrasts)
  storage.mode(X) <- "double"
  intercept <- attr(mt, "intercept") == 1L
  if (intercept && colnames(X)[1] != "(Intercept)") stop("internal: intercept column expected first")
  if (ncol(X) == 0L) stop_arg("formula", "has no coefficients (no intercept and no predictors)")
  check_finite_columns(X, "the model matrix column")

  prior_weights <- stats::model.weights(mf)
  if (!is.null(prior_weights)) {
    if (!is.numeric(prior_weights) || any(!is.finite(prior_weights)) || any(prior_weights < 0)) {
      stop_arg("weights", "must be non-negative finite numbers")
    }
    prior_weights <- as.numeric(prior_weights)
  }
  offset <- stats::model.offset(mf)
  if (!is.null(offset)) {
    offset <- as.numeric(offset)
    if (length(offset) != nrow(X) || any(!is.finite(offset))) {
      stop_arg("offset", sprintf("must be %d finite numbers (one per observation)", nrow(X)))
    }
  }
  resp <- glm_response(stats::model.response(mf), family, prior_weights,
                       deparse1(mt[[2L]]))
  list(type = "glm", family = family, terms = mt, frame = mf, x = X, y = resp$y,
       weights = resp$weights, prior_weights = prior_weights, trials = resp$trials,
       response_matrix = resp$matrix, offset = offset, intercept = intercept,
       coef_names = colnames(X), xlevels = stats::.getXlevels(mt, mf),
       contrasts = attr(X, "contrasts"), na.action = attr(mf, "na.action"),
       nobs = if (is.null(resp$weights)) nrow(X) else sum(resp$weights != 0))
}

check_finite_columns <- function(X, what) {
  bad <- which(colSums(!is.finite(X)) > 0)
  if (length(bad)) {
    stop_arg("data", sprintf("gives non-finite values (Inf or NaN) in %s %s", what,
                             paste0("`", colnames(X)[bad], "`", collapse = ", ")),
             "Remove or fix those rows.")
  }
}

# The response on the core's scale: y (proportions for binomial) and the weights the
# likelihood uses (prior weights times binomial trials).
glm_response <- function(y, family, prior_weights, name) {
  bad_y <- function(problem, fix = NULL) stop_arg("data", sprintf("response `%s` %s", name, problem), fix)
  trials <- NULL
  is_matrix <- FALSE
  if (family$family == "binomial") {
    if (is.factor(y)) {
      y <- as.numeric(y != levels(y)[1L])
    } else if (is.logical(y)) {
      y <- as.numeric(y)
    } else if (is.matrix(y)) {
      if (ncol(y) != 2L) bad_y("must have two columns, cbind(successes, failures)")
      if (any(!is.finite(y)) || any(y < 0) || any(y != round(y))) {
        bad_y("must hold non-negative whole numbers of successes and failures")
      }
      is_matrix <- TRUE
      trials <- as.numeric(y[, 1] + y[, 2])
      y <- ifelse(trials > 0, y[, 1] / pmax(trials, 1), 0)
    }
  }
  if (!is.numeric(y)) bad_y(sprintf("must be numeric, not %s", class(y)[1]))
  y <- as.numeric(y)
  if (any(!is.finite(y))) bad_y("has non-finite values (Inf or NaN)", "Remove or fix those rows.")
  weights <- prior_weights
  switch(family$family,
    gaussian = {
      if (length(y) > 1L && all(y == y[1L])) {
        bad_y(sprintf("is constant (every value is %s), so sigma is not identified", format(y[1L])))
      }
    },
    binomial = {
      if (is_matrix) {
        weights <- (prior_weights %||% 1) * trials
      } else {
        if (any(y < 0 | y > 1)) {
          bad_y("must lie in [0, 1] for the binomial family",
                "Use 0/1, proportions with `weights` = trials, or cbind(successes, failures).")
        }
        fractional <- y > 0 & y < 1
        if (any(fractional)) {
          if (is.null(prior_weights)) {
            bad_y("has proportions strictly between 0 and 1 but no `weights`",
                  "Give the numbers of trials as `weights`, or use cbind(successes, failures).")
          }
          succ <- y * prior_weights
          if (any(abs(succ - round(succ)) > 1e-7 * pmax(1, succ))) {
            bad_y("times `weights` (the trials) must give whole numbers of successes")
          }
        }
        trials <- prior_weights
      }
    },
    poisson = {
      if (any(y < 0)) bad_y("has negative values; Poisson counts must be >= 0")
      if (any(y != round(y))) bad_y("has non-integer values; Poisson counts must be whole numbers")
    }
  )
  list(y = y, weights = weights, trials = trials, matrix = is_matrix)
}

# Priors checked against the design and autoscaled. Each element keeps the prior as the user
# specified it and as the core uses it.
glm_priors <- function(model, family, prior, prior_intercept, prior_aux) {
  X <- model$x
  slopes <- if (model$intercept) seq_len(ncol(X))[-1L] else seq_len(ncol(X))
  scale_y <- 1
  if (family$family == "gaussian") {
    scale_y <- weighted_sd(model$y, model$weights)
  }
  # As rstanarm: a predictor with two values (a dummy) is scaled by its range, others by sd.
  scale_x <- vapply(slopes, function(j) {
    x <- X[, j]
    if (length(unique(x)) == 2L) diff(range(x)) else weighted_sd(x, model$weights)
  }, numeric(1))
  scale_x[!is.finite(scale_x) | scale_x == 0] <- 1
  out <- list()
  if (model$intercept) {
    out$prior_intercept <- list(specified = prior_intercept, adjusted = resolve_prior(
      prior_intercept, "prior_intercept", "intercept", scale_y = scale_y))
  }
  if (length(slopes)) {
    out$prior <- list(specified = prior, adjusted = resolve_prior(
      prior, "prior", "coef", k = length(slopes), scale_y = scale_y, scale_x = scale_x))
  }
  if (family$has_aux) {
    out$prior_aux <- list(specified = prior_aux, adjusted = resolve_prior(
      prior_aux, "prior_aux", "aux", scale_y = scale_y))
  }
  out
}

weighted_sd <- function(x, w) {
  if (is.null(w)) return(stats::sd(x))
  if (sum(w) <= 1) return(NA_real_)
  m <- sum(w * x) / sum(w)
  sqrt(sum(w * (x - m)^2) / (sum(w) - 1))
}

# Identifiability: all-zero or aliased columns, and a constant binomial/poisson response.
# Under a flat prior these make the posterior improper (an error); otherwise the prior
# identifies the coefficients and a warning says so.
check_identified <- function(model, family, priors) {
  X <- model$x
  flat_coef <- is.null(priors$prior) || priors$prior$adjusted$dist == "flat"
  flat_any <- flat_coef || (!is.null(priors$prior_intercept) &&
                              priors$prior_intercept$adjusted$dist == "flat")
  report <- function(problem, flat) {
    if (flat) {
      stop_arg("formula", paste(problem, "and the prior is flat, so the posterior is improper"),
               "Drop those terms or give them a proper prior.")
    }
    warning(problem, "; only the prior identifies the coefficients involved.", call. = FALSE)
  }
  zero <- which(colSums(X != 0) == 0)
  if (length(zero)) {
    report(sprintf("gives model matrix column%s %s that %s all zero", if (length(zero) > 1) "s" else "",
                   paste0("`", colnames(X)[zero], "`", collapse = ", "),
                   if (length(zero) > 1) "are" else "is"), flat_coef)
  } else {
    q <- qr(X)
    if (q$rank < ncol(X)) {
      aliased <- colnames(X)[q$pivot[seq.int(q$rank + 1L, ncol(X))]]
      report(sprintf("gives a rank-deficient model matrix: %s %s linear combinations of other columns",
                     paste0("`", aliased, "`", collapse = ", "),
                     if (length(aliased) > 1) "are" else "is a"), flat_any)
    }
  }
  if (family$family != "gaussian") {
    y <- if (is.null(model$weights)) model$y else model$y[model$weights > 0]
    if (all(y == 0) || (family$family == "binomial" && all(y == 1))) {
      problem <- sprintf("has a response that is always %s", format(y[1]))
      if (flat_any) {
        stop_arg("data", paste(problem, "and a flat prior, so the posterior is improper"),
                 "Use proper priors or check the response.")
      }
      warning("the response is always ", format(y[1]),
              ": the posterior of the coefficients is driven by the priors.", call. = FALSE)
    }
  }
}

# The plain list the C++ core reads (src/glue_glm.cpp): it views X and the vectors in place.
glm_spec <- function(model, family, priors) {
  X <- model$x
  skip <- if (model$intercept) 1L else 0L
  slopes <- setdiff(seq_len(ncol(X)), seq_len(skip))
  center <- if (model$intercept && length(slopes)) as.numeric(colMeans(X)[slopes])
  # The sampler's slope coordinates are beta * sd(x) (glm.hpp): comparable posterior scales.
  scale <- if (length(slopes)) vapply(slopes, function(j) stats::sd(X[, j]), numeric(1))
  if (length(scale)) scale[!is.finite(scale) | scale <= 0] <- 1
  flat <- flat()
  list(X = X, skip = skip, y = model$y, weights = model$weights, offset = model$offset,
       center = center, scale = scale, slopes = slopes, family = family$code,
       intercept = model$intercept,
       prior_intercept = prior_for_core(priors$prior_intercept$adjusted %||% flat),
       prior = prior_for_core(priors$prior$adjusted %||% flat),
       prior_aux = prior_for_core(priors$prior_aux$adjusted %||% flat),
       has_aux = family$has_aux, noise_precision = 0)
}

user_names <- function(spec, model) c(model$coef_names, if (spec$has_aux) "sigma")

# Names of the sampler's own coordinates (used for the adapted metric).
internal_names <- function(spec, model) {
  nm <- user_names(spec, model)
  if (model$intercept && !is.null(spec$center)) nm[1L] <- "(Intercept) [centred]"
  if (length(spec$slopes) && !is.null(spec$scale)) nm[spec$slopes] <- paste0(nm[spec$slopes], " [x sd]")
  if (spec$has_aux) nm[length(nm)] <- "log(sigma)"
  nm
}

# Internal (centred intercept, slopes times their predictor's sd, log sigma) <-> reported
# (intercept on the data's scale, slopes, sigma). theta: a matrix with one row per draw.
glm_to_user <- function(theta, spec) {
  sl <- spec$slopes
  if (length(sl) && !is.null(spec$scale)) theta[, sl] <- sweep(theta[, sl, drop = FALSE], 2L, spec$scale, `/`)
  if (!is.null(spec$center)) theta[, 1L] <- theta[, 1L] - theta[, sl, drop = FALSE] %*% spec$center
  if (spec$has_aux) theta[, ncol(theta)] <- exp(theta[, ncol(theta)])
  theta
}

glm_to_internal <- function(theta, spec) {
  sl <- spec$slopes
  if (!is.null(spec$center)) theta[, 1L] <- theta[, 1L] + theta[, sl, drop = FALSE] %*% spec$center
  if (length(sl) && !is.null(spec$scale)) theta[, sl] <- sweep(theta[, sl, drop = FALSE], 2L, spec$scale, `*`)
  if (spec$has_aux) theta[, ncol(theta)] <- log(theta[, ncol(theta)])
  theta
}

glm_draws_to_user <- function(draws, spec, model) {
  arr <- unclass(draws)
  d <- dim(arr)
  flat_draws <- matrix(arr, nrow = d[1] * d[2], ncol = d[3])
  arr[] <- glm_to_user(flat_draws, spec)
  dimnames(arr)$variable <- user_names(spec, model)
  posterior::as_draws_array(arr)
}

# Per-chain initial values on both scales. Random inits are redrawn (up to 100 times) until
# the potential is finite there; user inits must give a finite potential.
glm_inits <- function(init, spec, model, chains, seed) {
  nm <- user_names(spec, model)
  d <- length(nm)
  finite_at <- function(theta) {
    u <- vhmc_glm_potential(spec, matrix(theta, nrow = 1L))
    is.finite(u$value) && all(is.finite(u$gradient))
  }
  if (is.null(init)) {
    internal <- with_local_seed(seed, lapply(seq_len(chains), function(chain) {
      for (attempt in seq_len(100)) {
        th <- stats::runif(d, -2, 2)
        if (finite_at(th)) return(th)
      }
      stop_arg("init", sprintf(paste("is NULL, but 100 random starting points drawn uniformly in",
                                     "(-2, 2) all gave a non-finite log density (chain %d)"), chain),
               "Supply `init` values on the scale of the coefficients.")
    }))
  } else {
    user <- resolve_inits(init, nm, chains, seed, NULL)
    internal <- lapply(seq_len(chains), function(chain) {
      th <- user[[chain]]
      if (spec$has_aux && th[["sigma"]] <= 0) {
        stop_arg("init", sprintf("gives sigma = %s for chain %d; sigma must be positive",
                                 format(th[["sigma"]]), chain))
      }
      th <- as.numeric(glm_to_internal(matrix(th, nrow = 1L), spec))
      if (!finite_at(th)) {
        stop_arg("init", sprintf("gives a non-finite log density for chain %d", chain),
                 "Choose values closer to the data, e.g. the estimates of glm().")
      }
      th
    })
  }
  user <- lapply(internal, function(th) stats::setNames(as.numeric(glm_to_user(matrix(th, nrow = 1L), spec)), nm))
  list(internal = internal, user = user)
}
