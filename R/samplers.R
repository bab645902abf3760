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
    metric = match_metric(metric),
    step_size = NULL,
    init_accept = 0.8
  )
}

#' Static Hamiltonian Monte Carlo
#'
#' Configures static HMC (Neal 2011; seed Algorithm 1): each iteration draws a momentum,
#' takes a number of leapfrog steps drawn uniformly from `1..steps` (jitter) and accepts or
#' rejects with the Metropolis rule on the true Hamiltonian. With `steps = 1` and
#' `jitter = FALSE` this is MALA.
#'
#' @param steps Maximum number of leapfrog steps per iteration. `NULL` (default) chooses it
#'   from the step size so that the mean integration time is pi/2 in the adapted metric
#'   (steps = ceiling(pi / step size)).
#' @param step_size Leapfrog step size. `NULL` (default) adapts it during warmup by dual
#'   averaging; a number fixes it (no step-size adaptation).
#' @param jitter Draw the number of steps uniformly in `1..steps` each iteration (default
#'   `TRUE`), which avoids periodic trajectories.
#' @inheritParams nuts
#' @return An object of class `c("vhmc_hmc", "vhmc_sampler")`.
#' @seealso [nuts()]
#' @examples
#' hmc(steps = 20)
#' hmc(steps = 1, jitter = FALSE) # MALA
#' @export
hmc <- function(steps = NULL, step_size = NULL, adapt_delta = 0.8,
                metric = c("diag", "dense", "unit"), jitter = TRUE) {
  new_sampler("hmc",
    steps = if (is.null(steps)) NULL else check_count(steps, "steps", 1),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    metric = match_metric(metric),
    jitter = check_flag(jitter, "jitter"),
    init_accept = 0.8
  )
}

match_metric <- function(metric) {
  choices <- c("diag", "dense", "unit")
  if (identical(metric, choices)) return("diag")
  if (!is.character(metric) || length(metric) != 1L || !metric %in% choices) {
    stop_arg("metric", sprintf("must be one of \"diag\", \"dense\" or \"unit\", not %s",
                               describe(metric)))
  }
  metric
}

new_sampler <- function(name, ...) {
  structure(list(name = name, ...), class = c(paste0("vhmc_", name), "vhmc_sampler"))
}

is_sampler <- function(x) inherits(x, "vhmc_sampler")

#' @export
print.vhmc_sampler <- function(x, ...) {
  hidden <- c("name", "init_accept", if (identical(x$name, "surrogate_hmc")) "step_size")
  fields <- x[setdiff(names(x), hidden)]
  shown <- vapply(fields, function(v) if (is.null(v)) "auto" else format(v), character(1))
  cat(sprintf("<vhmc sampler: %s>\n", x$name))
  cat(sprintf("  %-14s %s\n", names(shown), shown), sep = "")
  invisible(x)
}
