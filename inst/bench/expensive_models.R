# Expensive models written in R, calibrated with bounds on every parameter (uniform priors on
# boxes, as BayesianTools users write them): vhmc's gradient-free samplers against
# BayesianTools' runMCMC(sampler = "DEzs") with its defaults. The cost is counted in model
# runs (calls of the log likelihood, whatever the machine): every run of the whole call,
# start, warmup or burn-in and sampling included.
#
# Models: VSEM (BayesianTools' very simple ecosystem model, 7 parameters as in its vignette:
# 1,000 days of 4 observed fluxes), a Lotka-Volterra predator-prey model with 6 parameters on
# boxes (simulated data, deSolve), and an SEIR epidemic (4 parameters, deSolve, Poisson
# counts of new cases).
#
# Each sampler runs with its default settings at a number of iterations doubled until its
# min bulk ESS (posterior's, over all chains after warmup or burn-in) reaches 400, from
# `start` iterations per chain. Reported: model runs, min bulk ESS per 1,000 runs, max R-hat,
# and the largest |mean - reference| / combined MCSE against a long DEzs run.
# DEzs's and demc()'s runs of the whole call are compared at the same number of iterations
# per chain (their doublings are in step); VHMC_BENCH_RUNS (below) fixes their model runs.
#
# Rscript inst/bench/expensive_models.R [models] [seeds] [samplers]
#   e.g. "vsem,lv,seir" "1,2,3" "DEzs,demc,surrogate_mh,surrogate_hmc" (the default: all)
# (from the package's source directory, each model's rows are also merged into
# vignettes/results/bench/expensive_<model>.csv, replacing those of the same sampler and seed,
# and the reference's summary is kept in expensive_<model>_reference.csv and reused;
# VHMC_BENCH_NEW_REFERENCE=1 recomputes it; VHMC_BENCH_SEIR_NUTS=<iter> instead runs SEIR with
# exact gradients through RTMB, below)
# Needs BayesianTools and deSolve (tools/install-deps.sh --bench).
suppressPackageStartupMessages({
  library(vhmc)
  library(BayesianTools)
  library(deSolve)
})
args <- commandArgs(trailingOnly = TRUE)
models <- strsplit(if (length(args) >= 1) args[1] else "vsem,lv,seir", ",")[[1]]
seeds <- as.integer(strsplit(if (length(args) >= 2) args[2] else "1,2,3", ",")[[1]])
chosen <- if (length(args) >= 3) strsplit(args[3], ",")[[1]] else NULL

# ---- the models: list(loglik(par), lower, upper, names) ------------------------------------

vsem_model <- function() {
  set.seed(123)
  PAR <- VSEMcreatePAR(1:1000)
  ref <- VSEMgetDefaults()
  ref[12, ] <- c(2, 0.1, 4)
  rownames(ref)[12] <- "error-sd"
  sim <- VSEM(ref$best[1:11], PAR)
  sim[, 1] <- 1000 * sim[, 1]
  obs <- sim + rnorm(length(sim), sd = (abs(sim) + 1e-7) * ref$best[12])
  sel <- c(1:6, 12)
  loglik <- function(par) {
    x <- ref$best
    x[sel] <- par
    pred <- VSEM(x[1:11], PAR)
    pred[, 1] <- 1000 * pred[, 1]
    sum(dnorm(c(pred - obs), sd = (abs(c(pred)) + 1e-7) * x[12], log = TRUE))
  }
  list(loglik = loglik, lower = ref$lower[sel], upper = ref$upper[sel],
       names = make.names(rownames(ref)[sel]))
}

lv_model <- function() {
  rhs <- function(t, y, p) list(c(p[1] * y[1] - p[2] * y[1] * y[2], -p[3] * y[2] + p[4] * y[1] * y[2]))
  truth <- c(alpha = 0.55, beta = 0.028, gamma = 0.8, delta = 0.024, sigma_u = 0.25, sigma_v = 0.25)
  times <- seq(0, 20, by = 1)
  set.seed(42)
  path <- ode(c(33, 6), c(0, times), rhs, truth[1:4], method = "lsoda")[-1, 2:3]
  y <- cbind(rlnorm(length(times), log(path[, 1]), truth[5]), rlnorm(length(times), log(path[, 2]), truth[6]))
  loglik <- function(par) {
    sol <- ode(c(33, 6), c(0, times), rhs, par[1:4], method = "lsoda")
    if (nrow(sol) != length(times) + 1 || any(!is.finite(sol[-1, 2:3])) || any(sol[-1, 2:3] <= 0)) return(-Inf)
    sum(dlnorm(y[, 1], log(sol[-1, 2]), par[5], log = TRUE)) + sum(dlnorm(y[, 2], log(sol[-1, 3]), par[6], log = TRUE))
  }
  list(loglik = loglik, lower = c(0.1, 0.005, 0.1, 0.005, 0.05, 0.05), upper = c(2, 0.1, 2, 0.1, 1, 1),
       names = names(truth))
}

seir_model <- function() {
  rhs <- function(t, y, p) {
    N <- sum(y[1:4])
    inf <- p[1] * y[1] * y[3] / N
    list(c(-inf, inf - p[2] * y[2], p[2] * y[2] - p[3] * y[3], p[3] * y[3], p[2] * y[2]))
  }
  truth <- c(beta = 0.6, sigma = 0.3, gamma = 0.25, i0 = 10)
  times <- 0:60
  cases <- function(p) {
    sol <- ode(c(S = 1e4 - p[4], E = 0, I = p[4], R = 0, C = 0), times, rhs, p[1:3], method = "lsoda")
    diff(sol[, "C"])
  }
  set.seed(7)
  y <- rpois(60, cases(truth))
  loglik <- function(par) {
    mu <- cases(par)
    if (length(mu) != 60 || any(!is.finite(mu)) || any(mu < 0)) return(-Inf)
    sum(dpois(y, mu + 1e-9, log = TRUE))
  }
  list(loglik = loglik, lower = c(0.1, 0.05, 0.05, 1), upper = c(2, 1, 1, 100), names = names(truth))
}

# ---- samplers: each returns list(draws = draws_array after warmup, runs) -------------------

counted <- function(f) {
  n <- 0
  list(f = function(p) { n <<- n + 1; f(p) }, runs = function() n)
}

run_dezs <- function(m, iter, seed) {
  ll <- counted(m$loglik)
  set.seed(seed)
  setup <- createBayesianSetup(function(p) ll$f(unname(p)), lower = m$lower, upper = m$upper, names = m$names)
  out <- runMCMC(setup, sampler = "DEzs", settings = list(iterations = iter, message = FALSE))
  chains <- getSample(out, coda = TRUE, start = floor(iter / 3 / 2))  # 3 internal chains; burn-in half
  arr <- posterior::as_draws_array(chains)
  list(draws = posterior::subset_draws(arr, variable = m$names), runs = ll$runs())
}

run_vhmc <- function(m, iter, seed, sampler) {
  ll <- counted(m$loglik)
  lower <- stats::setNames(m$lower, m$names)
  upper <- stats::setNames(m$upper, m$names)
  fit <- suppressWarnings(suppressMessages(vhmc_sample(function(p) ll$f(unname(p)), lower = lower, upper = upper,
                                                       sampler = sampler, iter = iter, seed = seed)))
  list(draws = fit$draws, runs = ll$runs())
}

samplers <- list(
  # BayesianTools' `iterations` counts all 3 internal chains' runs: 3 x iter is iter per chain
  DEzs = function(m, iter, seed) run_dezs(m, 3 * iter, seed),
  demc = function(m, iter, seed) run_vhmc(m, iter, seed, demc()),
  surrogate_mh = function(m, iter, seed) run_vhmc(m, iter, seed, surrogate_mh()),
  surrogate_hmc = function(m, iter, seed) run_vhmc(m, iter, seed, surrogate_hmc())
)
start_iter <- c(DEzs = 2000, demc = 2000, surrogate_mh = 2000, surrogate_hmc = 1000)
max_iter <- c(DEzs = 256000, demc = 128000, surrogate_mh = 16000, surrogate_hmc = 1000)  # one run: its fallback costs 2 d + 1 runs per gradient
ref_runs <- c(vsem = 240000, lv = 160000, seir = 80000)  # the DEzs reference runs, in all

measure <- function(draws) {
  s <- as.data.frame(posterior::summarise_draws(draws, "mean", "ess_bulk", "rhat", "mcse_mean"))
  s[-1] <- lapply(s[-1], as.numeric)
  list(summary = s, ess = min(s$ess_bulk), rhat = max(s$rhat))
}

# The reference: 4 independent DEzs runs (12 chains) of `runs` model runs in all; BayesianTools'
# DEzs slows down more than linearly with its iterations, so one long run costs more.
reference <- function(m, runs) {
  parts <- lapply(99:102, function(seed) run_dezs(m, runs / 4, seed)$draws)
  measure(do.call(posterior::bind_draws, c(parts, along = "chain")))
}

if (!is.null(chosen)) samplers <- samplers[intersect(names(samplers), chosen)]

# The reference's summary, kept beside the results and reused (it costs the most).
cached_reference <- function(model, m) {
  file <- file.path("vignettes", "results", "bench", sprintf("expensive_%s_reference.csv", model))
  if (file.exists(file) && Sys.getenv("VHMC_BENCH_NEW_REFERENCE") != "1") return(utils::read.csv(file))
  ref <- reference(m, ref_runs[[model]])$summary
  if (dir.exists(dirname(file))) utils::write.csv(ref, file, row.names = FALSE)
  ref
}

# ---- an exact-gradient reference for SEIR (VHMC_BENCH_SEIR_NUTS=<iter>) --------------------
# DEzs does not converge on SEIR (its reference has R-hat 1.97): the posterior is a long thin
# curved ridge. This runs nuts() on the same posterior with exact gradients: the model taped
# by RTMB, its ODE solved by 4th-order Runge-Kutta (dt = 0.1; the log likelihood agrees with
# lsoda's within 1e-4). Its summary goes to expensive_seir_nuts_reference.csv. At 4 x 4,000
# iterations it had not converged either (R-hat 1.07, min bulk ESS 47, 153 divergences).
seir_rk4_cases <- function(p, dt = 0.1) {
  x <- list(S = 1e4 - p[4], E = 0 * p[4], I = p[4], C = 0 * p[4])
  rate <- function(x) {
    inf <- p[1] * x$S * x$I / 1e4
    list(S = -inf, E = inf - p[2] * x$E, I = p[2] * x$E - p[3] * x$I, C = p[2] * x$E)
  }
  add <- function(x, k, h) Map(function(a, b) a + h * b, x, k)
  daily <- vector("list", 60)
  for (day in 1:60) {
    c0 <- x$C
    for (k in seq_len(round(1 / dt))) {
      k1 <- rate(x); k2 <- rate(add(x, k1, dt / 2)); k3 <- rate(add(x, k2, dt / 2)); k4 <- rate(add(x, k3, dt))
      x <- Map(function(a, b1, b2, b3, b4) a + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4), x, k1, k2, k3, k4)
    }
    daily[[day]] <- x$C - c0
  }
  do.call(c, daily)
}

seir_nuts_reference <- function(iter) {
  m <- seir_model()
  y <- environment(m$loglik)$y
  nll <- function(par) -sum(RTMB::dpois(y, seir_rk4_cases(c(par$beta, par$sigma, par$gamma, par$i0)) + 1e-9, log = TRUE))
  obj <- RTMB::MakeADFun(nll, list(beta = 0.6, sigma = 0.3, gamma = 0.25, i0 = 10), silent = TRUE)
  fit <- suppressWarnings(vhmc_sample(obj, lower = stats::setNames(m$lower, m$names),
                                      upper = stats::setNames(m$upper, m$names), iter = iter, seed = 5, progress = FALSE))
  s <- measure(fit$draws)$summary
  cat(sprintf("SEIR, nuts() with exact gradients, 4 x %d iterations: min bulk ESS %.0f, max R-hat %.3f, %d divergences\n",
              iter, min(s$ess_bulk), max(s$rhat), sum(sampler_diagnostics(fit)$divergent__)))
  print(s)
  file <- file.path("vignettes", "results", "bench", "expensive_seir_nuts_reference.csv")
  if (dir.exists(dirname(file))) utils::write.csv(s, file, row.names = FALSE)
}
nuts_iter <- as.integer(Sys.getenv("VHMC_BENCH_SEIR_NUTS", "0"))
if (nuts_iter > 0) {
  seir_nuts_reference(nuts_iter)
  quit(save = "no")
}

# VHMC_BENCH_RUNS=n: instead, one run of about n model runs per gradient-free sampler (DEzs's
# doublings get slow on VSEM, where it needs several hundred thousand runs).
fixed_runs <- as.numeric(Sys.getenv("VHMC_BENCH_RUNS", "0"))
if (fixed_runs > 0) {
  start_iter[c("DEzs", "demc")] <- max_iter[c("DEzs", "demc")] <- c(fixed_runs / 3, fixed_runs / 4)
}

# Iterations doubled until min bulk ESS >= 400 (or the cap).
until_ess <- function(name, m, seed) {
  iter <- start_iter[[name]]
  repeat {
    t <- system.time(r <- samplers[[name]](m, iter, seed))[["elapsed"]]
    ms <- measure(r$draws)
    if (ms$ess >= 400 || iter >= max_iter[[name]]) break
    iter <- 2 * iter
  }
  c(r, ms, list(iter = iter, seconds = t))
}

for (model in models) {
  rows <- list()
  m <- get(paste0(model, "_model"))()
  ref <- cached_reference(model, m)
  cat(sprintf("\n== %s: %d parameters; reference: 4 DEzs runs, %d model runs, min bulk ESS %.0f, max R-hat %.3f ==\n",
              model, length(m$names), ref_runs[[model]], min(ref$ess_bulk), max(ref$rhat)))
  cat(sprintf("%-14s %4s %8s %9s %8s %10s %7s %6s %8s\n", "sampler", "seed", "iter", "runs", "ESS",
              "ESS/1000", "R-hat", "max z", "seconds"))
  flush(stdout())
  for (seed in seeds) for (name in names(samplers)) {
    r <- until_ess(name, m, seed)
    s <- r$summary
    z <- abs(s$mean - ref$mean) / sqrt(s$mcse_mean^2 + ref$mcse_mean^2)
    cat(sprintf("%-14s %4d %8d %9d %8.0f %10.2f %7.3f %6.2f %8.1f\n", name, seed, r$iter, r$runs, r$ess,
                1000 * r$ess / r$runs, r$rhat, max(z), r$seconds))
    flush(stdout())
    rows[[length(rows) + 1L]] <- data.frame(model = model, sampler = name, seed = seed, iter = r$iter,
                                            runs = r$runs, ess_bulk = r$ess, ess_per_1000 = 1000 * r$ess / r$runs,
                                            rhat = r$rhat, max_z = max(z), seconds = r$seconds)
  }
  # The vignette "Expensive models" reads these (run from the package's source directory).
  out <- file.path("vignettes", "results", "bench", sprintf("expensive_%s.csv", model))
  new <- do.call(rbind, rows)
  if (file.exists(out)) {
    old <- utils::read.csv(out)
    old <- old[!paste(old$sampler, old$seed) %in% paste(new$sampler, new$seed), , drop = FALSE]
    new <- rbind(old, new)
    new <- new[order(match(new$sampler, c("DEzs", "demc", "surrogate_mh", "surrogate_hmc")), new$seed), ]
  }
  if (dir.exists(dirname(out))) utils::write.csv(new, out, row.names = FALSE)
}
