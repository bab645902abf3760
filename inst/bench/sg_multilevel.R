# Stochastic-gradient samplers on a large multilevel model against NUTS (issue 42, item 2):
# logistic y ~ x1 + x2 + (1 | g), N rows over J levels (N / J rows each), 2 chains on 2 cores,
# default settings. Reported per sampler: whole-call seconds, cost in epochs (per-observation
# gradients / N; NUTS: one per gradient), min bulk ESS and its rate per second of the whole
# call, max R-hat, and agreement with NUTS: the largest |mean difference| in NUTS posterior
# sds and the range of the sd ratios, over the fixed effects, the group variance and every
# level's effect.
#   Rscript inst/bench/sg_multilevel.R     # writes vignettes/results/bench/sg_multilevel.csv
#   VHMC_BENCH_N=1e5 VHMC_BENCH_LEVELS=1000 Rscript inst/bench/sg_multilevel.R
suppressPackageStartupMessages(library(vhmc))
N <- as.numeric(Sys.getenv("VHMC_BENCH_N", "1e5"))
J <- as.integer(Sys.getenv("VHMC_BENCH_LEVELS", "1000"))
set.seed(1)
g <- factor(rep(seq_len(J), length.out = N))
d <- data.frame(x1 = rnorm(N), x2 = rnorm(N), g = g)
d$y <- rbinom(N, 1, plogis(-0.5 + 0.4 * d$x1 - 0.3 * d$x2 + rnorm(J, 0, 0.7)[as.integer(g)]))

run <- function(name, sampler) {
  secs <- system.time(fit <- suppressWarnings(vhmc_glm(y ~ x1 + x2 + (1 | g), data = d, family = binomial(),
                                                       sampler = sampler, chains = 2, cores = 2, seed = 1,
                                                       progress = FALSE)))[["elapsed"]]
  s <- as.data.frame(posterior::summarise_draws(as_draws_df(fit), "mean", "sd", "rhat", "ess_bulk"))
  s[-1] <- lapply(s[-1], as.numeric)
  epochs <- if (is.null(fit$sg)) sum(fit$counts$n_grad) else sum(fit$sg$epochs_warmup + fit$sg$epochs_sampling) +
    fit$sg$epochs_mode[1]
  list(fit = fit, s = s, row = data.frame(sampler = name, N = N, levels = J, seconds = round(secs, 1),
                                          epochs = round(epochs), min_ess_bulk = round(min(s$ess_bulk)),
                                          ess_per_second = signif(min(s$ess_bulk) / secs, 3),
                                          max_rhat = round(max(s$rhat), 3)))
}

ref <- run("nuts", nuts())
rows <- list(cbind(ref$row, max_abs_z = 0, sd_ratio_min = 1, sd_ratio_max = 1))
for (nm in c("sghmc", "sgld", "sghmc_cv")) {
  sampler <- switch(nm, sghmc = sghmc(), sgld = sgld(), sghmc_cv = sghmc(control_variate = TRUE))
  r <- run(nm, sampler)
  m <- r$s[match(ref$s$variable, r$s$variable), ]
  ratio <- m$sd / ref$s$sd
  rows[[nm]] <- cbind(r$row, max_abs_z = round(max(abs(m$mean - ref$s$mean) / ref$s$sd), 3),
                      sd_ratio_min = round(min(ratio), 3), sd_ratio_max = round(max(ratio), 3))
  print(rows[[nm]], row.names = FALSE)
}
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
dir.create("vignettes/results/bench", showWarnings = FALSE)
utils::write.csv(res, "vignettes/results/bench/sg_multilevel.csv", row.names = FALSE)
