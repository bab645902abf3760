#' Sample from a target written as R functions
#'
#' Runs Hamiltonian Monte Carlo (by default Stan's NUTS with warmup adaptation) on any
#' log density you can write in R. Use it for models the formula interfaces do not cover.
#'
#' Without `lower`, `upper` or `prior`, the log density is that of the sampled
#' coordinates: transform bounded parameters yourself (e.g. sample `log_sigma`) and add the
#' log-Jacobian. With them (see Bounds and priors), write it on the parameters' natural
#' scale and vhmc does the transforms. Additive constants may be dropped. If the log density or the gradient returns a non-finite value (`NA`, `NaN`,
#' `-Inf`) or raises an R error during sampling, the point is treated as having zero density
#' (the trajectory is rejected and counted as divergent); the number of such evaluations is
#' reported in `fit$counts$target_errors`, and an R error also gives a warning with its
#' message. A value of the wrong shape (not numeric, or of the wrong length, such as
#' `numeric(0)`) is a programming error: sampling stops with an error naming the function,
#' what it returned and where.
#'
#' @param log_density A function of a named numeric vector returning the log density (a
#'   single number); or an objective taped by RTMB or TMB (`RTMB::MakeADFun()`,
#'   `TMB::MakeADFun()`), whose tape gives the log density (minus the objective) and its
#'   exact gradient, and whose parameters (a vector parameter `b` becomes `b[1]`,
#'   `b[2]`, ...) name the draws. See the RTMB example below.
#' @param gradient A function returning the gradient of `log_density` (a numeric vector of
#'   the same length). `NULL` (default): none; the default sampler is then gradient-free
#'   (see `sampler`), and a sampler that needs a gradient, named explicitly, uses central
#'   finite differences, which cost `2 * d` log-density evaluations per gradient and are less
#'   accurate.
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
#' @param sampler A sampler from [nuts()], [hmc()], [rwm()], [demc()],
#'   [surrogate_mh()], [surrogate_hmc()], [variational_hmc()] or (with `metric_tensor`) [rmhmc()]. The
#'   stochastic-gradient samplers [sghmc()] and [sgld()] need minibatches of a likelihood
#'   and work with [vhmc_glm()] and [vhmc_ardl()] only. `NULL` (default): [nuts()] when
#'   there is a gradient (`gradient`, or a TMB/RTMB objective's tape); without one a
#'   gradient-free sampler, [surrogate_mh()] for up to 12 parameters and [demc()] above
#'   ([rwm()] with fewer than 3 chains). A finite-difference gradient costs `2 d` model
#'   runs and misleads where a model is solved to a tolerance, so [nuts()] and the other
#'   gradient samplers use one only when asked for by name.
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
#' @param cores Number of chains run in parallel. The chains of [vhmc_glm()] and
#'   [vhmc_ardl()] (a log density in compiled code) run on threads of this R session; those of
#'   a log density written in R in forked processes on Unix, a PSOCK cluster elsewhere
#'   (`options(vhmc.backend = "psock")` asks for the cluster, `"fork"` for forks where threads
#'   would do). When a `future` plan other than sequential is set, chains go through
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
#' @param lower,upper Bounds of the parameters on their natural scale (`-Inf`/`Inf` for
#'   none): a named vector (the parameters it names), one value per parameter in their
#'   order, or a single value for all. See Bounds and priors.
#' @param prior Priors of the parameters on their natural scale: a named list of priors
#'   from [priors] (`normal()`, `student_t()`, `cauchy()`, `laplace()`, `exponential()`,
#'   `gamma_prior()`, `beta_prior()`, `flat()`), or one prior for every parameter. `NULL`
#'   (default) and parameters not named: flat, that is uniform on their bounds. When given,
#'   `log_density` is the rest of the log posterior (usually the log likelihood).
#' @param laplace For a TMB or RTMB objective with random effects: `FALSE` (default) samples
#'   them with the other parameters from the joint density; `TRUE` integrates them out by
#'   TMB's Laplace approximation at each evaluation and samples the fixed parameters only
#'   (as tmbstan's `laplace`).
#' @param unconstrained With bounds: `TRUE` also reports the draws of the sampler's
#'   unconstrained coordinate of each bounded parameter (variables named by their
#'   transform, such as `log(sigma)` or `logit(p)`).
#' @param max_runs A budget of model runs (calls of `log_density` and `gradient`) for the
#'   whole call; `NULL` (default): none. What the start used is taken off and the rest
#'   shared by the chains; a chain stops sampling when its share is spent, and the fit keeps
#'   as many draws per chain as the shortest chain saved, with a warning of class
#'   `"vhmc_budget"`. A budget spent before sampling is an error. See Model runs.
#' @section Bounds and priors:
#' Declare the support of each parameter with `lower` and `upper`, as Stan's
#' `<lower, upper>` or BayesianTools' `createUniformPrior(lower, upper)`, and optionally a
#' prior for each with `prior`. Then `log_density` (and `gradient`) take the parameters on
#' their natural scale, and the chains run on unconstrained coordinates t, as in Stan:
#' \eqn{x = a + e^t} with a lower bound a, \eqn{x = b - e^t} with an upper bound b,
#' \eqn{x = a + (b - a)\,\mathrm{logit}^{-1}(t)} with both, with the log-Jacobian of each
#' transform and the log prior density (constants dropped; a prior is truncated to the
#' bounds) added in the core. A parameter without a prior is uniform on its bounds
#' (improper when a bound is infinite: the likelihood must then make the posterior proper).
#' A prior whose distribution has bounded support bounds the parameter: `exponential()`
#' and `gamma_prior()` imply `lower = 0`, `beta_prior()` the interval (0, 1). Initial
#' values are given on the natural scale, strictly inside the bounds; random starts are
#' drawn uniformly in (-2, 2) on the unconstrained scale (inside the bounds; for a box,
#' the central 76 % of each side). The draws, `fit$inits` and summaries are on the natural
#' scale; the adapted metric (`fit$adaptation`) is on the unconstrained one.
#' `fit$model$parameters` lists the bounds, priors and transforms. `metric_tensor` cannot
#' be combined with declared bounds.
#' @section Model runs:
#' For an expensive model the calls of its functions are the cost that counts, whatever the
#' machine: `fit$counts$log_density_calls` and `fit$counts$gradient_calls` give each chain's
#' (warmup and sampling; a finite-difference gradient is `2 d` log-density calls),
#' `fit$start$model_runs` those of the start (initial values, their checks and the mode
#' search), and `fit$model_runs` all of them by phase: a row for the start, then one per
#' chain and phase as the sampler names its phases (`"warmup"`, `"sampling"`; for
#' [surrogate_hmc()] `"warmup: exploration"`, which includes the training, and
#' `"warmup: surrogate"`). `print()` and `summary()` give the sums by phase and the total.
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
#'
#' # A rate and a probability, declared with bounds and priors on their natural scale:
#' # y ~ Binomial(20, p) and z ~ Poisson(lambda)
#' fit2 <- vhmc_sample(
#'   log_density = function(th) dbinom(13, 20, th[["p"]], log = TRUE) +
#'     sum(dpois(c(3, 5, 4), th[["lambda"]], log = TRUE)),
#'   lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
#'   prior = list(lambda = exponential(0.1)), chains = 2, iter = 1000, seed = 1,
#'   progress = FALSE
#' )
#' fit2$model$parameters
#' summary(fit2)$variables
#'
#' # A model taped by RTMB: exact gradients; here its scale declared positive with a
#' # half-normal prior, and the location's prior
#' if (requireNamespace("RTMB", quietly = TRUE)) {
#'   y <- c(2.1, 3.4, 1.9, 2.8, 3.0)
#'   obj <- RTMB::MakeADFun(function(p) -sum(RTMB::dnorm(y, p$mu, p$sigma, log = TRUE)),
#'                          list(mu = 0, sigma = 1), silent = TRUE)
#'   fit3 <- vhmc_sample(obj, lower = c(sigma = 0), prior = list(mu = normal(0, 10),
#'                       sigma = normal(0, 5)), chains = 2, iter = 1000, seed = 1,
#'                       progress = FALSE)
#'   fit3
#' }
#' }
#' @export
vhmc_sample <- function(log_density, gradient = NULL, init = NULL, parameters = NULL,
                        sampler = NULL, chains = 4, iter = 2000, warmup = NULL,
                        thin = 1, seed = NULL, cores = getOption("mc.cores", 1L),
                        progress = interactive(), metric_tensor = NULL, lower = NULL, upper = NULL,
                        prior = NULL, unconstrained = FALSE, laplace = FALSE, max_runs = NULL) {
  call <- match.call()
  user <- user_target(log_density, gradient, parameters, laplace)
  if (!is.null(user$model$tmb)) init <- tmb_init(init, user$parameters)
  if (!is.null(metric_tensor) && !is.function(metric_tensor)) {
    stop_arg("metric_tensor", sprintf("must be NULL or a function, not %s", describe(metric_tensor)))
  }
  if (!is.null(sampler)) check_sampler_arg(sampler, r_target_samplers)
  if (!is.null(metric_tensor) && !inherits(sampler, "vhmc_rmhmc")) {
    stop_arg("metric_tensor", "is used by rmhmc() only", "Use sampler = rmhmc(), or drop `metric_tensor`.")
  }
  args <- check_run_args(chains, iter, warmup, thin, cores)
  args$max_runs <- check_max_runs(max_runs)
  progress <- check_flag(progress, "progress")
  unconstrained <- check_flag(unconstrained, "unconstrained")
  seed <- resolve_seed(seed)
  setup <- if (declares_parameters(lower, upper, prior)) {
    declared_target(user, init, lower, upper, prior, unconstrained, metric_tensor, args$chains, seed)
  } else {
    plain_target(user, init, metric_tensor, args$chains, seed)
  }
  sampler <- sampler %||% default_sampler(!is.null(user$gradient), length(setup$inits$user[[1]]), args$chains)
  check_target(sampler, list(minibatch = FALSE, metric_tensor = !is.null(metric_tensor), has_mode = TRUE,
                             population = TRUE, description = "a log density written as an R function"))
  check_target_at(user$log_density, user$gradient, setup$inits$user[[1]])
  if (!is.null(metric_tensor)) check_metric_at(metric_tensor, setup$inits$user[[1]])
  if (is.null(user$gradient) && uses_gradient(sampler)) {
    message("No gradient supplied: using central finite differences (2 x ", length(setup$inits$user[[1]]),
            " log-density evaluations per gradient). Supply `gradient` for speed and accuracy.")
  }
  args$runs_per_gradient <- runs_per_gradient(user$gradient, length(setup$inits$user[[1]]))
  fit_chains(setup$target, sampler, args, seed, setup$inits, init, progress, call, model = setup$model)
}

# The user's log density and gradient, checked: R functions, or a TMB/RTMB objective's
# (R/tmb-target.R). list(log_density, gradient, parameters, model).
user_target <- function(log_density, gradient, parameters, laplace) {
  model <- list(type = "custom")
  if (is_tmb_objective(log_density)) {
    if (!is.null(gradient)) {
      stop_arg("gradient", "must be NULL when `log_density` is a TMB or RTMB objective: its tape gives the gradient")
    }
    tmb <- tmb_functions(log_density, laplace)
    model$tmb <- tmb$info
    return(counted_user(list(log_density = tmb$log_density, gradient = tmb$gradient,
                             parameters = parameters %||% tmb$names, model = model)))
  }
  if (!isFALSE(laplace)) stop_arg("laplace", "is for TMB and RTMB objectives only", "Drop `laplace`.")
  if (!is.function(log_density)) {
    stop_arg("log_density", sprintf("must be a function of a named numeric vector or a TMB/RTMB objective, not %s",
                                     describe(log_density)))
  }
  if (!is.null(gradient) && !is.function(gradient)) {
    stop_arg("gradient", sprintf("must be NULL or a function, not %s", describe(gradient)))
  }
  counted_user(list(log_density = log_density, gradient = gradient, parameters = parameters, model = model))
}

# The user's functions counted from their first call (model runs, R/r-target.R).
counted_user <- function(user) {
  user$runs <- run_counter()
  user$log_density <- user$runs$wrap(user$log_density, "log_density")
  if (!is.null(user$gradient)) user$gradient <- user$runs$wrap(user$gradient, "gradient")
  user
}

# The target, initial values and model description of a log density on the sampled scale.
plain_target <- function(user, init, metric_tensor, chains, seed) {
  values <- resolve_inits(init, user$parameters, chains, seed, user$log_density)
  list(target = r_target(user$log_density, user$gradient, names(values[[1]]), metric_tensor, user$runs),
       inits = list(internal = lapply(values, unname), user = values), model = user$model)
}

# ... and of one with declared bounds and priors (R/bounded-target.R).
declared_target <- function(user, init, lower, upper, prior, unconstrained, metric_tensor, chains, seed) {
  if (!is.null(metric_tensor)) {
    stop_arg("metric_tensor", "cannot be combined with `lower`, `upper` or `prior`",
             "For rmhmc(), write the transforms yourself and give the metric of the unconstrained coordinates.")
  }
  declared <- declared_setup(user$log_density, init, user$parameters, lower, upper, prior, chains, seed)
  model <- user$model
  model$parameters <- declared_table(declared$spec)
  list(target = bounded_target(user$log_density, user$gradient, declared$spec, unconstrained, user$runs),
       inits = declared$inits, model = model)
}
