#' Metropolis-Hastings with surrogate transitions
#'
#' Configures the surrogate transition method (Liu 2001; delayed acceptance, Christen and Fox
#' 2005) for expensive log densities written in R without a gradient ([vhmc_sample()]): ODE
#' and process models, simulators. Each iteration of each chain runs `steps` random-walk
#' Metropolis steps on a cheap surrogate `s` of the log density `p`, and accepts the state
#' `y` they reach with probability `min(1, exp(p(y) - p(x) - s(y) + s(x)))`. So each iteration
#' costs one model run, and the chains are exact for any surrogate: a poor surrogate lowers
#' the acceptance rate, never the correctness of the draws.
#'
#' The surrogate is a Gaussian process with a concave quadratic mean (Rasmussen and Williams
#' 2006), fitted to the log densities evaluated before sampling, in coordinates whitened by a
#' Gaussian approximation of the posterior. The mean has half the fitted curvature, so that
#' the surrogate's tails are heavier than the posterior's: where a surrogate falls below the
#' log density, the correction rejects every way out and a chain sticks. The Gaussian comes
#' from the chains' start (`init = NULL`): each chain's mode search starts from one of the
#' best points of a Latin hypercube of `20 d` points over the parameter space (over each box
#' on its logit scale), as ODE models often have local modes (fits that miss the data's
#' period) that searches from random points end in; the best mode found, its Laplace
#' approximation refined by `refine` weighted quadratic regressions on
#' `3 (1 + d + d (d + 1) / 2)` draws each (finite-difference Hessians of a model solved to a
#' tolerance mislead; a regression over the Gaussian's scale does not), and `pilot` draws of
#' the result. A chain whose search failed starts from the best mode; a chain that starts
#' more than the 0.999 chi-square quantile / 2 + 5 nats below the best point of the
#' exploration (its search ended at a local mode or short of one, or its given initial value
#' lies there) is moved to a draw near the best mode before warmup, and a message says so. Warmup refits the surrogate and the random walk's covariance after 50
#' iterations and every 100 after; with the automatic warmup (`warmup = NULL`) it ends after
#' the third refit (250 iterations) if the surrogate can then drive the chains. Sampling keeps
#' them fixed.
#'
#' A share `de_moves` of the iterations (drawn at random) makes a differential-evolution move
#' on the model instead (DE-MCzs, ter Braak and Vrugt 2008, as [demc()]: a difference of two
#' states of an archive of warmup's states, fixed in sampling), and every iteration does while
#' the surrogate's held-out error exceeds `max_error` log-density units (a surrogate that cannot drive
#' the chains; the automatic warmup then continues, refitting every 100 iterations, up to
#' `floor(iter / 2)`). Both moves are exact, and so is their mixture. The DE moves explore
#' what the surrogate does not describe yet (a ridge, another mode), and their runs train the
#' next surrogate; in sampling they move a chain out of a region where the surrogate falls
#' below the model, where every surrogate transition out is rejected. Without them, on a
#' posterior that is a long curved ridge the chains stay where the first surrogate put its
#' mass, and agree with each other (R-hat near 1) while missing the rest of the ridge.
#'
#' On a Lotka-Volterra model with 6 parameters in boxes (`inst/bench/expensive_models.R`),
#' its default call gave 10 to 30 times the effective draws per model run of BayesianTools'
#' DEzs; see `vignette("expensive-models")`. Where no Gaussian describes the posterior's mass
#' (several modes of similar weight, long curved ridges), it gains little over [demc()].
#'
#' The chains form one population that trains one surrogate; it runs in one process (`cores`
#' is not used), and the draws of one `seed` are the same on any number of cores.
#' `fit$surrogate_mh` has, per chain, its accepted proposals (`moves_warmup`,
#' `moves_sampling`) and log-density evaluations, and the population's: the surrogate's
#' held-out error (`surrogate_error`, the standard deviation in log density units over
#' held-out points of the typical set; `quadratic_error` that of its mean alone), its length
#' scale and training points, the evaluations of the exploration, the chains moved from a
#' local mode (`relocated`; `relocated_gap`, per chain, how far below the best it was,
#' 0 if not moved), the model runs of sampling, the surrogate steps' acceptance
#' rate (`inner_accept`), the share of differential-evolution moves in sampling (`de_share`)
#' and their model runs (`de_runs_sampling`).
#'
#' @param steps Random-walk steps on the surrogate per iteration (more steps travel further
#'   per model run while the surrogate is good).
#' @param pilot Draws of the refined Gaussian evaluated before warmup, for the surrogate and
#'   the first archive of the differential-evolution moves (at least 3).
#' @param refine Quadratic refinements of the Laplace approximation before the pilot draws.
#' @param max_points The surrogate's training points at most (its cost grows with their
#'   square per evaluation's size and their cube per fit).
#' @param de_moves The share of iterations, between 0 and 1, that make a differential-evolution
#'   move on the model instead of a surrogate transition (all of them while the surrogate
#'   cannot drive the chains).
#' @param max_error The surrogate's held-out error (log-density units) above which it cannot
#'   drive the chains, and every iteration makes a differential-evolution move.
#' @return An object of class `c("vhmc_surrogate_mh", "vhmc_sampler")`.
#' @references ter Braak, C. J. F. and Vrugt, J. A. (2008). Differential Evolution Markov
#'   Chain with snooker updater and fewer chains. *Statistics and Computing* 18, 435-446.
#'   Liu, J. S. (2001). *Monte Carlo Strategies in Scientific Computing*.
#'   Springer (the surrogate transition method). Christen, J. A. and Fox, C. (2005). Markov
#'   chain Monte Carlo using an approximation. *Journal of Computational and Graphical
#'   Statistics* 14, 795-810. Rasmussen, C. E. and Williams, C. K. I. (2006). *Gaussian
#'   Processes for Machine Learning*. MIT Press.
#' @seealso `vignette("expensive-models", package = "vhmc")`; [demc()] for posteriors with
#'   several modes or ridges no Gaussian approximation describes; [surrogate_hmc()] for
#'   models with a gradient.
#' @examples
#' surrogate_mh()
#' \donttest{
#' # A correlated Gaussian inside a box, as an expensive model would be declared
#' ld <- function(th) -0.5 * (th[["a"]]^2 - 1.6 * th[["a"]] * th[["b"]] + th[["b"]]^2) / 0.36
#' fit <- vhmc_sample(ld, lower = c(a = -5, b = -5), upper = c(a = 5, b = 5),
#'                    sampler = surrogate_mh(), seed = 1, progress = FALSE)
#' fit$model_runs
#' }
#' @export
surrogate_mh <- function(steps = 50, pilot = 200, refine = 4, max_points = 1000, de_moves = 0.1, max_error = 2) {
  new_sampler("surrogate_mh",
    steps = check_count(steps, "steps"),
    pilot = check_count(pilot, "pilot", min = 3L),
    de_moves = check_number(de_moves, "de_moves", 0, 1),
    max_error = check_number(max_error, "max_error", 0),
    refine = check_count(refine, "refine", min = 0L),
    max_points = check_count(max_points, "max_points")
  )
}

sampler_config.vhmc_surrogate_mh <- function(sampler, run, target) {
  core_config(sampler, members = run$chains, steps = sampler$steps, pilot = sampler$pilot,
              refine = sampler$refine, max_points = sampler$max_points,
              de_moves = sampler$de_moves, max_error = sampler$max_error)
}

sampler_label.vhmc_surrogate_mh <- function(sampler) "Metropolis-Hastings with surrogate transitions"
uses_gradient.vhmc_surrogate_mh <- function(sampler) FALSE
auto_warmup.vhmc_surrogate_mh <- function(sampler) TRUE
start_screen.vhmc_surrogate_mh <- function(sampler) 20L
# The exploration's quadratic regressions refine the Laplace approximation over the
# posterior's scale (finite-difference Hessians of a model solved to a tolerance mislead), so
# the searches stop early (100 evaluations: with finite differences, 100 (2 d + 1) model runs)
# and take no Newton steps: on the box-bounded Lotka-Volterra model one full search wandered
# for about 10,000 model runs.
mode_search.vhmc_surrogate_mh <- function(sampler) list(iterations = 100L, evaluations = 100L, newton = FALSE, converge = FALSE)
divergence_fix.vhmc_surrogate_mh <- function(sampler) "not applicable"
check_target.vhmc_surrogate_mh <- function(sampler, target) check_population_target(sampler, target)
run_sampler_chains.vhmc_surrogate_mh <- function(sampler, chain_fun, args, target, threads = NULL) {
  run_population(chain_fun, args, target)
}

# The population's Gaussian starts from the best mode the chains' searches found (the lowest
# potential); the core moves the chains that start far below it (relocated_message()).
prepare_fit.vhmc_surrogate_mh <- function(sampler, target, inits, user_init) {
  extras <- list(scatter = target$scatter)
  anchors <- inits$anchors
  if (length(anchors) > 0L) {
    values <- vapply(anchors, `[[`, numeric(1), "value")
    best <- which.min(values)
    extras$laplace <- list(mode = anchors[[best]]$mode, hessian = anchors[[best]]$hessian)
  }
  list(extras = extras, inits = inits, stored = list())
}

# The chains the core moved (sampler/surrogate_transition.hpp decides: more than the 0.999
# chi-square quantile / 2 + 5 below the best point of the exploration), from its report.
relocated_message <- function(report) {
  gap <- report$relocated_gap
  far <- which(gap > 0)
  if (length(far) == 0L) return(invisible())
  several <- length(far) > 1L
  message(sprintf(paste("Chain%s %s started %s log-density units below the best point of the exploration (a local mode,",
                        "or a mode search that ended short of one); %s moved to the best mode's neighbourhood before",
                        "warmup (fit$surrogate_mh: relocated_gap)."),
                  if (several) "s" else "", paste(far, collapse = ", "), paste(format(signif(gap[far], 3)), collapse = "/"),
                  if (several) "they were" else "it was"))
}

add_report.vhmc_surrogate_mh <- function(sampler, fit, results, target) {
  fit$surrogate_mh <- lapply(results, `[[`, "report")
  fit
}

# Chains that (almost) never moved after warmup have not sampled: the surrogate does not
# describe where they are. A surrogate that never became usable left every move to
# differential evolution: the fit is demc()'s, at its cost per effective draw.
check_report.vhmc_surrogate_mh <- function(sampler, fit) {
  report <- fit$surrogate_mh[[1]]
  relocated_message(report)
  if (isTRUE(report$de_share >= 1) && sampler$de_moves < 1) {
    warning(structure(class = c("vhmc_surrogate_mh_unusable", "warning", "condition"), list(call = NULL, message = sprintf(
      paste("surrogate_mh(): the surrogate could not drive the chains (held-out error %s log-density units, above",
            "max_error = %s), so every iteration after warmup made a differential-evolution move, as demc() would.",
            "The posterior is likely ridged or multimodal. To fix: give a longer warmup (warmup) or more pilot",
            "draws (pilot), or use demc(); see fit$surrogate_mh."),
      format(signif(report$surrogate_error, 3)), format(sampler$max_error)))))
  }
  stuck <- stuck_chains(fit$surrogate_mh, fit$args$iter - fit_warmup(fit))
  if (length(stuck) == 0L) return(invisible())
  err <- fit$surrogate_mh[[1]]$surrogate_error
  msg <- sprintf(paste("Chain%s %s accepted fewer than 1%% of %s proposals after warmup: %s not sampled",
                       "(the surrogate's held-out error is %s log-density units). To fix: give a longer warmup",
                       "(warmup), more pilot draws (pilot), or use demc() where the posterior has ridges or",
                       "several modes; see fit$surrogate_mh."),
                 if (length(stuck) > 1) "s" else "", paste(stuck, collapse = ", "),
                 if (length(stuck) > 1) "their" else "its", if (length(stuck) > 1) "they have" else "it has",
                 format(signif(err, 3)))
  warning(structure(class = c("vhmc_surrogate_mh_stuck", "warning", "condition"), list(message = msg, call = NULL)))
}
