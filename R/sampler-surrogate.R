# surrogate_hmc(): exact HMC whose trajectories follow a random-basis network surrogate of
# the potential (Zhang, Shahbaba and Zhao 2017). The constructor validates; sampler_config()
# settles the defaults that need the run's settings and picks the core's sampler: the one
# template (inst/include/vhmc/sampler/surrogate_sampler.hpp) over surrogate HMC's dynamics
# ("vhmc_surrogate_hmc") or, with riemann = TRUE, RNS-RMHMC's ("vhmc_surrogate_rmhmc"); the
# methods below collect and summarise what each chain's surrogate did.

#' Surrogate-accelerated HMC (exact)
#'
#' Hamiltonian Monte Carlo whose leapfrog trajectories are driven by the gradient of a cheap
#' surrogate of the potential: a neural network with random, fixed hidden bases whose output
#' weights are fitted by ridge regression (Zhang, Shahbaba and Zhao, 2017). The Metropolis
#' step uses the true potential, so the draws are exact whatever the surrogate's quality;
#' a poor surrogate only lowers the acceptance rate. After warmup each iteration costs one
#' evaluation of the log density and no true gradient.
#'
#' Warmup has three phases, all per chain:
#' 1. *Exploration*: NUTS with the warmup adaptation of [nuts()] on the true target, from the
#'    mode-and-curvature start (see [vhmc_sample()], `init`). Every gradient computed after
#'    the first few iterations (every leapfrog state, accepted or not) becomes a training
#'    point. With `explore = NULL` the exploration ends as soon as the training set holds
#'    `max(4 (d + 1), 10 s / d)` points for `d` parameters and `s` bases (so that the
#'    quadratic base and a tenth of the bases' weights are determined many times over by
#'    gradient rows), or already at `4 (d + 1)` points if the quadratic base alone then
#'    predicts held-out gradients within 1% (typical of a GLM with many observations);
#'    always after at least 30 iterations from the mode (150 from random initial values),
#'    and at the latest when only the tuning's share of the warmup is left.
#' 2. *Training*: coordinates are standardised by the Laplace approximation at the mode
#'    (by the exploration draws' mean and covariance without one), `hidden` bases are drawn
#'    from the chain's own random stream (so a seed reproduces the fit) and the output
#'    weights are fitted to the gradients (score matching, the default) or the values of
#'    the potential. One tenth of the points is held out. The quadratic base is the one
#'    from the Hessian at the mode or the least-squares one, whichever predicts the
#'    held-out gradients better. For a binomial GLM started from the mode, the surrogate
#'    first keeps some rows of the likelihood exact: the rows whose curvature can exceed
#'    the posterior's (a rare category that separates or nearly separates the responses
#'    makes a wall or a skewed tail that no quadratic and few random bases fit). The
#'    candidates are the rows stiffer than 10, 1 and 0.1, then 0.03, times the posterior's
#'    curvature (at most 2,048 rows and 1/8 of the data's), or none. Each is scored by the held-out error of the
#'    quadratic fitted to what the rows leave, and the smallest set within 25% of the best
#'    wins. On the full a9a design (d = 118) the 1,981 rows above 0.03 bring that error from 57%
#'    to 2.9%. A surrogate step then costs O(rows x d) more, and the stiffest rows' walls
#'    are crossed by the split leapfrog, as in [nuts()]. `surrogate_info()` reports the
#'    number (`exact_rows`). With `hidden = NULL` the number of bases is then chosen
#'    among `s`, `s/2`, `s/4`, `s/16` and none by held-out gradient error: the smallest within
#'    25% of the best (or below 1% relative error) wins, since every basis costs time in
#'    every surrogate step. On a GLM with many observations the quadratic base alone often
#'    suffices.
#' 3. *Tuning*: the remaining warmup iterations run surrogate HMC. With gradient training
#'    the surrogate is a quadratic (fitted first, by least squares on all training
#'    gradients) plus the random bases fitted to what the quadratic leaves, and the inverse
#'    of the quadratic's Hessian becomes a dense metric for the surrogate dynamics: on a
#'    near-Gaussian posterior every direction then oscillates at the same frequency. The
#'    step size keeps the exploration's stability margin in the fastest direction, halved
#'    (surrogate steps cost a small fraction of the one true evaluation per iteration), and
#'    at most the step whose leapfrog energy error on a Gaussian of `d` directions has a
#'    standard deviation of 0.05 (\eqn{\sqrt{d}\,(w\epsilon)^2/4}{sqrt(d) (w eps)^2 / 4}, w
#'    the fastest frequency): rejections cost an antithetic chain dearly. The
#'    longest trajectory is chosen from the frequencies of the surrogate dynamics (the
#'    eigenvalues of the metric times the surrogate's Hessian at the exploration mean) to
#'    maximise the effective sample size per iteration that a Gaussian with those
#'    frequencies would give for every coordinate, while keeping that of the squared
#'    coordinates at least 1/3 (what plain HMC gets with integration times uniform on
#'    (0, pi]); near half a period, successive draws are antithetic, as NUTS's are.
#'    Along a wall (a rare category that separates the responses: the posterior a
#'    half-Gaussian against it) the coordinate moves as the absolute value of a Gaussian
#'    one, for which half a period is the worst length and a quarter the best; the
#'    directions of the rows the exploration's NUTS split off as stiff (see [nuts()]) join
#'    that maximum with the correlation of absolute values, so trajectories are shorter
#'    where the posterior has walls (on the full a9a design, d = 118, the five separated
#'    categories' min bulk ESS rose from 654 to 1,001 of 2,000 draws, in less time).
#'    Each iteration draws its number of steps uniformly between half that and that. The
#'    error a surrogate adds grows with the trajectory's length, so the integration time is
#'    then adapted below that maximum by stochastic approximation toward an acceptance rate
#'    of 0.65 (`adapt_delta` if lower): an inaccurate surrogate gets shorter trajectories,
#'    a good one runs the full length. With `steps` or `step_size` given, the exploration's
#'    metric and step size are kept and the steps are drawn in `1..steps`, as in the papers.
#'
#' With `hidden = NULL` at most `min(2000, max(50, 40 d))` bases are drawn for `d`
#' parameters (the papers used 40 for d = 2, 1000 for d = 20 to 32 and 2000 to 2500 for
#' d = 50 to 60), reduced if needed so that there are at least two training numbers per
#' output weight; fewer are kept if they predict as well (above). Training costs O(N s^2)
#' for N points and s bases (normal equations accumulated in blocks) and O(s^3) for the
#' solve; memory is O(s^2).
#'
#' With `warmup = NULL` (the default of the fitting functions) and `explore = NULL` the
#' warmup ends after the exploration and `min(150, warmup / 3)` tuning iterations; with
#' `warmup = N` given it has exactly `N` iterations, and tuning takes what the exploration
#' leaves. When the gradient is cheap (few observations) an iteration of the surrogate is
#' not much cheaper than one of NUTS; the chains then hand over to NUTS (below), usually
#' before training (so that they do not pay for it), or with `fallback = FALSE` the fit says
#' in a message that the surrogate will not pay off, with the measured cost ratio
#' (`surrogate_info()`).
#'
#' `adaptive = TRUE` is ARNS-HMC: during sampling, every new state's log density (already
#' computed by the Metropolis step) updates the output weights by exact recursive ridge
#' regression, and the surrogate used by the trajectories is replaced with probability
#' `min(1, t^(-1/2))` at iteration `t`, a vanishing adaptation that keeps the chain
#' ergodic. Each update costs O(s^2). The updates add the new states' log densities (value
#' rows, offset so that the surrogate matches the log density on average) to the normal
#' equations of the initial fit, so with `train_on = "gradient"` the refined surrogate fits
#' gradients and values together.
#'
#' `riemann = TRUE` is RNS-RMHMC (Zhang, Shahbaba and Zhao 2017): after the same
#' exploration and training, the trajectories follow the generalized leapfrog of
#' Riemannian-manifold HMC (see [rmhmc()]) on the surrogate, with a metric made from the
#' surrogate's Hessian, and the Metropolis step uses the true log density at the
#' trajectory's ends: the draws are exact. With `riemann_metric = "dense"` (default) the
#' metric is the quadratic base's Hessian \eqn{C}{C} (constant; its eigenvalues made at least
#' \eqn{\delta}{delta} in absolute value) plus the diagonal
#' \eqn{\sqrt{h_j^2 + \delta_j^2}}{sqrt(h_j^2 + delta_j^2)}, \eqn{h}{h} the diagonal of the
#' random bases' Hessian; with `"diagonal"` it is
#' \eqn{G_{jj} = \sqrt{h_j^2 + \delta_j^2}}{G_jj = sqrt(h_j^2 + delta_j^2)} with \eqn{h}{h}
#' the diagonal of the whole surrogate's Hessian (\eqn{\delta = 10^{-3}}{delta = 1e-3} in
#' standardised units, so both stay positive definite where the surrogate is not convex).
#' The diagonal metric costs O(s d) per step, like a surrogate gradient, but ignores
#' correlations: on a correlated posterior it moves like HMC with a diagonal mass matrix
#' (on liver's Bank Marketing data its min ESS was 9 of 600 draws). The dense one adds
#' O(d^3) per step and keeps the base's correlations, as the full Hessian of Zhang et al.
#' does for their logistic regressions. Its implicit steps are solved as in [rmhmc()] (tolerance `1e-10`, at most 50
#' iterations; a step left unsolved is rejected and counted as a solver failure, not as a
#' divergence). `steps` is the most generalized
#' leapfrog steps (default 6, drawn in `1..steps`), `step_size` fixes its step size (the
#' exploration then adapts its own), which is otherwise tuned as in [rmhmc()] over the rest
#' of the warmup (dual averaging toward an acceptance rate of 0.65, `adapt_delta` if lower,
#' capped so that solver failures stay rare). It needs additive bases (not `"rbf"`) and is not
#' adaptive. `fit$surrogate` adds each chain's `metric_evaluations`,
#' `fixed_point_iterations`, `fixed_point_failures` (warmup included),
#' `fixed_point_failures_sampling` and `step_size_capped`; when more than 2% of the
#' transitions after warmup failed to solve, a message says so.
#'
#' **Multilevel models.** With the group-level effects sampled the joint posterior has no
#' mode (a standard deviation can shrink with its effects), but where each level's rows say
#' more about its effect than the prior does (the effects are then sampled centred) it has a
#' local mode beside that funnel, with a Gaussian near it: the start moves there from the
#' non-centred mode (L-BFGS; the Hessian by differences of the gradient), and the chains
#' start, are standardised and train from it. Where the centred form has none (few rows a
#' level) and `parameterization = "auto"`, the effects are sampled non-centred, whose
#' posterior has a mode; where the Gaussian there does not describe the posterior either,
#' the chains start near the mode without its metric and explore longer (a message says so;
#' there the gradient is usually cheap and the chains hand over to NUTS). The Laplace
#' covariance is dense (\eqn{d^2} numbers): beyond 2,000 parameters this sampler is
#' refused (use [nuts()]). On a
#' logistic model with \eqn{N = 10^6} rows, 10 predictors and `(1 | state)` over 50 states
#' (`inst/bench/surrogate_multilevel.R`, 2 chains on 2 cores) this sampler gave, over
#' seeds 1-3, min bulk ESS 1,591/3,319/849 in 39-41 s of the whole call (about 1,050 true
#' gradients), NUTS 3,142 in 252 s (18,184 gradients; both from the same local mode): 3.1,
#' 6.8 and 1.6 times NUTS's ESS per second, means within 4 combined Monte Carlo standard
#' errors of NUTS's, sds within 19%. The spread is the surrogate's: its rejections gather
#' in the tails of the group sd and of the intercept's ridge with the effects (seed 3:
#' acceptance 0.77-0.83 in the outer fifths of either, 0.87-0.91 in the middle ones), where
#' a few hundred exploration states train it least, and each rejection costs an antithetic
#' chain most. The gaussian family's models whose effects [vhmc_glm()] integrates out
#' (`parameterization = "auto"` or `"marginal"`: one term or nested ones) have a mode in the
#' fixed effects, sigma and the covariance parameters: this sampler takes them from there,
#' and the effects are drawn afterwards from their conditional, as for [nuts()]; on lme4's
#' `sleepstudy` with `(1 | Subject)` its means agree with NUTS's within their Monte Carlo
#' error.
#'
#' @param hidden Number of hidden units (bases); `NULL` chooses it by held-out error (see
#'   Details).
#' @param activation `"softplus"` (default), `"sigmoid"`, `"tanh"` or `"rbf"` (Gaussian
#'   radial basis functions).
#' @param train_on Fit the surrogate to the potential's `"gradient"`s (default) or its
#'   `"value"`s.
#' @param explore Exploration iterations (part of warmup); `NULL` ends the exploration when
#'   the training set suffices (see Details).
#' @param adaptive Keep refining the output weights during sampling (ARNS-HMC).
#' @param lambda Ridge penalty; `NULL` uses 1e-3 for gradient training (in standardised
#'   coordinates) and 1e-6 times the mean diagonal of the Gram matrix for value training.
#' @param steps Maximum number of leapfrog steps per iteration, drawn uniformly in
#'   `1..steps`; `NULL` tunes it (see Details).
#' @param step_size Leapfrog step size, fixed for exploration and sampling (no step-size
#'   adaptation); `NULL` adapts it (see Details). With `metric = "unit"`, `steps` and
#'   `step_size` this is RNS-HMC with the settings of Zhang et al. (2017).
#' @param adapt_delta Target acceptance rate of the exploration's NUTS step-size
#'   adaptation (and of the integration-time tuning when below 0.65).
#' @param metric Metric adapted during exploration and kept for sampling.
#' @param adaptation Warmup adaptation of the exploration's NUTS, as for [nuts()].
#' @param max_treedepth Maximum tree depth of the exploration NUTS.
#' @param max_train Largest number of training points kept (a uniform sample of all
#'   points beyond that).
#' @param riemann `TRUE` for RNS-RMHMC, Riemannian-manifold dynamics on the surrogate with
#'   a metric from its Hessian (see Details).
#' @param riemann_metric RNS-RMHMC's metric: `"dense"` (the quadratic base's Hessian plus
#'   the bases' diagonal) or `"diagonal"` (the surrogate's Hessian diagonal); see Details.
#' @param fallback Whether a chain continues with NUTS on the true gradient when its warmup
#'   measures that the surrogate will not pay off (see the section below). `NULL` (default):
#'   `TRUE` unless `steps`, `step_size`, `riemann = TRUE` or `adaptive = TRUE` is given;
#'   `FALSE` keeps the surrogate regardless.
#' @section Handing over to NUTS:
#' At the end of warmup each chain compares, over the second half of trajectory tuning and the
#' exploration after its burn-in, the mean squared jump of every coordinate between successive
#' states (the expected squared jumping distance of Pasarica and Gelman 2010) and the seconds
#' per iteration of surrogate HMC and of NUTS on the true gradient. The jumps in units of
#' the exploration's variances, averaged over coordinates, give a lag-1 autocorrelation and
#' the effective samples per iteration of an AR(1) chain with it, at most 1 (antithetic
#' draws help the means of near-Gaussian coordinates, never the worst-mixing coordinate that
#' sets a fit's min ESS); the surrogate's efficiency
#' relative to NUTS is the ratio of these times the ratio of their costs. (The average
#' pools the coordinates because NUTS's side rests on the few dozen iterations of the
#' exploration; per coordinate such estimates are mostly noise.) Below 2, or when
#' the tuning's acceptance rate stayed below half its target, or whatever the costs when
#' the trained surrogate's held-out gradient error (`grad_rel_error`) is above 50% (it
#' cannot drive trajectories: surrogates that paid off had 0.1-11%), the chain continues with NUTS
#' from the surrogate's last state: the exploration's NUTS warmup adaptation goes on where it
#' stopped, as `nuts()`'s warmup would have gone on, until it converges (with
#' `warmup = NULL`) or the warmup's iterations run out, and the chain then samples with NUTS
#' (a chain that hands over before training is `nuts()`'s own, draw for draw); a message
#' says so, and `surrogate_info()` has `fallback`, `efficiency_ratio`, `ess_ratio`,
#' `fallback_unfit` (the held-out error was above `held_out_error_threshold`),
#' `jump_ratio` and `payoff_cost_ratio` per chain. The cost is measured in seconds, so a fit near the threshold
#' can decide differently on a machine under another load; `fallback = FALSE` fixes the
#' decision (and RNS-RMHMC never hands over).
#'
#' Where the start regularised the Laplace approximation (a rare category that separates the
#' responses: see `init` in [vhmc_sample()]), the chains start from its draws but explore with the
#' Laplace metric itself, whose spread along the flat sides the training points must cover
#' (`fit$start$metric_regularised` is `FALSE`). With the regularised metric, on a9a's full
#' design (d = 118, `inst/bench/surrogate_explore.R`), the exploration's 30-43 iterations
#' hardly moved along five such directions, the surrogate's trajectories were rejected at any
#' step size, and the chains handed over; with the Laplace metric they keep the surrogate.
#'
#' Training itself can cost more than a cheap gradient ever saves, so each chain first
#' decides, between drawing the bases and fitting them, whether training can pay at all. It
#' times a true log density, a gradient of the network as drawn (all its bases; the weights
#' do not change its cost) and a dense Cholesky factor, and predicts training's seconds from
#' its leading operations (features, Gram matrix, factor) at that factor's rate; NUTS's
#' seconds per iteration come from the exploration. Both sides are timed at their fastest
#' (of a few batches, and of chunks of 5 NUTS iterations): other work on the machine only
#' makes a batch slower, so the fastest is the cost without it. The surrogate is predicted
#' generously: the trajectory the tuning would choose on the Gaussian that standardises the
#' bases, whose accepted proposals give at most 3 effective samples per iteration (the AR(1)
#' measure above), at the acceptance rate the tuning aims at (0.65, `adapt_delta` if lower;
#' a rejection is a jump of 0, so 3 becomes 0.95). Its efficiency relative to NUTS over the
#' tuning and sampling iterations, with training's predicted seconds added to the
#' surrogate's side, is that ESS ratio times NUTS's seconds over the surrogate's. The
#' tuning's target is a floor: accurate surrogates keep the longest trajectory and accept
#' more (0.82-0.90 on the posteriors of `inst/bench/surrogate_high_d.R`), so a chain whose
#' prediction is below 2 still trains when at an acceptance of 0.85 it reaches 2 and the
#' trial is cheap: training and the tuning's iterations, predicted, at most a tenth of what
#' NUTS's remaining iterations cost (a failed trial hands over at the end of tuning, and
#' costs the call that tenth). On a census logistic regression (d = 95) the trial costs
#' about 3% and 11 of 12 chains train, where at the target alone 3 of 8 did; on a
#' 4,521-row regression with a cheap gradient it costs about 30%, and every chain hands
#' over. Otherwise, below 2, the chain continues with NUTS without training a surrogate
#' (the exploration's NUTS warmup adaptation goes on, as after a hand-over, and the tuning
#' takes no iterations); a message says so, and `surrogate_info()` has `fallback_before_training`,
#' `predicted_efficiency_ratio`, `predicted_efficiency_if_accurate`, `trial_share` and
#' `predicted_train_seconds`. The bases training would drop (it may keep `s/2`, `s/4`, `s/16` or
#' none) are not assumed gone, since what decides that is the fit not paid for; the decision
#' is not taken when the exploration found the quadratic base alone good enough (training
#' then forms no Gram matrix), nor with `fallback = FALSE`.
#' @return An object of class `c("vhmc_surrogate_hmc", "vhmc_sampler")`.
#' @references Zhang, C., Shahbaba, B. and Zhao, H. (2017). Hamiltonian Monte Carlo
#'   acceleration using surrogate functions with random bases. *Statistics and Computing*
#'   27, 1473-1490.
#' @seealso [surrogate_info()] for what the surrogate of each chain did, [nuts()].
#' @examples
#' surrogate_hmc()
#' surrogate_hmc(hidden = 500, activation = "tanh", adaptive = TRUE)
#' surrogate_hmc(riemann = TRUE) # RNS-RMHMC
#' \donttest{
#' set.seed(1)
#' X <- matrix(rnorm(2000 * 5), 2000)
#' d <- data.frame(y = rbinom(2000, 1, plogis(X %*% c(1, -1, 0.5, 0, 2))), X)
#' fit <- vhmc_glm(y ~ ., data = d, family = binomial(), sampler = surrogate_hmc(),
#'                 chains = 2, seed = 1, progress = FALSE)
#' fit
#' surrogate_info(fit)
#' }
#' @export
surrogate_hmc <- function(hidden = NULL, activation = c("softplus", "sigmoid", "tanh", "rbf"),
                          train_on = c("gradient", "value"), explore = NULL, adaptive = FALSE,
                          lambda = NULL, steps = NULL, step_size = NULL, adapt_delta = 0.8,
                          metric = c("low_rank", "diag", "dense", "unit"), max_treedepth = 10,
                          max_train = 50000, adaptation = c("fisher", "stan"), riemann = FALSE,
                          riemann_metric = c("dense", "diagonal"), fallback = NULL) {
  w <- match_warmup(adaptation, metric, !missing(metric))
  riemann <- check_flag(riemann, "riemann")
  activation <- match_choice(activation, "activation", c("softplus", "sigmoid", "tanh", "rbf"))
  if (riemann && (activation == "rbf" || isTRUE(adaptive))) {
    stop_arg("riemann", "= TRUE needs additive bases and a fixed surrogate",
             "Use activation \"softplus\", \"sigmoid\" or \"tanh\", and adaptive = FALSE.")
  }
  if (riemann && isTRUE(fallback)) {
    stop_arg("fallback", "= TRUE is not available with riemann = TRUE: RNS-RMHMC never hands over to NUTS",
             "Use fallback = NULL or FALSE, or riemann = FALSE.")
  }
  new_sampler("surrogate_hmc",
    hidden = if (is.null(hidden)) NULL else check_hidden(hidden),
    activation = activation,
    train_on = match_choice(train_on, "train_on", c("gradient", "value")),
    explore = if (is.null(explore)) NULL else check_count(explore, "explore", 20),
    adaptive = check_flag(adaptive, "adaptive"),
    lambda = if (is.null(lambda)) NULL else
      check_number(lambda, "lambda", 0, Inf, open = c(TRUE, TRUE)),
    steps = if (is.null(steps)) NULL else check_count(steps, "steps", 1),
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    metric = w$metric, adaptation = w$adaptation,
    max_treedepth = check_count(max_treedepth, "max_treedepth", 1),
    max_train = check_count(max_train, "max_train", 100),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    riemann = riemann,
    riemann_metric = match_choice(riemann_metric, "riemann_metric", c("dense", "diagonal")),
    fallback = if (is.null(fallback)) NULL else check_flag(fallback, "fallback")
  )
}

# The ridge training keeps several hidden x hidden matrices and factors one (hidden^3
# operations): 10,000 bases already need about 4 GB; more fail in the core with an
# allocation error.
check_hidden <- function(hidden) {
  hidden <- check_count(hidden, "hidden", 1)
  if (hidden > 10000L) {
    gb <- format(signif(8 * as.numeric(hidden)^2 / 1e9, 3), big.mark = ",", scientific = FALSE)
    stop_arg("hidden", sprintf("(%d) is too large: training the surrogate stores several hidden x hidden matrices (%s GB each)",
                               hidden, gb),
             "Use at most 10000 bases, or hidden = NULL to choose the number by held-out error (at most 2000).")
  }
  hidden
}

# With explore = NULL the exploration ends as soon as the training set suffices (the core's
# training_points_needed(): max(4 (d + 1), 10 s / d) points, or 4 (d + 1) when the quadratic
# base alone is good enough; after at least 30 iterations from the mode or 150 from random
# values), and at the latest when the warmup left is what
# trajectory tuning needs: min(150, warmup / 3) iterations. The integration time is tuned
# toward 0.65 (near the optimum for HMC trajectories; Beskos et al. 2013), or adapt_delta if
# that is lower. The number of bases is chosen by held-out error unless the user gave it
# (gradient training only; ARNS-HMC refines all bases, so it keeps them).
sampler_config.vhmc_surrogate_hmc <- function(sampler, run, target) {
  auto <- is.null(sampler$explore)
  tune <- core_default("vhmc_surrogate_hmc", "tune")  # trajectory tuning of an automatic warmup
  explore <- sampler$explore %||% max(50L, run$warmup - min(tune, run$warmup %/% 3L))
  if (explore > run$warmup) {
    stop_arg("sampler", sprintf("has explore = %d exploration iterations, more than warmup = %d",
                                explore, run$warmup), "Lower `explore` or raise `warmup`.")
  }
  if (explore < 50) {
    stop_arg("warmup", sprintf("(%d) is too short for surrogate_hmc(), which explores with NUTS first",
                               run$warmup), "Use warmup >= 100 (ideally several hundred), or warmup = NULL.")
  }
  # RNS-RMHMC's step size is that of the Riemannian dynamics; its exploration adapts its own.
  riemann <- isTRUE(sampler$riemann)
  explorer <- if (riemann) utils::modifyList(sampler, list(step_size = NULL)) else sampler
  shared <- list(
    metric = sampler$metric, max_treedepth = sampler$max_treedepth, explore = as.integer(explore),
    explore_auto = auto, hidden = sampler$hidden, activation = sampler$activation,
    train_on_gradient = sampler$train_on == "gradient", lambda = sampler$lambda,
    select_hidden = is.null(sampler$hidden) && !sampler$adaptive && sampler$train_on == "gradient",
    trajectory_accept = min(sampler$adapt_delta, 0.65), max_train = sampler$max_train)
  dynamics <- if (riemann) {
    list(steps = sampler$steps, riemann_step_size = sampler$step_size,
         riemann_dense = !identical(sampler$riemann_metric, "diagonal"))
  } else {
    list(steps = sampler$steps, adaptive = sampler$adaptive, fallback = surrogate_fallback(sampler))
  }
  do.call(core_config, c(list(sampler), hmc_warmup_config(explorer, run), shared, dynamics,
                         list(core_class = if (riemann) "vhmc_surrogate_rmhmc" else "vhmc_surrogate_hmc")))
}

# Whether a chain may hand over to NUTS when the surrogate will not pay off: by default yes
# for the automatic sampler, no when the user fixed the paper's settings (steps or step_size)
# or asked for RNS-RMHMC or ARNS-HMC, which are then what is being run.
surrogate_fallback <- function(sampler) {
  sampler$fallback %||% (is.null(sampler$steps) && is.null(sampler$step_size) &&
                           !isTRUE(sampler$riemann) && !isTRUE(sampler$adaptive))
}

auto_warmup.vhmc_surrogate_hmc <- function(sampler) is.null(sampler$explore)

# Where the start regularised the Laplace covariance (a rare category's half-wall, R/start.R),
# the exploration samples with the Laplace metric itself, whose spread along those directions
# (the flat side) the training points must cover; the split leapfrog resolves the walls. With
# the regularised one (variance shrunk 6,000-25,000-fold in five directions of a9a's full
# design, d = 118) NUTS's 30-43 exploration iterations hardly moved along them, and the
# surrogate, whose dynamics' metric gives them back their spread, ran beyond its training
# points: acceptance 0.55-0.69 at step sizes 0.008-0.035 (inst/bench/surrogate_explore.R).
start_metric_regularised.vhmc_surrogate_hmc <- function(sampler) FALSE

sampler_label.vhmc_surrogate_hmc <- function(sampler) {
  if (isTRUE(sampler$riemann)) {
    return(sprintf("surrogate RMHMC (RNS-RMHMC; %s metric)",
                   if (identical(sampler$riemann_metric, "diagonal")) "Hessian-diagonal" else "dense Hessian"))
  }
  metric_label("surrogate HMC", sampler)
}

# Per-chain reports, with the surrogate gradients from the chains' counts.
add_report.vhmc_surrogate_hmc <- function(sampler, fit, results, target) {
  fit$surrogate <- lapply(results, function(r) {
    c(r$report, list(n_surrogate_grad_warmup = r$counts$n_surrogate_grad_warmup,
                     n_surrogate_grad_sampling = r$counts$n_surrogate_grad_sampling))
  })
  fit
}

check_report.vhmc_surrogate_hmc <- function(sampler, fit) check_surrogate(fit)

header_lines.vhmc_surrogate_hmc <- function(sampler, fit) surrogate_line(fit)

#' What the surrogate of each chain did
#'
#' For fits with [surrogate_hmc()]: per chain, the surrogate's size and activation, where its
#' quadratic base came from (`"mode Hessian"`, `"least squares"` or `"least squares about the mode
#' Hessian"`: shrunk toward it), how many likelihood rows
#' it computes exactly (`exact_rows`; see "Training" in [surrogate_hmc()]), the exploration and
#' tuning lengths (iterations), the training-set size, the held-out gradient error, the step
#' size, the tuned number of steps and integration time (with its planned maximum), the
#' sampling acceptance rate, the counts of true gradients, true log-density evaluations and
#' surrogate gradients, and where the warmup's seconds went (exploration, training, tuning).
#'
#' `seconds_per_gradient` is the measured cost of a true gradient in the exploration (NUTS
#' overhead included), `seconds_per_surrogate_gradient` that of a surrogate gradient in
#' tuning. `cost_ratio` is the seconds of an exploration (NUTS) iteration over those of a
#' surrogate iteration in tuning: how many times cheaper an iteration became. Below 2 the
#' surrogate cannot repay its exploration and training, and the fit says so in a message.
#'
#' `fallback` says whether the chain handed over to NUTS at the end of warmup (see "Handing
#' over to NUTS" in [surrogate_hmc()]), from `tuning_accept` (the acceptance rate over the
#' tuning's second half), `jump_ratio` (the surrogate's mean squared jump per iteration over
#' NUTS's, each in units of the exploration's variances and averaged over coordinates),
#' `ess_ratio` (the ratio of the AR(1) effective samples per iteration those averaged jumps
#' imply, each at most 1), `payoff_cost_ratio` (seconds of a NUTS iteration over those of a surrogate
#' one, both after their burn-in) and `efficiency_ratio`, the product of the last two;
#' `fallback_warmup` counts the iterations of NUTS warmup adaptation that ran after the
#' hand-over (0 without one): the exploration's adaptation goes on there, as `nuts()`'s
#' warmup would have gone on. After a hand-over, `step_size` is NUTS's and `accept` NUTS's
#' mean acceptance statistic. `fallback_before_training` says whether the chain handed over
#' before training (then `hidden` and the tuning's columns are `NA` or 0), from
#' `predicted_efficiency_ratio` (what a surrogate exact on its Gaussian would reach relative
#' to NUTS at the tuning's acceptance target, training's seconds included),
#' `predicted_efficiency_if_accurate` (the same at an acceptance of 0.85), `trial_share`
#' (training and the tuning's iterations, predicted, over the seconds NUTS's remaining
#' iterations would take) and `predicted_train_seconds`; all are `NA` when the decision was
#' not taken (`fallback = FALSE`, or the quadratic base alone sufficed).
#'
#' `accept_target` is the acceptance rate the chain's sampling kernel was tuned toward: the
#' tuning's (0.65, `adapt_delta` if lower), or `adapt_delta` after a hand-over to NUTS; `NA`
#' when nothing was tuned toward one (`steps` given, or RNS-RMHMC's `step_size`). `accept_in_band` says whether `accept`
#' is in the band the tuning promises: for the surrogate, within 0.15 of its target, or
#' above it when the integration time reached 90% of its maximum (a surrogate better than
#' the target needs runs the longest trajectory worth running, and accepts more); for NUTS,
#' from 0.1 below `adapt_delta` to 0.15 above it (at most 1).
#'
#' With `riemann = TRUE` two more columns count the implicit steps left unsolved (see
#' [rmhmc()]): `fixed_point_failures` (warmup included) and `fixed_point_failures_sampling`.
#'
#' `predicted_ess` is the effective sample size per iteration that the Gaussian
#' approximation behind the automatic trajectory length predicts for the worst coordinate
#' at full acceptance (above 1: antithetic draws, as NUTS gets on near-Gaussian
#' posteriors); `NA` or 0 when the length came from `steps` or from the exploration's
#' trajectories. Compare it with the measured bulk ESS per draw.
#'
#' `grad_rmse` is the root mean square error of the surrogate's gradient on held-out
#' training points in standardised coordinates (where the posterior has unit scale);
#' `grad_rel_error` is the pooled relative error ||grad z - grad U|| / ||grad U||.
#'
#' @param fit A fit made with `sampler = surrogate_hmc()`.
#' @return A data frame with one row per chain.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(am ~ wt + hp, data = mtcars, family = binomial(),
#'                 sampler = surrogate_hmc(), chains = 2, seed = 1, progress = FALSE)
#' surrogate_info(fit)
#' }
#' @export
surrogate_info <- function(fit) {
  s <- sampler_reports(fit, "surrogate", "surrogate_hmc()")
  col <- function(name, type = numeric(1)) report_column(s, name, type)
  info <- data.frame(
    chain = seq_along(s), hidden = col("hidden"), activation = col("activation", character(1)),
    train_on = col("train_on", character(1)), quadratic = col("quadratic", character(1)),
    exact_rows = col("exact_rows"),
    explore = col("explore"), tuning = col("tuning"), n_train = col("n_train"), grad_rmse = col("grad_rmse"),
    grad_rel_error = col("grad_rel_error"),
    step_size = vapply(fit$adaptation, `[[`, numeric(1), "step_size"), steps = col("steps"),
    integration_time = col("integration_time"), max_integration_time = col("max_integration_time"),
    predicted_ess = col("predicted_ess_mean"),
    accept = vapply(fit$diagnostics, function(d) mean(d$accept_stat__), numeric(1)),
    n_grad = fit$counts$n_grad, n_potential = fit$counts$n_potential,
    n_surrogate_grad = col("n_surrogate_grad_warmup") + col("n_surrogate_grad_sampling"),
    n_refresh = col("n_refresh"), explore_seconds = col("explore_seconds"),
    train_seconds = col("train_seconds"), tuning_seconds = col("tuning_seconds"),
    seconds_per_gradient = col("seconds_per_gradient"),
    seconds_per_surrogate_gradient = col("seconds_per_surrogate_gradient")
  )
  info$cost_ratio <- (info$explore_seconds / info$explore) / (info$tuning_seconds / info$tuning)
  info$tuning_accept <- col("tuning_accept")
  info$jump_ratio <- col("jump_ratio")
  info$ess_ratio <- col("ess_ratio")
  info$payoff_cost_ratio <- col("payoff_cost_ratio")
  info$efficiency_ratio <- col("efficiency_ratio")
  info$fallback <- as.logical(col("fallback", logical(1)))
  info$fallback_before_training <- as.logical(col("fallback_before_training", logical(1)))
  info$fallback_unfit <- as.logical(col("fallback_unfit", logical(1)))
  info$held_out_error_threshold <- col("held_out_error_threshold")
  info$predicted_efficiency_ratio <- col("predicted_efficiency_ratio")
  info$predicted_efficiency_if_accurate <- col("predicted_efficiency_if_accurate")
  info$trial_share <- col("trial_share")
  info$predicted_train_seconds <- col("predicted_train_seconds")
  info$fallback_warmup <- col("fallback_warmup")
  info <- accept_band(info, fit$sampler)
  if (isTRUE(fit$sampler$riemann)) {
    info$fixed_point_failures <- col("fixed_point_failures")
    info$fixed_point_failures_sampling <- col("fixed_point_failures_sampling")
  }
  info
}

# The acceptance target of each chain's sampling kernel and whether its acceptance is in the
# band the tuning promises (surrogate_info()'s documentation; trajectory_tuning.hpp).
accept_band <- function(info, sampler) {
  delta <- sampler$adapt_delta
  nuts <- !is.na(info$fallback) & info$fallback
  # RNS-RMHMC tunes its step size, surrogate HMC its integration time, unless the user fixed them.
  tuned <- if (isTRUE(sampler$riemann)) is.null(sampler$step_size) else is.null(sampler$steps)
  info$accept_target <- ifelse(nuts, delta, if (tuned) min(delta, 0.65) else NA_real_)
  at_cap <- !is.na(info$integration_time) & info$integration_time >= 0.9 * info$max_integration_time
  lo <- info$accept_target - ifelse(nuts, 0.1, 0.15)
  hi <- ifelse(nuts, pmin(1, info$accept_target + 0.15), ifelse(at_cap, 1, info$accept_target + 0.15))
  info$accept_in_band <- info$accept >= lo & info$accept <= hi
  info
}

# Warn when the surrogate's acceptance collapsed (the draws are still exact, but few).
check_surrogate <- function(fit) {
  if (is.null(fit$surrogate)) return(invisible())
  info <- surrogate_info(fit)
  chains <- function(which) sprintf("chain%s %s", if (sum(which) > 1) "s" else "",
                                    paste(info$chain[which], collapse = ", "))
  fell <- !is.na(info$fallback) & info$fallback
  early <- fell & !is.na(info$fallback_before_training) & info$fallback_before_training
  if (any(early)) message(untrained_message(info, early, chains(early)))
  unfit <- fell & !early & info$fallback_unfit %in% TRUE
  if (any(unfit)) message(fallback_message(info, unfit, chains(unfit)))
  if (any(fell & !early & !unfit)) message(fallback_message(info, fell & !early & !unfit, chains(fell & !early & !unfit)))
  info <- info[!fell, , drop = FALSE]
  if (!nrow(info)) return(invisible())
  low <- info$accept < 0.1
  if (any(low)) {
    warning(sprintf(paste(
      "surrogate_hmc: the mean acceptance rate is below 0.1 in %s (%s). The draws are",
      "still exact but few of them are distinct. To fix: more hidden units (`hidden`), a",
      "longer exploration (`explore`, `warmup`), value training (`train_on`) or `adaptive = TRUE`;",
      "see surrogate_info(fit)."), chains(low), paste(format(round(info$accept[low], 3)), collapse = ", ")),
      call. = FALSE)
  }
  short <- info$integration_time < 0.25 * info$max_integration_time
  if (any(short)) {
    warning(sprintf(paste(
      "surrogate_hmc: the surrogate is too inaccurate for full-length trajectories in %s",
      "(integration time %s of the %s planned), so the draws are strongly autocorrelated.",
      "To fix: more hidden units (`hidden`) or a longer exploration (`explore`, `warmup`);",
      "see surrogate_info(fit)."), chains(short),
      paste(format(signif(info$integration_time[short], 2)), collapse = ", "),
      format(signif(max(info$max_integration_time[short]), 2))), call. = FALSE)
  }
  check_surrogate_cost(info)
  if (isTRUE(fit$sampler$riemann)) {
    check_solver_failures(fit, fit$surrogate, "surrogate_hmc", "surrogate_info(fit)",
                          "a smaller step_size, e.g. surrogate_hmc(riemann = TRUE, step_size = 0.5)")
  }
  invisible()
}

# The chains that handed over to NUTS, and why (surrogate_payoff.hpp): `fell` all for the same
# reason (the held-out error, or the costs).
fallback_message <- function(info, fell, which) {
  f <- function(x) paste(format(signif(x[fell], 2), trim = TRUE), collapse = ", ")
  if (all(info$fallback_unfit[fell] %in% TRUE)) {
    return(sprintf(paste(
      "surrogate_hmc: %s continued with NUTS on the true gradient: the surrogate could not fit the",
      "log density (held-out gradient error %s%%, above the %s%% at which it can drive trajectories),",
      "whatever its cost. The posterior is far from any shape the network fits (for example a",
      "curved ridge of parameters that enter the model only together, or modes apart); the draws",
      "after warmup are NUTS's. A longer exploration (`explore`) or more bases (`hidden`) may fit it;",
      "surrogate_hmc(fallback = FALSE) keeps it regardless. See surrogate_info(fit)."),
      which, f(100 * info$grad_rel_error), format(100 * max(info$held_out_error_threshold[fell]))))
  }
  sprintf(paste(
    "surrogate_hmc: %s continued with NUTS on the true gradient: measured in warmup, the",
    "surrogate would not pay off (efficiency relative to NUTS %s = effective-sample ratio %s x",
    "cost ratio %s; tuning acceptance %s). The draws after warmup are NUTS's;",
    "surrogate_hmc(fallback = FALSE) keeps the surrogate. See surrogate_info(fit)."),
    which, f(info$efficiency_ratio), f(info$ess_ratio), f(info$payoff_cost_ratio), f(info$tuning_accept))
}

# The chains that handed over to NUTS before training, and why (training_payoff.hpp).
untrained_message <- function(info, early, which) {
  f <- function(x) paste(format(signif(x[early], 2), trim = TRUE), collapse = ", ")
  sprintf(paste(
    "surrogate_hmc: %s continued with NUTS on the true gradient without training a surrogate:",
    "measured in the exploration, even exact on its Gaussian and at the tuning's acceptance target",
    "it would reach",
    "%s times NUTS's efficiency, below the %s a hand-over asks (%s at an accurate surrogate's",
    "acceptance; training and tuning predicted to cost %s%% of NUTS's remaining time, training %s s).",
    "The gradient is cheap here; the draws after warmup are NUTS's.",
    "surrogate_hmc(fallback = FALSE) trains and keeps the surrogate. See surrogate_info(fit)."),
    which, f(info$predicted_efficiency_ratio), format(core_default("vhmc_surrogate_hmc", "fallback_ratio")),
    f(info$predicted_efficiency_if_accurate), f(100 * info$trial_share), f(info$predicted_train_seconds))
}

# Say so when an iteration of the surrogate is not clearly cheaper than one of NUTS on the
# true gradient (both measured in this fit's warmup): then the surrogate cannot pay for its
# exploration and training, typically because the gradient is already cheap (small N).
check_surrogate_cost <- function(info, threshold = 2) {
  if (!any(info$tuning > 0)) return(invisible())  # no surrogate iterations in warmup to time
  ratio <- stats::median(info$cost_ratio[info$tuning > 0])
  if (!is.finite(ratio) || ratio >= threshold) return(invisible())
  ms <- function(x) format(signif(1000 * stats::median(x), 2))
  message(sprintf(paste(
    "surrogate_hmc will not pay off on this model: an iteration costs %s ms with the surrogate",
    "against %s ms with NUTS on the true gradient (cost ratio %s, measured in warmup), which",
    "does not repay the exploration and training. The gradient is cheap here; nuts() is",
    "likely faster (compare their min bulk ESS per second)."),
    ms(info$tuning_seconds / info$tuning), ms(info$explore_seconds / info$explore),
    format(signif(ratio, 2))))
  invisible()
}

# One line for print(): surrogate size, training and acceptance, summarised over chains.
surrogate_line <- function(fit) {
  info <- surrogate_info(fit)
  untrained <- !is.na(info$fallback_before_training) & info$fallback_before_training
  if (all(untrained)) return("surrogate: none trained (every chain handed over to NUTS before training)")
  info <- info[!untrained, , drop = FALSE]
  rng <- function(v, digits) {
    r <- unique(signif(range(v), digits))
    paste(format(r, trim = TRUE), collapse = "-")
  }
  quad <- if (is.na(info$quadratic[1])) "" else
    sprintf("quadratic (%s) + ", paste(unique(info$quadratic), collapse = "/"))
  sprintf("surrogate: %s%s %s bases fitted to %s %ss (held-out gradient error %s); acceptance %s%s",
          quad, rng(info$hidden, 4), info$activation[1], rng(info$n_train, 3), info$train_on[1],
          paste0(rng(100 * info$grad_rel_error, 2), "%"), rng(info$accept, 2),
          paste0(if (isTRUE(fit$sampler$adaptive)) "; adaptive (ARNS-HMC)" else "",
                 if (any(untrained)) sprintf("; %d chain(s) handed over to NUTS before training", sum(untrained))
                 else ""))
}

check_target.vhmc_surrogate_hmc <- function(sampler, target) check_mode_target(sampler, target)
