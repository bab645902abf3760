#' Bayesian generalised linear models
#'
#' Fits a GLM by Hamiltonian Monte Carlo with the formula conventions of [stats::glm()]:
#' factors, interactions, contrasts, `subset`, `weights`, `offset`, `na.action`, and
#' `y ~ 0 + ...` (or `- 1`) for a model without intercept. The log likelihood and its
#' gradient are evaluated in C++ (one pass over the data per gradient); no model is
#' compiled.
#'
#' Group-level (random) effects are written as in lme4 and rstanarm's `stan_glmer()`:
#' `(1 | g)`, `(x | g)`, `(x || g)` (uncorrelated), several terms, crossed
#' (`(1 | g1) + (1 | g2)`) and nested (`(1 | g1/g2)`) factors, interactions of grouping
#' factors (`g1:g2`), factors left of the bar. The terms are read by lme4's own formula
#' machinery (the reformulas package). Each term's effects have a normal prior with a
#' covariance matrix whose prior is `prior_covariance`; the fit (class `vhmc_glmer`) reports
#' them as rstanarm does, `b[(Intercept) g:level]` and `Sigma[g:(Intercept),(Intercept)]`,
#' and has [fixef()], [ranef()], [VarCorr()], [ngrps()], `coef()` and `sigma()`.
#'
#' Penalised smooth terms are written as in mgcv and brms: `s(x)`, `s(x, k = 20, bs = "cr")`,
#' `s(x, by = f)` and `t2(x, z)` (`te()` has no mixed-model form in mgcv: use `t2()`, as
#' in gamm4 and brms), built by mgcv's own constructors (`smoothCon()`,
#' with the identifiability constraint absorbed) and rewritten by its `smooth2random()` in
#' mixed-model form, as gamm4 and brms do: each smooth's unpenalised part (the linear term
#' of a thin-plate spline) is ordinary coefficients named `s(x).fx1`, ..., and each of its
#' penalties a block of coefficients `s(x).1`, ... with a normal prior of standard deviation
#' `sds[s(x)]` (one per penalty, `sds[t2(x,z)_1]`, ... for tensor products), whose own prior
#' is `prior_smooth`; the sampler moves them non-centred. Smooths combine with every family,
#' with group-level terms, and with the other terms of the formula; predictions on new data
#' use mgcv's `PredictMat()`; [conditional_smooths()] plots each smooth with its band.
#'
#' The parameters are the coefficients, named as the columns of the model matrix, and the
#' family's auxiliary parameters, sampled unconstrained and reported on their own scales:
#' the residual standard deviation `sigma` (gaussian, Student's t, lognormal), the
#' reciprocal dispersion `reciprocal_dispersion` (negative binomial, variance \eqn{\mu +
#' \mu^2/\phi}, as rstanarm's `neg_binomial_2`), a `shape` (Gamma, variance \eqn{\mu^2 /}
#' shape), Student's `nu`, Beta's precision `phi`, the zero-inflation `zi` or hurdle `hu`
#' probability, an ordinal model's cutpoints; [vhmc_families] lists every family and link.
#' Predictors are centred internally, so `prior_intercept` applies to
#' the intercept at the predictor means; the reported `(Intercept)` is on the data's scale.
#' The sampler moves each slope times the standard deviation of its predictor, so that
#' every coordinate has a similar posterior scale whatever the predictors' units (the
#' adapted metric in `fit$adaptation` is on that scale); priors apply to the slopes
#' themselves. The gaussian likelihood is computed from sufficient statistics (the
#' weighted cross-products of the design), so its cost per gradient does not grow with the
#' number of observations.
#'
#' Responses: gaussian and student take numbers; binomial takes 0/1 (numbers, logicals, or
#' a factor whose first level is failure), proportions with `weights` giving the numbers of
#' trials, or `cbind(successes, failures)`; the count families take non-negative whole
#' numbers; Gamma, inverse.gaussian and lognormal take positive numbers; Beta proportions
#' strictly between 0 and 1; cumulative an ordered factor or whole numbers 1, 2, .... `weights` are
#' frequency weights for every family (a weight of 2 counts the row twice), as in rstanarm;
#' for the binomial family they are numbers of trials.
#'
#' Censored responses (gaussian, student, lognormal, Gamma, inverse.gaussian, any link) are
#' written as in brms, `y | cens(censored) ~ ...` or `y | cens(censored, y2) ~ ...`, with
#' `censored` one of `"left"` (the value is below `y`), `"none"`, `"right"` (above `y`),
#' `"interval"` (between `y` and `y2`), or -1, 0, 1, 2, or `TRUE` for right censored; or as
#' in the survival package, `Surv(time, status) ~ ...` (right censoring; `type = "left"`,
#' `"interval"` and `"interval2"` too). A censored row's likelihood is the probability of its
#' interval under the model, in the sampler and in [log_lik()] (so in `loo()` and
#' [kfold()][kfold.vhmc_fit]); [posterior_predict()] draws uncensored responses, as brms does, and
#' `pp_check()` of a right-censored fit compares Kaplan-Meier curves. With censored rows the
#' gaussian family takes its likelihood row by row (no sufficient statistics, no group
#' effects integrated out).
#'
#' The default priors are weakly informative and autoscaled (see [priors]): for the
#' gaussian family they scale with `sd(y)`, and coefficient scales with `1 / sd(x)` (with
#' `1 / range(x)` for two-valued predictors such as dummies).
#' [prior_summary()] prints what was used.
#'
#' @param formula A model formula, as for [stats::glm()]; group-level terms, smooths and
#'   censoring as described below. Or a [bf()] of the mean's formula and formulas of the
#'   family's auxiliary parameters (`bf(y ~ x + (1 | g), sigma ~ z + (1 | g))`), each with
#'   fixed effects, smooths and group-level terms.
#' @param data A data frame (or list or environment) with the variables in `formula`; if
#'   missing, they are taken from the formula's environment.
#' @param family A family object, a family function or its name: R's `gaussian()`,
#'   `binomial()`, `poisson()`, `Gamma()`, `inverse.gaussian()` with any of the links
#'   rstanarm supports, or [neg_binomial_2()], [student()], [lognormal()], [Beta()],
#'   [cumulative()], [zero_inflated_poisson()], [zero_inflated_negbinomial()],
#'   [hurdle_poisson()], [hurdle_negbinomial()] (brms's names; brms's family objects work
#'   too). See [vhmc_families] for every family, link and auxiliary parameter.
#' @param prior Prior of the coefficients (one for all or one value per coefficient); see
#'   [priors]. For sparse regression, the regularised horseshoe [hs()] or [hs_plus()] (see
#'   [horseshoe]; not with group-level terms or smooths). With smooth terms, the prior of
#'   the formula's own coefficients and of the smooths' unpenalised parts.
#' @param prior_intercept Prior of the intercept at the predictor means; for [cumulative()]
#'   models, of each cutpoint at the predictor means (there it defaults to
#'   `student_t(3, 0, 2.5)`, brms's choice).
#' @param prior_aux Priors of the family's auxiliary parameters. `NULL` (default): the
#'   family's defaults ([vhmc_families]; for sigma `exponential(1, autoscale = TRUE)`, as
#'   rstanarm). One prior for a family with one auxiliary parameter, or a list by name for
#'   any, e.g. `list(sigma = exponential(1), nu = gamma_prior(2, 0.1))` (names left out keep
#'   their defaults). Positive parameters take half-distributions on \eqn{(0, \infty)},
#'   `exponential()`, `gamma_prior()` or `flat()` (autoscaling multiplies sigma's scale by
#'   `sd(y)` and leaves the others as given, as rstanarm); probabilities take `beta_prior()`
#'   or `flat()`. A family without auxiliary parameters (binomial, poisson) takes none.
#' @param sampler A sampler: [nuts()] (default), [hmc()], [rwm()] (random-walk
#'   Metropolis, no gradient), [rmhmc()] (Riemannian-manifold HMC with the Fisher metric,
#'   for the families that have one, the canonical links without an auxiliary parameter),
#'   [surrogate_hmc()] (exact), [variational_hmc()] (approximate), or the
#'   stochastic-gradient samplers [sghmc()] and [sgld()] (minibatch gradients, no
#'   Metropolis correction; approximate).
#' @inheritParams vhmc_sample
#' @param init Where the chains start. `NULL` (default): from the posterior mode, found by
#'   damped Newton with the analytic Hessian (once per fit), and its curvature: each chain
#'   starts at a draw of the Laplace approximation with its covariance doubled, and the
#'   sampler's metric starts from that covariance (see [vhmc_sample()] for when it falls
#'   back to random starts). `"random"`: every parameter uniform in (-2, 2) on the sampler's
#'   internal scale (centred intercept, log sigma) with a unit metric, as Stan does. Or
#'   values on the reported scale (a named vector with every coefficient and `sigma`, a
#'   list with one such vector per chain, or a function returning one).
#' @param subset,weights,offset,na.action,contrasts As in [stats::glm()].
#' @param prior_covariance For formulas with group-level terms: the prior of each term's
#'   covariance matrix, [decov()] (default, as rstanarm) or [lkj()]; see
#'   [covariance_priors]. With distributional formulas ([bf()]) decov() is not relative to
#'   sigma (which then varies; its scale is in units of sd(y), as lkj()'s autoscaled one),
#'   and the terms of a parameter's formula take the prior as given (their link scale has
#'   no units).
#' @param prior_PD Draw from the prior alone, leaving out the likelihood (rstanarm's
#'   `prior_PD`): for prior predictive checks with [posterior_predict()] and to see what the
#'   priors imply. The data still set the design and the autoscaled priors.
#' @param parameterization For formulas with group-level terms: `"auto"` (default)
#'   integrates the effects out when the family is gaussian and there is one group-level
#'   term or nested ones (`(1 | g1/g2)`; the chains sample the fixed effects, sigma and the
#'   covariances; each draw's effects are then drawn from their conditional normal), and
#'   otherwise samples each term centred when its data say more about a level's effects
#'   than the prior does, and non-centred otherwise (Papaspiliopoulos, Roberts and Skold
#'   2007): centred when the median over levels of the information ratio kappa_j = I_j
#'   tau^2 is above 1 (checked on a grid of models:
#'   inst/bench/parameterization_grid.R), I_j being the Fisher information of level j's rows about its effect
#'   (for a distributional formula's term, the observed information, from the gradient)
#'   and tau^2 a moment estimate of the term's variance (DerSimonian and Laird 1986); under
#'   `prior_PD = TRUE` non-centred. With a centred term and at most 500 parameters the chains
#'   start at the centred posterior's local mode (searched from the non-centred mode), drawn
#'   from its Laplace approximation with that covariance as their metric, where it has one
#'   whose Gaussian describes the posterior (levels with many rows; a logistic model with
#'   50 levels of 2,000 rows: NUTS's warmup took 21 times fewer gradients than from the
#'   non-centred start); otherwise they start near the non-centred mode.
#'   `"marginal"`, `"centered"` or `"noncentered"` ask for one
#'   of these. The choice is in `fit$model$glmer$marginal`, `fit$model$glmer$centred` (the
#'   ratios in `fit$model$glmer$information_ratio`) and in `print()`. A
#'   gaussian likelihood with sampled effects is computed, exactly, from sums over the cells
#'   of the grouping factors (their distinct combinations of levels) instead of the rows
#'   when the cells are far fewer than the rows (`fit$model$glmer$likelihood` is then
#'   `"cells"`, and `print()` says so); `options(vhmc.glmer_cells = FALSE)` keeps the pass
#'   over the rows, `TRUE` asks for the cells wherever they apply.
#' @param prior_smooth For formulas with smooth terms: the prior of each smooth's standard
#'   deviation (a prior of a positive parameter), by default a half Student-t with 3 degrees
#'   of freedom and scale 2.5 (brms's default for smooths), autoscaled by `sd(y)` for the
#'   gaussian family (and the families whose response the core standardises).
#' @param prior_dpar For distributional formulas ([bf()]): a list of the priors of each
#'   formula's `intercept` (on the parameter's link scale, at the predictors' means; default
#'   `student_t(3, 0, 2.5, autoscale = TRUE)`, which for sigma is centred at log(sd(y))),
#'   its slopes `coef` (default `normal(0, 1, autoscale = TRUE)`: scale 1 per sd of the
#'   predictor) and its smooths' standard deviations `sds` (default `student_t(3, 0, 2.5)`);
#'   elements left out keep their defaults.
#' @param ... Must be empty; here so that misspelt arguments give an error.
#' @return A `vhmc_fit` (class `c("vhmc_glm", "vhmc_fit")`). Besides the methods of every
#'   fit ([print.vhmc_fit()], [summary.vhmc_fit()], [as_draws_array.vhmc_fit()], ...), GLM
#'   fits have [coef()][coef.vhmc_glm], `vcov`, `fitted`, `residuals`,
#'   [predict()][predict.vhmc_glm], [posterior_linpred()], [posterior_epred()],
#'   [posterior_predict()], [posterior_interval()], [log_lik()], [bayes_R2()], [loo_R2()],
#'   `nobs`, `formula`, [prior_summary()] and [update()][update.vhmc_fit], and methods for
#'   loo's `loo()`, `waic()` and `loo_compare()` ([loo.vhmc_fit]) and `kfold()`
#'   ([kfold.vhmc_fit]), bayesplot's `pp_check()` ([pp_check.vhmc_fit]) and emmeans's
#'   estimated marginal means ([emmeans-methods]).
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
#'
#' # Right-censored survival times (survival's lung data), a lognormal model
#' lung <- na.omit(survival::lung[, c("time", "status", "age", "sex")])
#' fit3 <- vhmc_glm(survival::Surv(time, status == 2) ~ age + sex, data = lung,
#'                  family = lognormal(), chains = 2, iter = 1000, seed = 1,
#'                  progress = FALSE)
#' fit3
#' }
#' @importFrom stats gaussian binomial poisson
#' @export
vhmc_glm <- function(formula, data, family = gaussian(),
                     prior = normal(0, 2.5, autoscale = TRUE),
                     prior_intercept = normal(0, 10, autoscale = TRUE),
                     prior_aux = NULL,
                     sampler = nuts(), chains = 4, iter = 2000, warmup = NULL,
                     thin = 1, seed = NULL, cores = getOption("mc.cores", 1L), init = NULL,
                     progress = interactive(), subset, weights, offset, na.action,
                     contrasts = NULL, prior_covariance = decov(), parameterization = "auto",
                     prior_PD = FALSE, prior_smooth = student_t(3, 0, 2.5, autoscale = TRUE),
                     prior_dpar = NULL, ...) {
  call <- match.call()
  check_no_dots(list(...), "vhmc_glm")
  parts <- split_bf(formula)
  formula <- parts$formula
  if (!inherits(formula, "formula")) {
    stop_arg("formula", sprintf("must be a formula such as y ~ x, not %s", describe(formula)))
  }
  parameterization <- check_parameterization(parameterization)
  if (!missing(data) && !is.data.frame(data) && !is.list(data) && !is.environment(data)) {
    stop_arg("data", sprintf("must be a data frame, not %s", describe(data)))
  }
  jit_off_until_return()
  family <- resolve_family(family)
  if (missing(prior_intercept)) prior_intercept <- family$entry$prior_intercept %||% prior_intercept
  check_sampler_arg(sampler)
  args <- check_run_args(chains, iter, warmup, thin, cores)
  progress <- check_flag(progress, "progress")

  mf_call <- match.call(expand.dots = FALSE)
  mf_call <- mf_call[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"),
                                 names(mf_call), 0L))]
  model <- build_glm_model(mf_call, parent.frame(), formula, data, family, contrasts, parameterization, parts$dpars)
  model$prior_PD <- check_flag(prior_PD, "prior_PD")
  fit_glm_model(model, family, list(prior = prior, prior_intercept = prior_intercept,
                          prior_aux = prior_aux, prior_covariance = prior_covariance, prior_smooth = prior_smooth,
                          prior_dpar = check_prior_dpar(prior_dpar)),
      sampler, args, seed, init, progress, call)
}

# The model of vhmc_glm(): the GLM of the formula's fixed part and, with group-level terms,
# the terms (R/glmer-model.R); the model frame holds every variable of both.
build_glm_model <- function(mf_call, env, formula, data, family, contrasts, parameterization, dpars = NULL) {
  check_brms_syntax(formula)
  if (!is.null(dpars)) check_dpars(dpars, family, formula)
  censoring <- formula_censoring(formula)
  whole <- formula
  formula <- uncensored_formula(formula, censoring)
  bars <- glmer_bars(formula)
  dbars <- dpar_bars(dpars)
  smooths <- formula_smooths(formula)
  specs <- if (!is.null(smooths)) smooth_specs(smooths, environment(formula) %||% env)
  frame_formula <- if (is.null(bars)) formula else glmer_frame_formula(formula)
  if (!is.null(smooths)) frame_formula <- smooth_frame_formula(frame_formula, specs)
  if (!is.null(dpars)) frame_formula <- dpar_frame_formula(frame_formula, dpars, environment(formula) %||% env)
  mf_call$formula <- frame_formula
  mf <- glm_model_frame(censoring_frame_call(mf_call, censoring), env, frame_formula, data)
  fixed <- if (!is.null(bars)) reformulas::nobars(formula)
  if (!is.null(smooths)) fixed <- formula_without_smooths(fixed %||% formula)
  if (!is.null(dpars) && is.null(fixed)) fixed <- formula
  model <- glm_model(mf, family, contrasts, fixed = fixed, response_levels = declared_levels(formula, data, env))
  if (!is.null(dpars)) model$dpars <- dpar_models(dpars, mf, family, contrasts, model$weights, environment(formula) %||% env)
  if (!is.null(smooths)) model <- add_smooths(model, specs, mf)
  if (!is.null(bars) || length(dbars)) model$glmer <- glmer_model(bars, mf, parameterization, dbars, family)
  model$formula <- whole  # the whole formula, group-level terms and cens() included (formula(), update())
  model$dpar_formulas <- dpars
  model$censoring <- censoring
  model$label <- sprintf("%s(%s) %s, %s, %d observations%s", family$family, family$link,
                         if (is.null(model$glmer)) "GLM" else "multilevel GLM",
                         paste(c(deparse1(whole), vapply(dpars, deparse1, "")), collapse = ", "), model$nobs,
                         censoring_label(model$cens))
  model
}

# The levels of a factor response as the data declare them (the model frame drops those no
# row has; an ordinal model keeps every category), or NULL.
declared_levels <- function(formula, data, env) {
  y <- tryCatch(eval(formula[[2L]], if (missing(data)) env else data, env), error = function(e) NULL)
  if (is.factor(y)) levels(y)
}

# A GLM model (from glm_model(), with group-level terms or not, or an ARDL's lagged design)
# with its priors autoscaled and checked, its potential built once, the chains' start; then
# the chains. The one fit path of every GLM: a model with group-level terms differs in its
# checks, its priors and its start (R/glmer-model.R). The fit has class "vhmc_glm" before
# any other ("vhmc_glmer" before that with group-level terms).
fit_glm_model <- function(model, family, prior_args, sampler, args, seed, init, progress, call) {
  multilevel <- !is.null(model$glmer)
  if (multilevel) check_glmer_fit(model, family, init)
  priors <- model_priors(model, family, prior_args)
  spec <- glm_spec(model, family, priors)
  if (multilevel) {
    model$glmer <- glmer_likelihood(model, family, isTRUE(spec$prior_only), uses_minibatch(sampler))
    spec$cells <- model$glmer$likelihood == "cells"
  }
  seed <- resolve_seed(seed)
  target <- if (multilevel) glmer_target(spec, model, priors, rep(FALSE, length(model$glmer$terms)),
                                         marginal = model$glmer$marginal, seed = seed) else glm_target(spec, model)
  check_target(sampler, target)  # by the capabilities of the core's potential, before the start
  check_prior_pd(model, priors)
  check_identified(model, family, priors, spec, target, separation = !multilevel && !isTRUE(model$prior_PD))
  model$priors <- priors
  start <- if (multilevel) glmer_start(target, spec, model, family, priors, sampler, init, seed, args, progress) else
    glm_start(target, spec, model, sampler, init, seed, args, progress)
  fit <- fit_chains(start$target, sampler, args, seed, start$inits, init, progress, call, start$model)
  class(fit) <- c(if (multilevel) "vhmc_glmer", "vhmc_glm", class(fit))
  fit
}

# The priors of every part of the model: the GLM's, the distributional formulas' and the
# group-level terms' covariance.
model_priors <- function(model, family, prior_args) {
  priors <- glm_priors(model, family, prior_args$prior, prior_args$prior_intercept, prior_args$prior_aux,
                       prior_args$prior_smooth)
  priors <- with_dpar_priors(priors, model, family, prior_args)
  if (is.null(model$glmer)) return(priors)
  priors$prior_covariance <- covariance_priors(model, family, prior_args$prior_covariance)
  if (any(vapply(model$glmer$terms, function(t) !is.null(t$dpar), NA))) {
    # A parameter's link scale has no units: its terms' prior as given.
    p <- prior_args$prior_covariance
    priors$prior_covariance_dpar <- list(specified = p, adjusted = resolve_covariance_prior(p, NULL, 1, FALSE))
  }
  priors
}

# The start of a model without group-level terms: its initial values, and the target in the
# coordinates it samples (a horseshoe's or smooths' non-centred ones where they mix better).
glm_start <- function(target, spec, model, sampler, init, seed, args, progress) {
  inits <- glm_inits(init, target, spec, args$chains, seed)
  # A horseshoe's posterior has no mode (the core's capabilities say so): the chains start near
  # the mode of the non-centred one.
  if (is_horseshoe(model$priors[["prior"]]$adjusted)) target <- noncentred_target(target, sampler, inits, init, seed, progress)
  if (has_penalised(model) || has_dpar_smooths(model)) {
    target <- smooth_target(target, spec, model, sampler, inits, init, seed, progress)
    if (has_penalised(model)) model$smooths$centred <- target$smooth_centred
  }
  list(target = target, inits = inits, model = model)
}
