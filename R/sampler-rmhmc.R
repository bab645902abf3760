#' Riemannian-manifold Hamiltonian Monte Carlo
#'
#' Configures Riemannian-manifold HMC (Girolami and Calderhead 2011) with the Fisher
#' information as its position-dependent metric: for a GLM,
#' \eqn{G(\theta) = Z' \Lambda(\theta) Z + P}{G(theta) = Z' Lambda(theta) Z + P}, with
#' \eqn{Z} the design, \eqn{\Lambda}{Lambda} the GLM's weights \eqn{w_i b''(\eta_i)}{w_i
#' b''(eta_i)} and \eqn{P} the priors' Fisher information (normal: \eqn{1/s^2}; student_t:
#' \eqn{(\nu + 1) / ((\nu + 3) s^2)}{(nu + 1) / ((nu + 3) s^2)}; cauchy: \eqn{1 / (2
#' s^2)}; laplace: \eqn{1/s^2}; flat: 0). Each iteration draws \eqn{p \sim N(0,
#' G(\theta))}{p ~ N(0, G(theta))}, takes `steps` steps of the generalized leapfrog
#' (Girolami and Calderhead 2011, eqs. 16-18; its two implicit equations solved by
#' fixed-point iteration to the relative tolerance `fixed_point_tol`, at most
#' `fixed_point_iter` iterations) and accepts or rejects with the Metropolis rule on
#' \eqn{H = U + \frac12 \log\det G + \frac12 p' G^{-1} p}{H = U + log det(G) / 2 + p'
#' G^-1 p / 2}, so the draws are exact. A step whose fixed-point iteration does not converge
#' ends the trajectory as a divergence, which is rejected; [sampler_diagnostics()] has the
#' divergences and `fit$rmhmc` each chain's counts (`fixed_point_iterations`,
#' `fixed_point_failures`, warmup included). `fit$adaptation` holds the step size and, as
#' `inv_metric`, \eqn{G^{-1}}{G^-1} at the chain's last state.
#'
#' The metric adapts itself to the posterior's local curvature, so there is no metric to
#' tune: warmup only tunes the step size (dual averaging toward `target_accept`) unless
#' `step_size` is given. Each step costs several evaluations of the metric, O(N d^2) for a
#' GLM with N rows and d coefficients, against O(N d) for a gradient: RMHMC pays on
#' strongly curved, small-d posteriors, and is here mainly for the comparisons of Zhang,
#' Shahbaba and Zhao (2017, Table 1).
#'
#' `rmhmc()` runs on GLMs of [vhmc_glm()] whose Fisher information the core knows: binomial
#' with the logit link, poisson with the log link (the canonical links, where the Fisher
#' information is the likelihood's Hessian).
#'
#' @param steps Generalized leapfrog steps per iteration (fixed, as in Girolami and
#'   Calderhead 2011).
#' @param step_size Step size. `NULL` (default) tunes it during warmup; a number fixes it.
#' @param target_accept Mean acceptance probability the step-size tuning aims at.
#' @param fixed_point_tol,fixed_point_iter Relative tolerance and most iterations of the
#'   fixed-point solutions of the implicit steps.
#' @return An object of class `c("vhmc_rmhmc", "vhmc_sampler")`.
#' @references Girolami, M. and Calderhead, B. (2011). Riemann manifold Langevin and
#'   Hamiltonian Monte Carlo methods. *Journal of the Royal Statistical Society B* 73(2),
#'   123-214.
#' @seealso [hmc()], [nuts()]
#' @examples
#' \donttest{
#' set.seed(1)
#' d <- data.frame(x = rnorm(200))
#' d$y <- rbinom(200, 1, plogis(0.5 + d$x))
#' fit <- vhmc_glm(y ~ x, family = binomial(), data = d, sampler = rmhmc(),
#'                 chains = 2, iter = 600, seed = 1)
#' summary(fit)
#' }
#' @export
rmhmc <- function(steps = 6, step_size = NULL, target_accept = 0.8, fixed_point_tol = 1e-10,
                  fixed_point_iter = 50) {
  new_sampler("rmhmc",
    steps = check_count(steps, "steps", 1),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    target_accept = check_number(target_accept, "target_accept", 0, 1, open = c(TRUE, TRUE)),
    fixed_point_tol = check_number(fixed_point_tol, "fixed_point_tol", 0, 1, open = c(TRUE, TRUE)),
    fixed_point_iter = check_count(fixed_point_iter, "fixed_point_iter", 1)
  )
}

sampler_config.vhmc_rmhmc <- function(sampler, run, target) {
  core_config(sampler, steps = sampler$steps, step_size = sampler$step_size,
              target_accept = sampler$target_accept, fixed_point_tol = sampler$fixed_point_tol,
              fixed_point_iter = sampler$fixed_point_iter)
}

check_target.vhmc_rmhmc <- function(sampler, target) {
  if (isTRUE(target$fisher)) return(invisible())
  stop_arg("sampler", paste(
    "is rmhmc(), which needs the Fisher information of the model as its metric; vhmc has it",
    "for GLMs with family binomial(logit) or poisson(log) only"),
    "Fit such a GLM with vhmc_glm(), or use nuts() (whose dense or low_rank metric adapts to the posterior).")
}

add_report.vhmc_rmhmc <- function(sampler, fit, results, target) {
  fit$rmhmc <- lapply(results, `[[`, "report")
  fit
}

sampler_label.vhmc_rmhmc <- function(sampler) "Riemannian-manifold HMC (Fisher metric)"

divergence_fix.vhmc_rmhmc <- function(sampler) {
  "use a smaller step_size or a higher target_accept, e.g. rmhmc(target_accept = 0.9)"
}
