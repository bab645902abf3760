# Methods for the generics of bayesplot, registered only when it is loaded (a Suggests), so
# that its functions take a vhmc fit directly. The loo methods are in interop-loo.R, pp_check()
# in interop-ppc.R.

#' bayesplot's NUTS diagnostics for vhmc fits
#'
#' `nuts_params()` returns the sampler diagnostics in the long format bayesplot's NUTS plots
#' expect (`mcmc_nuts_energy()`, `mcmc_nuts_divergence()`, the `np` argument of
#' `mcmc_trace()` and `mcmc_pairs()`). For posterior predictive checks see
#' [pp_check()][pp_check.vhmc_fit], for PSIS-LOO [loo()][loo.vhmc_fit].
#'
#' @param object A fit from [vhmc_sample()], [vhmc_glm()] or [vhmc_ardl()] with the NUTS
#'   sampler.
#' @param pars Unused (bayesplot's generic has it).
#' @param ... Unused.
#' @return A data frame with columns `Chain`, `Iteration`, `Parameter` (a factor) and
#'   `Value`.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' if (requireNamespace("bayesplot", quietly = TRUE)) {
#'   np <- bayesplot::nuts_params(fit)
#'   bayesplot::mcmc_nuts_energy(np)
#' }
#' }
#' @name vhmc-interop
#' @exportS3Method bayesplot::nuts_params
nuts_params.vhmc_fit <- function(object, pars = NULL, ...) {
  sd <- sampler_diagnostics(object)
  cols <- intersect(sampler_diagnostic_columns, names(sd))
  if (!"treedepth__" %in% cols) {
    stop("nuts_params() needs a NUTS fit; this fit used ", sampler_label(object$sampler), ".",
         call. = FALSE)
  }
  data.frame(
    Chain = rep(sd$.chain, length(cols)),
    Iteration = rep(sd$.iteration, length(cols)),
    Parameter = factor(rep(cols, each = nrow(sd)), levels = cols),
    Value = unlist(sd[cols], use.names = FALSE)
  )
}
