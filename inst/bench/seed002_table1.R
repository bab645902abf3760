# Reproduction of the simulated logistic regression rows of Table 1 of Zhang, Shahbaba and
# Zhao (2017, "HMC acceleration using surrogate functions with random bases"),
# with vhmc's automatic samplers measured in the same run.
#
# Data (the paper's simulated logistic regression, sim_lr() of inst/bench/table1_data.R):
# N = 1e5, d = 50, X = (0.1 * 1, X_1), rows of X_1 iid N(0, I/100), beta_true ~ U[0,1]^50,
# y ~ Bernoulli(logit^-1(X beta)); prior beta ~ N(0, 10^2 I).
# vhmc_glm fits the column 0.1 * 1 as the intercept alpha = 0.1 beta_1 (prior normal(0, 1),
# applied at the centred predictors, whose means are ~3e-4: a negligible change) and the
# slopes with normal(0, 10), no autoscaling. vhmc samples the slopes as beta_j * sd(x_j)
# (~0.1 beta_j) and the intercept ~0.1 beta_1, so the papers' step size 0.045 (unit metric,
# beta scale) is 0.0045 here: the same trajectories up to the ~0.2% spread of sd(x_j).
#
# Rows, each 2 chains on 2 cores, the same seed:
#   HMC (paper)          hmc(step_size = 0.0045, steps = 6, metric = "unit"): L_t ~ U{1..6}
#   RNS-HMC value (paper) surrogate_hmc(hidden = 2000, train_on = "value", steps = 6,
#                         step_size = 0.0045, metric = "unit"): the papers' value-trained
#                         network on the exploration's states (every leapfrog state after
#                         the first 20% of exploration, capped at 50000 points)
#   RNS-HMC (paper)      the same with vhmc's default gradient training (quadratic base plus
#                        the bases)
#   NUTS                 nuts(), vhmc's automatic sampler
#   surrogate_hmc        surrogate_hmc(), vhmc's automatic surrogate sampler
# The paper rows use 5000 warmup (the surrogates: all of it exploration, as the papers'
# 5000 burn-in whose states 1001..5000 train the network; HMC: burn-in only, it adapts
# nothing) and 5000 sampling iterations per chain; the automatic rows 1000 warmup (their
# own adaptation) and 5000 sampling iterations.
#
# Columns: AP (fraction of distinct successive draws, as the papers' code), ESS (min,
# median, max) in the papers' convention (Geyer's initial monotone sequence, posterior's
# ess_basic over both chains, capped at the number of draws), the same for bulk ESS
# (rank-normalised, uncapped: antithetic chains exceed the number of draws), seconds per
# sampling iteration (per chain), min ESS per second of sampling (the papers' efficiency:
# the sampling phase only, summed over chains), the speedups over HMC (paper rows) and over
# NUTS (automatic rows), and the same per total second (warmup and training included).
# Counts: true gradients, true log densities and surrogate gradients (all chains).
# Agreement: max over coefficients of |mean - mean_NUTS| in units of the combined MCSE.
#
#   Rscript inst/bench/seed002_table1.R    (about 10 minutes on an idle 2-core machine)
# writes vignettes/results/bench/seed002_table1.csv. Seconds depend on the machine and its load;
# the ratios measured within one run are what compare with the paper's.
# Environment: VHMC_BENCH_N (1e5), VHMC_BENCH_SAMPLING (5000), VHMC_BENCH_ROWS (all, comma
# separated: hmc_paper, rns_value_paper, rns_paper, nuts, surrogate), VHMC_BENCH_OUT.
suppressPackageStartupMessages(library(vhmc))
bench_dir <- if (file.exists(file.path("inst", "bench", "table1_data.R"))) {
  file.path("inst", "bench")
} else {
  system.file("bench", package = "vhmc")
}
source(file.path(bench_dir, "table1_data.R"))

n <- as.integer(env_num("VHMC_BENCH_N", 1e5))
n_samp <- as.integer(env_num("VHMC_BENCH_SAMPLING", 5000))
rows <- strsplit(Sys.getenv("VHMC_BENCH_ROWS", "hmc_paper,rns_value_paper,rns_paper,nuts,surrogate"),
                 ",")[[1]]
out_file <- Sys.getenv("VHMC_BENCH_OUT", file.path("vignettes", "results", "bench", "seed002_table1.csv"))
d <- 50L
chains <- 2L
eps_paper <- 0.045 * 0.1

sim <- sim_lr(N = n, d = d)
dat <- data.frame(y = sim$y, sim$X[, colnames(sim$X) != "intercept", drop = FALSE])
rm(sim)

configs <- list(
  hmc_paper = list(label = "HMC (paper settings)", warmup = 5000L,
                   sampler = hmc(step_size = eps_paper, steps = 6, metric = "unit")),
  rns_value_paper = list(label = "RNS-HMC, value training (paper settings)", warmup = 5000L,
                         sampler = surrogate_hmc(hidden = 2000, train_on = "value", steps = 6,
                                                 step_size = eps_paper, metric = "unit",
                                                 explore = 5000)),
  rns_paper = list(label = "RNS-HMC, gradient training (paper settings)", warmup = 5000L,
                   sampler = surrogate_hmc(hidden = 2000, steps = 6, step_size = eps_paper,
                                           metric = "unit", explore = 5000)),
  nuts = list(label = "NUTS (vhmc automatic)", warmup = 1000L, sampler = nuts()),
  surrogate = list(label = "surrogate_hmc() (vhmc automatic)", warmup = 1000L,
                   sampler = surrogate_hmc())
)
stopifnot(all(rows %in% names(configs)))
# The paper's HMC burn-in adapts nothing; 1000 iterations reach the posterior from vhmc's
# random inits, and the efficiency counts sampling only.
configs$hmc_paper$warmup <- 1000L

ess_paper <- function(arr) {
  e <- apply(arr, 3, posterior::ess_basic)
  pmin(e, dim(arr)[1] * dim(arr)[2])
}
distinct_fraction <- function(arr) {
  mean(apply(arr, 2, function(ch) mean(rowSums(abs(diff(ch))) > 0)))
}

fit_row <- function(key) {
  cf <- configs[[key]]
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(vhmc_glm(
    y ~ ., data = dat, family = stats::binomial(),
    prior = normal(0, 10, autoscale = FALSE), prior_intercept = normal(0, 1, autoscale = FALSE),
    sampler = cf$sampler, chains = chains, cores = 2, iter = cf$warmup + n_samp,
    warmup = cf$warmup, seed = 2017, progress = FALSE))
  wall <- proc.time()[["elapsed"]] - t0
  arr <- posterior::as_draws_array(fit)
  arr <- arr[, , setdiff(dimnames(arr)[[3]], "lp__"), drop = FALSE]
  ep <- ess_paper(arr)
  eb <- suppressWarnings(apply(arr, 3, posterior::ess_bulk))
  samp <- sum(fit$timing$sampling_seconds)
  warm <- sum(fit$timing$warmup_seconds)
  info <- if (!is.null(fit$surrogate)) surrogate_info(fit)
  message(sprintf("  %-45s %6.1f s wall, min ESS %5.0f, AP %.2f", cf$label, wall, min(ep),
                  distinct_fraction(arr)))
  list(fit_summary = posterior::summarise_draws(arr, "mean", "sd", "mcse_mean"),
       row = data.frame(
         key = key, method = cf$label, n = n, d = d, chains = chains, warmup = cf$warmup,
         sampling = n_samp, AP = distinct_fraction(arr),
         accept_stat = mean(vapply(fit$diagnostics, function(x) mean(x$accept_stat__), 0)),
         ess_min = min(ep), ess_median = stats::median(ep), ess_max = max(ep),
         bulk_min = min(eb), bulk_median = stats::median(eb), bulk_max = max(eb),
         tail_min = min(suppressWarnings(apply(arr, 3, posterior::ess_tail))),
         s_per_iter = samp / (chains * n_samp), sampling_s = samp, warmup_s = warm, wall_s = wall,
         eff = min(ep) / samp, eff_bulk = min(eb) / samp, eff_total = min(ep) / (samp + warm),
         n_grad = sum(fit$counts$n_grad), n_potential = sum(fit$counts$n_potential),
         n_surrogate_grad = if (is.null(info)) 0 else sum(info$n_surrogate_grad),
         hidden = if (is.null(info)) NA else info$hidden[1],
         n_train = if (is.null(info)) NA else mean(info$n_train),
         train_s = if (is.null(info)) NA else sum(info$train_seconds),
         grad_rel_error = if (is.null(info)) NA else mean(info$grad_rel_error),
         steps = if (is.null(info)) NA else mean(info$steps),
         step_size = mean(vapply(fit$adaptation, `[[`, numeric(1), "step_size")),
         predicted_ess = if (is.null(info)) NA else mean(info$predicted_ess)))
}

t_start <- Sys.time()
message(sprintf("simulated logistic regression N = %d, d = %d; %d chains x %d sampling iterations",
                n, d, chains, n_samp))
res <- lapply(stats::setNames(rows, rows), fit_row)
tab <- do.call(rbind, lapply(res, `[[`, "row"))
rownames(tab) <- NULL

speedup <- function(col, base) if (base %in% tab$key) tab[[col]] / tab[[col]][tab$key == base] else NA
tab$spdup_vs_hmc <- speedup("eff", "hmc_paper")
tab$spdup_vs_nuts <- speedup("eff", "nuts")
tab$spdup_bulk_vs_nuts <- speedup("eff_bulk", "nuts")
tab$spdup_total_vs_hmc <- speedup("eff_total", "hmc_paper")
tab$spdup_total_vs_nuts <- speedup("eff_total", "nuts")
tab$max_mean_diff_mcse <- NA_real_
if ("nuts" %in% rows) {
  ref <- res$nuts$fit_summary
  for (k in rows) {
    s <- res[[k]]$fit_summary
    tab$max_mean_diff_mcse[tab$key == k] <-
      max(abs(s$mean - ref$mean) / sqrt(s$mcse_mean^2 + ref$mcse_mean^2))
  }
}
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)

cat(sprintf("\nwhole run %.1f min; machine load (5 min) %s\n",
            as.numeric(difftime(Sys.time(), t_start, units = "mins")),
            if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg", 1), " ")[[1]][2] else "?"))
show <- c("method", "AP", "ess_min", "ess_median", "ess_max", "bulk_min", "tail_min", "s_per_iter",
          "eff", "spdup_vs_hmc", "spdup_vs_nuts", "spdup_bulk_vs_nuts", "spdup_total_vs_nuts",
          "max_mean_diff_mcse")
print(format(tab[show], digits = 3), row.names = FALSE)
cat("\n")
print(format(tab[c("method", "n_grad", "n_potential", "n_surrogate_grad", "n_train", "train_s",
                   "grad_rel_error", "steps", "step_size", "predicted_ess", "warmup_s",
                   "sampling_s")], digits = 3), row.names = FALSE)
cat("\nPaper (Table 1, simulated LR, s = 2000): HMC AP 0.76, ESS (4351, 5000, 5000), 0.061 s/iter;",
    "RNS-HMC AP 0.76, ESS (4449, 4999, 5000), 0.007 s/iter, speedup 8.72.\n")
