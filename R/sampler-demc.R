#' Differential-evolution MCMC
#'
#' Configures differential-evolution Markov chain Monte Carlo with sampling from the past and
#' snooker updates (DE-MCzs, ter Braak and Vrugt 2008), the default sampler of
#' BayesianTools (`runMCMC(sampler = "DEzs")`), for log densities written in R with
#' [vhmc_sample()]. It needs no gradient: each chain evaluates the log density once per
#' iteration. It suits expensive models without gradients whose posteriors are bounded,
#' curved or multimodal (process models, simulators), where a surrogate cannot be trained and
#' finite-difference gradients cost `2 d` model runs each.
#'
#' The chains form one population. Each proposes from the difference of two states drawn
#' from an archive of past states, `x' = x + gamma (z1 - z2) + e` with
#' `gamma = 2.38 / sqrt(2 d)` (ter Braak 2006), `gamma = 1` with probability `jump` (a
#' jump between modes), `e` a tiny jitter; or, with probability `snooker`, a snooker update
#' along the line through `x` and a third archive state. The archive starts with `10 d`
#' states spread over the parameter space by a Latin hypercube (uniform over the box of
#' parameters declared with two bounds, uniform in (-2, 2) on the sampler's coordinate
#' otherwise) and, during warmup, takes every chain's state every `archive_every`
#' iterations: the population learns the posterior's shape, ridges and separate modes
#' together. At the end of warmup the archive keeps the states of warmup's second half and is
#' frozen, so that each chain's draws are those of an exact Metropolis-Hastings chain (given
#' the archive).
#'
#' The population runs in one process (`cores` is not used), and every chain belongs to it:
#' the draws of one `seed` are the same on any number of cores. Use at least 3 chains
#' (default 4); many iterations are cheap next to a gradient-based sampler's (each costs one
#' model run per chain), and about `10 d` to `50 d` iterations per chain give one effective
#' draw on a hard posterior, so set `iter` accordingly (for example `iter = 20000` for 7
#' parameters) and `thin` to keep fewer draws. R-hat compares chains that shared an archive
#' during warmup, as BayesianTools' diagnostics of DEzs do.
#'
#' `fit$demc` has each chain's accepted proposals (`moves_warmup`, `moves_sampling`), its
#' log-density evaluations, and the archive's size after and before its trim.
#'
#' @param snooker Probability of a snooker update, between 0 and 1.
#' @param jump Probability of a parallel-direction proposal with `gamma = 1`, between 0 and 1.
#' @param gamma Scale of the parallel-direction proposals; `NULL` (default) is
#'   `2.38 / sqrt(2 d)`.
#' @param archive_every During warmup, the chains' states join the archive every this many
#'   iterations.
#' @return An object of class `c("vhmc_demc", "vhmc_sampler")`.
#' @references ter Braak, C. J. F. (2006). A Markov chain Monte Carlo version of the genetic
#'   algorithm Differential Evolution: easy Bayesian computing for real parameter spaces.
#'   *Statistics and Computing* 16, 239-249. ter Braak, C. J. F. and Vrugt, J. A. (2008).
#'   Differential Evolution Markov Chain with snooker updater and fewer chains. *Statistics
#'   and Computing* 18, 435-446.
#' @seealso `vignette("expensive-models", package = "vhmc")`; [rwm()] for a single-chain
#'   gradient-free sampler, [surrogate_hmc()] for expensive models whose log density is
#'   smooth enough for a surrogate.
#' @examples
#' demc()
#' \donttest{
#' # Two separated modes with weights 0.3 and 0.7, inside a box
#' ld <- function(th) log(0.3 * dnorm(th[["x"]], -3, 0.5) + 0.7 * dnorm(th[["x"]], 3, 0.5)) +
#'   dnorm(th[["y"]], 0, 1, log = TRUE)
#' fit <- vhmc_sample(ld, lower = c(x = -10, y = -10), upper = c(x = 10, y = 10),
#'                    sampler = demc(), iter = 6000, seed = 1, progress = FALSE)
#' mean(posterior::extract_variable(fit$draws, "x") > 0)  # about 0.7
#' }
#' @export
demc <- function(snooker = 0.1, jump = 0.1, gamma = NULL, archive_every = 10) {
  new_sampler("demc",
    snooker = check_number(snooker, "snooker", 0, 1),
    jump = check_number(jump, "jump", 0, 1),
    gamma = if (is.null(gamma)) NULL else check_number(gamma, "gamma", 0, Inf, open = c(TRUE, TRUE)),
    archive_every = check_count(archive_every, "archive_every")
  )
}

sampler_config.vhmc_demc <- function(sampler, run, target) {
  core_config(sampler, members = run$chains, gamma = sampler$gamma, jump = sampler$jump,
              snooker = sampler$snooker, archive_every = sampler$archive_every)
}

sampler_label.vhmc_demc <- function(sampler) "differential-evolution MCMC (DE-MCzs)"
uses_gradient.vhmc_demc <- function(sampler) FALSE
start_method.vhmc_demc <- function(sampler) "random"
divergence_fix.vhmc_demc <- function(sampler) "not applicable"

# The population needs a target that can spread states over its parameter space (`population`:
# targets written in R, whose `scatter()` does it); demc() needs at least 3 chains (a
# difference of two archive states needs distinct states, the snooker a third).
check_target.vhmc_demc <- function(sampler, target) check_population_target(sampler, target)

# A population sampler runs only on a target that hosts a population (targets written in R).
check_population_target <- function(sampler, target) {
  if (!isTRUE(target$population)) {
    stop_arg("sampler", sprintf(paste("is %s(), a gradient-free population sampler for log densities written in R",
                                      "(vhmc_sample()), and %s has exact gradients"), sampler_name(sampler),
                                target$description %||% "a model of the formula interface"),
             sprintf("Use %s.", target$samplers %||% "nuts() (the default)"))
  }
  invisible()
}

prepare_fit.vhmc_demc <- function(sampler, target, inits, user_init) {
  if (length(inits$internal) < 3L) {
    stop_arg("chains", sprintf("is %d, but demc() needs a population of at least 3 chains", length(inits$internal)),
             "Use chains = 4 (the default) or more.")
  }
  list(extras = list(scatter = target$scatter), inits = inits, stored = list())
}

# The whole population is one run of the core, whose state is every chain's one after the
# other; its result is split into one result per chain.
run_sampler_chains.vhmc_demc <- function(sampler, chain_fun, args, target, threads = NULL) {
  run_population(chain_fun, args, target)
}

run_population <- function(chain_fun, args, target) {
  pop <- run_chains(function(chain) chain_fun(1L, population = TRUE), 1L, 1L, target$globals)
  split_population(pop[[1]], args$chains)
}

# One chain's result (as the core gives it for a chain) from the population's: its columns of
# the draws, its acceptance probabilities, its evaluations and moves, its share of the time
# and of the model runs (one log-density call per evaluation); the population's other
# reports (one value each) go to every chain.
split_population <- function(res, chains) {
  if (isTRUE(res$interrupted) || nzchar(res$error %||% "") || is.null(res$report$member_accept)) {
    return(rep(list(res), chains))
  }
  d <- ncol(res$draws) %/% chains
  rep_ <- res$report
  evals <- as.numeric(rep_$member_evaluations)
  shared <- rep_[setdiff(names(rep_), c("member_accept", "member_evaluations", "moves_warmup", "moves_sampling"))]
  lapply(seq_len(chains), function(k) {
    r <- res
    r$draws <- res$draws[, (k - 1L) * d + seq_len(d), drop = FALSE]
    r$diagnostics <- list(accept_stat__ = rep_$member_accept[, k])
    r$counts[] <- 0
    r$counts$n_potential <- evals[k]
    share <- evals[k] / sum(evals)
    r$warmup_seconds <- res$warmup_seconds * share
    r$sampling_seconds <- res$sampling_seconds * share
    if (!is.null(res$model_runs)) r$model_runs <- res$model_runs * share
    if (!is.null(res$phase_runs)) r$phase_runs[c("log_density", "gradient")] <- res$phase_runs[c("log_density", "gradient")] * share
    r$target_errors <- if (k == 1L) res$target_errors else 0
    r$report <- c(list(moves_warmup = rep_$moves_warmup[k], moves_sampling = rep_$moves_sampling[k],
                       evaluations = evals[k]), shared)
    r
  })
}

add_report.vhmc_demc <- function(sampler, fit, results, target) {
  fit$demc <- lapply(results, `[[`, "report")
  fit
}

# A chain that accepted (almost) no proposal after warmup has not sampled (as for rwm()).
check_report.vhmc_demc <- function(sampler, fit) {
  stuck <- stuck_chains(fit$demc, fit$args$iter - fit$args$warmup)
  if (length(stuck) == 0L) return(invisible())
  msg <- sprintf(paste("Chain%s %s accepted fewer than 1%% of %s proposals after warmup: %s not sampled.",
                       "To fix: run a longer warmup (the archive then describes the posterior better) or",
                       "start the chains nearer the posterior mass; see fit$demc."),
                 if (length(stuck) > 1) "s" else "", paste(stuck, collapse = ", "),
                 if (length(stuck) > 1) "their" else "its", if (length(stuck) > 1) "they have" else "it has")
  warning(structure(class = c("vhmc_demc_stuck", "warning", "condition"), list(message = msg, call = NULL)))
}
