# Variational HMC on the beta-binomial overdispersion model of the cancer-mortality data
# (Zhang, Shahbaba and Zhao 2018, Figures 1-2): how close
# the approximation q ~ exp(-V) is to the exact posterior, against the number of hidden
# units. The target is an R log density of (logit m, log K) without a gradient (central
# differences; inst/bench/betabinomial.R); variational_hmc() with mu_t = 1 - exp(-t / 200)
# trains for 2000 iterations (the paper: "long enough"), then samples 2000 more; 2 chains.
# Reported per number of hidden units s: KL(q || p) and KL(p || q) on a 300 x 600 grid
# (q normalised there from variational_potential(); p the exact posterior normalised
# there), the held-out relative gradient error and score-matching distance, the true
# gradients used for training, and the posterior means and sds of the draws against the
# grid's. The Laplace approximation alone (mu = 0) is the fixed-form baseline.
#
#   Rscript inst/bench/vhmc_betabinomial.R   (about a minute; writes
#   vignettes/results/bench/vhmc_betabinomial.csv)
suppressPackageStartupMessages(library(vhmc))
out_file <- Sys.getenv("VHMC_BENCH_OUT", file.path("vignettes", "results", "bench", "vhmc_betabinomial.csv"))
bench_dir <- if (file.exists(file.path("inst", "bench", "betabinomial.R"))) file.path("inst", "bench") else
  system.file("bench", package = "vhmc")
source(file.path(bench_dir, "betabinomial.R"))
ld <- betabinomial_log_density(cancermortality$y, cancermortality$n)
grid <- betabinomial_grid(ld)
p_w <- exp(grid$log_density - max(grid$log_density)); p_w <- p_w / sum(p_w)
ref_mean <- colSums(grid$points * p_w)
ref_sd <- sqrt(colSums((sweep(grid$points, 2, ref_mean))^2 * p_w))

rows <- list()
for (s in c(5L, 10L, 20L, 50L, 100L)) {
  fit <- suppressMessages(suppressWarnings(vhmc_sample(
    ld, init = c(logit_m = -7, log_K = 6), chains = 2, iter = 4000, warmup = 2000, seed = 7,
    sampler = variational_hmc(hidden = s, schedule = 200), progress = FALSE)))
  info <- variational_info(fit)
  kl <- vapply(1:2, function(ch) {
    lq <- -variational_potential(fit, grid$points, chain = ch)
    c(grid_kl(lq, grid$log_density), grid_kl(grid$log_density, lq))
  }, numeric(2))
  dr <- as.matrix(fit)
  rows[[length(rows) + 1L]] <- data.frame(
    hidden = s, kl_q_p = mean(kl[1, ]), kl_p_q = mean(kl[2, ]),
    grad_rel_error = mean(info$grad_rel_error), score_distance = mean(info$score_distance),
    n_train = mean(info$n_train), true_gradients = sum(fit$counts$n_grad),
    mean_logit_m = mean(dr[, 1]), mean_log_K = mean(dr[, 2]),
    sd_logit_m = sd(dr[, 1]), sd_log_K = sd(dr[, 2]), accept = mean(info$accept))
  message(sprintf("  s = %3d: KL(q||p) %.4f", s, mean(kl[1, ])))
}
# Laplace baseline: the Gaussian at the mode with the Hessian there.
la <- vhmc:::laplace_anchor(function(th) list(value = -ld(th),
                                              gradient = -vhmc:::fd_gradient(ld, th)), c(-7, 6))
D <- t(grid$points) - la$mode
lq_lap <- -0.5 * colSums(D * (la$hessian %*% D))
rows[[length(rows) + 1L]] <- data.frame(
  hidden = 0, kl_q_p = grid_kl(lq_lap, grid$log_density), kl_p_q = grid_kl(grid$log_density, lq_lap),
  grad_rel_error = NA, score_distance = NA, n_train = NA, true_gradients = NA,
  mean_logit_m = la$mode[1], mean_log_K = la$mode[2],
  sd_logit_m = sqrt(solve(la$hessian)[1, 1]), sd_log_K = sqrt(solve(la$hessian)[2, 2]), accept = NA)
tab <- do.call(rbind, rows)
tab$method <- ifelse(tab$hidden == 0, "Laplace", "variational_hmc")
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)
print(format(tab, digits = 3), row.names = FALSE)
cat(sprintf("exact (grid): mean (%.4f, %.4f), sd (%.4f, %.4f); mode (%.4f, %.4f)\n", ref_mean[1],
            ref_mean[2], ref_sd[1], ref_sd[2], la$mode[1], la$mode[2]))
