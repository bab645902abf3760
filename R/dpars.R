# Distributional regression: a linear predictor for an auxiliary parameter of the family, as
# brms's `bf(y ~ x, sigma ~ z)`. The core (inst/include/vhmc/model/glm/dpars.hpp) models the
# parameter on its unconstrained coordinate, which is its link: log for a positive parameter
# (log(nu - 1) for Student's nu > 1), logit for a probability (zi, hu). Each formula has an
# intercept and fixed effects; its coefficients are reported as `sigma_(Intercept)`,
# `sigma_z`, ....

#' Formulas for distributional regression
#'
#' `bf()` bundles the formula of the mean with one formula per auxiliary parameter of the
#' family that should vary with predictors, as brms's `bf()` (whose objects [vhmc_glm()]
#' reads too): `bf(y ~ x, sigma ~ z)` models the gaussian residual standard deviation as
#' \eqn{\log \sigma_i = a + b z_i}. The left-hand side names the parameter (see
#' [vhmc_families] for each family's: `sigma`, `nu`, `shape`, `lambda`, `phi`,
#' `reciprocal_dispersion`, `zi`, `hu`), modelled on its link scale: log for positive
#' parameters (\eqn{\log(\nu - 1)} for Student's \eqn{\nu}, as brms), logit for the
#' zero-inflation and hurdle probabilities. Every formula takes fixed effects (factors,
#' interactions, transformations), smooths ([s()], [t2()]) and lme4-style group-level terms
#' (`sigma ~ z + (1 | g)`: the effects are on the parameter's link scale, reported as
#' `b[sigma_(Intercept) g:level]` and `Sigma[g:sigma_(Intercept),sigma_(Intercept)]`, with
#' `prior_covariance` as their prior (not relative to sigma), each sampled centred or
#' non-centred as the information of its levels' rows says, as the mean's).
#'
#' @param formula The formula of the mean (the model's response on the left).
#' @param ... Formulas of auxiliary parameters, `name ~ predictors`.
#' @return An object of class `vhmc_bf`: `formula` and the named list `pforms`.
#' @seealso [vhmc_glm()] (its `prior_dpar`: priors of the formulas' intercepts, slopes and
#'   smooths' standard deviations), [posterior_epred()] (its `dpar`)
#' @examples
#' \donttest{
#' data(mcycle, package = "MASS")
#' fit <- vhmc_glm(bf(accel ~ times + I(times^2), sigma ~ times), data = mcycle,
#'                 chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' fit
#' sigma <- posterior_epred(fit, dpar = "sigma")
#' }
#' @export
bf <- function(formula, ...) {
  pforms <- list(...)
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop_arg("formula", sprintf("must be a two-sided formula such as y ~ x, not %s", describe(formula)))
  }
  structure(list(formula = formula, pforms = dpar_formulas(pforms)), class = "vhmc_bf")
}

# The named list of the parameters' formulas, checked: two-sided, a name on the left, once each.
dpar_formulas <- function(pforms) {
  ok <- vapply(pforms, function(f) inherits(f, "formula") && length(f) == 3L && is.name(f[[2L]]), logical(1))
  if (!all(ok)) {
    stop_arg("...", "must be formulas of auxiliary parameters such as sigma ~ x",
             "Give each as parameter ~ predictors, the parameter's name on the left.")
  }
  nm <- vapply(pforms, function(f) as.character(f[[2L]]), "")
  if (anyDuplicated(nm)) stop_arg("...", sprintf("gives `%s` two formulas", nm[anyDuplicated(nm)]))
  stats::setNames(pforms, nm)
}

# A vhmc_glm() formula: the mean's formula and the parameters' (NULL without), from bf() or
# brms's brmsformula (its `formula` and `pforms`).
split_bf <- function(formula) {
  if (!inherits(formula, c("vhmc_bf", "brmsformula"))) return(list(formula = formula, dpars = NULL))
  main <- formula$formula
  attributes(main) <- attributes(main)[c("class", ".Environment")]
  pforms <- if (length(formula$pforms)) dpar_formulas(unname(formula$pforms))
  list(formula = main, dpars = pforms)
}

# The parameters the family has and their formulas agree; what is not available yet is an
# error naming it.
check_dpars <- function(dpars, family, formula) {
  aux <- family$aux
  for (f in dpars) check_brms_syntax(f)
  bad <- setdiff(names(dpars), aux$name[!aux$sized_by_data])
  if (length(bad)) {
    have <- aux$name[!aux$sized_by_data]
    stop_arg("formula", sprintf("models `%s`, which the %s family does not have", bad[1L], family$family),
             if (length(have)) sprintf("Its auxiliary parameters: %s.", paste(have, collapse = ", ")) else
               "This family has no auxiliary parameter to model.")
  }
  invisible()
}

# The group-level terms of the parameters' formulas (a named list of findbars() lists; empty
# without any).
dpar_bars <- function(dpars) Filter(Negate(is.null), lapply(dpars, glmer_bars))

# The terms of those bars (R/glmer-terms.R), each marked with its parameter (`dpar`, and
# `aux`: the parameter's 0-based index in the family's) and its columns named after it as
# the parameter's coefficients are (sigma_(Intercept), sigma_z).
dpar_group_terms <- function(dbars, mf, family) {
  unlist(lapply(names(dbars), function(nm) {
    lapply(glmer_terms(dbars[[nm]], mf), function(t) {
      c(t[setdiff(names(t), "cnms")], list(cnms = dpar_prefixed(nm, t$cnms), dpar = nm, aux = match(nm, family$aux$name) - 1L))
    })
  }), recursive = FALSE)
}

# A term's name in the core's layout (its blocks b:KEY, sd:KEY, cor:KEY): the term's label,
# after its parameter's name for a distributional formula's term.
term_key <- function(term) if (is.null(term$dpar)) term$label else paste0(term$dpar, ": ", term$label)

# The priors with the distributional formulas' (intercepts, slopes, smooths' sds) in place of
# the priors of the parameters they model.
with_dpar_priors <- function(priors, model, family, prior_args) {
  if (is.null(model$dpars)) return(priors)
  y_sd <- weighted_sd(core_response(model), model$weights)
  priors$prior_dpar <- lapply(model$dpars, dpar_adjusted_priors, prior_args$prior_dpar, family, y_sd)
  priors$prior_aux[names(model$dpars)] <- NULL  # modelled: their formulas' priors instead
  if (has_dpar_smooths(model)) priors$prior_smooth_dpar <- smooth_prior(prior_args$prior_dpar$sds, 1)
  priors
}

# The frame formula with the parameters' predictors added (their smooths' variables), so
# that the model frame (its subset and missing values) covers them.
dpar_frame_formula <- function(frame_formula, dpars, env) {
  for (f in dpars) {
    f <- reformulas::subbars(f)
    calls <- formula_smooths(f)
    if (!is.null(calls)) f <- smooth_frame_formula(f, smooth_specs(calls, env))
    frame_formula[[3L]] <- call("+", frame_formula[[3L]], f[[3L]])
  }
  frame_formula
}

# Each parameter's design from the model frame: its terms, columns without the intercept
# (its smooths' last, built by mgcv as the mean's: R/smooth-design.R), their means and sds
# (the core's centring and scaling), names and factor levels.
dpar_models <- function(dpars, mf, family, contrasts, weights, env) {
  lapply(stats::setNames(names(dpars), names(dpars)), function(nm) {
    f <- reformulas::nobars(dpars[[nm]])
    calls <- formula_smooths(f)
    tt <- stats::terms(stats::as.formula(call("~", formula_without_smooths(f)[[3L]])))
    if (attr(tt, "intercept") != 1L) {
      stop_arg("formula", sprintf("removes the intercept of %s's formula", nm),
               "Distributional formulas keep their intercept (the parameter's value at the predictors' means).")
    }
    d <- list(name = nm, aux = match(nm, family$aux$name) - 1L, terms = tt, intercept = FALSE, weights = weights,
              x = stats::model.matrix(tt, mf, own_contrasts(contrasts, tt))[, -1L, drop = FALSE], xlevels = stats::.getXlevels(tt, mf))
    if (!is.null(calls)) d <- add_smooths(d, smooth_specs(calls, env), mf)
    cols <- design_columns(d$x, weights)
    d[c("coef_names", "center", "scale", "weights")] <- list(c("(Intercept)", colnames(d$x)),
                                                           if (ncol(d$x)) cols$mean, if (ncol(d$x)) usable_scales(cols$sd), NULL)
    d
  })
}

# Whether a distributional formula has smooths (then the posterior has no joint mode).
has_dpar_smooths <- function(model) any(vapply(model$dpars, has_penalised, logical(1)))

# A parameter's smooths' standard deviations, as the mean's are named: sds[sigma_s(x)].
dpar_sd_names <- function(d) sub("^sds\\[", paste0("sds[", d$name, "_"), d$smooths$sd_names)

# The reported names of a parameter's coefficients: sigma_(Intercept), sigma_z.
dpar_coef_names <- function(d) dpar_prefixed(d$name, d$coef_names)

# A name of parameter `dpar`'s formula, as brms writes it: sigma_(Intercept), sigma_g.
dpar_prefixed <- function(dpar, x) paste0(dpar, "_", x)

# The default priors of every modelled parameter, on its link scale: the intercept (at the
# predictors' means) student_t(3, 0, 2.5), autoscaled so that for a parameter in the
# response's units (sigma) it is centred at log(sd(y)); the slopes normal(0, 1) per sd of
# their predictor; the standard deviations of its smooths half student_t(3, 0, 2.5) (brms's).
default_prior_dpar <- function() {
  list(intercept = student_t(3, 0, 2.5, autoscale = TRUE), coef = normal(0, 1, autoscale = TRUE),
       sds = student_t(3, 0, 2.5))
}

# prior_dpar as given: NULL, or a list with `intercept` and/or `coef` (the rest default).
check_prior_dpar <- function(prior_dpar) {
  out <- default_prior_dpar()
  if (is.null(prior_dpar)) return(out)
  if (!is.list(prior_dpar) || inherits(prior_dpar, "vhmc_prior") || !all(names(prior_dpar) %in% names(out)) ||
      is.null(names(prior_dpar))) {
    stop_arg("prior_dpar", "must be a list with elements `intercept`, `coef` and/or `sds`",
             "For example prior_dpar = list(intercept = normal(0, 1), coef = normal(0, 0.5)).")
  }
  for (nm in setdiff(names(prior_dpar), "sds")) {
    p <- prior_dpar[[nm]]
    if (!inherits(p, "vhmc_prior") || !p$dist %in% c("normal", "student_t", "cauchy", "laplace", "flat")) {
      stop_arg(sprintf("prior_dpar$%s", nm), sprintf("must be a location prior such as normal(0, 1), not %s", describe(p)))
    }
    out[[nm]] <- p
  }
  if (!is.null(prior_dpar$sds)) out$sds <- prior_dpar$sds  # checked by smooth_prior() where used
  out
}

# The priors used for parameter d, on the reported scale: the intercept shifted by log(sd y)
# for a y-scaled parameter when autoscaled, the slopes' scales divided by their predictors' sds.
dpar_adjusted_priors <- function(d, prior_dpar, family, y_sd) {
  a <- family$aux[d$aux + 1L, ]
  pi <- prior_dpar$intercept
  if (isTRUE(pi$autoscale) && a$scales_with_y && a$transform == "log" && !is.null(pi$location)) {
    pi$location <- pi$location + log(y_sd)
  }
  pc <- prior_dpar$coef
  k <- length(d$coef_names) - 1L - (d$smooths$n_random %||% 0L)  # the smooths' penalised columns: their sds
  if (isTRUE(pc$autoscale) && !is.null(pc$scale) && k > 0L) pc$scale <- pc$scale / d$scale[seq_len(k)]
  pi$autoscale <- FALSE
  pc$autoscale <- FALSE
  list(intercept = list(specified = prior_dpar$intercept, adjusted = pi),
       coef = list(specified = prior_dpar$coef, adjusted = pc))
}

# The core's list of predictors (src/glue_glm.cpp, DparStore): each one's aux index, columns,
# centring and scaling, and priors in the core's units (the intercept of a y-scaled parameter
# less log(y_scale): the core models sigma of the standardised response).
dpars_for_core <- function(model, family, priors, y_scale) {
  lapply(model$dpars, function(d) {
    a <- family$aux[d$aux + 1L, ]
    pr <- priors$prior_dpar[[d$name]]
    pi <- pr$intercept$adjusted
    if (a$scales_with_y && a$transform == "log" && !is.null(pi$location)) pi$location <- pi$location - log(y_scale)
    out <- list(aux = d$aux, X = d$x, center = d$center, scale = d$scale, prior_intercept = prior_for_core(pi),
                prior = prior_for_core(pr$coef$adjusted))
    if (has_penalised(d)) out$smooths <- list(sizes = d$smooths$sizes, prior = prior_for_core(priors$prior_smooth_dpar$adjusted))
    out
  })
}

# The contrasts of the variables of `terms`, by their names in the frame (`factor(cyl)`);
# model.matrix() warns of the others.
own_contrasts <- function(contrasts, terms) {
  if (is.null(contrasts)) return(NULL)
  contrasts[intersect(names(contrasts), vapply(as.list(attr(terms, "variables"))[-1L], deparse1, ""))]
}

# The parameters' design matrices for the fitted data or new data.
dpar_designs <- function(model, newdata = NULL) {
  if (is.null(model$dpars)) return(NULL)
  lapply(model$dpars, function(d) {
    if (is.null(newdata)) return(d$x)
    mf <- newdata_frame(stats::delete.response(d$terms), newdata, d$xlevels)
    with_smooth_columns(stats::model.matrix(d$terms, mf, contrasts.arg = own_contrasts(model$contrasts, d$terms))[, -1L, drop = FALSE],
                        d, newdata)
  })
}

# The auxiliary parameters' draws `aux` with the modelled ones' per observation (S x N) added;
# `lp` the group-level parts of the linear predictors (glmer_linpreds()).
with_dpar_draws <- function(aux, model, m, newdata = NULL, lp = NULL) {
  if (is.null(model$dpars)) return(aux)
  aux[names(model$dpars)] <- dpar_draws(model, m, dpar_designs(model, newdata), lp)
  aux
}

# Draws (S x N) of each modelled parameter on its own scale: the inverse of its transform
# (lower + exp(t), or the logistic) at t = intercept + X slopes.
dpar_draws <- function(model, m, designs, lp = NULL) {
  lapply(model$dpars, function(d) {
    cf <- m[, dpar_coef_names(d), drop = FALSE]
    X <- designs[[d$name]]
    eta <- matrix(cf[, 1L], nrow(cf), nrow(X)) + cf[, -1L, drop = FALSE] %*% t(X) + (lp[[d$name]] %||% 0)
    a <- model$family$aux[d$aux + 1L, ]
    if (a$transform == "logit") stats::plogis(eta) else a$lower + exp(eta)
  })
}

# The sampler's names of a parameter's block: the intercept at the predictors' means, the
# slopes times their sds, the smooths' penalised coefficients non-centred (z).
dpar_internal_names <- function(nm, d, centred = NULL) {
  n_random <- d$smooths$n_random %||% 0L
  k <- length(nm) - 1L - n_random
  pen <- utils::tail(nm, n_random)
  c(paste(nm[1L], "[centred]"), if (k) paste(nm[1L + seq_len(k)], "[x sd]"),
    ifelse(rep_len(centred %||% FALSE, n_random), paste(pen, "[x sd]"), sprintf("z[%s]", pen)))
}

# A bf() with the mean's formula updated (update(fit, . ~ . + z)); its other formulas kept.
bf_update <- function(f, formula.) {
  f$formula <- stats::update.formula(f$formula, formula.)
  f
}
