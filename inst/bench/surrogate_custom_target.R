# Surrogate HMC on a custom R target without a gradient (issue 4, item 7): the
# beta-binomial overdispersion model of the cancer-mortality data (Zhang, Shahbaba and Zhao 2018), in
# Albert's parameterisation (logit m, log K), written as an R function with no gradient.
# NUTS then differentiates numerically (central differences: 2 d = 4 log-density calls per
# gradient) at every leapfrog step; surrogate_hmc() does so only during its exploration and
# then calls the log density once per iteration. Every call of the R function is counted
# (one core, so that the counter sees all chains), with the wall time and the effective
# sample sizes, for 4 chains of 1000 warmup and 5000 sampling iterations:
#   nuts      nuts() with finite-difference gradients
#   surrogate surrogate_hmc() with the same finite-difference gradients in exploration
# Reported: minimum bulk and tail ESS, log-density calls in total, in sampling, and per
# effective draw (min bulk ESS), seconds and ESS per second, the ratios surrogate / NUTS,
# and the agreement of posterior means (in combined MCSEs) and sds with a grid reference
# (the posterior normalised on a 600 x 1200 grid).
#
#   Rscript inst/bench/surrogate_custom_target.R  (about a minute; writes
#   vignettes/results/bench/surrogate_custom_target.csv)
suppressPackageStartupMessages(library(vhmc))
out_file <- Sys.getenv("VHMC_BENCH_OUT",
                       file.path("vignettes", "results", "bench", "surrogate_custom_target.csv"))
y <- cancermortality$y
n <- cancermortality$n
calls <- 0
bench_dir <- if (file.exists(file.path("inst", "bench", "betabinomial.R"))) file.path("inst", "bench") else
  system.file("bench", package = "vhmc")
source(file.path(bench_dir, "betabinomial.R"))
betabin_plain <- betabinomial_log_density(y, n)
betabin <- function(x) {
  calls <<- calls + 1
  betabin_plain(x)
}

# Grid reference: the posterior is skewed in log K, so the grid is wider to the right.
g1 <- seq(-8.2, -5.4, length.out = 600)
g2 <- seq(3, 30, length.out = 1200)
lp <- outer(g1, g2, Vectorize(function(a, b) betabin(c(a, b))))
w <- exp(lp - max(lp))
w <- w / sum(w)
ref_mean <- c(sum(w * g1[row(w)]), sum(w * g2[col(w)]))
ref_sd <- sqrt(c(sum(w * (g1[row(w)] - ref_mean[1])^2), sum(w * (g2[col(w)] - ref_mean[2])^2)))

init <- c(logit_m = -7, log_K = 6)
run <- function(label, sampler) {
  calls <<- 0
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(vhmc_sample(betabin, init = init, sampler = sampler,
                                                       chains = 4, iter = 6000, warmup = 1000,
                                                       cores = 1, seed = 11, progress = FALSE)))
  wall <- proc.time()[["elapsed"]] - t0
  total_calls <- calls
  s <- summary(fit)$variables
  info <- if (!is.null(fit$surrogate)) surrogate_info(fit)
  # NUTS: every call comes from a (finite-difference) gradient, so the sampling phase's share
  # of the calls is its share of the gradients; surrogate: one call per sampling iteration.
  samp_calls <- if (is.null(info)) {
    total_calls * sum(fit$counts$n_grad_sampling) / sum(fit$counts$n_grad)
  } else 4 * 5000
  z <- (s$mean - ref_mean) / s$mcse_mean
  message(sprintf("  %-9s %6.1f s, %8.0f calls, min bulk ESS %5.0f", label, wall, total_calls,
                  min(s$ess_bulk)))
  data.frame(sampler = label, min_ess_bulk = min(s$ess_bulk), min_ess_tail = min(s$ess_tail),
             calls = total_calls, calls_sampling = samp_calls,
             calls_per_ess = total_calls / min(s$ess_bulk),
             sampling_calls_per_ess = samp_calls / min(s$ess_bulk),
             seconds = wall, ess_per_s = min(s$ess_bulk) / wall,
             sampling_s = sum(fit$timing$sampling_seconds),
             ess_per_sampling_s = min(s$ess_bulk) / sum(fit$timing$sampling_seconds),
             accept = mean(vapply(fit$diagnostics, function(x) mean(x$accept_stat__), 0)),
             max_abs_z_vs_grid = max(abs(z)), max_sd_rel_error = max(abs(s$sd / ref_sd - 1)),
             hidden = if (is.null(info)) NA else info$hidden[1],
             grad_rel_error = if (is.null(info)) NA else mean(info$grad_rel_error))
}
tab <- rbind(run("nuts", nuts()), run("surrogate", surrogate_hmc()))
ratio <- tab[2, c("calls_per_ess", "sampling_calls_per_ess", "ess_per_s", "ess_per_sampling_s")] /
  tab[1, c("calls_per_ess", "sampling_calls_per_ess", "ess_per_s", "ess_per_sampling_s")]
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)
print(format(tab, digits = 3), row.names = FALSE)
cat(sprintf(paste("\nsurrogate / NUTS: %.2f x the calls per effective draw (%.3f x in sampling),",
                  "%.1f x the ESS per second (%.1f x per sampling second)\n"),
            ratio[[1]], ratio[[2]], ratio[[3]], ratio[[4]]))
cat(sprintf("grid reference: mean (%.4f, %.4f), sd (%.4f, %.4f)\n", ref_mean[1], ref_mean[2],
            ref_sd[1], ref_sd[2]))
