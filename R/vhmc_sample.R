#' Sample from a target written as R functions
#'
#' Runs Hamiltonian Monte Carlo (by default Stan's NUTS with warmup adaptation) on any
#' log density you can write in R. Use it for models the formula interfaces do not cover.
#'
#' The log density is evaluated on the unconstrained scale: transform bounded parameters
#' yourself (e.g. sample `log_sigma`) and add the log-Jacobian. Additive constants may be
#' dropped. If the log density or the gradient returns a non-finite value (`NA`, `NaN`,
#' `-Inf`) or raises an R error during sampling, the point is treated as having zero density
#' (the trajectory is rejected and counted as divergent); the number of such evaluations is
#' reported in `fit$counts$target_errors`, and an R error also gives a warning with its
#' message. A value of the wrong shape (not numeric, or of the wrong length, such as
#' `numeric(0)`) is a programming error: sampling stops with an error naming the function,
#' what it returned and where.
#'
#' @param log_density A function of a named numeric vector returning the log density (a
#'   single number).
#' @param gradient A function returning the gradient of `log_density` (a numeric vector of
#'   the same length). `NULL` (default) uses central finite differences, which costs
#'   `2 * d` log-density evaluations per gradient and is less accurate.
#' @param init Where the chains start. `NULL` (default): from the posterior mode and its
#'   curvature. Each chain runs L-BFGS from its own random point (uniform in (-2, 2) per
#'   coordinate, redrawn up to 100 times until the log density is finite) to a mode, takes
#'   the Hessian there by central differences of the gradient, and starts at a draw of
#'   the Laplace approximation with its covariance doubled; the sampler's metric starts
#'   from that covariance. Where the Gaussian fails in a few directions only (a rare
#'   category that separates the responses: a wall on one side of the mode), the
#'   covariance is first shrunk there; the starting draws use the shrunk covariance, and so
#'   does the metric of every sampler but [surrogate_hmc()] (`fit$start$regularised`,
#'   `fit$start$metric_regularised`). When there is no finite mode with a positive
#'   definite Hessian, or the Gaussian still does not describe the posterior there (a
#'   funnel), the chains start from the random points with a unit metric and a message
#'   says why. `"random"`: those random points, no mode search (Stan's start). Or values: a named numeric vector used
#'   for every chain; a list with one vector per chain; or a function returning a vector,
#'   called with the chain id if it takes an argument. `fit$start` records how the chains
#'   started and what the search cost.
#' @param parameters Parameter names (a character vector), or their number; needed only
#'   when `init` is `NULL` or `"random"`. Otherwise names come from `init`, defaulting to
#'   `theta[1]`, ...
#' @param sampler A sampler from [nuts()] (default), [hmc()], [rwm()],
#'   [surrogate_hmc()], [variational_hmc()] or (with `metric_tensor`) [rmhmc()]. The
#'   stochastic-gradient samplers [sghmc()] and [sgld()] need minibatches of a likelihood
#'   and work with [vhmc_glm()] and [vhmc_ardl()] only.
#' @param chains Number of chains.
#' @param iter Iterations per chain with a full warmup; `iter - floor(iter / 2)` draws
#'   are kept per chain when `warmup = NULL`, `iter - warmup` otherwise.
#' @param warmup Warmup (adaptation) iterations per chain, discarded. `NULL` (default):
#'   automatic, at most `floor(iter / 2)` iterations: samplers with the draw/gradient
#'   adaptation ([nuts()], [hmc()]) end warmup when it has converged (see the Warmup section
#'   of [nuts()]), so a chain may run fewer than `iter` iterations; other samplers use
#'   `floor(iter / 2)`. A number is the exact warmup length.
#' @param thin Keep every `thin`-th post-warmup iteration.
#' @param seed A whole number. The same seed gives the same draws whatever `cores` or
#'   future plan. `NULL` draws a seed from R's random number generator.
#' @param cores Number of chains run in parallel (forked processes on Unix, a PSOCK cluster
#'   elsewhere). When a `future` plan other than sequential is set, chains go through
#'   `future.apply` instead and `cores` is ignored. On a PSOCK cluster or a future plan the
#'   functions run in other R sessions: the objects they use from the global environment
#'   (found as `future` finds globals) are copied there for the run, and the packages whose
#'   functions they use unqualified are attached there.
#' @param progress Print progress: when the mode search starts and ends (and every 5
#'   seconds while it runs), then per chain after its first iteration, every 10% of its
#'   iterations and at least every 5 seconds. (Chains on a socket cluster or a future plan
#'   print in their own processes.)
#' @param metric_tensor For [rmhmc()] only: a function of the named parameter vector
#'   returning the position-dependent metric of Riemannian-manifold HMC as
#'   `list(G = , dG = )`, `G` a symmetric positive definite d x d matrix (for example the
#'   Fisher information plus the prior precision) and `dG` a d x d x d array with
#'   `dG[, , i]` the derivative of `G` with respect to parameter `i`. Values that are not
#'   finite (or an R error) reject the proposal; a value of the wrong shape stops sampling.
#'   See the example in [rmhmc()].
#' @return A `vhmc_fit` object: see [print.vhmc_fit()], [summary.vhmc_fit()],
#'   [as_draws_array.vhmc_fit()], [as.mcmc.list.vhmc_fit()] and [sampler_diagnostics()].
#'   After sampling, warnings name any convergence problem and its fix.
#' @examples
#' \donttest{
#' # A correlated bivariate normal
#' S <- matrix(c(1, 0.9, 0.9, 1), 2)
#' P <- solve(S)
#' fit <- vhmc_sample(
#'   log_density = function(th) -0.5 * sum(th * (P %*% th)),
#'   gradient = function(th) -as.vector(P %*% th),
#'   init = c(x = 0, y = 0), chains = 2, iter = 1000, seed = 1, progress = FALSE
#' )
#' fit
#' }
#' @export
vhmc_sample <- function(log_density, gradient = NULL, init = NULL, parameters = NULL,
                        sampler = nuts(), chains = 4, iter = 2000, warmup = NULL,
                        thin = 1, seed = NULL, cores = getOption("mc.cores", 1L),
                        progress = interactive(), metric_tensor = NULL) {
  call <- match.call()
  if (!is.function(log_density)) {
    stop_arg("log_density", sprintf("must be a function of a named numeric vector, not %s",
                                     describe(log_density)))
  }
  if (!is.null(gradient) && !is.function(gradient)) {
    stop_arg("gradient", sprintf("must be NULL or a function, not %s", describe(gradient)))
  }
  if (!is.null(metric_tensor) && !is.function(metric_tensor)) {
    stop_arg("metric_tensor", sprintf("must be NULL or a function, not %s", describe(metric_tensor)))
  }
  check_sampler_arg(sampler, r_target_samplers)
  if (!is.null(metric_tensor) && !inherits(sampler, "vhmc_rmhmc")) {
    stop_arg("metric_tensor", "is used by rmhmc() only", "Use sampler = rmhmc(), or drop `metric_tensor`.")
  }
  check_target(sampler, list(minibatch = FALSE, metric_tensor = !is.null(metric_tensor), has_mode = TRUE,
                             description = "a log density written as an R function"))
  args <- check_run_args(chains, iter, warmup, thin, cores)
  progress <- check_flag(progress, "progress")
  seed <- resolve_seed(seed)
  inits <- resolve_inits(init, parameters, args$chains, seed, log_density)
  par_names <- names(inits[[1]])
  check_target_at(log_density, gradient, inits[[1]])
  if (!is.null(metric_tensor)) check_metric_at(metric_tensor, inits[[1]])
  if (is.null(gradient) && uses_gradient(sampler)) {
    message("No gradient supplied: using central finite differences (2 x ", length(par_names),
            " log-density evaluations per gradient). Supply `gradient` for speed and accuracy.")
  }
  target <- r_target(log_density, gradient, par_names, metric_tensor)
  internal <- lapply(inits, unname)
  fit_chains(target, sampler, args, seed, list(internal = internal, user = inits), init, progress,
             call, model = list(type = "custom"))
}
