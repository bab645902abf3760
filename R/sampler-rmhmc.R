#' Riemannian-manifold Hamiltonian Monte Carlo
#'
#' Configures Riemannian-manifold HMC (Girolami and Calderhead 2011) with the Fisher
#' information as its position-dependent metric: for a GLM,
#' \eqn{G(\theta) = Z' \Lambda(\theta) Z + P}{G(theta) = Z' Lambda(theta) Z + P}, with
#' \eqn{Z} the design, \eqn{\Lambda}{Lambda} the GLM's weights \eqn{w_i b''(\eta_i)}{w_i
#' b''(eta_i)} and \eqn{P} the priors' Fisher information (normal: \eqn{1/s^2}; student_t:
#' \eqn{(\nu + 1) / ((\nu + 3) s^2)}{(nu + 1) / ((nu + 3) s^2)}; cauchy: \eqn{1 / (2
#' s^2)}; laplace: \eqn{1/s^2}; flat: 0). Each iteration draws \eqn{p \sim N(0,
#' G(\theta))}{p ~ N(0, G(theta))}, takes up to `steps` steps of the generalized leapfrog
#' (Girolami and Calderhead 2011, eqs. 16-18; its two implicit equations solved by
#' fixed-point iteration to the relative tolerance `fixed_point_tol`, at most
#' `fixed_point_iter` iterations) and accepts or rejects with the Metropolis rule on
#' \eqn{H = U + \frac12 \log\det G + \frac12 p' G^{-1} p}{H = U + log det(G) / 2 + p'
#' G^-1 p / 2}, so the draws are exact. A step whose fixed-point iteration does not converge,
#' or converges to a far root of its implicit equation (a position more than 10 times as far
#' as its explicit predictor, where the trajectory's energy error then exceeds 1000), is a
#' solver failure: it ends the trajectory and is rejected. It is not a divergence, which is a
#' step reaching a log density or metric that is not finite, or an energy error above 1000
#' otherwise.
#' [sampler_diagnostics()] has the divergences, `fit$rmhmc` each chain's counts
#' (`fixed_point_iterations` and `fixed_point_failures`, warmup included;
#' `fixed_point_failures_sampling` after warmup). Solver failures cost efficiency, not
#' accuracy: when more than 2% of the transitions after warmup fail, a message (not a
#' warning) says so. `fit$adaptation` holds the step size and, as `inv_metric`,
#' \eqn{G^{-1}}{G^-1} at the chain's last state.
#'
#' The metric adapts itself to the posterior's local curvature, so there is no metric to
#' tune: warmup only tunes the step size unless `step_size` is given, by dual averaging toward
#' `target_accept` (a solver failure counting as a rejection), capped so that about 0.5% of
#' the transitions fail to solve: failures become frequent quickly as the step size grows
#' (the fixed-point iterations contract at a rate that grows with the step size times the
#' momentum), and the cap is a Robbins-Monro recursion on the failure rate, restarted
#' halfway through warmup. `fit$rmhmc` says per chain whether the cap set the step size
#' (`step_size_capped`). Each step costs several evaluations of the metric, O(N d^2) for a
#' GLM with N rows and d coefficients, against O(N d) for a gradient: RMHMC pays on
#' strongly curved, small-d posteriors, and is here mainly for the comparisons of Zhang,
#' Shahbaba and Zhao (2017, Table 1).
#'
#' `rmhmc()` runs on GLMs of [vhmc_glm()] whose Fisher information the core knows: binomial
#' with the logit link, poisson with the log link (the canonical links, where the Fisher
#' information is the likelihood's Hessian). On a target of [vhmc_sample()] it uses the
#' metric tensor given there as `metric_tensor`: a function returning \eqn{G(\theta)}{G(theta)}
#' and its derivatives, for example the Fisher metric \eqn{J'J/\sigma_y^2 + I/\sigma_\theta^2}{J'J
#' / sigma_y^2 + I / sigma_theta^2} of a model \eqn{y = f(\theta) + \epsilon}{y = f(theta) + e}
#' with Jacobian \eqn{J}, as [elliptic_pde_model()] provides. Such a metric costs
#' \eqn{O(d^3)}{O(d^3)} per state in the core, plus what the function costs;
#' `fit$rmhmc` counts its evaluations (`metric_evaluations`).
#'
#' @param steps Generalized leapfrog steps per iteration, or their maximum with `jitter`.
#' @param jitter Draw the number of steps uniformly in `1..steps` each iteration (default
#'   `TRUE`). With the metric matched to the posterior's curvature, the dynamics are close
#'   to harmonic and a fixed trajectory length near a multiple of their period brings the
#'   chain back near its start: jittering removes that resonance. `FALSE` is the fixed
#'   number of Girolami and Calderhead (2011).
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
#'
#' # A metric tensor written in R: a Poisson regression's Fisher information
#' # G = X' diag(mu) X + I / 4 (prior N(0, 2^2)), dG[, , k] = X' diag(mu * x_k) X.
#' X <- cbind(1, rnorm(50))
#' y <- rpois(50, exp(X %*% c(0.5, 0.4)))
#' ld <- function(th) sum(y * (X %*% th) - exp(X %*% th)) - sum(th^2) / 8
#' gr <- function(th) as.vector(crossprod(X, y - exp(X %*% th))) - th / 4
#' mt <- function(th) {
#'   mu <- as.vector(exp(X %*% th))
#'   list(G = crossprod(X, mu * X) + diag(1 / 4, 2),
#'        dG = vapply(1:2, function(k) crossprod(X, mu * X[, k] * X), matrix(0, 2, 2)))
#' }
#' fit2 <- vhmc_sample(ld, gr, init = c(a = 0, b = 0), sampler = rmhmc(), metric_tensor = mt,
#'                     chains = 2, iter = 600, seed = 1)
#' fit2$rmhmc[[1]]
#' }
#' @export
rmhmc <- function(steps = 6, jitter = TRUE, step_size = NULL, target_accept = 0.8,
                  fixed_point_tol = 1e-10, fixed_point_iter = 50) {
  new_sampler("rmhmc",
    steps = check_count(steps, "steps", 1),
    jitter = check_flag(jitter, "jitter"),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    target_accept = check_number(target_accept, "target_accept", 0, 1, open = c(TRUE, TRUE)),
    fixed_point_tol = check_number(fixed_point_tol, "fixed_point_tol", 0, 1, open = c(TRUE, TRUE)),
    fixed_point_iter = check_count(fixed_point_iter, "fixed_point_iter", 1)
  )
}

sampler_config.vhmc_rmhmc <- function(sampler, run, target) {
  core_config(sampler, steps = sampler$steps, jitter = sampler$jitter, step_size = sampler$step_size,
              target_accept = sampler$target_accept, fixed_point_tol = sampler$fixed_point_tol,
              fixed_point_iter = sampler$fixed_point_iter)
}

check_target.vhmc_rmhmc <- function(sampler, target) {
  if (isTRUE(target$metric_tensor)) return(invisible())
  stop_arg("sampler", paste(
    "is rmhmc(), which needs a metric tensor: vhmc_glm() has the Fisher information of GLMs",
    sprintf("with family %s, no group-level terms and no horseshoe prior; vhmc_sample() takes `metric_tensor`",
            fisher_families())),
    paste("Supply the metric, or use nuts() (whose dense or low_rank metric adapts to the",
          "posterior)."))
}

add_report.vhmc_rmhmc <- function(sampler, fit, results, target) {
  fit$rmhmc <- lapply(results, `[[`, "report")
  fit
}

check_report.vhmc_rmhmc <- function(sampler, fit) {
  check_solver_failures(fit, fit$rmhmc, "rmhmc", "fit$rmhmc",
                        "a smaller step_size, a higher target_accept (e.g. rmhmc(target_accept = 0.9)) or a larger fixed_point_iter")
}

# A message (not a warning: the draws are not in doubt) when a notable share of the
# transitions after warmup was rejected because an implicit step of the generalized leapfrog
# went unsolved (rmhmc(), surrogate_hmc(riemann = TRUE)). Such a rejection costs efficiency;
# unlike a divergence it is no energy blow-up, so it says nothing about regions the sampler
# cannot reach. The step-size adaptation keeps them near 0.5% (adapt/implicit_step_size.hpp).
check_solver_failures <- function(fit, reports, who, where, fix, threshold = 0.02) {
  failed <- sum(report_column(reports, "fixed_point_failures_sampling"), na.rm = TRUE)
  total <- fit$args$chains * (fit$args$iter - fit$args$warmup)
  if (failed < threshold * total) return(invisible())
  message(sprintf(paste(
    "%s: %d of %d transitions after warmup (%s%%) were rejected because an implicit step of the",
    "generalized leapfrog was not solved (its fixed-point iteration did not converge; %s has",
    "fixed_point_failures_sampling per chain). These rejections cost efficiency, not accuracy:",
    "they are not divergences. To make them rarer: %s."),
    who, failed, total, format(round(100 * failed / total, 1)), where, fix))
  invisible()
}

sampler_label.vhmc_rmhmc <- function(sampler) "Riemannian-manifold HMC (Fisher metric)"

divergence_fix.vhmc_rmhmc <- function(sampler) {
  "use a smaller step_size or a higher target_accept, e.g. rmhmc(target_accept = 0.9)"
}
