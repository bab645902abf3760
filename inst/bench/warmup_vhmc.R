# vhmc side of inst/bench/warmup.R (sourced by it after the settings): the engine
# configurations, one timed fit, and what is read back from a fit. Written for the API of
# the warmup issue and for the one before it (new_api, set by warmup.R).

# Engine configurations; an unavailable engine carries the reason instead of a sampler.
vhmc_engines <- function() {
  stan_style <- if (new_api) list(adaptation = "stan") else list()
  after <- function(metric = NULL) {
    if (!new_api) return(list(unavailable = "needs the vhmc of the warmup issue"))
    if (!is.null(metric) && !metric %in% metric_choices) {
      return(list(unavailable = sprintf("nuts() has no metric \"%s\"", metric)))
    }
    list(sampler = if (is.null(metric)) vhmc::nuts() else vhmc::nuts(metric = metric))
  }
  list(
    vhmc_before = list(sampler = do.call(vhmc::nuts, c(list(metric = "diag"), stan_style)),
                       warmup = iter %/% 2L, init = "random"),
    vhmc_after = after(), vhmc_after_diag = after("diag"), vhmc_after_low_rank = after("low_rank"))
}

# Evaluates `expr` (lazily, so inside the clock), keeping the warnings and messages it gives.
timed <- function(expr) {
  notes <- character()
  keep <- function(cond, restart) {
    notes <<- c(notes, trimws(conditionMessage(cond)))
    invokeRestart(restart)
  }
  t0 <- proc.time()[["elapsed"]]
  value <- withCallingHandlers(expr, warning = function(w) keep(w, "muffleWarning"),
                               message = function(m) keep(m, "muffleMessage"))
  list(value = value, seconds = proc.time()[["elapsed"]] - t0, notes = unique(notes))
}

short_notes <- function(notes) {
  if (!length(notes)) return("")
  paste(substr(gsub("\\s+", " ", notes), 1, 110), collapse = " | ")
}

prior_vhmc <- function(p) {
  if (is.null(p)) return(NULL)
  f <- switch(p$dist, flat = vhmc::flat, normal = vhmc::normal, cauchy = vhmc::cauchy,
              student_t = vhmc::student_t, exponential = vhmc::exponential)
  if (p$dist == "flat") f() else do.call(f, c(p$args, list(autoscale = FALSE)))
}

# The arguments of one vhmc_glm() call. init = "random" means the old random start: the
# new API spells it "random"; before the issue it was the default (init = NULL).
glm_call_args <- function(m, cfg, chains, seed) {
  a <- list(formula = stats::as.formula(m$formula), data = m$data, family = m$family,
            prior = prior_vhmc(m$prior), sampler = cfg$sampler, chains = chains, iter = iter,
            seed = seed, cores = cores, progress = FALSE)
  if (!is.null(m$prior_intercept)) a$prior_intercept <- prior_vhmc(m$prior_intercept)
  if (m$family == "gaussian") a$prior_aux <- prior_vhmc(m$prior_aux)
  if (!is.null(cfg$warmup)) a$warmup <- cfg$warmup
  if (identical(cfg$init, "random") && new_api) a$init <- "random"
  a
}

# kilpisjarvi_mod on (alpha, beta, log_sigma): Gaussian likelihood, normal priors on alpha
# and beta, flat sigma, plus the log-Jacobian log_sigma of sigma = exp(log_sigma).
kilpis_target <- function(m) {
  n <- length(m$y)
  parts <- function(th) {
    r <- m$y - th[["alpha"]] - th[["beta"]] * m$x
    list(r = r, s2 = exp(2 * th[["log_sigma"]]))
  }
  lp <- function(th) {
    p <- parts(th)
    -0.5 * ((th[["alpha"]] - m$pmualpha) / m$psalpha)^2 -
      0.5 * ((th[["beta"]] - m$pmubeta) / m$psbeta)^2 -
      (n - 1) * th[["log_sigma"]] - sum(p$r^2) / (2 * p$s2)
  }
  grad <- function(th) {
    p <- parts(th)
    c(alpha = -(th[["alpha"]] - m$pmualpha) / m$psalpha^2 + sum(p$r) / p$s2,
      beta = -(th[["beta"]] - m$pmubeta) / m$psbeta^2 + sum(p$r * m$x) / p$s2,
      log_sigma = -(n - 1) + sum(p$r^2) / p$s2)
  }
  list(lp = lp, grad = grad, parameters = c("alpha", "beta", "log_sigma"))
}

# The old random start of vhmc_sample(), uniform(-2, 2) per coordinate and chain, given
# explicitly so that it means the same whatever the installed API calls its default.
random_inits <- function(names, chains, seed) {
  set.seed(seed)
  lapply(seq_len(chains), function(i) stats::setNames(stats::runif(length(names), -2, 2), names))
}

sample_call_args <- function(m, cfg, chains, seed) {
  tg <- kilpis_target(m)
  a <- list(log_density = tg$lp, gradient = tg$grad, sampler = cfg$sampler, chains = chains,
            iter = iter, seed = seed, cores = cores, progress = FALSE)
  if (identical(cfg$init, "random")) a$init <- random_inits(tg$parameters, chains, seed)
  else a$parameters <- tg$parameters
  if (!is.null(cfg$warmup)) a$warmup <- cfg$warmup
  a
}

# One fit of model m with engine configuration cfg; returns the common result list.
fit_vhmc <- function(m, cfg, chains, seed) {
  if (m$kind == "glm") {
    tc <- timed(do.call(vhmc::vhmc_glm, glm_call_args(m, cfg, chains, seed)))
  } else {
    tc <- timed(do.call(vhmc::vhmc_sample, sample_call_args(m, cfg, chains, seed)))
  }
  vhmc_result(tc$value, tc$seconds, tc$notes, cfg$sampler$max_treedepth %||% max_treedepth,
              warmup_known = cfg$warmup, sigma_from_log = m$kind != "glm")
}

vhmc_draws <- function(fit, sigma_from_log) {
  arr <- posterior::as_draws_array(fit)
  if (!sigma_from_log) return(arr)
  arr <- posterior::mutate_variables(arr, sigma = exp(log_sigma))
  posterior::subset_draws(arr, variable = setdiff(posterior::variables(arr), "log_sigma"))
}

vhmc_result <- function(fit, seconds, notes, max_td, warmup_known, sigma_from_log = FALSE) {
  summ <- summarise_arr(vhmc_draws(fit, sigma_from_log))
  sdg <- vhmc::sampler_diagnostics(fit)
  start <- start_evaluations(fit, nrow(summ))
  list(summary = summ, whole_seconds = seconds, conds = notes,
       warmup_iters = actual_warmup(fit, warmup_known),
       total_grads = sum(fit$counts$n_grad_warmup + fit$counts$n_grad_sampling) + start,
       warmup_grads = sum(fit$counts$n_grad_warmup), start_evals = start,
       divergences = if (!is.null(sdg$divergent__)) sum(sdg$divergent__) else NA_real_,
       treedepth_hits = if (!is.null(sdg$treedepth__)) sum(sdg$treedepth__ >= max_td) else NA_real_,
       fit = fit)
}

# Gradient-equivalent evaluations spent finding the start: fit$counts$n_grad_start (potential
# and gradient evaluations of the mode search and the start draws), plus each analytic
# Hessian of a GLM's Newton search counted as d gradients (X'WX costs about d/2 to d
# gradients' work; the larger figure does not flatter vhmc). 0 for fits without a start.
start_evaluations <- function(fit, d) {
  if (is.null(fit$counts$n_grad_start)) return(0)
  sum(fit$counts$n_grad_start) + d * sum(fit$counts$n_hessian_start)
}

# Mean warmup iterations per chain that actually ran. The new API may stop warmup early, so
# the run's warmup is read from the fit (whichever of these names the core reports); a
# warmup fixed by the call is that number. NA when neither is known.
actual_warmup <- function(fit, warmup_known) {
  per_chain <- fit$timing$warmup_iterations
  if (length(per_chain)) return(mean(per_chain))
  if (!is.null(warmup_known)) return(warmup_known)
  if (!new_api) return(fit$args$warmup)
  NA_real_
}
