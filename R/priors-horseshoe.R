# The horseshoe priors of the coefficients (rstanarm's hs() and hs_plus()): constructors,
# their checks against the model, and the list the core reads
# (inst/include/vhmc/model/glm/horseshoe.hpp).

#' Horseshoe priors for the coefficients
#'
#' The regularised horseshoe (`hs()`, Piironen and Vehtari 2017) and the regularised
#' horseshoe+ (`hs_plus()`, Bhadra et al. 2017), shrinkage priors for sparse regression:
#' most coefficients are pulled hard towards zero while a few large ones escape. Give them
#' as `prior =` of [vhmc_glm()]; the arguments and their defaults are rstanarm's `hs()` and
#' `hs_plus()`.
#'
#' The model is rstanarm's: each coefficient is \eqn{\beta_j = z_j \tilde\lambda_j \tau}{beta_j
#' = z_j lambda~_j tau} with \eqn{z_j \sim N(0, 1)}{z_j ~ N(0, 1)} and
#' \eqn{\tilde\lambda_j^2 = c^2 \lambda_j^2 / (c^2 + \tau^2 \lambda_j^2)}{lambda~_j^2 = c^2
#' lambda_j^2 / (c^2 + tau^2 lambda_j^2)}, where
#' * the local scales \eqn{\lambda_j}{lambda_j} are half-\eqn{t}{t} with `df` degrees of
#'   freedom (`hs_plus()`: \eqn{\lambda_j \eta_j}{lambda_j eta_j}, half-\eqn{t}{t} with `df1`
#'   and `df2`);
#' * the global scale \eqn{\tau}{tau} is `global_scale` times a half-\eqn{t}{t} with
#'   `global_df` degrees of freedom, and for the gaussian (and lognormal) family also times
#'   the residual standard deviation \eqn{\sigma}{sigma}, as rstanarm does (brms's
#'   `horseshoe(autoscale = TRUE)`); other families' is not scaled;
#' * the slab scale \eqn{c}{c} has \eqn{c^2 \sim}{c^2 ~} inverse gamma(`slab_df / 2`,
#'   `slab_df * slab_scale^2 / 2`): far from zero, a coefficient's prior is close to
#'   \eqn{N(0, c^2)}{N(0, c^2)}.
#'
#' The prior applies to the coefficients on the scale of the model matrix's columns, as in
#' rstanarm (it is not autoscaled): standardise predictors whose units differ much. Piironen
#' and Vehtari (2017, eq. 3.12) suggest `global_scale` \eqn{= p_0 / ((D - p_0) \sqrt n)}{= p0 /
#' ((D - p0) sqrt(n))} for \eqn{p_0}{p0} expected non-zero coefficients out of \eqn{D}{D}
#' (for the gaussian family, where it is multiplied by \eqn{\sigma}{sigma}; for other families
#' with a pseudo standard deviation in its place).
#'
#' The sampler moves \eqn{z}{z} and the logarithms of the scales (each with its Jacobian),
#' the non-centred form, since in the centred one \eqn{\tau}{tau} and the shrunk coefficients
#' make a funnel that Hamiltonian Monte Carlo cannot enter. The fit reports the coefficients
#' \eqn{\beta}{beta} under their usual names (so `coef()`, `predict()`,
#' [posterior_epred()] and the rest see \eqn{\beta}{beta}) and the scales as `hs_lambda[x]`
#' (one per coefficient; `hs_plus()` also `hs_eta[x]`), `hs_tau` (\eqn{\tau}{tau}, including
#' `global_scale` and \eqn{\sigma}{sigma}) and `hs_c`. Such a posterior has no mode in
#' \eqn{\beta}{beta} (its density grows without bound as \eqn{\tau}{tau} shrinks with the
#' coefficients), so the chains start near the mode of the non-centred posterior, found by
#' L-BFGS, as for multilevel models; the samplers that start from a mode and its curvature
#' ([variational_hmc()], [surrogate_hmc()]), need a Fisher metric ([rmhmc()]) or minibatch
#' gradients ([sghmc()], [sgld()]) are refused: use [nuts()] (default), [hmc()] or [rwm()].
#' Formulas with group-level terms do not take a horseshoe prior.
#'
#' Divergent transitions are common with horseshoe priors: where a shrunk coefficient's local
#' scale is large, the likelihood pins \eqn{\beta_j}{beta_j} and \eqn{z_j}{z_j} falls into a
#' funnel. Raise `adapt_delta` in [nuts()]; rstanarm's default for these priors is 0.99. On a
#' regression with 60 rows and 10 predictors (2 non-zero), `hs()` gave 50-180 divergent
#' transitions of 4000 at nuts()'s default 0.8 (the posterior still matched a long Stan run),
#' and 0-12 at 0.99.
#'
#' **In brms**, `hs(df, global_df, global_scale, slab_df, slab_scale)` is
#' `set_prior(horseshoe(df = df, scale_global = global_scale, df_global = global_df,
#' scale_slab = slab_scale, df_slab = slab_df), class = "b")` (brms's own defaults differ:
#' `scale_global = 1`, `scale_slab = 2`), whose `autoscale = TRUE` multiplies the global scale
#' by sigma as here for the gaussian family (brms also does so for other families with a
#' sigma, such as Student's t); brms's `par_ratio` \eqn{= p_0 / (D - p_0)}{= p0 / (D - p0)}
#' is `global_scale = par_ratio / sqrt(n)` here.
#'
#' @param df,df1 Degrees of freedom of the half-\eqn{t}{t} local scales (`df = 1`: the
#'   half-Cauchy of the horseshoe).
#' @param df2 Degrees of freedom of `hs_plus()`'s second local scale.
#' @param global_df Degrees of freedom of the half-\eqn{t}{t} global scale.
#' @param global_scale Scale of the global scale (times sigma for the gaussian family).
#' @param slab_df Degrees of freedom of the slab.
#' @param slab_scale Scale of the slab, on the coefficients' scale.
#' @return An object of class `vhmc_prior`.
#' @references Piironen, J. and Vehtari, A. (2017). Sparsity information and regularization in
#'   the horseshoe and other shrinkage priors. *Electronic Journal of Statistics* 11,
#'   5018-5051.
#'
#'   Bhadra, A., Datta, J., Polson, N. G. and Willard, B. (2017). The horseshoe+ estimator of
#'   ultra-sparse signals. *Bayesian Analysis* 12, 1105-1131.
#' @seealso [priors], [vhmc_glm()], [prior_summary()]
#' @examples
#' hs()
#' hs_plus(global_scale = 0.05)
#' \donttest{
#' set.seed(1)
#' d <- as.data.frame(matrix(rnorm(60 * 10), 60, 10))
#' d$y <- 2 * d$V1 - 1.5 * d$V2 + rnorm(60)
#' # p0 = 2 of D = 10 non-zero: global_scale = 2 / (8 * sqrt(60))
#' fit <- vhmc_glm(y ~ ., data = d, prior = hs(global_scale = 0.03),
#'                 sampler = nuts(adapt_delta = 0.99), seed = 1, progress = FALSE)
#' coef(fit)
#' prior_summary(fit)
#' }
#' @name horseshoe
NULL

#' @rdname horseshoe
#' @export
hs <- function(df = 1, global_df = 1, global_scale = 0.01, slab_df = 4, slab_scale = 2.5) {
  new_horseshoe("hs", list(df = df, global_df = global_df, global_scale = global_scale,
                           slab_df = slab_df, slab_scale = slab_scale))
}

#' @rdname horseshoe
#' @export
hs_plus <- function(df1 = 1, df2 = 1, global_df = 1, global_scale = 0.01, slab_df = 4, slab_scale = 2.5) {
  new_horseshoe("hs_plus", list(df1 = df1, df2 = df2, global_df = global_df, global_scale = global_scale,
                                slab_df = slab_df, slab_scale = slab_scale))
}

# Every argument a single positive finite number.
new_horseshoe <- function(dist, args) {
  for (nm in names(args)) {
    x <- args[[nm]]
    if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0) {
      stop_arg(nm, sprintf("of %s() must be a single positive finite number, not %s", dist, describe(x)))
    }
  }
  structure(c(list(dist = dist), lapply(args, as.numeric), list(autoscale = FALSE)), class = "vhmc_prior")
}

horseshoe_dists <- c("hs", "hs_plus")

is_horseshoe <- function(prior) is_prior(prior) && prior$dist %in% horseshoe_dists

# The arguments as printed: hs(df = 1, global_df = 1, ...).
horseshoe_args <- function(prior, num) {
  args <- setdiff(names(prior), c("dist", "autoscale", "relative_to_sigma"))
  paste0(args, " = ", vapply(args, function(a) num(prior[[a]]), ""), collapse = ", ")
}

# The prior of the coefficients as used: a horseshoe's global scale relative to sigma where
# the family's covariance priors are (R/family-registry.R, relative_to_sigma: rstanarm's
# gaussian rule). Refused with group-level terms and with smooths.
resolve_horseshoe <- function(prior, family, model) {
  what <- if (!is.null(model$glmer)) "group-level terms" else if (has_penalised(model)) "smooth terms"
  if (!is.null(what)) {
    stop_arg("prior", sprintf("is %s, which is not available for a formula with %s", format(prior), what),
             sprintf("Use normal(), student_t(), cauchy() or laplace() for the coefficients, or drop the %s.", what))
  }
  prior$relative_to_sigma <- isTRUE(family$entry$relative_to_sigma)
  prior
}

# The list the core reads (src/glue_glm.cpp, horseshoe_spec()): df2 = 0 for hs().
horseshoe_for_core <- function(prior) {
  plus <- prior$dist == "hs_plus"
  list(dist = "horseshoe", df = if (plus) prior$df1 else prior$df, df2 = if (plus) prior$df2 else 0,
       global_df = prior$global_df, global_scale = prior$global_scale, slab_df = prior$slab_df,
       slab_scale = prior$slab_scale, relative_to_sigma = isTRUE(prior$relative_to_sigma))
}

