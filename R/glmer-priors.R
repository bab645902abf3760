# Priors on the covariance of group-level terms: rstanarm's decov() and lkj() (Gabry and
# Goodrich 2020, "Prior distributions for rstanarm models"), with rstanarm's arguments and
# defaults. The core evaluates them (inst/include/vhmc/model/glm/covariance.hpp).

#' Priors on the covariance of group-level terms
#'
#' `decov()` (the default of [vhmc_glm()] for models with group-level terms) decomposes each
#' term's covariance matrix \eqn{\Sigma} as rstanarm does: its trace is \eqn{p s^2} (p the
#' number of varying effects of the term), with \eqn{s / \code{scale}} Gamma(`shape`, 1); the
#' variances are the trace times a simplex with a Dirichlet(`concentration`) prior; the
#' correlation matrix has an LKJ(`regularization`) prior. For the gaussian family
#' \eqn{\Sigma} is relative to \eqn{\sigma^2}, as in rstanarm. With one varying effect the
#' prior is just that of its standard deviation, \eqn{s} (times \eqn{\sigma} for gaussian).
#'
#' `lkj()` gives each standard deviation a half Student t prior with `df` degrees of freedom
#' and scale `scale` (with `autoscale = TRUE` multiplied by `sd(y)` for the gaussian family)
#' and the correlation matrix an LKJ(`regularization`) prior.
#'
#' `regularization = 1` is uniform over correlation matrices; larger values favour the
#' identity.
#'
#' @param regularization Positive LKJ shape of the correlation matrix.
#' @param concentration Positive Dirichlet concentration of the variances' shares (decov).
#' @param shape,scale Positive shape and scale of the Gamma prior on the scale of the trace
#'   (decov), or scale of the half-t priors on the standard deviations (lkj).
#' @param df Positive degrees of freedom of the half-t priors (lkj).
#' @param autoscale Scale the half-t priors by `sd(y)` for the gaussian family (lkj).
#' @return An object of class `vhmc_covariance_prior`.
#' @references Lewandowski, D., Kurowicka, D. and Joe, H. (2009). Generating random
#'   correlation matrices based on vines and extended onion method. *Journal of Multivariate
#'   Analysis* 100, 1989-2001.
#' @seealso [vhmc_glm()], [prior_summary()]
#' @examples
#' decov()
#' lkj(regularization = 2, scale = 2.5)
#' @name covariance_priors
NULL

#' @rdname covariance_priors
#' @export
decov <- function(regularization = 1, concentration = 1, shape = 1, scale = 1) {
  new_covariance_prior("decov", regularization = regularization, concentration = concentration,
                       shape = shape, scale = scale, df = 1, autoscale = FALSE)
}

#' @rdname covariance_priors
#' @export
lkj <- function(regularization = 1, scale = 10, df = 1, autoscale = TRUE) {
  new_covariance_prior("lkj", regularization = regularization, concentration = 1, shape = 1,
                       scale = scale, df = df, autoscale = check_flag(autoscale, "autoscale"))
}

new_covariance_prior <- function(kind, ...) {
  args <- list(...)
  for (a in setdiff(names(args), "autoscale")) {
    check_number(args[[a]], a, 0, Inf, open = c(TRUE, TRUE))
  }
  structure(c(list(kind = kind), args), class = "vhmc_covariance_prior")
}

#' @export
format.vhmc_covariance_prior <- function(x, ...) {
  if (x$kind == "decov") {
    sprintf("decov(regularization = %s, concentration = %s, shape = %s, scale = %s)",
            format(x$regularization), format(x$concentration), format(x$shape), format(x$scale))
  } else {
    sprintf("lkj(regularization = %s, scale = %s, df = %s%s)", format(x$regularization),
            format(signif(x$scale, 3)), format(x$df), if (isTRUE(x$autoscale)) ", autoscale = TRUE" else "")
  }
}

#' @export
print.vhmc_covariance_prior <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

# The prior as used: lkj's scale autoscaled by sd(y) for the gaussian family; then carried
# into the core's units (the standardised gaussian response: scales divided by its scale).
# decov() is relative to sigma where the family says so and sigma is one value (`relative`:
# with distributional formulas, as brms, it is not; its scale is then in units of sd(y)).
resolve_covariance_prior <- function(prior, family, scale_y, relative = TRUE) {
  if (!inherits(prior, "vhmc_covariance_prior")) {
    stop_arg("prior_covariance", sprintf("must be decov() or lkj(), not %s", describe(prior)))
  }
  if (prior$kind == "lkj" && isTRUE(prior$autoscale)) prior$scale <- prior$scale * scale_y
  prior$autoscale <- FALSE
  prior$relative_to_sigma <- relative && prior$kind == "decov" && family$entry$relative_to_sigma
  prior
}

covariance_prior_for_core <- function(prior, y_scale) {
  list(kind = prior$kind, regularization = prior$regularization, concentration = prior$concentration,
       shape = prior$shape, scale = if (prior$kind == "lkj") prior$scale / y_scale else prior$scale,
       df = prior$df, relative_to_sigma = isTRUE(prior$relative_to_sigma))
}
