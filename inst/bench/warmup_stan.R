# Stan side of inst/bench/warmup.R, run by it as a separate R process (vhmc and Stan models
# never share a process):
#   Rscript inst/bench/warmup_stan.R jobs.rds results.rds
# jobs.rds holds the models (built by warmup_models.R in the main process) and the run
# settings; results.rds gets, per model, the same summary that warmup.R computes for vhmc.
# GLMs go through rstanarm::stan_glm, the custom kilpisjarvi_mod model through rstan.
args <- commandArgs(trailingOnly = TRUE)
script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                              value = TRUE))))
source(file.path(script_dir, "warmup_models.R"))
jobs <- readRDS(args[1])
run <- jobs$run

# rstanarm passes save_warmup = FALSE to rstan (rstanarm:::set_sampling_args), which drops
# the warmup rows of get_sampler_params() and with them the warmup leapfrog steps. Keep
# them, in this worker only: sampling itself is unchanged (save_warmup only decides which
# iterations are stored), and the worker checks below that all iter rows came back.
keep_rstanarm_warmup <- function() {
  set_args <- rstanarm:::set_sampling_args
  utils::assignInNamespace("set_sampling_args", function(...) {
    a <- set_args(...)
    a$save_warmup <- TRUE
    a
  }, "rstanarm")
}

to_rstanarm <- function(p) {
  if (is.null(p) || p$dist == "flat") return(NULL)
  f <- switch(p$dist, normal = rstanarm::normal, cauchy = rstanarm::cauchy,
              student_t = rstanarm::student_t, exponential = rstanarm::exponential)
  do.call(f, c(p$args, list(autoscale = FALSE)))
}

# Gradient counts from the sampler parameters of every iteration, warmup included. Each
# leapfrog step is one gradient. Not counted (so Stan is, if anything, flattered): the
# gradient at each chain's initial point and the few leapfrog steps of Stan's step-size
# heuristic, which runs once at the start and again after each of the ~5 metric updates.
stan_result <- function(stanfit, arr, wall) {
  sp <- rstan::get_sampler_params(stanfit, inc_warmup = TRUE)
  warm <- stanfit@sim$warmup
  stopifnot(all(vapply(sp, nrow, 1L) == run$iter))
  w <- seq_len(warm)
  col_sum <- function(col, rows) sum(vapply(sp, function(s) sum(s[rows, col]), numeric(1)))
  samp <- setdiff(seq_len(run$iter), w)
  list(summary = summarise_arr(arr), whole_seconds = wall, warmup_iters = warm,
       total_grads = col_sum("n_leapfrog__", seq_len(run$iter)),
       warmup_grads = col_sum("n_leapfrog__", w), start_evals = 0,
       divergences = col_sum("divergent__", samp),
       treedepth_hits = sum(vapply(sp, function(s) sum(s[samp, "treedepth__"] >= run$max_treedepth),
                                   numeric(1))))
}

rstanarm_job <- function(m, seed) {
  fam <- switch(m$family, gaussian = stats::gaussian(), binomial = stats::binomial())
  a <- list(formula = stats::as.formula(m$formula), data = m$data, family = fam,
            prior = to_rstanarm(m$prior), prior_intercept = to_rstanarm(m$prior_intercept),
            chains = run$chains, iter = run$iter, warmup = run$iter %/% 2L, cores = run$cores,
            seed = seed, refresh = 0, adapt_delta = run$adapt_delta,
            control = list(max_treedepth = run$max_treedepth), mean_PPD = FALSE)
  # list element assignment, not $<-: a NULL (flat) prior must stay in the argument list.
  if (m$family == "gaussian") a["prior_aux"] <- list(to_rstanarm(m$prior_aux))
  wall <- system.time(fit <- do.call(rstanarm::stan_glm, a))[["elapsed"]]
  arr <- posterior::as_draws_array(as.array(fit))
  stopifnot(dim(arr)[1] == run$iter - run$iter %/% 2L)
  stan_result(fit$stanfit, arr, wall)
}

# The Stan model is compiled (or read from rstan's auto_write cache in run$stan_cache)
# before the clock starts: compilation is a one-off cost, not part of the whole call.
rstan_kilpis_job <- function(m, seed) {
  # Stan's headers find Boost in the system include directory on this machine (as in nuts_targets.R).
  rstan::rstan_options(auto_write = TRUE, boost_lib = "/usr/include")
  dir.create(run$stan_cache, showWarnings = FALSE, recursive = TRUE)
  file <- file.path(run$stan_cache, "warmup_kilpisjarvi_mod.stan")
  if (!file.exists(file) || !identical(paste(readLines(file), collapse = "\n"),
                                       trimws(kilpisjarvi_stan_code))) {
    writeLines(trimws(kilpisjarvi_stan_code), file)
  }
  model <- rstan::stan_model(file)
  data <- list(N = length(m$y), x = m$x, y = m$y, pmualpha = m$pmualpha, psalpha = m$psalpha,
               pmubeta = m$pmubeta, psbeta = m$psbeta)
  wall <- system.time(fit <- rstan::sampling(
    model, data = data, chains = run$chains, iter = run$iter, warmup = run$iter %/% 2L,
    cores = run$cores, seed = seed, refresh = 0,
    control = list(adapt_delta = run$adapt_delta, max_treedepth = run$max_treedepth)))[["elapsed"]]
  arr <- posterior::as_draws_array(as.array(fit, pars = c("alpha", "beta", "sigma")))
  stan_result(fit, arr, wall)
}

suppressPackageStartupMessages({
  library(rstan)
  if (any(vapply(jobs$models, function(m) m$kind == "glm", logical(1)))) {
    library(rstanarm)
    keep_rstanarm_warmup()
  }
})
out <- list()
for (name in names(jobs$models)) {
  m <- jobs$models[[name]]
  seed <- jobs$seeds[[name]]
  conds <- character()
  res <- tryCatch(withCallingHandlers(
    if (m$kind == "glm") rstanarm_job(m, seed) else rstan_kilpis_job(m, seed),
    warning = function(w) {
      conds <<- c(conds, trimws(conditionMessage(w)))
      invokeRestart("muffleWarning")
    }), error = function(e) list(error = conditionMessage(e)))
  res$conds <- unique(conds)
  out[[name]] <- res
  message(sprintf("%-9s %-18s %s", if (m$kind == "glm") "rstanarm" else "rstan", name,
                  if (is.null(res$error)) sprintf("done in %.1f s", res$whole_seconds)
                  else paste("FAILED:", res$error)))
}
saveRDS(out, args[2])
