# Benchmark of the issue "Warmup in a fraction of the gradients": what a whole NUTS call
# costs, warmup included, with vhmc's Stan-style warmup (before the issue), with the new
# warmup (after it) and with rstanarm/rstan on the same models; and where the seconds of a
# whole surrogate_hmc() call go.
#
# Models (data and priors in warmup_models.R; the same objects go to both packages):
#   kidiq_momiq        posteriordb kidiq-kidscore_momiq: kid_score ~ mom_iq, flat coefficients,
#                      sigma ~ half-Cauchy(0, 2.5)
#   kidiq_interaction  kidiq-kidscore_interaction: kid_score ~ mom_hs * mom_iq, same priors
#   earnings           earnings-logearn_interaction_z: log(earn) ~ z_height * male, all flat
#   sblrc              sblrc-blr: y ~ 0 + X (5 columns), beta ~ normal(0, 10), sigma ~ half-normal(0, 10)
#   arK                arK-arK (K = 5): y[t] ~ lags 1..5, alpha and beta ~ normal(0, 10),
#                      sigma ~ half-Cauchy(0, 2.5)
#   diamonds           diamonds-diamonds: Y ~ 24 centred columns, b ~ normal(0, 1), intercept
#                      (at the centred columns) ~ student_t(3, 8, 10), sigma ~ half-t(3, 0, 10)
#   kilpis_sites       kilpisjarvi-like: simulated summer temperatures 1952-2013 at three sites,
#                      y ~ year * site with year uncentred, flat coefficients, sigma ~
#                      exponential(1). Per-column centring (what vhmc_glm and rstanarm do)
#                      leaves site and year:site collinear: posterior correlation ~ -0.9999
#   kilpisjarvi_mod    posteriordb's kilpisjarvi_mod model on site A's series: y ~ normal(alpha
#                      + beta * year, sigma), year uncentred, alpha ~ normal(0, 100), beta ~
#                      normal(0, 1/30), sigma flat. vhmc through vhmc_sample() (R log density
#                      and analytic gradient on (alpha, beta, log sigma)), Stan through rstan
#   logistic           the seed 002 logistic regression (Zhang et al. 2017; N = 1e5, d = 50),
#                      simulated exactly as in glm_vs_rstanarm.R, with its priors
# The kilpisjarvi data are simulated (the real series is not in ../shared/validation):
# about 9 degrees C, +0.02 degrees per year, residual sd 1.1.
# Every GLM above is expressed exactly by rstanarm::stan_glm (flat priors are NULL; prior_aux
# normal/cauchy/student_t are half-distributions; prior_intercept applies at the centred
# predictors in both packages, which is exactly diamonds' model) except one detail of arK:
# posteriordb puts alpha's normal(0, 10) at lags = 0, both packages at the centred lags
# (mean(y) = 0.006, so the posteriors differ negligibly; both packages fit the same model,
# see the note column). kilpisjarvi_mod is a custom model: rstan runs it from the Stan
# code in warmup_models.R.
#
# Engines (GLM table):
#   vhmc_before          nuts(metric = "diag", adaptation = "stan"), init = "random" (uniform
#                        (-2, 2) and a unit initial metric), warmup = iter / 2: the Stan-style
#                        warmup vhmc had before the issue
#   vhmc_after           nuts() and vhmc_glm()/vhmc_sample() defaults: start at the posterior
#                        mode and curvature, warmup = NULL (ends when adaptation has converged)
#   vhmc_after_diag      the same with metric = "diag"      } to choose the default metric
#   vhmc_after_low_rank  the same with metric = "low_rank"  } from the numbers
#   rstanarm / rstan     stan_glm() / sampling(), iter / 2 warmup, adapt_delta = 0.8 (vhmc's
#                        default; rstanarm's own, 0.95, would take smaller steps and lower
#                        its ESS per gradient), max_treedepth = 10, mean_PPD = FALSE
# An explicit-metric row whose metric is the default is the vhmc_after fit itself (noted).
# With a vhmc that predates the issue (no `adaptation` argument in nuts()), only vhmc_before
# and the Stan side run; the other rows are NA with a note.
#
# Columns (GLM table, results/warmup_glm.csv.gz), one row per model and engine:
#   group           "glm" (compared with rstanarm; the summary's median and min are over these)
#                   or "custom" (kilpisjarvi_mod, compared with rstan)
#   warmup          mean warmup iterations per chain actually run
#   total_grads     all gradient evaluations of all chains: warmup + sampling + start_evals
#   warmup_grads    gradient evaluations during warmup (without start_evals)
#   start_evals     vhmc: fit$counts$n_grad_start (gradients spent finding the start, all
#                   chains) plus d gradients per fit$counts$n_hessian_start (an analytic GLM
#                   Hessian X'WX costs about d gradients); 0 for Stan
#   min_ess_bulk    min over parameters of bulk ESS (all chains); ess_per_grad = that / total_grads
#   whole_call_seconds  elapsed seconds of the fitting call (what a user waits for: model frame,
#                   forked/PSOCK chains, post-processing). Stan compilation is excluded: the
#                   rstan model is compiled (or loaded from rstan's auto_write cache) before
#                   the clock starts; rstanarm's models are precompiled
#   divergences, treedepth_hits  over sampling iterations (hits: treedepth__ >= max_treedepth)
#   max_rhat, note, conditions (warnings/messages the call gave)
# Ratio rows (engine "A/B", e.g. vhmc_after/rstanarm): ratios of warmup, total_grads,
# warmup_grads, min_ess_bulk, ess_per_grad and whole_call_seconds; max_mean_z = max over
# parameters of |mean_A - mean_B| / sqrt(mcse_A^2 + mcse_B^2) (agreement; ~< 4 expected).
#
# How rstanarm's warmup gradients are counted: rstanarm hard-codes save_warmup = FALSE, so
# get_sampler_params() loses the warmup rows. The Stan worker replaces
# rstanarm:::set_sampling_args (assignInNamespace, in that process only) by a wrapper that
# sets save_warmup = TRUE; this only decides which iterations are stored, the sampler runs
# the same. The worker checks that every chain returns iter rows, and sums n_leapfrog__
# (one gradient per leapfrog step) over warmup and sampling. Stan's step-size heuristic
# (a few leapfrog steps at the start and after each of ~5 metric updates) and each chain's
# initial gradient are not in n_leapfrog__: a few dozen gradients per chain, not counted
# (this flatters Stan, by under 1% of a chain's gradients at iter = 2000 on these models).
#
# Surrogate table (results/warmup_surrogate.csv): the seed 002 logistic regression at
# N = 1e4, 1e5, 1e6 (d = 50; 1e6 is a 400 MB design), default nuts() and default
# surrogate_hmc(), 2 chains on 2 cores, vhmc defaults otherwise. Per fit: min bulk ESS,
# whole-call seconds, min ESS per whole-call second, gradients, log densities and surrogate
# gradients (n_potential, n_surrogate_grad), start_evals, divergences, max_rhat, and the
# breakdown (seconds, mean over chains): mode (start search), explore,
# train, tuning, sampling; warmup (the chain's whole warmup clock); other = whole call -
# slowest chain's warmup + sampling (setup, forking, post-processing, and the mode search
# if it runs before the chains). Phases the installed vhmc does not report are NA;
# explore_plus_tuning = warmup - train is always filled. The row "surrogate_hmc/nuts" has
# the ratios and the agreement of the posterior means (max_mean_z).
#
# Files: warmup.R (settings, this header), warmup_models.R (data, models, priors; sourced by
# both processes), warmup_vhmc.R (vhmc fits), warmup_tables.R (tables, ratios, summaries),
# warmup_stan.R (the Stan worker: rstanarm and rstan run in their own R process, reading the
# models this process built, so vhmc's library and Stan's compiled models never share one).
#
#   Rscript inst/bench/warmup.R      (from the package root; R_LIBS chooses the vhmc to test)
# The full run takes well over an hour on 2 cores. Environment variables (defaults = full run):
#   VHMC_BENCH_TABLES ("glm,surrogate"), VHMC_BENCH_MODELS (all models above, comma
#   separated), VHMC_BENCH_ENGINES ("vhmc_before,vhmc_after,vhmc_after_diag,
#   vhmc_after_low_rank,stan"), VHMC_BENCH_N (1e5, the logistic model of the GLM table),
#   VHMC_BENCH_ITER (2000, both tables), VHMC_BENCH_CHAINS (4 for the GLM table, 2 for the
#   surrogate table; when set, both tables use it), VHMC_BENCH_CORES (2), VHMC_BENCH_SURROGATE_N ("1e4,1e5,1e6"),
#   VHMC_BENCH_OUT_DIR (vignettes/results/bench; set it for smoke runs so the results stay),
#   VHMC_BENCH_POSTERIORDB (../shared/validation/posteriordb), VHMC_BENCH_STAN_CACHE (where
#   the compiled kilpisjarvi Stan model is kept; default a directory of this run's tempdir).
# Seconds depend on whatever else the machine runs; gradient counts and ESS do not.
script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                              value = TRUE))))
source(file.path(script_dir, "warmup_models.R"))
suppressPackageStartupMessages(library(vhmc))
`%||%` <- function(a, b) if (is.null(a)) b else a

env <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) v else default
}
env_list <- function(name, default) strsplit(env(name, default), ",")[[1]]
tables <- env_list("VHMC_BENCH_TABLES", "glm,surrogate")
models_wanted <- env_list("VHMC_BENCH_MODELS", paste(all_model_names, collapse = ","))
engines_wanted <- env_list("VHMC_BENCH_ENGINES",
                           "vhmc_before,vhmc_after,vhmc_after_diag,vhmc_after_low_rank,stan")
n_obs <- as.integer(as.numeric(env("VHMC_BENCH_N", "1e5")))
iter <- as.integer(as.numeric(env("VHMC_BENCH_ITER", "2000")))
chains_glm <- as.integer(env("VHMC_BENCH_CHAINS", "4"))
chains_sur <- as.integer(env("VHMC_BENCH_CHAINS", "2"))
cores <- as.integer(env("VHMC_BENCH_CORES", "2"))
surrogate_n <- as.numeric(env_list("VHMC_BENCH_SURROGATE_N", "1e4,1e5,1e6"))
out_dir <- env("VHMC_BENCH_OUT_DIR", file.path("vignettes", "results", "bench"))
pdb_dir <- env("VHMC_BENCH_POSTERIORDB", file.path("..", "shared", "validation", "posteriordb"))
stan_cache <- env("VHMC_BENCH_STAN_CACHE", file.path(tempdir(), "stan"))
adapt_delta <- 0.8; max_treedepth <- 10L
stopifnot(all(models_wanted %in% all_model_names))

# The issue's API: nuts(adaptation = ...), automatic warmup, mode starts. Without it only
# the "before" configuration can run.
new_api <- "adaptation" %in% names(formals(vhmc::nuts))
metric_choices <- eval(formals(vhmc::nuts)$metric)
default_metric <- metric_choices[1]
if (!new_api) {
  message("The installed vhmc predates the warmup issue (nuts() has no `adaptation`): ",
          "running vhmc_before and the Stan side only; the vhmc_after rows are NA.")
}

source(file.path(script_dir, "warmup_vhmc.R"))
source(file.path(script_dir, "warmup_tables.R"))

t_start <- Sys.time()
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
if ("glm" %in% tables) {
  glm_tab <- run_glm_table()
  utils::write.csv(glm_tab, gzfile(file.path(out_dir, "warmup_glm.csv.gz")), row.names = FALSE)
  print_glm_table(glm_tab)
}
if ("surrogate" %in% tables) {
  sur_tab <- run_surrogate_table()
  utils::write.csv(sur_tab, file.path(out_dir, "warmup_surrogate.csv"), row.names = FALSE)
  print_surrogate_table(sur_tab)
}
cat(sprintf("\nvhmc %s (%s API); whole run %.1f min; load average %s\n",
            utils::packageVersion("vhmc"), if (new_api) "new" else "old",
            as.numeric(difftime(Sys.time(), t_start, units = "mins")),
            if (file.exists("/proc/loadavg")) paste(strsplit(readLines("/proc/loadavg", 1), " ")[[1]][1:3],
                                                    collapse = " ") else "?"))
