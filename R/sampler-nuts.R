#' No-U-Turn sampler
#'
#' Configures Stan's multinomial No-U-Turn sampler (Hoffman and Gelman 2014; Betancourt
#' 2017): trajectories double in random directions until the generalised U-turn criterion
#' fires or `max_treedepth` doublings are reached. During warmup the step size is tuned by
#' dual averaging toward `adapt_delta` and the metric (inverse mass matrix) is adapted.
#'
#' @section Warmup:
#' With `adaptation = "fisher"` (the default) the metric is estimated as nutpie does
#' (Seyboldt, Carlson and Carpenter 2026): from the draws *and* the gradients of the log
#' density in a recent window of the chain, \eqn{\sigma_i^2 = \sqrt{var(\theta_i) /
#' var(g_i)}}{sigma_i^2 = sqrt(var(theta_i) / var(g_i))} for the diagonal, which is exact for
#' any Gaussian with independent coordinates after a few draws; it is re-estimated during
#' warmup (after every iteration for `"diag"`, every 10 for `"dense"` and for `"low_rank"`
#' up to 100 parameters, then every \eqn{d^2/1000}{d^2/1000} iterations, since its
#' eigendecompositions grow as \eqn{d^3}{d^3}; in between, a low-rank metric that kept no
#' direction takes the window's diagonal after every iteration, as `"diag"` does)
#' rather than only at the end of Stan's doubling windows. The low-rank directions are
#' sought only in the leading \eqn{n/2}{n/2} directions spanned by a window's \eqn{n}{n}
#' draws and gradients: in more, few draws in many dimensions (a model of thousands of
#' group levels) show correlations that are not there. Windows switch every 10 draws at
#' first, then grow from 50 by a factor 1.5, so the metric always rests on the most recent
#' one to two windows; the last 15% of warmup tunes only the step size.
#' `adaptation = "stan"` is Stan's windowed warmup (variances of the draws only, windows of
#' 75/25.../50 iterations), vhmc's warmup before version 0.3.0.
#'
#' With `warmup = NULL` (the default of [vhmc_glm()], [vhmc_ardl()] and [vhmc_sample()])
#' the draw/gradient warmup ends as soon as adaptation has converged: at a window switch the
#' new metric differs from the previous one by less than 20% (root mean square of the log
#' ratios of their diagonals; for `"dense"`, of the eigenvalues of the previous metric's
#' inverse times the new one, so that correlations must have settled too) and the mean log
#' density of the last window agrees with the one before it. A final window of max(50, 15%
#' of the warmup so far) iterations then tunes the step size. It takes at most
#' `floor(iter / 2)` iterations; the number of draws kept is always `iter - floor(iter / 2)`,
#' as with a full warmup. `fit$timing$warmup_iterations` says how many each chain took. A
#' warmup given as a number is run in full.
#'
#' Metrics: `"low_rank"` (the default: per-parameter scales and a correction
#' along the at most 10 directions in which the posterior's correlation matrix differs most
#' from the identity, eigenvalues outside (1/2, 2), estimated from the draws and gradients
#' as the covariance minimising the Fisher divergence; two d x 10 products per leapfrog
#' step; without strong correlations it is the diagonal), `"diag"` (per-parameter scales
#' only), `"dense"` (a full covariance, d x d per step) or `"unit"` (no metric adaptation).
#' The default is `"low_rank"` because it costs little more than `"diag"` per step and
#' removes the long trajectories that correlated parameters (collinear predictors, an
#' uncentred covariate's slope and intercept) force on a diagonal metric; measured on a
#' logistic regression with a collinear pair (N = 5000, 21 coefficients, 4 chains) it gave
#' 0.26 bulk effective draws per gradient against 0.0023 with `"diag"` and 0.0081 with Stan's
#' warmup (inst/bench/warmup.R has the full comparison).
#'
#' @section Stiff rows of a logistic or probit GLM:
#' A rare category that (nearly) separates the responses of a binomial GLM (a factor level
#' whose few rows are all failures, a singleton dummy) puts a wall on one side of its
#' coefficient that curves thousands of times more sharply than the rest of the posterior,
#' and every leapfrog step would have to be small enough to cross it: on the full a9a
#' design (32,402 rows, 118 coefficients) the step size fell to 0.016 and trees grew to
#' 255 steps. When [vhmc_glm()] starts from the mode (the default), `nuts()` and [hmc()]
#' therefore find the rows whose curvature can exceed 10 times the posterior's at the mode
#' (at most 256) and integrate their likelihood by as many smaller inner steps as its
#' stiffest wall needs within each leapfrog step (the split leapfrog of split HMC, Shahbaba
#' et al. 2014). The composed step is symplectic and reversible, so the sampler stays
#' exact, and the inner steps cost a few numbers per stiff row, not a pass over the data. On
#' a9a the step size became 0.42 with trees of 7-15 steps, and 2 chains finished in under
#' two minutes (more than 21 minutes before). `fit$adaptation[[chain]]$stiff_rows` and
#' `$inner_steps` say when it was used. Families whose curvature has no bound (poisson,
#' negative binomial, Gamma) and multilevel models are integrated as before.
#'
#' @param adapt_delta Target mean acceptance statistic for step-size adaptation, in (0, 1).
#'   Raise it (e.g. 0.95) to remove divergences caused by a too large step size.
#' @param max_treedepth Maximum number of trajectory doublings (at most 2^max_treedepth - 1
#'   leapfrog steps per iteration).
#' @param metric `"low_rank"` (default; `"diag"` with `adaptation = "stan"`), `"diag"`,
#'   `"dense"` or `"unit"`; see the Warmup section.
#' @param adaptation `"fisher"` (default; nutpie's draw/gradient adaptation, which can end
#'   warmup early) or `"stan"` (Stan's windowed adaptation); see the Warmup section.
#' @return An object of class `c("vhmc_nuts", "vhmc_sampler")`, to pass as `sampler`.
#' @seealso [hmc()], [vhmc_sample()]
#' @examples
#' nuts()
#' nuts(adapt_delta = 0.95, metric = "dense")
#' nuts(metric = "low_rank")
#' nuts(adaptation = "stan")  # Stan's warmup
#' @references Seyboldt, A., Carlson, E. and Carpenter, B. (2026). Preconditioning Hamiltonian
#'   Monte Carlo by minimizing Fisher divergence. arXiv:2603.18845.
#'
#'   Shahbaba, B., Lan, S., Johnson, W. O. and Neal, R. M. (2014). Split Hamiltonian Monte
#'   Carlo. Statistics and Computing, 24, 339-349.
#' @export
nuts <- function(adapt_delta = 0.8, max_treedepth = 10, metric = c("low_rank", "diag", "dense", "unit"),
                 adaptation = c("fisher", "stan")) {
  w <- match_warmup(adaptation, metric, !missing(metric))
  new_sampler("nuts",
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    max_treedepth = check_count(max_treedepth, "max_treedepth", 1),
    metric = w$metric, adaptation = w$adaptation
  )
}

sampler_config.vhmc_nuts <- function(sampler, run, target) {
  do.call(core_config, c(list(sampler), hmc_warmup_config(sampler, run),
                         list(metric = sampler$metric, max_treedepth = sampler$max_treedepth)))
}

sampler_label.vhmc_nuts <- function(sampler) metric_label("NUTS", sampler)

auto_warmup.vhmc_nuts <- function(sampler) sampler$adaptation == "fisher"

divergence_fix.vhmc_nuts <- function(sampler) {
  "increase adapt_delta, e.g. nuts(adapt_delta = 0.95), or reparameterise the model (e.g. a non-centred parameterisation)"
}
