# surrogate_hmc() and variational_hmc() against nuts() on a large multilevel logistic model
# (issue 42, item 6): y ~ x1 + ... + x10 + (1 | state), N rows over 50 states (20,000 rows a
# state at N = 1e6), 2 chains on 2 cores, default settings. Each state's rows say much more
# about its effect than the prior does, so the effects are sampled centred and the posterior
# has a local mode with a Gaussian near it, from which surrogate_hmc() starts and trains
# (R/glmer-anchor.R). Reported per sampler: whole-call seconds and the chains' sampling
# seconds, true gradients (start, warmup, sampling), min bulk ESS per second of the whole call
# and of the sampling phase (the slower chain's), max R-hat, the mean acceptance statistic
# of sampling, and agreement with NUTS: the
# largest |mean difference| in combined Monte Carlo standard errors and in NUTS posterior
# sds, and the range of the sd ratios, over every variable. NUTS runs once (seed 1), the two
# surrogate samplers with each seed of VHMC_BENCH_SEEDS (default 1, 2, 3: their efficiency
# depends on the surrogate each seed's exploration trains; the posterior is the same).
#   Rscript inst/bench/surrogate_multilevel.R   # writes vignettes/results/bench/surrogate_multilevel.csv
#   VHMC_BENCH_N=1e5 VHMC_BENCH_SEEDS=1 Rscript inst/bench/surrogate_multilevel.R
suppressPackageStartupMessages(library(vhmc))
N <- as.numeric(Sys.getenv("VHMC_BENCH_N", "1e6"))
seeds <- as.integer(strsplit(Sys.getenv("VHMC_BENCH_SEEDS", "1,2,3"), ",")[[1]])
J <- 50L
set.seed(1)
X <- matrix(stats::rnorm(N * 10), N, 10, dimnames = list(NULL, paste0("x", 1:10)))
state <- sample(J, N, replace = TRUE)
d <- data.frame(X, state = factor(state))
d$y <- stats::rbinom(N, 1, stats::plogis(-0.5 + drop(X %*% seq(-0.5, 0.5, length.out = 10)) + stats::rnorm(J, 0, 0.5)[state]))
f <- stats::reformulate(c(colnames(X), "(1 | state)"), response = "y")

run <- function(name, sampler, seed = 1L) {
  secs <- system.time(fit <- suppressWarnings(vhmc_glm(f, data = d, family = binomial(), sampler = sampler,
                                                       chains = 2, cores = 2, seed = seed, progress = FALSE)))[["elapsed"]]
  s <- as.data.frame(posterior::summarise_draws(as_draws_df(fit), "mean", "sd", "rhat", "ess_bulk", "mcse_mean"))
  s[-1] <- lapply(s[-1], as.numeric)
  sampling <- max(fit$timing$sampling_seconds)
  list(fit = fit, s = s, row = data.frame(
    sampler = name, seed = seed, N = N, seconds = round(secs, 1), sampling_seconds = round(sampling, 1),
    grad_start = sum(fit$counts$n_grad_start), grad_warmup = sum(fit$counts$n_grad_warmup),
    grad_sampling = sum(fit$counts$n_grad_sampling), min_ess_bulk = round(min(s$ess_bulk)),
    ess_per_second = signif(min(s$ess_bulk) / secs, 3), ess_per_sampling_second = signif(min(s$ess_bulk) / sampling, 3),
    max_rhat = round(max(s$rhat), 3), mean_accept = round(mean(sampler_diagnostics(fit)$accept_stat__), 3),
    centred = fit$model$glmer$centred[1]))
}

ref <- run("nuts", nuts())
print(ref$row, row.names = FALSE)
rows <- list(cbind(ref$row, max_abs_z_mcse = 0, max_abs_z_sd = 0, sd_ratio_min = 1, sd_ratio_max = 1, speedup = 1))
for (job in split(expand.grid(seed = seeds, nm = c("surrogate_hmc", "variational_hmc"), stringsAsFactors = FALSE),
                  seq_len(2L * length(seeds)))) {
  nm <- job$nm
  r <- run(nm, switch(nm, surrogate_hmc = surrogate_hmc(), variational_hmc = variational_hmc()), job$seed)
  m <- r$s[match(ref$s$variable, r$s$variable), ]
  ratio <- m$sd / ref$s$sd
  rows[[paste(nm, job$seed)]] <- cbind(r$row, max_abs_z_mcse = round(max(abs(m$mean - ref$s$mean) / sqrt(m$mcse_mean^2 + ref$s$mcse_mean^2)), 2),
                      max_abs_z_sd = round(max(abs(m$mean - ref$s$mean) / ref$s$sd), 3),
                      sd_ratio_min = round(min(ratio), 3), sd_ratio_max = round(max(ratio), 3),
                      speedup = round(r$row$ess_per_second / ref$row$ess_per_second, 1))
  print(rows[[paste(nm, job$seed)]], row.names = FALSE)
}
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
dir.create("vignettes/results/bench", showWarnings = FALSE)
utils::write.csv(res, "vignettes/results/bench/surrogate_multilevel.csv", row.names = FALSE)
