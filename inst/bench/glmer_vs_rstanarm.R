# Multilevel GLMs: vhmc_glm() against rstanarm's stan_glmer() with the same formula, data and
# default priors (decov, rstanarm's autoscaled normal priors), 4 chains on 2 cores, 2000
# iterations each (rstanarm: 1000 warmup; vhmc: its automatic warmup of at most 1000), both
# fitted in this run. Reported per model and package: the whole call in seconds (model
# building, start, warmup and sampling), sampling seconds alone, min bulk and tail ESS over
# every parameter (fixed effects, sigma, covariance and group effects), max R-hat,
# gradients (vhmc) or leapfrog steps (rstanarm) per chain, divergences, and min bulk ESS per
# second of the whole call; then vhmc's ratio to rstanarm. Models:
#   sleepstudy  lme4's data, Reaction ~ Days + (Days | Subject), gaussian (180 rows)
#   cbpp        lme4's data, cbind(incidence, size - incidence) ~ period + (1 | herd), binomial
#   epil        MASS's data, y ~ lbase * trt + lage + V4 + (1 | subject), poisson
#   sim_gauss   simulated gaussian, y ~ x + (1 + x | g), 10,000 rows, 100 groups (the model
#               on which stan_lmer took 482 s for a min bulk ESS of 163)
#   sim_binom   simulated binomial, y ~ x + (1 + x | g), 10,000 rows, 100 groups
#   radon       posteriordb's radon_all (Gelman and Hill 2006; inst/bench/data), log_radon ~
#               floor_measure + (1 + floor_measure | county), gaussian (12,573 rows, 386 counties)
#   insteval    lme4's InstEval, y ~ service + (1 | s) + (1 | d), gaussian, crossed (73,421 rows,
#               2,972 students and 1,128 lecturers)
#   big_gauss   simulated gaussian, y ~ x + (1 + x | g), 100,000 rows, 1,000 groups
#   big_binom   simulated binomial, y ~ x + (1 + x | g), 100,000 rows, 1,000 groups
#
# stan_glmer needs hours on the models with more than VHMC_BENCH_RSTANARM_MAX_N rows (default
# 2e4): there it runs 2 chains of 400 iterations (200 warmup) instead of 4 of 2000, and the
# row says so (`chains`, `iter`). Its min bulk ESS per second is then measured on a shorter
# run: half of each run is warmup either way, so the rate stays comparable, while the
# shorter warmup may adapt a little less well. VHMC_BENCH_RSTANARM_SKIP_BIG=true leaves these out.
#
#   Rscript inst/bench/glmer_vs_rstanarm.R          (run it alone on the machine: check top)
#
# Settings (environment): VHMC_BENCH_MODELS (comma-separated subset; their rows replace
# those of an earlier run, the others' are kept), VHMC_BENCH_RSTANARM_MAX_N
# (largest number of rows given to rstanarm in full, default 2e4), VHMC_BENCH_RSTANARM_SKIP_BIG,
# VHMC_BENCH_PACKAGES (vhmc,rstanarm: which sides to run), VHMC_BENCH_RSTANARM_TIMEOUT
# (seconds of sampling after which stan_glmer is stopped; its row then has finished = 0 and
# an upper bound on its ESS per second, see run_rstanarm_limited()).
# Writes vignettes/results/bench/glmer_vs_rstanarm.csv.

suppressMessages({
  library(vhmc)
})
source(file.path("inst", "bench", "speedup.R"))
out_file <- file.path("vignettes", "results", "bench", "glmer_vs_rstanarm.csv")
max_n_rstanarm <- as.numeric(Sys.getenv("VHMC_BENCH_RSTANARM_MAX_N", "2e4"))

simulated <- function(n, J, family, seed) {
  set.seed(seed)
  g <- factor(sample(J, n, TRUE), levels = seq_len(J))
  x <- rnorm(n)
  b0 <- rnorm(J, 0, 0.8)
  b1 <- rnorm(J, 0, 0.3)
  eta <- 0.5 + 0.5 * x + b0[g] + b1[g] * x
  y <- if (family == "gaussian") eta + rnorm(n) else rbinom(n, 1, plogis(eta))
  data.frame(y = y, x = x, g = g)
}

models <- list(
  sleepstudy = function() list(formula = Reaction ~ Days + (Days | Subject), data = lme4::sleepstudy,
                               family = gaussian()),
  cbpp = function() list(formula = cbind(incidence, size - incidence) ~ period + (1 | herd),
                         data = lme4::cbpp, family = binomial()),
  epil = function() {
    d <- MASS::epil
    d$lbase <- log(d$base / 4) - mean(log(d$base / 4))
    d$lage <- log(d$age) - mean(log(d$age))
    list(formula = y ~ lbase * trt + lage + V4 + (1 | subject), data = d, family = poisson())
  },
  sim_gauss = function() list(formula = y ~ x + (1 + x | g), data = simulated(1e4, 100, "gaussian", 1),
                              family = gaussian()),
  sim_binom = function() list(formula = y ~ x + (1 + x | g), data = simulated(1e4, 100, "binomial", 2),
                              family = binomial()),
  radon = function() {
    d <- utils::read.csv(gzfile(file.path("inst", "bench", "data", "radon_all.csv.gz")))
    d$county <- factor(d$county)
    list(formula = log_radon ~ floor_measure + (1 + floor_measure | county), data = d, family = gaussian())
  },
  insteval = function() list(formula = y ~ service + (1 | s) + (1 | d), data = lme4::InstEval,
                             family = gaussian()),
  big_gauss = function() list(formula = y ~ x + (1 + x | g), data = simulated(1e5, 1000, "gaussian", 3),
                              family = gaussian()),
  big_binom = function() list(formula = y ~ x + (1 + x | g), data = simulated(1e5, 1000, "binomial", 4),
                              family = binomial())
)
chosen <- Sys.getenv("VHMC_BENCH_MODELS", "")
if (nzchar(chosen)) models <- models[strsplit(chosen, ",")[[1]]]

convergence <- function(draws) {
  s <- suppressWarnings(posterior::summarise_draws(draws, "rhat", "ess_bulk", "ess_tail"))
  c(min_ess_bulk = min(s$ess_bulk, na.rm = TRUE), min_ess_tail = min(s$ess_tail, na.rm = TRUE),
    max_rhat = max(s$rhat, na.rm = TRUE))
}

run_vhmc <- function(m) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(vhmc_glm(m$formula, data = m$data, family = m$family, chains = 4, cores = 2,
                                   iter = 2000, seed = 1, progress = FALSE))
  whole <- proc.time()[["elapsed"]] - t0
  c(whole_seconds = whole, sampling_seconds = max(fit$timing$sampling_seconds), convergence(fit$draws),
    gradients_per_chain = mean(fit$counts$n_grad),
    divergences = sum(sampler_diagnostics(fit)$divergent__),
    marginal = isTRUE(fit$model$glmer$marginal), chains = 4, iter = 2000)
}

run_rstanarm <- function(m, short) {
  chains <- if (short) 2L else 4L
  iter <- if (short) 400L else 2000L
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(rstanarm::stan_glmer(m$formula, data = m$data, family = m$family, chains = chains,
                                               cores = 2, iter = iter, seed = 1, refresh = 0))
  whole <- proc.time()[["elapsed"]] - t0
  sp <- rstan::get_sampler_params(fit$stanfit, inc_warmup = TRUE)
  times <- rstan::get_elapsed_time(fit$stanfit)
  c(whole_seconds = whole, sampling_seconds = max(times[, "sample"]),
    convergence(posterior::as_draws_array(as.array(fit))),
    gradients_per_chain = mean(vapply(sp, function(s) sum(s[, "n_leapfrog__"]), 1)),
    divergences = sum(vapply(sp, function(s) sum(s[-seq_len(iter / 2), "divergent__"]), 1)), marginal = NA,
    chains = chains, iter = iter)
}

skip_big <- identical(Sys.getenv("VHMC_BENCH_RSTANARM_SKIP_BIG"), "true")
timeout <- as.numeric(Sys.getenv("VHMC_BENCH_RSTANARM_TIMEOUT", "Inf"))
packages <- strsplit(Sys.getenv("VHMC_BENCH_PACKAGES", "vhmc,rstanarm"), ",")[[1]]

# stan_glmer() under a time limit: it runs in a child R process (this script with
# --rstanarm-child) that `timeout` stops with its worker processes. A run stopped after T
# seconds of sampling ran longer than T, and its min bulk ESS is at most S log10(S) for S
# draws (posterior's bound on the bulk ESS), so its ESS per second is below S log10(S) / T:
# the row keeps that bound (finished = FALSE) and vhmc's ratio is then a lower bound.
run_rstanarm_limited <- function(m, short) {
  job <- tempfile(fileext = ".rds")
  res <- paste0(job, ".out")
  started <- paste0(res, ".started")
  on.exit(unlink(c(job, res, started)))
  saveRDS(list(m = m, short = short), job)
  self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  system2("timeout", c("--kill-after=30", ceiling(timeout + 60), file.path(R.home("bin"), "Rscript"), self,
                       "--rstanarm-child", job, res))
  if (file.exists(res)) return(c(readRDS(res), finished = 1))
  chains <- if (short) 2L else 4L
  iter <- if (short) 400L else 2000L
  whole <- if (file.exists(started)) as.numeric(Sys.time()) - as.numeric(readLines(started)) else timeout
  c(whole_seconds = whole, sampling_seconds = NA, min_ess_bulk = NA, min_ess_tail = NA, max_rhat = NA,
    gradients_per_chain = NA, divergences = NA, marginal = NA, chains = chains, iter = iter, finished = 0)
}

child <- commandArgs(TRUE)
if (length(child) == 3L && child[1] == "--rstanarm-child") {
  job <- readRDS(child[2])
  writeLines(format(as.numeric(Sys.time()), digits = 15), paste0(child[3], ".started"))
  saveRDS(run_rstanarm(job$m, job$short), child[3])
  quit(save = "no")
}

# Rows of this run replace those of an earlier run for the same model; the CSV is rewritten
# after every fit, so an interrupted run keeps what it measured.
save_rows <- function(res) {
  res <- merge_results(res, out_file)
  if (is.null(res$finished)) res$finished <- 1
  res$finished[is.na(res$finished)] <- 1
  draws <- res$chains * res$iter / 2
  res$ess_per_second <- ifelse(res$finished == 1, res$min_ess_bulk, draws * log10(draws)) / res$whole_seconds
  res$ess_per_second_sampling <- res$min_ess_bulk / res$sampling_seconds
  write_results(add_speedup(res, "rstanarm"), out_file)
}

rows <- list()
for (name in names(models)) {
  m <- models[[name]]()
  n <- nrow(m$data)
  for (pkg in packages) {
    if (pkg == "rstanarm" && n > max_n_rstanarm && skip_big) next
    cat(sprintf("%s / %s ...\n", name, pkg))
    short <- n > max_n_rstanarm
    r <- if (pkg == "vhmc") c(run_vhmc(m), finished = 1) else
      if (is.finite(timeout)) run_rstanarm_limited(m, short) else c(run_rstanarm(m, short), finished = 1)
    rows[[length(rows) + 1L]] <- data.frame(model = name, rows = n, package = pkg, t(r))
    print(utils::tail(rows[[length(rows)]], 1))
    res <- save_rows(do.call(rbind, rows))
  }
}
print(res)
