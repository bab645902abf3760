#' Adaptive random-walk Metropolis
#'
#' Configures random-walk Metropolis with Gaussian proposals, the sampler MCMCpack users know
#' (`MCMCmetrop1R()`), with the proposal learned during warmup instead of tuned by hand:
#' the proposal covariance is the covariance of the chain's own states (adaptive Metropolis,
#' Haario, Saksman and Tamminen 2001) and a global scale is adapted by stochastic
#' approximation toward an acceptance rate of 0.234 (Andrieu and Thoms 2008), the optimum
#' for random-walk proposals in high dimension (Roberts, Gelman and Gilks 1997). Both are
#' frozen after warmup, so the draws are exact (plain Metropolis). No gradient is evaluated:
#' each iteration costs one log density, which suits targets whose gradient is unavailable
#' or expensive; mixing slows as the dimension grows (about `d` iterations per effective
#' draw, against a few per effective draw for [nuts()]).
#'
#' The proposal covariance starts at the covariance of the Laplace approximation when the
#' chains start from the posterior mode (`init = NULL`, see [vhmc_sample()]), else at the
#' identity. From 20% to 80% of warmup it is re-estimated every 25 iterations from the
#' states since 20%, once they include at least `max(10, d + 1)` accepted proposals, and
#' shrunk toward the covariance in force as toward a prior worth 5 states, so that it stays
#' positive definite even when few proposals were accepted; the last 20% of warmup adapt the
#' scale alone. `fit$rwm` has each chain's `covariance_updates` and accepted proposals
#' (`moves_warmup`, `moves_sampling`). A chain that accepted fewer than 1% of its proposals
#' after warmup has not sampled: the fit then warns with a condition of class
#' `"vhmc_rwm_stuck"`, naming the chains.
#'
#' @param target_accept Acceptance rate the proposal scale is adapted toward, in (0, 1).
#' @param scale Fixed global proposal scale (the proposal sd is `scale` times the adapted
#'   covariance's factor); `NULL` (default) adapts it, starting from `2.38 / sqrt(d)`.
#' @param adapt_covariance Learn the proposal covariance from the warmup states (default);
#'   `FALSE` keeps the identity.
#' @return An object of class `c("vhmc_rwm", "vhmc_sampler")`.
#' @references Haario, H., Saksman, E. and Tamminen, J. (2001). An adaptive Metropolis
#'   algorithm. *Bernoulli* 7, 223-242. Andrieu, C. and Thoms, J. (2008). A tutorial on
#'   adaptive MCMC. *Statistics and Computing* 18, 343-373.
#' @seealso [nuts()], which is far more efficient when a gradient is available.
#' @examples
#' rwm()
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0), sampler = rwm(),
#'                    chains = 2, iter = 4000, seed = 1, progress = FALSE)
#' fit
#' }
#' @export
rwm <- function(target_accept = 0.234, scale = NULL, adapt_covariance = TRUE) {
  new_sampler("rwm",
    target_accept = check_number(target_accept, "target_accept", 0, 1, open = c(TRUE, TRUE)),
    scale = if (is.null(scale)) NULL else check_number(scale, "scale", 0, Inf, open = c(TRUE, TRUE)),
    adapt_covariance = check_flag(adapt_covariance, "adapt_covariance")
  )
}

sampler_config.vhmc_rwm <- function(sampler, run, target) {
  core_config(sampler, target_accept = sampler$target_accept, scale = sampler$scale,
              adapt_covariance = sampler$adapt_covariance && run$warmup > 0)
}

sampler_label.vhmc_rwm <- function(sampler) "random-walk Metropolis (adaptive)"

uses_gradient.vhmc_rwm <- function(sampler) FALSE

divergence_fix.vhmc_rwm <- function(sampler) "not applicable"
# Measured: on the crossed binomial model of the SBC (45 parameters) its smallest bulk ESS was
# 1.3-33 after 64,000 iterations (inst/validation/sbc-multilevel.R).
multilevel_hint.vhmc_rwm <- function(sampler) {
  "; a random walk does not mix on a multilevel posterior of more than a few parameters: use nuts()"
}

add_report.vhmc_rwm <- function(sampler, fit, results, target) {
  fit$rwm <- lapply(results, `[[`, "report")
  fit
}

check_report.vhmc_rwm <- function(sampler, fit) check_rwm_moves(fit)

# A chain that accepted (almost) no proposal after warmup has not sampled: its draws are a
# few points, whatever R-hat says. Warned as a "vhmc_rwm_stuck" condition, naming the chains.
check_rwm_moves <- function(fit, min_rate = 0.01) {
  n <- fit$args$iter - fit$args$warmup
  moves <- report_column(fit$rwm, "moves_sampling")
  stuck <- stuck_chains(fit$rwm, n, min_rate)
  if (length(stuck) == 0L) return(invisible())
  fix <- if (is.null(fit$sampler$scale)) {
    paste("run a longer warmup, start from the posterior mode (init = NULL), or use nuts() if the",
          "log density has a gradient")
  } else {
    "leave the scale to the warmup adaptation (rwm(scale = NULL))"
  }
  msg <- sprintf(paste(
    "rwm: chain%s %s accepted %s of %d proposals after warmup: the proposal (scale %s, covariance",
    "in fit$adaptation) does not fit the posterior, so the draws are a few points, not a sample.",
    "To fix: %s; see fit$rwm."), if (length(stuck) > 1L) "s" else "", paste(stuck, collapse = ", "),
    paste(moves[stuck], collapse = ", "), n,
    paste(format(signif(vapply(fit$adaptation[stuck], `[[`, numeric(1), "step_size"), 3)), collapse = ", "),
    fix)
  warning(structure(class = c("vhmc_rwm_stuck", "warning", "condition"), list(message = msg, call = NULL)))
  invisible()
}
