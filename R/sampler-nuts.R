#' No-U-Turn sampler
#'
#' Configures Stan's multinomial No-U-Turn sampler (Hoffman and Gelman 2014; Betancourt
#' 2017): trajectories double in random directions until the generalised U-turn criterion
#' fires or `max_treedepth` doublings are reached. During warmup the step size is tuned by
#' dual averaging toward `adapt_delta` and the metric (inverse mass matrix) is estimated in
#' Stan's expanding windows.
#'
#' @param adapt_delta Target mean acceptance statistic for step-size adaptation, in (0, 1).
#'   Raise it (e.g. 0.95) to remove divergences caused by a too large step size.
#' @param max_treedepth Maximum number of trajectory doublings (at most 2^max_treedepth - 1
#'   leapfrog steps per iteration).
#' @param metric `"diag"` (default; per-parameter scales), `"dense"` (full covariance,
#'   for strongly correlated posteriors) or `"unit"` (no metric adaptation).
#' @return An object of class `c("vhmc_nuts", "vhmc_sampler")`, to pass as `sampler`.
#' @seealso [hmc()], [vhmc_sample()]
#' @examples
#' nuts()
#' nuts(adapt_delta = 0.95, metric = "dense")
#' @export
nuts <- function(adapt_delta = 0.8, max_treedepth = 10, metric = c("diag", "dense", "unit")) {
  new_sampler("nuts",
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    max_treedepth = check_count(max_treedepth, "max_treedepth", 1),
    metric = match_metric(metric)
  )
}

sampler_config.vhmc_nuts <- function(sampler, run, target) {
  do.call(core_config, c(list(sampler), hmc_warmup_config(sampler, run),
                         list(metric = sampler$metric, max_treedepth = sampler$max_treedepth)))
}

sampler_label.vhmc_nuts <- function(sampler) metric_label("NUTS", sampler)

divergence_fix.vhmc_nuts <- function(sampler) {
  "increase adapt_delta, e.g. nuts(adapt_delta = 0.95), or reparameterise the model (e.g. a non-centred parameterisation)"
}
