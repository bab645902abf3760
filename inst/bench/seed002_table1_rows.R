# The four rows of Table 1 of Zhang, Shahbaba and Zhao (2017, "HMC acceleration using
# surrogate functions with random bases"), one problem per run, with all four of the
# paper's methods and vhmc's automatic samplers measured in the same run
# (inst/bench/seed002_table1.R is the simulated row's longer run, 5000 + 5000 iterations,
# with the paper's value-trained network but without the RMHMC methods).
#
# Problems (VHMC_BENCH_PROBLEM), data from inst/bench/table1_data.R (liver, a Suggests
# package: bash tools/install-deps.sh --bench) or elliptic_pde_model():
#   sim_lr        the paper's simulated logistic regression, N = 1e5, d = 50 (covariates
#                 with sd 0.1, left unstandardised as in the paper)
#   a9a           a9a rebuilt from liver's adult (training part, 32,402 rows), random
#                 projection to 60 columns, standardised, plus intercept (d = 61)
#   a9a_full      the same without the projection: every binary feature (liver's 117,
#                 d = 118 with the intercept)
#   bank          liver's real 4,521-row Bank Marketing subset, one-hot, standardised
#   bank_standin  the paper-sized simulated stand-in, N = 40197, d = 25
#   pde           elliptic_pde_model() with its defaults (30 x 30 mesh, 20 KL terms,
#                 121 observations with noise sd 0.1, prior N(0, 0.5^2))
# GLMs use the papers' prior N(0, 10^2) on every coefficient (no autoscaling; the columns
# are standardised, so vhmc's sampling coordinates are the papers' and their step sizes
# apply unchanged). sim_lr keeps the paper's sd-0.1 covariates: vhmc samples beta_j sd(x_j),
# so the paper's HMC step 0.045 is 0.0045 there (the RMHMC step is invariant: the Fisher
# metric transforms with the coordinates), and the intercept, 0.1 beta_1, gets N(0, 1).
#
# Methods (VHMC_BENCH_ROWS, comma separated; default all), the paper's settings from its
# text and code (eps, L, s):
#   hmc_paper        hmc(step_size = eps, steps = L, metric = "unit"), L_t ~ U{1..L}
#   rmhmc_paper      rmhmc(step_size = eps_rm, steps = L_rm, jitter = FALSE): fixed L as in
#                    the authors' code; Fisher metric (GLM: X' Lambda X + I / 100; PDE:
#                    J'J / 0.1^2 + I / 0.5^2 through vhmc_sample(metric_tensor = ))
#   rns_paper        surrogate_hmc(hidden = s, steps = L, step_size = eps, metric = "unit"),
#                    the surrogate trained on the whole warmup's exploration
#   rns_rmhmc_paper  surrogate_hmc(riemann = TRUE, hidden = s, steps = L_rm,
#                    step_size = eps_rm, metric = "unit"): RNS-RMHMC (steps drawn in 1..L_rm),
#                    with the paper's kind of metric: from the surrogate's full Hessian for
#                    the logistic regressions (riemann_metric = "dense"), its diagonal for
#                    the PDE ("diagonal")
#   arns_paper       ARNS-HMC: rns_paper with adaptive = TRUE (for Figure 8 only)
#   nuts             nuts(), vhmc's automatic sampler
#   surrogate        surrogate_hmc(), vhmc's automatic surrogate sampler
# Iterations: the paper rows burn in VHMC_BENCH_WARMUP (1000) iterations (the surrogates'
# exploration: all of them) and keep VHMC_BENCH_SAMPLING (2000); the RMHMC rows keep
# VHMC_BENCH_RM_SAMPLING (500) after VHMC_BENCH_RM_WARMUP (200) burn-in iterations from the
# mode (one RMHMC iteration costs tens of metric evaluations, each O(N d^2) for a GLM), and
# RNS-RMHMC keeps VHMC_BENCH_RM_SAMPLING after the usual exploration; the automatic rows warm up automatically
# within 1000 iterations and keep VHMC_BENCH_SAMPLING. The papers ran 5000 + 5000; the
# efficiencies below are per second, so they compare across lengths.
#
# Columns as in seed002_table1.R: AP (fraction of distinct draws), ESS in the papers'
# convention (Geyer, capped at the draws) and bulk ESS, s/iter, efficiency = min ESS per
# second of sampling, speedups over HMC (paper rows) and NUTS (all rows), efficiency per
# second of the whole call (warmup, exploration and training included), evaluation counts
# (true gradients, true log densities, surrogate gradients, metric evaluations; for the PDE
# also the finite-element factorisations and solves), and the agreement of the
# posterior means with NUTS in units of the combined MCSE.
#
# VHMC_BENCH_CORES (2): GLM chains in parallel, or 1 for one after the other.
#   VHMC_BENCH_PROBLEM=pde Rscript inst/bench/seed002_table1_rows.R
# Figure 8 of the paper: REM(t) = |mean of the draws up to t - E theta|_2 / |E theta|_2
# against running time, E theta from the NUTS row, for the HMC, RNS-HMC and ARNS-HMC rows
# (both chains pooled). Time t of sampling iteration i is the warmup's seconds plus i times
# the sampling phase's mean seconds per iteration (the chain records no per-iteration
# clock; a fixed-length sampler's iterations cost alike), so the curves include the cost
# of exploring and training.
# writes vignettes/results/bench/seed002_table1_<problem>.csv and seed002_fig8_<problem>.csv. Seconds depend on the machine and
# its load: run alone; the ratios measured within one run are what compare with the paper.
suppressPackageStartupMessages(library(vhmc))

bench_dir <- if (file.exists(file.path("inst", "bench", "table1_data.R"))) {
  file.path("inst", "bench")
} else {
  system.file("bench", package = "vhmc")
}
source(file.path(bench_dir, "table1_data.R"))

`%||%` <- function(a, b) if (is.null(a)) b else a

problem <- Sys.getenv("VHMC_BENCH_PROBLEM", "pde")
n_samp <- as.integer(env_num("VHMC_BENCH_SAMPLING", 2000))
n_warm <- as.integer(env_num("VHMC_BENCH_WARMUP", 1000))
n_samp_rm <- as.integer(env_num("VHMC_BENCH_RM_SAMPLING", 500))
n_warm_rm <- as.integer(env_num("VHMC_BENCH_RM_WARMUP", 200))
all_rows <- c("hmc_paper", "rmhmc_paper", "rns_paper", "rns_rmhmc_paper", "arns_paper", "nuts", "surrogate")
rows <- strsplit(Sys.getenv("VHMC_BENCH_ROWS", paste(all_rows, collapse = ",")), ",")[[1]]
stopifnot(all(rows %in% all_rows))
out_file <- Sys.getenv("VHMC_BENCH_OUT", file.path("vignettes", "results", "bench",
                                                   sprintf("seed002_table1_%s.csv", problem)))
chains <- 2L
# GLM chains run in parallel (VHMC_BENCH_CORES = 2) or one after the other (1): the
# per-chain seconds are the same, the wall seconds of every row double alike.
cores <- as.integer(env_num("VHMC_BENCH_CORES", 2))

# The paper's settings (Zhang et al. 2017, Table 1 and the authors' code); a9a_full and the
# stand-in reuse those of their real-data rows.
settings <- list(
  sim_lr = list(eps = 0.0045, L = 6, s = 2000, eps_rm = 0.54, L_rm = 2, rm_metric = "dense"),
  a9a = list(eps = 0.012, L = 10, s = 2500, eps_rm = 0.5, L_rm = 4, rm_metric = "dense"),
  bank = list(eps = 0.012, L = 45, s = 1000, eps_rm = 0.4, L_rm = 6, rm_metric = "dense"),
  pde = list(eps = 0.16, L = 10, s = 1000, eps_rm = 0.8, L_rm = 3, rm_metric = "diagonal")
)
settings$a9a_full <- settings$a9a
settings$bank_standin <- settings$bank
st <- settings[[problem]]
if (is.null(st)) stop("VHMC_BENCH_PROBLEM must be one of ", paste(names(settings), collapse = ", "))

# The problem as a function fitting it with a sampler and iteration counts.
glm_problem <- function(D) {
  dat <- data.frame(y = D$y, D$X[, colnames(D$X) != "intercept", drop = FALSE], check.names = FALSE)
  list(n = nrow(dat), d = ncol(D$X), notes = D$notes, counts = function() NULL,
       fit = function(sampler, warmup, sampling) {
         vhmc_glm(y ~ ., data = dat, family = stats::binomial(),
                  prior = normal(0, 10, autoscale = FALSE),
                  prior_intercept = normal(0, D$prior_intercept_scale %||% 10, autoscale = FALSE),
                  sampler = sampler,
                  chains = chains, cores = cores, iter = warmup + sampling, warmup = warmup,
                  seed = 2017, progress = FALSE)
       })
}

# The PDE: the chains run one after the other in this process (cores = 1), so that the
# model's own counts of finite-element factorisations and solves, the true cost, cover them
# (forked workers would count in their copies).
pde_problem <- function() {
  m <- elliptic_pde_model()
  metric <- function(theta) m$fisher_metric(theta, derivatives = TRUE)
  list(n = length(m$observations), d = length(m$init), notes = "elliptic_pde_model() defaults",
       counts = function() m$counts(reset = TRUE)[c("factorizations", "solves")],
       fit = function(sampler, warmup, sampling) {
         m$counts(reset = TRUE)
         mt <- if (inherits(sampler, "vhmc_rmhmc")) metric
         vhmc_sample(m$log_density, m$gradient, init = m$init, sampler = sampler,
                     metric_tensor = mt, chains = chains, cores = 1,
                     iter = warmup + sampling, warmup = warmup, seed = 2017, progress = FALSE)
       })
}

prob <- switch(problem,
  sim_lr = glm_problem(sim_lr()),
  a9a = glm_problem(a9a_projected()), a9a_full = glm_problem(a9a_full()),
  bank = glm_problem(bank_subset()), bank_standin = glm_problem(bank_standin()),
  pde = pde_problem())

configs <- list(
  hmc_paper = list(label = "HMC (paper settings)", warmup = n_warm, sampling = n_samp,
                   sampler = hmc(step_size = st$eps, steps = st$L, metric = "unit")),
  rmhmc_paper = list(label = "RMHMC (paper settings)", warmup = n_warm_rm, sampling = n_samp_rm,
                     sampler = rmhmc(step_size = st$eps_rm, steps = st$L_rm, jitter = FALSE)),
  rns_paper = list(label = "RNS-HMC (paper settings)", warmup = n_warm, sampling = n_samp,
                   sampler = surrogate_hmc(hidden = st$s, steps = st$L, step_size = st$eps,
                                           metric = "unit", explore = n_warm)),
  rns_rmhmc_paper = list(label = "RNS-RMHMC (paper settings)", warmup = n_warm, sampling = n_samp_rm,
                         sampler = surrogate_hmc(riemann = TRUE, riemann_metric = st$rm_metric,
                                                 hidden = st$s, steps = st$L_rm,
                                                 step_size = st$eps_rm, metric = "unit",
                                                 explore = n_warm)),
  arns_paper = list(label = "ARNS-HMC (paper settings)", warmup = n_warm, sampling = n_samp,
                    sampler = surrogate_hmc(hidden = st$s, steps = st$L, step_size = st$eps,
                                            metric = "unit", explore = n_warm, adaptive = TRUE)),
  nuts = list(label = "NUTS (vhmc automatic)", warmup = NULL, sampling = n_samp, sampler = nuts()),
  surrogate = list(label = "surrogate_hmc() (vhmc automatic)", warmup = NULL, sampling = n_samp,
                   sampler = surrogate_hmc())
)

ess_paper <- function(arr) pmin(apply(arr, 3, posterior::ess_basic), dim(arr)[1] * dim(arr)[2])
distinct_fraction <- function(arr) mean(apply(arr, 2, function(ch) mean(rowSums(abs(diff(ch))) > 0)))

# One method: its fit, timed as a whole, and its row of the table.
fit_row <- function(key) {
  cf <- configs[[key]]
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  # Automatic rows: warmup = NULL ends warmup by itself within 1000 iterations.
  fit <- suppressWarnings(if (is.null(cf$warmup)) {
    prob$fit(cf$sampler, 1000L, cf$sampling)
  } else {
    prob$fit(cf$sampler, cf$warmup, cf$sampling)
  })
  wall <- proc.time()[["elapsed"]] - t0
  solver <- prob$counts()
  arr <- posterior::as_draws_array(fit)
  arr <- arr[, , setdiff(dimnames(arr)[[3]], "lp__"), drop = FALSE]
  message(sprintf("  %-32s %7.1f s wall, min bulk ESS %6.0f", cf$label, wall,
                  min(suppressWarnings(apply(arr, 3, posterior::ess_bulk)))))
  list(summary = posterior::summarise_draws(arr, "mean", "sd", "mcse_mean"), arr = arr,
       seconds = c(warmup = mean(fit$timing$warmup_seconds), sampling = mean(fit$timing$sampling_seconds)),
       row = cbind(table_row(key, cf, fit, arr, wall),
                   factorizations = solver[["factorizations"]] %||% NA,
                   solves = solver[["solves"]] %||% NA))
}

table_row <- function(key, cf, fit, arr, wall) {
  ep <- ess_paper(arr)
  eb <- suppressWarnings(apply(arr, 3, posterior::ess_bulk))
  samp <- sum(fit$timing$sampling_seconds)
  warm <- sum(fit$timing$warmup_seconds)
  info <- if (!is.null(fit$surrogate)) surrogate_info(fit)
  reports <- fit$rmhmc %||% fit$surrogate
  metric_evals <- sum(vapply(reports %||% list(), function(r) r$metric_evaluations %||% 0, 0))
  data.frame(
    problem = problem, key = key, method = cf$label, n = prob$n, d = prob$d, chains = chains,
    sampling = dim(arr)[1], AP = distinct_fraction(arr),
    accept_stat = mean(vapply(fit$diagnostics, function(x) mean(x$accept_stat__), 0)),
    divergent = sum(sampler_diagnostics(fit)$divergent__),
    ess_min = min(ep), ess_median = stats::median(ep), ess_max = max(ep),
    bulk_min = min(eb), bulk_median = stats::median(eb),
    s_per_iter = samp / prod(dim(arr)[1:2]), sampling_s = samp, warmup_s = warm, wall_s = wall,
    eff = min(ep) / samp, eff_bulk = min(eb) / samp, eff_bulk_total = min(eb) / wall,
    n_grad = sum(fit$counts$n_grad), n_potential = sum(fit$counts$n_potential),
    n_surrogate_grad = if (is.null(info)) 0 else sum(info$n_surrogate_grad),
    metric_evaluations = metric_evals,
    hidden = if (is.null(info)) NA else info$hidden[1],
    step_size = mean(vapply(fit$adaptation, `[[`, numeric(1), "step_size")))
}

t_start <- Sys.time()
message(sprintf("%s: N = %d, d = %d; %s", problem, prob$n, prob$d, paste(prob$notes, collapse = "; ")))
# A method that stops with an error (e.g. the paper's fixed step size unstable on these data,
# so that the exploration has nothing to train on) gets its message in the table, not a
# crashed run.
failed_row <- function(key, e) {
  message(sprintf("  %-32s failed: %s", configs[[key]]$label, conditionMessage(e)))
  list(summary = NULL, row = data.frame(problem = problem, key = key, method = configs[[key]]$label,
                                        error = conditionMessage(e)))
}
res <- lapply(stats::setNames(rows, rows), function(k) tryCatch(fit_row(k), error = function(e) failed_row(k, e)))
parts <- lapply(res, `[[`, "row")
cols <- unique(c(unlist(lapply(parts, names)), "error"))
tab <- do.call(rbind, lapply(parts, function(x) {
  x[setdiff(cols, names(x))] <- NA
  x[cols]
}))
rownames(tab) <- NULL
speedup <- function(col, base) if (base %in% tab$key) tab[[col]] / tab[[col]][tab$key == base] else NA
tab$spdup_vs_hmc <- speedup("eff", "hmc_paper")
tab$spdup_vs_nuts <- speedup("eff", "nuts")
tab$spdup_total_vs_nuts <- speedup("eff_bulk_total", "nuts")
tab$max_mean_diff_mcse <- NA_real_
if ("nuts" %in% rows && !is.null(res$nuts$summary)) {
  ref <- res$nuts$summary
  for (k in rows[!vapply(res[rows], function(r) is.null(r$summary), TRUE)]) {
    s <- res[[k]]$summary
    tab$max_mean_diff_mcse[tab$key == k] <- max(abs(s$mean - ref$mean) / sqrt(s$mcse_mean^2 + ref$mcse_mean^2))
  }
}
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)

# REM(t) of a row at 60 points of its sampling phase (see the header).
rem_curve <- function(key, truth) {
  r <- res[[key]]
  n <- dim(r$arr)[1]
  at <- unique(round(seq(10, n, length.out = 60)))
  rem <- vapply(at, function(i) {
    m <- colMeans(matrix(r$arr[seq_len(i), , , drop = FALSE], ncol = dim(r$arr)[3]))
    sqrt(sum((m - truth)^2)) / sqrt(sum(truth^2))
  }, numeric(1))
  data.frame(problem = problem, key = key, iteration = at,
             seconds = r$seconds[["warmup"]] + at * r$seconds[["sampling"]] / n, rem = rem)
}
fig8_keys <- intersect(c("hmc_paper", "rns_paper", "arns_paper"), rows[!is.na(tab$eff)])
if ("nuts" %in% rows && !is.null(res$nuts$summary) && length(fig8_keys)) {
  curves <- do.call(rbind, lapply(fig8_keys, rem_curve, truth = res$nuts$summary$mean))
  utils::write.csv(curves, file.path(dirname(out_file), sprintf("seed002_fig8_%s.csv", problem)),
                   row.names = FALSE)
}

cat(sprintf("\n%s: whole run %.1f min; load (5 min) %s\n", problem,
            as.numeric(difftime(Sys.time(), t_start, units = "mins")),
            if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg", 1), " ")[[1]][2] else "?"))
print(format(tab[c("method", "AP", "ess_min", "ess_median", "ess_max", "s_per_iter", "eff",
                   "spdup_vs_hmc", "spdup_vs_nuts", "spdup_total_vs_nuts", "max_mean_diff_mcse")],
             digits = 3), row.names = FALSE)
cat("\n")
print(format(tab[c("method", "divergent", "n_grad", "n_potential", "n_surrogate_grad",
                   "metric_evaluations", "factorizations", "solves", "step_size", "warmup_s",
                   "sampling_s", "wall_s")],
             digits = 3), row.names = FALSE)
