# Methods of ARDL fits that do not need forecasting: coefficients, priors, the exact
# posterior of the fixed-precision model.

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
  list(family = resolve_family(stats::gaussian()), aux = list(sigma = 1 / sqrt(a$noise_precision)),
       design = list(x = a$Z, offset = NULL, y = a$y, trials = NULL, weights = NULL,
                     prior_weights = NULL, matrix = FALSE))
}

# The model formula as the user gave it, so that update(fit, . ~ . + x) works.
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
  text <- paste0(sprintf("Coefficients (%d)\n  normal(location = 0, scale = %s) each (prior precision %s)\n",
                         ncol(a$Z), format(1 / sqrt(a$prior_precision)), format(a$prior_precision)),
                 sprintf("Noise\n  fixed precision %s (sd %s)", format(a$noise_precision),
                         format(1 / sqrt(a$noise_precision))))
  structure(list(prior_precision = a$prior_precision, noise_precision = a$noise_precision), text = text,
            class = "vhmc_prior_summary")
}

#' Exact posterior of a conjugate model
#'
#' For an ARDL fit with a fixed noise precision (`vhmc_ardl(..., noise_precision = alpha)`)
#' the posterior of the coefficients is Gaussian (the Proposition of Asaad 2017):
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
