# Variational HMC on a logistic regression against time (Zhang, Shahbaba and Zhao 2018,
# Figure 4): relative error of the running mean (REM) and of
# the running covariance (REC) against a reference posterior, as a function of elapsed wall
# seconds, for variational_hmc(), NUTS and SGLD in one run.
#
# Data: the census-like stand-in for a9a (inst/bench/census_like.R): N = 32561,
# 14 categorical variables one-hot into 123 binary columns, logistic labels with 24%
# positives, Gaussian random projection to 50 columns (N(0, 1/50) entries, seed 2017),
# standardised, plus an intercept: d = 51. Prior normal(0, 10) on every coefficient and the
# intercept (N(0, 100 I)), no autoscale.
#
# Reference beta^o, C^o: a long vhmc NUTS run (dense metric, 4 chains x 5000 draws after 1000
# warmup), written to results/vhmc_logistic_truth.csv.gz together with its bulk ESS and a
# noise floor: REM and REC between chains 1-2 and chains 3-4 (two halves of the reference).
# It is computed once (VHMC_LOGISTIC_PHASE=truth, not timed) and read by the timed phase.
#
# Timed phase (VHMC_LOGISTIC_PHASE=runs; run under the bench lock), one chain each, the same
# seed and so the same random initial values (uniform(-2, 2), vhmc_glm()'s default):
#   * variational_hmc, the paper's setting: hidden = 2000, schedule = 500 (mu_t = 1 -
#     exp(-t/500)), train_until = warmup = 2500 (5 n_s: mu frozen at 0.993; the package
#     default train_until = warmup with schedule = train_until / 10 would give mu = 0.86 at
#     warmup = 1000 if the schedule were 500), eps by dual averaging toward 0.7 acceptance;
#   * variational_hmc with the package defaults (hidden = min(2000, 40 d) = 2000,
#     train_until = warmup = 1000, schedule = 100);
#   * variational_hmc with hidden = 500 and 1000 (schedule 500, train_until 2500): cheaper
#     variants (the score-matching fit costs O(s^2) per training gradient plus a re-solve
#     every ceiling(s / d) gradients);
#   (every variational_hmc run in vhmc's form: the Laplace quadratic as the surrogate's base,
#   chains started from a Laplace draw; see ?variational_hmc)
#   * NUTS with vhmc's defaults (diag metric, adapt_delta 0.8), 1000 warmup;
#   * SGLD (Welling and Teh 2011), batch 500, constant steps, unit metric. The paper's
#     step sizes are Welling and Teh's eps in {2e-3, ..., 1e-5}; vhmc's h = eps / 2.
#     Here the largest curvature of U is about 1.8e4, so h must stay below 2 / 1.8e4 = 1.1e-4
#     for stability: eps in {1e-4, 5e-5, 1e-5}, i.e. h in {5e-5, 2.5e-5, 5e-6}; 10 updates per
#     saved draw; 1000 saved draws (10000 updates) of burn-in, then 12000 draws.
#
# Time axis (inst/bench/timed_draws.R). vhmc reports each chain's warmup and sampling wall
# time (steady clock). The wall time of the whole vhmc_glm() call minus those two (the Laplace
# mode search of variational_hmc, initial values, and the fit's post-processing) is counted
# as spent before warmup, which penalises every method by its own overhead. Draw k of the
# sampling phase is stamped overhead + warmup + sampling x (work up to k) / (total work),
# with work = leapfrog steps for NUTS and variational_hmc (true resp. surrogate gradients:
# the cost of an iteration is proportional to them) and 1 per draw for SGLD (fixed updates
# per draw).
# REM_t and REC_t use the draws after warmup stamped at or before t (no draws: NA). The
# covariance is normalised by 1/t. Budgets 10, 30, 60 and 120 s; ended_s says when a run stopped
# (a run that ended before a budget is scored with all its draws). Elapsed times depend on
# the machine's load: cpu_seconds of each call is reported next to the wall time.
#
#   Rscript inst/bench/vhmc_logistic.R   (truth once, several minutes on 2 cores; then the
#   timed runs, about 10 minutes; writes vignettes/results/bench/vhmc_logistic.csv and
#   vhmc_logistic_curves.csv.gz)
suppressPackageStartupMessages(library(vhmc))
bench_dir <- if (file.exists(file.path("inst", "bench", "census_like.R"))) file.path("inst", "bench") else
  system.file("bench", package = "vhmc")
source(file.path(bench_dir, "census_like.R"))
source(file.path(bench_dir, "timed_draws.R"))
res_dir <- Sys.getenv("VHMC_BENCH_OUT_DIR", file.path("vignettes", "results", "bench"))
truth_file <- file.path(res_dir, "vhmc_logistic_truth.csv.gz")
phase <- Sys.getenv("VHMC_LOGISTIC_PHASE", "all")
# VHMC_BENCH_SCALE < 1 shortens the timed runs, for development only.
sc <- function(iter) max(100L, as.integer(round(iter * as.numeric(Sys.getenv("VHMC_BENCH_SCALE", "1")))))
budgets <- c(10, 30, 60, 120)

cl <- census_like()
pri <- normal(0, 10, autoscale = FALSE)
fit_glm <- function(sampler, iter, warmup, chains = 1, cores = 1) {
  r <- timed(suppressWarnings(vhmc_glm(y ~ ., data = cl$data, family = stats::binomial(),
                                       prior = pri, prior_intercept = pri, sampler = sampler,
                                       chains = chains, cores = cores, iter = iter,
                                       warmup = warmup, seed = 11, progress = FALSE)))
  list(fit = r$value, wall = r$wall, cpu = r$cpu)
}
rem <- function(m, ref) sum(abs(m - ref$mean)) / sum(abs(ref$mean))
rec <- function(C, ref) sum(abs(C - ref$cov)) / sum(abs(ref$cov))
cov1 <- function(x) stats::cov(x) * (nrow(x) - 1) / nrow(x)   # 1/t normalised

if (phase %in% c("truth", "all") && (phase == "truth" || !file.exists(truth_file))) {
  message("reference: NUTS, dense metric, 4 chains x 5000 draws")
  tr <- fit_glm(nuts(metric = "dense"), iter = 6000, warmup = 1000, chains = 4, cores = 2)
  dr <- as.matrix(tr$fit)
  ess <- apply(dr, 2, function(x) posterior::ess_bulk(matrix(x, ncol = 4)))
  half <- rep(1:2, each = nrow(dr) / 2)   # as.matrix() stacks the chains in order
  ref1 <- list(mean = colMeans(dr[half == 1, ]), cov = cov1(dr[half == 1, ]))
  floor_rem <- rem(colMeans(dr[half == 2, ]), ref1)
  floor_rec <- rec(cov1(dr[half == 2, ]), ref1)
  C <- cov1(dr)
  truth <- data.frame(parameter = colnames(dr), mean = colMeans(dr), ess_bulk = ess,
                      split_rem = floor_rem, split_rec = floor_rec, wall_seconds = tr$wall,
                      C, check.names = FALSE)
  dir.create(res_dir, showWarnings = FALSE, recursive = TRUE)
  utils::write.csv(truth, gzfile(truth_file), row.names = FALSE)
  message(sprintf("reference: min/mean bulk ESS %.0f/%.0f; split-half REM %.4f REC %.4f; %.0f s",
                  min(ess), mean(ess), floor_rem, floor_rec, tr$wall))
}
if (phase == "truth") quit(save = "no")

truth <- utils::read.csv(truth_file, check.names = FALSE)
ref <- list(mean = truth$mean, cov = as.matrix(truth[, truth$parameter]))

# Wall-clock stamps of the saved draws (see the header) and REM/REC along the run.
score_run <- function(run, method, setting, work_column) {
  fit <- run$fit
  dr <- as.matrix(fit)
  st <- draw_stamps(fit, run$wall, work_column)
  stamp <- st$stamp
  start <- st$start
  overhead <- st$overhead
  tm <- fit$timing
  grid <- sort(unique(c(budgets, exp(seq(log(max(start, 1)), log(run$wall), length.out = 40)))))
  curve <- do.call(rbind, lapply(grid, function(t) {
    k <- sum(stamp <= t)
    data.frame(method = method, setting = setting, seconds = t, draws = k,
               rem = if (k >= 1) rem(colMeans(dr[seq_len(k), , drop = FALSE]), ref) else NA,
               rec = if (k >= 2) rec(cov1(dr[seq_len(k), , drop = FALSE]), ref) else NA,
               ended_s = run$wall)
  }))
  ess <- apply(dr, 2, posterior::ess_bulk)
  info <- list(method = method, setting = setting, overhead_s = overhead,
               warmup_s = tm$warmup_seconds, sampling_s = tm$sampling_seconds, ended_s = run$wall,
               cpu_seconds = run$cpu, total_draws = nrow(dr), mean_ess = mean(ess),
               mean_ess_per_s = mean(ess) / tm$sampling_seconds,
               accept = if (is.numeric(a <- fit$diagnostics[[1]][["accept_stat__"]])) mean(a) else NA,
               true_gradients = sum(fit$counts$n_grad))
  message(sprintf("  %-16s %-40s %6.1f s (overhead %.1f, warmup %.1f); final REM %.4f REC %.4f",
                  method, setting, run$wall, overhead, tm$warmup_seconds,
                  utils::tail(curve$rem, 1), utils::tail(curve$rec, 1)))
  list(curve = curve, info = info)
}

runs <- list()
add <- function(...) runs[[length(runs) + 1L]] <<- score_run(...)
vhmc_extra <- function(fit) {
  vi <- variational_info(fit)
  list(hidden = vi$hidden, n_train = vi$n_train, update_seconds = vi$update_seconds,
       grad_rel_error = vi$grad_rel_error, n_outside = vi$n_outside)
}
set_extra <- function(x) {
  runs[[length(runs)]]$info <<- c(runs[[length(runs)]]$info, x)
}
message("timed runs")
r <- fit_glm(variational_hmc(hidden = 2000, schedule = 500, train_until = sc(2500)),
             iter = sc(2500) + sc(20000), warmup = sc(2500))
add(r, "variational_hmc", "paper: s = 2000, schedule 500, train 2500", "n_leapfrog__")
set_extra(vhmc_extra(r$fit))
r <- fit_glm(variational_hmc(), iter = sc(1000) + sc(20000), warmup = sc(1000))
add(r, "variational_hmc", "defaults: s = 2000, schedule 100, train 1000", "n_leapfrog__")
set_extra(vhmc_extra(r$fit))
r <- fit_glm(variational_hmc(hidden = 500, schedule = 500, train_until = sc(2500)),
             iter = sc(2500) + sc(20000), warmup = sc(2500))
add(r, "variational_hmc", "s = 500, schedule 500, train 2500", "n_leapfrog__")
set_extra(vhmc_extra(r$fit))
r <- fit_glm(variational_hmc(hidden = 1000, schedule = 500, train_until = sc(2500)),
             iter = sc(2500) + sc(20000), warmup = sc(2500))
add(r, "variational_hmc", "s = 1000, schedule 500, train 2500", "n_leapfrog__")
set_extra(vhmc_extra(r$fit))
r <- fit_glm(nuts(), iter = sc(1000) + sc(4000), warmup = sc(1000))
add(r, "NUTS", "defaults, 1000 warmup", "n_leapfrog__")
for (eps in c(1e-4, 5e-5, 1e-5)) {
  r <- fit_glm(sgld(batch_size = 500, step_size = eps / 2, updates = 10, metric = "unit",
                    control_variate = FALSE),
               iter = sc(1000) + sc(12000), warmup = sc(1000))
  add(r, "SGLD", sprintf("batch 500, eps %g (h %g)", eps, eps / 2), NULL)
}
# Not in the paper: vhmc's SGLD with its defaults (control variate around the mode).
r <- fit_glm(sgld(), iter = sc(1000) + sc(12000), warmup = sc(1000))
add(r, "SGLD", "vhmc defaults (SGLD-CV)", NULL)

curves <- do.call(rbind, lapply(runs, `[[`, "curve"))
infos <- lapply(runs, `[[`, "info")
cols <- unique(unlist(lapply(infos, names)))
info <- do.call(rbind, lapply(infos, function(x) {
  x[setdiff(cols, names(x))] <- NA
  as.data.frame(x[cols])
}))
tab <- merge(curves[curves$seconds %in% budgets, c("method", "setting", "seconds", "draws", "rem", "rec")],
             info, by = c("method", "setting"), sort = FALSE)
names(tab)[names(tab) == "seconds"] <- "budget_s"
tab <- tab[order(tab$budget_s, tab$method != "variational_hmc", tab$method), ]
utils::write.csv(tab, file.path(res_dir, "vhmc_logistic.csv"), row.names = FALSE)
utils::write.csv(curves, gzfile(file.path(res_dir, "vhmc_logistic_curves.csv.gz")), row.names = FALSE)
print(format(tab[, c("method", "setting", "budget_s", "draws", "rem", "rec", "ended_s",
                     "mean_ess_per_s")], digits = 3), row.names = FALSE)
