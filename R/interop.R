# Methods for the generics of bayesplot and loo, registered only when those packages are
# loaded (both are Suggests), so that their functions take a vhmc fit directly.

#' bayesplot and loo methods for vhmc fits
#'
#' `nuts_params()` returns the sampler diagnostics in the long format bayesplot's NUTS plots
#' expect (`mcmc_nuts_energy()`, `mcmc_nuts_divergence()`, the `np` argument of
#' `mcmc_trace()` and `mcmc_pairs()`). `loo()` computes PSIS leave-one-out cross-validation
#' from [log_lik()], with relative efficiencies from the chains.
#'
#' @param object,x A fit from [vhmc_sample()] or [vhmc_glm()] (`loo()`: from [vhmc_glm()]).
#' @param pars Unused (bayesplot's generic has it).
#' @param cores Cores used by loo.
#' @param ... Passed on to `loo::loo()`; unused by `nuts_params()`.
#' @return `nuts_params()`: a data frame with columns `Chain`, `Iteration`, `Parameter`
#'   (a factor) and `Value`. `loo()`: a `psis_loo` object.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' if (requireNamespace("bayesplot", quietly = TRUE)) {
#'   np <- bayesplot::nuts_params(fit)
#'   bayesplot::mcmc_nuts_energy(np)
#' }
#' if (requireNamespace("loo", quietly = TRUE)) loo::loo(fit)
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

#' @rdname vhmc-interop
#' @exportS3Method loo::loo
loo.vhmc_glm <- function(x, ..., cores = getOption("mc.cores", 1)) {
  ll <- log_lik(x)
  chain_id <- rep(seq_len(fit_nchains(x)), each = fit_niterations(x))
  r_eff <- loo::relative_eff(exp(ll), chain_id = chain_id, cores = cores)
  loo::loo(ll, r_eff = r_eff, cores = cores, ...)
}
