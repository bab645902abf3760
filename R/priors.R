# Prior constructors (class vhmc_prior). They validate their own arguments; the checks that
# need the model (vector lengths, which parameter a prior is for) live in resolve_prior().

#' Prior distributions for vhmc_glm
#'
#' Constructors of the priors used by [vhmc_glm()] (and the ARDL and other formula
#' interfaces): one for the coefficients (`prior`), one for the intercept
#' (`prior_intercept`; for [cumulative()] models, each cutpoint) and one for each auxiliary
#' parameter of the family (`prior_aux`): the residual standard deviation sigma, a shape, a
#' dispersion, Student's degrees of freedom, a zero-inflation probability (see
#' [vhmc_families]).
#'
#' `location`, `scale` and `df` may be scalars (applied to every coefficient) or have one
#' value per coefficient, in the order of the columns of the model matrix (without the
#' intercept). On sigma, the location-scale families are half-distributions on
#' \eqn{(0, \infty)}: `normal(0, s)` is a half-normal, `cauchy(0, s)` a half-Cauchy, and
#' their location must be 0. `flat()` is the improper uniform prior (on sigma: uniform on
#' \eqn{(0, \infty)}); a fit whose coefficients all have flat priors is proper only when
#' the likelihood identifies them. For sparse regression the coefficients also take the
#' [horseshoe] priors [hs()] and [hs_plus()].
#'
#' With `autoscale = TRUE` the scale is adjusted to the data when the model is fitted, as in
#' rstanarm: for the gaussian family every scale is multiplied by `sd(y)`; coefficient
#' scales are divided by the standard deviation of their predictor (by its range for a
#' predictor with two values, such as a dummy); the exponential rate on
#' sigma is divided by `sd(y)`. [prior_summary()] shows the adjusted values. The default
#' priors of [vhmc_glm()] are autoscaled; priors you write yourself are used as given unless
#' you ask for autoscaling.
#'
#' The intercept prior applies to the intercept at the predictor means (predictors are
#' centred internally, as in rstanarm and brms); the intercept reported by the fit is on the
#' scale of the data.
#'
#' @param location Location (mean for `normal()`, median otherwise).
#' @param scale Positive scale.
#' @param df Positive degrees of freedom of the Student t distribution.
#' @param rate Positive rate of the exponential distribution (the prior mean of sigma is
#'   `1 / rate`) or of the gamma distribution.
#' @param shape Positive shape of the gamma distribution.
#' @param shape1,shape2 Positive shapes of the beta distribution, as [stats::dbeta()].
#' @param autoscale Scale the prior to the data (see Details).
#' @return An object of class `vhmc_prior`.
#' @seealso [vhmc_glm()], [prior_summary()], [horseshoe]
#' @examples
#' normal(0, 2.5)
#' student_t(df = 3, location = 0, scale = c(1, 2, 5))
#' cauchy(0, 2.5)    # as prior_aux: a half-Cauchy on sigma
#' exponential(1)
#' gamma_prior(2, 0.1)  # brms's prior on Student's nu
#' beta_prior(1, 1)     # uniform on a zero-inflation probability
#' flat()
#' @name priors
NULL

#' @rdname priors
#' @export
normal <- function(location = 0, scale = 1, autoscale = FALSE) {
  new_prior("normal", location = location, scale = scale, autoscale = autoscale)
}

#' @rdname priors
#' @export
student_t <- function(df = 1, location = 0, scale = 1, autoscale = FALSE) {
  new_prior("student_t", location = location, scale = scale, df = df, autoscale = autoscale)
}

#' @rdname priors
#' @export
cauchy <- function(location = 0, scale = 1, autoscale = FALSE) {
  new_prior("cauchy", location = location, scale = scale, autoscale = autoscale)
}

#' @rdname priors
#' @export
laplace <- function(location = 0, scale = 1, autoscale = FALSE) {
  new_prior("laplace", location = location, scale = scale, autoscale = autoscale)
}

#' @rdname priors
#' @export
flat <- function() {
  structure(list(dist = "flat", autoscale = FALSE), class = "vhmc_prior")
}

#' @rdname priors
#' @export
exponential <- function(rate = 1, autoscale = FALSE) {
  if (!is.numeric(rate) || length(rate) != 1L || is.na(rate) || !is.finite(rate) || rate <= 0) {
    stop_arg("rate", sprintf("of exponential() must be a single positive finite number, not %s",
                             describe(rate)))
  }
  structure(list(dist = "exponential", rate = as.numeric(rate),
                 autoscale = check_flag(autoscale, "autoscale")), class = "vhmc_prior")
}

#' @rdname priors
#' @export
gamma_prior <- function(shape, rate) {
  check_number(shape, "shape", 0, Inf, open = c(TRUE, TRUE))
  check_number(rate, "rate", 0, Inf, open = c(TRUE, TRUE))
  structure(list(dist = "gamma", shape = as.numeric(shape), rate = as.numeric(rate), autoscale = FALSE),
            class = "vhmc_prior")
}

#' @rdname priors
#' @export
beta_prior <- function(shape1 = 1, shape2 = 1) {
  check_number(shape1, "shape1", 0, Inf, open = c(TRUE, TRUE))
  check_number(shape2, "shape2", 0, Inf, open = c(TRUE, TRUE))
  structure(list(dist = "beta", shape1 = as.numeric(shape1), shape2 = as.numeric(shape2), autoscale = FALSE),
            class = "vhmc_prior")
}

new_prior <- function(dist, location, scale, df = NULL, autoscale = FALSE) {
  check_prior_values(location, "location", dist)
  check_prior_values(scale, "scale", dist, positive = TRUE)
  if (!is.null(df)) check_prior_values(df, "df", dist, positive = TRUE)
  structure(list(dist = dist, location = as.numeric(location), scale = as.numeric(scale),
                 df = if (is.null(df)) NULL else as.numeric(df),
                 autoscale = check_flag(autoscale, "autoscale")),
            class = "vhmc_prior")
}

check_prior_values <- function(x, arg, dist, positive = FALSE) {
  if (!is.numeric(x) || length(x) == 0L || anyNA(x) || any(!is.finite(x))) {
    stop_arg(arg, sprintf("of %s() must be finite numbers, not %s", dist, describe(x)))
  }
  if (positive && any(x <= 0)) {
    stop_arg(arg, sprintf("of %s() must be positive, but contains %s", dist,
                          format(x[x <= 0][1])))
  }
}

is_prior <- function(x) inherits(x, "vhmc_prior")

#' @export
format.vhmc_prior <- function(x, digits = 3, ...) {
  num <- function(v) {
    s <- format(signif(v, digits), trim = TRUE, drop0trailing = TRUE)
    if (length(v) == 1L) s else paste0("c(", paste(s, collapse = ", "), ")")
  }
  args <- switch(x$dist,
    flat = "",
    exponential = paste0("rate = ", num(x$rate)),
    gamma = paste0("shape = ", num(x$shape), ", rate = ", num(x$rate)),
    beta = paste0("shape1 = ", num(x$shape1), ", shape2 = ", num(x$shape2)),
    student_t = paste0("df = ", num(x$df), ", location = ", num(x$location), ", scale = ",
                       num(x$scale)),
    hs = , hs_plus = horseshoe_args(x, num),
    paste0("location = ", num(x$location), ", scale = ", num(x$scale))
  )
  name <- if (x$dist %in% c("gamma", "beta")) paste0(x$dist, "_prior") else x$dist
  paste0(name, "(", args, if (isTRUE(x$autoscale)) ", autoscale = TRUE", ")")
}

#' @export
print.vhmc_prior <- function(x, ...) {
  cat(format(x, ...), "\n", sep = "")
  invisible(x)
}

# Checks a prior against the parameter it is for and applies autoscaling.
#   role: "coef" (k coefficients), "intercept", "cutpoints" (k of them, the intercept's
#   prior per cutpoint), "aux" (a positive auxiliary parameter named aux_name: sigma, a
#   shape, a dispersion, nu) or "probability" (a zero-inflation or hurdle probability).
#   scale_y: sd of the response (gaussian) or 1; scale_x: sd of each predictor (coef only).
# Returns the prior actually used (autoscaling applied), with vectors recycled to length k.
resolve_prior <- function(prior, arg, role, k = 1L, scale_y = 1, scale_x = NULL, aux_name = "sigma") {
  used <- scale_prior(prior, arg, role, k, scale_y, scale_x, aux_name)
  used$autoscale <- FALSE
  used
}

scale_prior <- function(prior, arg, role, k, scale_y, scale_x, aux_name = "sigma") {
  if (!is_prior(prior)) {
    stop_arg(arg, sprintf("must be a prior such as normal(0, 2.5), not %s", describe(prior)),
             "See ?priors for normal(), student_t(), cauchy(), laplace(), flat(), exponential(), gamma_prior(), beta_prior(), and ?horseshoe for hs(), hs_plus().")
  }
  check_prior_role(prior, arg, role, aux_name)
  if (prior$dist %in% c("flat", "gamma", "beta", horseshoe_dists)) return(prior)
  if (prior$dist == "exponential") {
    if (prior$autoscale) prior$rate <- prior$rate / scale_y
    return(prior)
  }
  fields <- intersect(c("location", "scale", "df"), names(Filter(Negate(is.null), prior)))
  if (role %in% c("coef", "cutpoints")) {
    what <- if (role == "coef") "coefficient" else "cutpoint"
    for (f in fields) {
      v <- prior[[f]]
      if (length(v) != 1L && length(v) != k) {
        stop_arg(arg, sprintf("has %s of length %d, but the model has %d %s%s", f, length(v), k, what,
                              if (k == 1L) "" else "s"),
                 sprintf("Give one value for all %ss or one per %s.", what, what))
      }
      prior[[f]] <- rep_len(v, k)
    }
    if (prior$autoscale) prior$scale <- prior$scale * scale_y / (if (role == "coef") scale_x else 1)
    return(prior)
  }
  for (f in fields) {
    if (length(prior[[f]]) != 1L) {
      stop_arg(arg, sprintf("must have a single %s (the %s is one parameter), not %d values", f,
                            if (role == "aux") aux_name else "intercept", length(prior[[f]])))
    }
  }
  if (role == "aux" && prior$location != 0) {
    stop_arg(arg, sprintf("is a half-%s on %s and needs location 0, not %s", prior$dist,
                          aux_name, format(prior$location)),
             sprintf("Use %s(0, scale).", prior$dist))
  }
  if (prior$autoscale) prior$scale <- prior$scale * scale_y
  prior
}

# The natural support of a prior's distribution: a parameter with that prior is bounded by it
# (vhmc_sample(prior = ), R/bounded-target.R), and only a positive one takes it.
prior_support <- function(prior) {
  switch(prior$dist, exponential = , gamma = c(0, Inf), beta = c(0, 1), c(-Inf, Inf))
}

# Which distributions a parameter of each role takes.
check_prior_role <- function(prior, arg, role, aux_name) {
  positive_only <- identical(prior_support(prior), c(0, Inf))
  if (role == "probability" && !prior$dist %in% c("beta", "flat")) {
    stop_arg(arg, sprintf("is %s for the probability %s, which takes beta_prior() or flat() (= beta_prior(1, 1))",
                          format(prior), aux_name))
  }
  if (prior$dist == "beta" && role != "probability") {
    stop_arg(arg, sprintf("cannot be beta_prior(): it is for a probability, and %s is not one",
                          if (role == "aux") aux_name else "this parameter"))
  }
  if (is_horseshoe(prior) && role != "coef") {
    stop_arg(arg, sprintf("cannot be %s: the horseshoe is a prior for the coefficients (`prior`)", format(prior)),
             "Use normal(), student_t(), cauchy(), laplace() or flat() here.")
  }
  if (positive_only && role != "aux") {
    stop_arg(arg, sprintf("cannot be %s: it is only for a positive auxiliary parameter (prior_aux)", format(prior)),
             "Use normal(), student_t(), cauchy(), laplace() or flat().")
  }
  invisible()
}

# The list the C++ core reads (src/glue_glm.cpp, glm_prior()).
prior_for_core <- function(prior) {
  if (is_horseshoe(prior)) return(horseshoe_for_core(prior))
  list(dist = prior$dist, location = prior$location %||% 0, scale = prior$scale %||% 1,
       df = prior$df %||% 1, rate = prior$rate %||% 1, shape = prior$shape %||% 1,
       shape1 = prior$shape1 %||% 1, shape2 = prior$shape2 %||% 1)
}

#' Summarise the priors of a fit
#'
#' The priors as specified and, where autoscaling changed them, as used; printed by its
#' `print()` method (so that `p <- prior_summary(fit)` keeps them without printing).
#'
#' @param object A fit from [vhmc_glm()].
#' @param ... Unused.
#' @return A list of class `vhmc_prior_summary` with elements `prior_intercept` (for ordinal models: the
#'   cutpoints'), `prior` and `prior_aux` (a list by auxiliary parameter, such as `sigma`),
#'   each a list with the `specified` and the `adjusted` (used) prior; `prior_covariance` for
#'   models with group-level terms; `prior_smooth` for models with smooth terms.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' prior_summary(fit)
#' }
#' @export
prior_summary <- function(object, ...) UseMethod("prior_summary")

#' @rdname prior_summary
#' @export
#' @rawNamespace S3method(rstantools::prior_summary, vhmc_fit)
prior_summary.vhmc_fit <- function(object, ...) {
  priors <- object$model$priors
  if (is.null(priors)) return(structure(list(), text = "This fit has no prior specification: its log density was written by the user.",
                                        class = "vhmc_prior_summary"))
  model <- object$model
  slopes <- setdiff(model$coef_names, "(Intercept)")
  slopes <- slopes[setdiff(seq_along(slopes), smooth_random_columns(model))]  # the smooths': prior_smooth
  structure(priors, labels = prior_labels(model), slopes = slopes,
            dpar_slopes = lapply(model$dpars, function(d) {
              utils::head(dpar_coef_names(d)[-1L], length(d$coef_names) - 1L - (d$smooths$n_random %||% 0L))
            }), class = "vhmc_prior_summary")
}

#' @rdname prior_summary
#' @param x A `vhmc_prior_summary`, as `prior_summary()` returns.
#' @export
print.vhmc_prior_summary <- function(x, ...) {
  if (!is.null(attr(x, "text"))) {
    cat(attr(x, "text"), "\n", sep = "")
    return(invisible(x))
  }
  labels <- attr(x, "labels")
  for (nm in names(x)) {
    if (nm == "prior_dpar") {
      print_dpar_priors(x$prior_dpar, attr(x, "dpar_slopes"))
      next
    }
    if (nm != "prior_aux") {
      print_prior_entry(x[[nm]], labels[[nm]], nm == "prior", attr(x, "slopes"))
      next
    }
    for (a in names(x$prior_aux)) print_prior_entry(x$prior_aux[[a]], sprintf("Auxiliary (%s)", a), FALSE, attr(x, "slopes"))
  }
  invisible(x)
}

# The distributional formulas' priors (on each parameter's link scale).
print_dpar_priors <- function(p, slopes) {
  for (a in names(p)) {
    print_prior_entry(p[[a]]$intercept, sprintf("Distributional %s: intercept (link scale, at the predictor means)", a),
                      FALSE, NULL)
    if (length(slopes[[a]])) {
      print_prior_entry(p[[a]]$coef, sprintf("Distributional %s: coefficients (%d)", a, length(slopes[[a]])), TRUE,
                        slopes[[a]])
    }
  }
}

prior_labels <- function(model) {
  n_mean <- sum(vapply(model$glmer$terms, function(t) is.null(t$dpar), NA))
  n_coef <- length(model$coef_names) - model$intercept - (model$smooths$n_random %||% 0L)
  n_cut <- model$n_cutpoints %||% 0L
  c(prior_intercept = if (n_cut > 0L) sprintf("Cutpoints (%d, at the predictor means)", n_cut) else
      "Intercept (at the predictor means)",
    prior = paste0("Coefficients (", n_coef, ")"),
    prior_covariance = sprintf("Covariance of the group-level terms (%d %s)", n_mean,
                               if (n_mean == 1L) "term" else "terms"),
    prior_covariance_dpar = sprintf("Covariance of the distributional formulas' group-level terms (%d, link scale)",
                                    length(model$glmer$terms) - n_mean),
    prior_smooth = sprintf("Standard deviations of the smooths' penalised coefficients (%d)", length(model$smooths$sizes)),
    prior_smooth_dpar = "Standard deviations of the distributional formulas' smooths (prior_dpar$sds)")
}

# One prior: as specified, and as used when autoscaling changed it (per coefficient when
# the scales differ).
print_prior_entry <- function(p, label, per_coefficient, slopes) {
  cat(label, "\n  specified: ", format(p$specified), "\n", sep = "")
  if (is_horseshoe(p$adjusted) && isTRUE(p$adjusted$relative_to_sigma)) {
    cat("  global scale: ", format(signif(p$adjusted$global_scale, 3)), " x sigma (as rstanarm for the gaussian family)\n", sep = "")
  }
  if (!isTRUE(p$specified$autoscale)) return(invisible())
  if (inherits(p$adjusted, "vhmc_covariance_prior")) {
    cat("  adjusted:  ", format(p$adjusted), "\n", sep = "")
    return(invisible())
  }
  varying <- Filter(function(v) length(unique(v)) > 1L, p$adjusted[c("location", "scale", "df")])
  if (per_coefficient && length(varying)) {
    cat("  adjusted:  ", p$adjusted$dist, "() with, per coefficient:\n", sep = "")
    tab <- as.data.frame(lapply(p$adjusted[intersect(c("df", "location", "scale"),
                                                      names(Filter(Negate(is.null), p$adjusted)))],
                                function(v) signif(v, 3)), row.names = slopes)
    print(tab)
  } else {
    cat("  adjusted:  ", format(collapse_prior(p$adjusted)), "\n", sep = "")
  }
}

# One value instead of a vector of equal values, for printing.
collapse_prior <- function(prior) {
  for (f in c("location", "scale", "df")) {
    if (length(prior[[f]]) > 1L && length(unique(prior[[f]])) == 1L) prior[[f]] <- prior[[f]][1]
  }
  prior
}
