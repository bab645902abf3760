# Variational HMC on Bayesian ICA against time (Zhang, Shahbaba and Zhao 2018,
# Figure 5): Amari distance between the running sample mean W_bar and a
# reference, against elapsed wall seconds, for variational_hmc(), static HMC and
# natural-gradient SGLD, in one run.
#
# Data (a stand-in for the MEG recordings; inst/bench/ica.R): 5 hyperbolic-secant
# sources (the model's own law), N = 17730, mixing A with N(0, 1) entries (seed 1996), so
# W_0 = A^{-1} is the true unmixing matrix; d = 25. The target is an R log density with its R
# gradient, vectorised over the N columns, passed to vhmc_sample().
#
# References: (a) the known A^{-1} (the data-generating W: its distance to the posterior mean
# is the estimation error, which no sampler can go below); (b) the mean of a long vhmc NUTS
# run (dense metric, 4 chains x 1000 draws after 500 warmup, VHMC_ICA_PHASE=truth, not
# timed; results/vhmc_ica_truth.csv), the stand-in for the paper's 100K-sample HMC mean.
#
# Symmetry. The posterior is invariant (up to the prior, which is symmetric too) under row
# permutations and sign flips of W: it has 5! 2^5 = 3840 modes. All samplers start at the
# same point near the mode of A^{-1}: W_0 + N(0, (0.05 sd(W_0))^2) per entry (seed 3), and
# with N = 17730 none leaves it. (The Amari distance ignores permutation and scale anyway,
# but a running mean over several modes would not.)
#
# Timed phase (VHMC_ICA_PHASE=runs; run under the bench lock), one chain each:
#   * variational_hmc, hidden = 1000 and the paper's schedule 2000 (mu_t = 1 - exp(-t/2000)),
#     train_until = warmup = 10000 (5 n_s, mu frozen at 0.993), steps = 40 (L, jittered
#     1..40), eps by dual averaging toward 0.7 acceptance;
#   * variational_hmc scaled down: hidden = 1000, schedule 200, train_until = warmup = 1000;
#   * HMC: vhmc's hmc(steps = 40) (jittered, adapted step size and diagonal metric), 200
#     warmup iterations;
#   * natural-gradient SGLD written in R (vhmc's sgld() handles vhmc_glm() models only):
#     batch 500, eps_t = 5e-3 (1e4 + t)^(-1/2) (b = 1e4: the printed 1e-4 is a typo), every
#     10th state stored with its own wall-clock stamp, stopped after 150 s or 1e6 iterations
#     (1e5 stored states), whichever comes first; no burn-in is
#     discarded (it starts at the same point as the others).
# Time axis for the vhmc fits: inst/bench/timed_draws.R (the overhead of the call counted
# first, sampling time spread in proportion to leapfrog steps); the running mean uses the
# draws after warmup. Budgets 15, 30, 60 and 120 s.
#
#   Rscript inst/bench/vhmc_ica.R   (reference once, a few minutes; the timed runs about
#   8 minutes; writes vignettes/results/bench/vhmc_ica.csv.gz)
suppressPackageStartupMessages(library(vhmc))
bench_dir <- if (file.exists(file.path("inst", "bench", "ica.R"))) file.path("inst", "bench") else
  system.file("bench", package = "vhmc")
source(file.path(bench_dir, "ica.R"))
source(file.path(bench_dir, "timed_draws.R"))
res_dir <- Sys.getenv("VHMC_BENCH_OUT_DIR", file.path("vignettes", "results", "bench"))
truth_file <- file.path(res_dir, "vhmc_ica_truth.csv")
phase <- Sys.getenv("VHMC_ICA_PHASE", "all")
# VHMC_BENCH_SCALE < 1 shortens the timed runs, for development only.
sc <- function(iter) max(100L, as.integer(round(iter * as.numeric(Sys.getenv("VHMC_BENCH_SCALE", "1")))))
budgets <- c(15, 30, 60, 120)

D <- ica_data()
P <- ica_potential(D$X)
n <- D$n
set.seed(3)
init <- stats::setNames(as.vector(D$W0) + stats::rnorm(n * n, 0, 0.05 * stats::sd(as.vector(D$W0))),
                        ica_names(n))
run_sample <- function(sampler, iter, warmup, chains = 1, cores = 1) {
  timed(suppressWarnings(vhmc_sample(P$log_density, P$gradient, init = init, sampler = sampler,
                                     chains = chains, cores = cores, iter = iter, warmup = warmup,
                                     seed = 5, progress = FALSE)))
}

if (phase %in% c("truth", "all") && (phase == "truth" || !file.exists(truth_file))) {
  message("reference: NUTS, dense metric, 4 chains x 1000 draws")
  tr <- run_sample(nuts(metric = "dense"), iter = 1500, warmup = 500, chains = 4, cores = 2)
  dr <- as.matrix(tr$value)
  ess <- apply(dr, 2, function(x) posterior::ess_bulk(matrix(x, ncol = 4)))
  half <- rep(1:2, each = nrow(dr) / 2)
  split <- amari(matrix(colMeans(dr[half == 1, ]), n), matrix(colMeans(dr[half == 2, ]), n))
  truth <- data.frame(parameter = colnames(dr), mean = colMeans(dr), sd = apply(dr, 2, stats::sd),
                      W0 = as.vector(D$W0), ess_bulk = ess, split_amari = split[["amari"]],
                      amari_mean_W0 = amari(matrix(colMeans(dr), n), D$W0)[["amari"]],
                      wall_seconds = tr$wall)
  dir.create(res_dir, showWarnings = FALSE, recursive = TRUE)
  utils::write.csv(truth, truth_file, row.names = FALSE)
  message(sprintf("reference: min/mean bulk ESS %.0f/%.0f; split-half Amari %.4f; Amari(mean, W0) %.4f; %.0f s",
                  min(ess), mean(ess), split[["amari"]], truth$amari_mean_W0[1], tr$wall))
}
if (phase == "truth") quit(save = "no")

truth <- utils::read.csv(truth_file)
W_ref <- matrix(truth$mean, n)

# Amari distances of the running mean at `grid` seconds, from draws stamped in seconds.
amari_curve <- function(draws, stamp, start, end, method, setting) {
  grid <- sort(unique(c(budgets, exp(seq(log(max(start, 0.5)), log(end), length.out = 40)))))
  do.call(rbind, lapply(grid, function(t) {
    k <- sum(stamp <= t)
    W <- if (k >= 1) matrix(colMeans(draws[seq_len(k), , drop = FALSE]), n) else NULL
    a0 <- if (k >= 1) amari(W, D$W0) else c(NA, NA)
    ar <- if (k >= 1) amari(W, W_ref) else c(NA, NA)
    data.frame(method = method, setting = setting, seconds = t, budget = t %in% budgets, draws = k,
               amari_W0 = a0[1], amari_W0_norm = a0[2], amari_ref = ar[1], amari_ref_norm = ar[2],
               ended_s = end)
  }))
}
curves <- list()
score_fit <- function(r, method, setting) {
  st <- draw_stamps(r$value, r$wall, "n_leapfrog__")
  cv <- amari_curve(as.matrix(r$value), st$stamp, st$start, r$wall, method, setting)
  cv$overhead_s <- st$overhead
  cv$warmup_s <- st$warmup
  cv$cpu_seconds <- r$cpu
  cv$accept <- mean(r$value$diagnostics[[1]]$accept_stat__)
  cv$epochs <- sum(r$value$counts$n_grad)   # full gradients (Laplace search excluded)
  cv$grad_rel_error <- if (is.null(r$value$variational)) NA else variational_info(r$value)$grad_rel_error
  curves[[length(curves) + 1L]] <<- cv
  message(sprintf("  %-16s %-45s %6.1f s (overhead %.1f, warmup %.1f); final Amari to W0 %.4f, to ref %.4f",
                  method, setting, r$wall, st$overhead, st$warmup, utils::tail(cv$amari_W0, 1),
                  utils::tail(cv$amari_ref, 1)))
}
message("timed runs")
r <- run_sample(variational_hmc(hidden = 1000, schedule = 2000, train_until = sc(10000), steps = 40),
                iter = sc(10000) + sc(20000), warmup = sc(10000))
score_fit(r, "variational_hmc", "s = 1000, schedule 2000, train 10000, L = 40")
vi <- variational_info(r$value)
message(sprintf("    trained on %d gradients, updates %.1f s, held-out gradient error %.3f",
                vi$n_train, vi$update_seconds, vi$grad_rel_error))
r <- run_sample(variational_hmc(hidden = 1000, schedule = 200, train_until = sc(1000), steps = 40),
                iter = sc(1000) + sc(20000), warmup = sc(1000))
score_fit(r, "variational_hmc", "s = 1000, schedule 200, train 1000, L = 40")
r <- run_sample(hmc(steps = 40), iter = sc(200) + sc(1200), warmup = sc(200))
score_fit(r, "HMC", "L = 40 (jittered), adapted eps and diag metric")
t0 <- proc.time()[["elapsed"]]
sg <- ica_sgld(D$X, matrix(init, n), seconds = 150 * as.numeric(Sys.getenv("VHMC_BENCH_SCALE", "1")), thin = 10L, seed = 7)
wall <- proc.time()[["elapsed"]] - t0
cv <- amari_curve(sg$draws, sg$stamp, sg$stamp[1], wall, "SGLD",
                  "natural gradient, batch 500, eps 5e-3 (1e4 + t)^-0.5")
cv$overhead_s <- 0
cv$warmup_s <- 0
cv$cpu_seconds <- NA
cv$accept <- NA
cv$epochs <- sg$epochs   # per-observation gradients / N
cv$grad_rel_error <- NA
curves[[length(curves) + 1L]] <- cv
message(sprintf("  SGLD: %d iterations (%.0f epochs) in %.0f s; final Amari to W0 %.4f, to ref %.4f",
                sg$iterations, sg$epochs, wall, utils::tail(cv$amari_W0, 1), utils::tail(cv$amari_ref, 1)))

tab <- do.call(rbind, curves)
utils::write.csv(tab, gzfile(file.path(res_dir, "vhmc_ica.csv.gz")), row.names = FALSE)
print(format(tab[tab$budget, c("method", "setting", "seconds", "draws", "amari_W0", "amari_ref")],
             digits = 3), row.names = FALSE)
