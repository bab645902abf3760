# pp_check() for GLM and ARDL fits through bayesplot (a Suggests): the method is registered
# for bayesplot's generic only, when bayesplot is loaded.

#' Posterior predictive checks
#'
#' Graphical posterior predictive checks (Gabry, Simpson, Vehtari, Betancourt and Gelman
#' 2019) of a GLM or ARDL fit (both noise models), as rstanarm's `pp_check()`: the observed
#' response against replicated data sets from [posterior_predict()], drawn by one of
#' bayesplot's `ppc_*()` functions. For binomial models the response is the number of
#' successes; for ARDL fits it is the series after the first `max(p, q)` time points, and the
#' replications are one step ahead from the observed lags.
#'
#' @param object A fit from [vhmc_glm()] or [vhmc_ardl()].
#' @param plotfun Name of a bayesplot PPC function, with or without its `ppc_` prefix
#'   (`"dens_overlay"`, `"hist"`, `"stat"`, `"intervals"`, `"bars"`, `"loo_pit_overlay"`,
#'   ...; see `bayesplot::available_ppc()`). `NULL` (default): `"bars"` for ordinal models
#'   ([cumulative()]), whose responses are categories, `"dens_overlay"` otherwise (as
#'   brms, also for censored responses, whose censored rows show their bound). For a
#'   right-censored fit `"km_overlay"` compares Kaplan-Meier curves of the data, censoring
#'   taken into account, with those of uncensored replications (its `status_y` is filled
#'   in; bayesplot needs the ggfortify package for it). The LOO plots (`"loo_*"`) get their PSIS weights from
#'   [log_lik()] (they need the loo package).
#' @param ndraws Number of replicated data sets, evenly spaced over the chains. By default
#'   50 for the overlay plots, 8 for plots with one panel per data set (`"hist"`, `"dens"`,
#'   `"boxplot"`, `"freqpoly"`, `"scatter"`, `"error_*"` with one panel per draw) and all
#'   draws for the others (statistics, intervals, LOO plots, which use every draw).
#' @param seed Optional seed for the replications; the user's random number stream is left
#'   untouched when given.
#' @param ... Passed on to the bayesplot function (e.g. `stat = "sd"` for `"stat"`, `group`
#'   for the `"_grouped"` plots, `x` for `"intervals"`).
#' @return A ggplot object.
#' @references Gabry, J., Simpson, D., Vehtari, A., Betancourt, M. and Gelman, A. (2019).
#'   Visualization in Bayesian workflow. *Journal of the Royal Statistical Society A* 182(2),
#'   389-402.
#' @examples
#' \donttest{
#' if (requireNamespace("bayesplot", quietly = TRUE)) {
#'   fit <- vhmc_glm(count ~ spray, data = InsectSprays, family = poisson(), chains = 2,
#'                   iter = 500, seed = 1, progress = FALSE)
#'   print(bayesplot::pp_check(fit, seed = 1))
#'   print(bayesplot::pp_check(fit, plotfun = "stat", stat = "sd", seed = 1))
#'   ar <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                   progress = FALSE)
#'   print(bayesplot::pp_check(ar, plotfun = "intervals", seed = 1))
#' }
#' }
#' @exportS3Method bayesplot::pp_check vhmc_fit
pp_check.vhmc_fit <- function(object, plotfun = NULL, ndraws = NULL, seed = NULL, ...) {
  y <- observed_response(object, "pp_check")
  plotfun <- plotfun %||% (if (isTRUE(object$model$family$entry$ordinal)) "bars" else "dens_overlay")
  fun_name <- ppc_function_name(plotfun)
  loo_plot <- startsWith(fun_name, "ppc_loo_")
  if (loo_plot && !is.null(ndraws)) {
    stop_arg("ndraws", sprintf("must be NULL for \"%s\", which weights every posterior draw", plotfun),
             "Leave `ndraws` out.")
  }
  default <- ppc_default_ndraws(fun_name)
  if (is.null(ndraws) && !is.null(default)) ndraws <- min(default, fit_ndraws(object))
  fun <- getExportedValue("bayesplot", fun_name)
  args <- list(y = y, yrep = posterior_predict(object, ndraws = ndraws, seed = seed), ...)
  if ("status_y" %in% names(formals(fun)) && is.null(args$status_y)) args$status_y <- km_status(object$model$cens, plotfun)
  if (loo_plot) {
    li <- loo_psis(object, sprintf("pp_check(plotfun = \"%s\")", plotfun))
    takes <- setdiff(names(formals(fun)), names(args))
    if ("lw" %in% takes) args$lw <- stats::weights(li$psis, log = TRUE)
    if ("psis_object" %in% takes) args$psis_object <- li$psis
  }
  do.call(fun, args)
}

# The Kaplan-Meier plots' event indicator: 1 observed, 0 right censored (no other kind).
km_status <- function(cens, plotfun) {
  if (is.null(cens)) return(NULL)
  if (any(cens$code %in% c(-1L, 2L))) {
    stop_arg("plotfun", sprintf("is \"%s\", a Kaplan-Meier plot, which reads right censoring only, and the fit has left- or interval-censored rows", plotfun),
             "Use \"dens_overlay\" or \"ecdf_overlay\" (the censored rows' y is their bound).")
  }
  as.integer(cens$code == 0L)
}

# "dens_overlay" or "ppc_dens_overlay" -> "ppc_dens_overlay", checked against bayesplot's list.
ppc_function_name <- function(plotfun) {
  if (!is.character(plotfun) || length(plotfun) != 1L || is.na(plotfun)) {
    stop_arg("plotfun", sprintf("must be the name of a bayesplot PPC function such as \"dens_overlay\", not %s",
                                describe(plotfun)))
  }
  name <- if (startsWith(plotfun, "ppc_")) plotfun else paste0("ppc_", plotfun)
  known <- as.character(bayesplot::available_ppc())
  if (!name %in% known) {
    stop_arg("plotfun", sprintf("is \"%s\", which is not a bayesplot PPC function", plotfun),
             sprintf("Use one of %s.", paste0("\"", sub("^ppc_", "", known), "\"", collapse = ", ")))
  }
  name
}

# rstanarm's defaults: a few data sets for one-panel-per-draw plots, 50 for overlays, all
# draws for plots that summarise over the draws.
ppc_default_ndraws <- function(fun_name) {
  base <- sub("_grouped$", "", sub("^ppc_", "", fun_name))
  if (base %in% c("hist", "dens", "freqpoly", "boxplot", "scatter", "error_hist", "error_scatter",
                  "error_binned")) {
    return(8L)
  }
  if (grepl("_overlay$", base) && !startsWith(base, "loo_")) return(50L)
  NULL
}
