#' Static Hamiltonian Monte Carlo
#'
#' Configures static HMC (Neal 2011, Algorithm 1 of Zhang, Shahbaba and Zhao 2018): each
#' iteration draws a momentum, takes a number of leapfrog steps drawn uniformly from
#' `1..steps` (jitter) and accepts or rejects with the Metropolis rule on the true
#' Hamiltonian. With `steps = 1` and `jitter = FALSE` this is MALA.
#'
#' @param steps Maximum number of leapfrog steps per iteration. `NULL` (default) chooses it
#'   from the step size so that the mean integration time is pi/2 in the adapted metric
#'   (steps = ceiling(pi / step size)).
#' @param step_size Leapfrog step size. `NULL` (default) adapts it during warmup by dual
#'   averaging; a number fixes it (no step-size adaptation).
#' @param jitter Draw the number of steps uniformly in `1..steps` each iteration (default
#'   `TRUE`), which avoids periodic trajectories.
#' @inheritParams nuts
#' @inheritSection nuts Warmup
#' @return An object of class `c("vhmc_hmc", "vhmc_sampler")`.
#' @seealso [nuts()]
#' @examples
#' hmc(steps = 20)
#' hmc(steps = 1, jitter = FALSE) # MALA
#' @export
hmc <- function(steps = NULL, step_size = NULL, adapt_delta = 0.8,
                metric = c("low_rank", "diag", "dense", "unit"), jitter = TRUE,
                adaptation = c("fisher", "stan")) {
  w <- match_warmup(adaptation, metric, !missing(metric))
  new_sampler("hmc",
    steps = if (is.null(steps)) NULL else check_count(steps, "steps", 1),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    metric = w$metric,
    jitter = check_flag(jitter, "jitter"),
    adaptation = w$adaptation
  )
}

sampler_config.vhmc_hmc <- function(sampler, run, target) {
  do.call(core_config, c(list(sampler), hmc_warmup_config(sampler, run),
                         list(metric = sampler$metric, steps = sampler$steps, jitter = sampler$jitter)))
}

sampler_label.vhmc_hmc <- function(sampler) metric_label("static HMC", sampler)

auto_warmup.vhmc_hmc <- function(sampler) sampler$adaptation == "fisher"

# adapt_delta only acts through the adapted step size: with step_size fixed the fix is a
# smaller fixed step (or none, to let the warmup adapt it).
divergence_fix.vhmc_hmc <- function(sampler) {
  reparam <- "or reparameterise the model (e.g. a non-centred parameterisation)"
  if (!is.null(sampler$step_size)) {
    return(sprintf("lower the fixed step size, e.g. hmc(step_size = %s), or let the warmup adapt it (step_size = NULL), %s",
                   format(signif(sampler$step_size / 2, 3)), reparam))
  }
  paste("increase adapt_delta, e.g. hmc(adapt_delta = 0.95),", reparam)
}
