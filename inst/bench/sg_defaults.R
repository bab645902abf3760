# Stochastic-gradient defaults (issue 6): sghmc() and sgld() with every argument at its
# default except control_variate = FALSE (the plain minibatch gradient; the control-variate
# forms are measured in sg_scale.R) against NUTS, on a gaussian linear regression (N = 1e5, k = 5, sigma = 2) and a
# logistic regression (N = 1e5, k = 5). 2 chains x 1000 iterations (500 warmup), 1 core.
# Reports the largest |mean error| in NUTS posterior sds, the range of sd ratios, the
# smallest bulk ESS, epochs (per-observation gradient evaluations / N; NUTS: leapfrog steps)
# and epochs per effective draw. Run: Rscript inst/bench/sg_defaults.R (about two minutes).
# Wall times are only indicative (the machine is shared).
library(vhmc)
out_file <- if (dir.exists("vignettes/results/bench")) "vignettes/results/bench/sg_defaults.csv" else "sg_defaults.csv"
rows <- list()
cmp <- function(model, ref, fit, label) {
  num <- function(t) { t <- as.data.frame(t); for (v in names(t)[-1]) t[[v]] <- as.numeric(t[[v]]); t }
  a <- num(posterior::summarise_draws(ref$draws, "mean", "sd"))
  b <- num(posterior::summarise_draws(fit$draws, "mean", "sd", "ess_bulk"))
  ep <- if (is.null(fit$counts$epochs)) sum(fit$counts$n_grad) else sum(fit$counts$epochs)
  r <- data.frame(model = model, sampler = label,
                  max_abs_mean_err_sd = max(abs(b$mean - a$mean) / a$sd),
                  min_sd_ratio = min(b$sd / a$sd), max_sd_ratio = max(b$sd / a$sd),
                  min_ess_bulk = min(b$ess_bulk), epochs = ep, epochs_per_ess = ep / min(b$ess_bulk),
                  seconds = sum(fit$timing$warmup_seconds + fit$timing$sampling_seconds))
  print(r, digits = 3, row.names = FALSE)
  rows[[length(rows) + 1L]] <<- r
}
set.seed(2)
n <- 1e5; k <- 5
X <- matrix(rnorm(n * k), n); colnames(X) <- paste0("x", 1:k)
d <- data.frame(X); d$y <- drop(1 + X %*% c(0.5, -0.25, 0.1, 0, 1)) + rnorm(n, sd = 2)
run <- function(data, family, ..., iter = 1000)
  suppressWarnings(vhmc_glm(y ~ ., data = data, family = family, chains = 2, iter = iter,
                            seed = 1, progress = FALSE, ...))
ref <- run(d, gaussian(), iter = 4000)
cmp("gaussian", ref, ref, "nuts (4000 iter, reference)")
cmp("gaussian", ref, run(d, gaussian(), sampler = sghmc(control_variate = FALSE)), "sghmc()")
cmp("gaussian", ref, run(d, gaussian(), sampler = sgld(control_variate = FALSE)), "sgld()")
cmp("gaussian", ref, run(d, gaussian(), sampler = sghmc(metric = "unit", control_variate = FALSE)), "sghmc(metric = 'unit')")
db <- data.frame(X); db$y <- rbinom(n, 1, plogis(drop(-0.5 + X %*% c(0.5, -0.25, 0.1, 0, 1))))
refb <- run(db, binomial())
cmp("logistic", refb, refb, "nuts (reference)")
cmp("logistic", refb, run(db, binomial(), sampler = sghmc(control_variate = FALSE)), "sghmc()")
cmp("logistic", refb, run(db, binomial(), sampler = sgld(control_variate = FALSE)), "sgld()")
res <- do.call(rbind, rows)
utils::write.csv(res, out_file, row.names = FALSE)
cat("written to", out_file, "\n")
