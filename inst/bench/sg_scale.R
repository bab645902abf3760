# Stochastic-gradient MCMC at scale (costs in epochs, as Baker et al. 2019 report them). N = 1e6 rows:
#  * linear (gaussian) regression, d = 20 independent N(0, 1) covariates, sigma = 2;
#  * logistic regression, d = 50 independent N(0, 1) covariates.
# Flat priors on every coefficient (and on sigma), so that the reference is exact or nearly so:
#  * gaussian: the closed-form posterior (beta | y multivariate t with nu = N - p - 1 degrees of
#    freedom around the least-squares fit, sigma^2 | y inverse-gamma(nu / 2, SSR / 2));
#  * logistic: the Laplace approximation at the maximum likelihood fit (glm()). At N = 1e6 its
#    error in posterior sds is O(1 / sqrt(N)) (skewness), about 1e-3, far below the Monte Carlo
#    error of any NUTS run that fits this budget; a long NUTS run (the brief's first choice)
#    costs about 0.3 s per iteration here and was not affordable. NUTS's own row checks it.
# Samplers, all in the same run, chains = 2 on cores = 2: NUTS and surrogate_hmc() (automatic
# settings; 1000 iterations for the gaussian, 400 for the logistic model, half warmup), SGHMC
# and SGLD with default settings and control_variate = FALSE (100 resp. 40 iterations), and
# their control-variate forms (3000 resp. 2000 iterations, 200 warmup: they start at the mode). Plain SG
# costs a few epochs per draw whatever N, and a minibatch epoch of a column-major X costs
# several full passes at this N (memory latency), so those runs are short (see `iter` below).
# Reports: wall time (warmup, sampling, CV mode search; max over the two parallel chains),
# epochs (per-observation gradient evaluations / N summed over chains, plus the CV mode search
# once; NUTS: one per leapfrog step, although its gaussian gradient uses sufficient statistics
# and costs O(d^2), not a pass over the data), min bulk ESS, max |mean error| / posterior sd,
# min/max sd ratio against the reference, and memory: the R process's resident set before
# each fit (data frame, references) and its peak during the fit (model frame, model matrix,
# chains' buffers; forked chains share the data pages and are not counted).
# The issue's bar: SGHMC(-CV) within 0.1 posterior sd of the exact means in less wall time than
# NUTS needs for 400 effective draws = NUTS warmup + sampling time x 400 / (min bulk ESS),
# extrapolated linearly from its sampling run.
# Run (serialised with other timings): flock /tmp/vhmc-bench.lock Rscript inst/bench/sg_scale.R
# (about 25 minutes on 2 cores, most of it NUTS and the plain SG runs on the logistic model).
# VHMC_SG_SCALE_N overrides N for a quick check.
library(vhmc)
out_file <- if (dir.exists("vignettes/results/bench")) "vignettes/results/bench/sg_scale.csv" else "sg_scale.csv"
N <- as.numeric(Sys.getenv("VHMC_SG_SCALE_N", "1e6"))
peak_rss_mb <- function() {
  s <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", s)) / 1024
}
# Writing 5 to clear_refs resets the peak to the current RSS (Linux >= 4.0), so that each
# fit's peak excludes the reference computations (lm(), glm()) that came before it.
reset_peak <- function() invisible(try(writeLines("5", "/proc/self/clear_refs"), silent = TRUE))
rows <- list()

# One fit, timed; compared with the reference (mean, sd on the user's scale).
run_one <- function(model, label, data, family, ref, sampler, iter, warmup, note = "") {
  gc()
  reset_peak()
  rss0 <- peak_rss_mb()
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(vhmc_glm(y ~ ., data = data, family = family, prior = flat(),
                                   prior_intercept = flat(),
                                   prior_aux = if (identical(family$family, "gaussian")) flat(),
                                   sampler = sampler, chains = 2, cores = 2, iter = iter,
                                   warmup = warmup, seed = 1, progress = FALSE))
  elapsed <- proc.time()[["elapsed"]] - t0
  s <- posterior::summarise_draws(fit$draws, "mean", "sd", "ess_bulk")
  stopifnot(identical(s$variable, names(ref$mean)))
  z <- abs(as.numeric(s$mean) - ref$mean) / ref$sd
  r <- as.numeric(s$sd) / ref$sd
  ess <- min(as.numeric(s$ess_bulk))
  info <- fit$sg
  mode_s <- if (is.null(info)) 0 else info$mode_seconds[1]
  epochs <- if (is.null(info)) sum(fit$counts$n_grad) else
    sum(info$epochs_warmup + info$epochs_sampling) + info$epochs_mode[1]
  warm <- max(fit$timing$warmup_seconds)
  samp <- max(fit$timing$sampling_seconds)
  row <- data.frame(
    model = model, sampler = label, N = nrow(data), d = ncol(data) - 1L, iter = iter,
    warmup = warmup, mode_s = mode_s, warmup_s = warm, sampling_s = samp,
    total_s = mode_s + warm + samp, elapsed_s = elapsed, epochs = epochs,
    min_ess_bulk = ess, max_mean_err_sd = max(z), min_sd_ratio = min(r), max_sd_ratio = max(r),
    time_to_400_ess_s = warm + samp * 400 / ess, rss_before_mb = rss0,
    peak_rss_mb = peak_rss_mb(), note = note
  )
  print(row[, setdiff(names(row), "note")], digits = 3, row.names = FALSE)
  rows[[length(rows) + 1L]] <<- row
  invisible(fit)
}

samplers <- function(model, data, family, ref, iter_exact, iter_sg, iter_cv) {
  run_one(model, "NUTS", data, family, ref, nuts(), iter_exact, iter_exact / 2)
  run_one(model, "surrogate_hmc()", data, family, ref, surrogate_hmc(), iter_exact, iter_exact / 2)
  run_one(model, "SGHMC", data, family, ref, sghmc(control_variate = FALSE), iter_sg, iter_sg / 2)
  run_one(model, "SGLD", data, family, ref, sgld(control_variate = FALSE), iter_sg, iter_sg / 2)
  run_one(model, "SGHMC-CV", data, family, ref, sghmc(control_variate = TRUE), iter_cv, 200)
  run_one(model, "SGLD-CV", data, family, ref, sgld(control_variate = TRUE), iter_cv, 200)
}

# ---- linear regression, d = 20 ------------------------------------------------------------
set.seed(20261122)
k <- 20
X <- matrix(rnorm(N * k), N)
colnames(X) <- sprintf("x%02d", seq_len(k))
beta <- seq(-1, 1, length.out = k)
dg <- data.frame(X)
dg$y <- drop(1 + X %*% beta) + rnorm(N, sd = 2)
rm(X)
data_mb <- 8 * N * (k + 1) / 2^20
cat(sprintf("gaussian: N = %g, d = %d, data %.0f MB, peak RSS so far %.0f MB\n", N, k, data_mb, peak_rss_mb()))
ls <- stats::lm(y ~ ., data = dg)
p <- k + 1
nu <- N - p - 1
ssr <- sum(stats::residuals(ls)^2)
a <- nu / 2
b <- ssr / 2
sigma_mean <- sqrt(b) * exp(lgamma(a - 0.5) - lgamma(a))
ref_g <- list(mean = c(stats::coef(ls), sigma = sigma_mean),
              sd = c(sqrt(diag(stats::vcov(ls)) * (N - p) / nu * nu / (nu - 2)),
                     sigma = sqrt(b / (a - 1) - sigma_mean^2)))
names(ref_g$mean)[1] <- names(ref_g$sd)[1] <- "(Intercept)"
rm(ls)
samplers("gaussian", dg, gaussian(), ref_g, iter_exact = 1000, iter_sg = 100, iter_cv = 3000)
rm(dg)
gc()

# ---- logistic regression, d = 50 ----------------------------------------------------------
set.seed(20261123)
k <- 50
X <- matrix(rnorm(N * k), N)
colnames(X) <- sprintf("x%02d", seq_len(k))
beta <- rnorm(k, 0, 0.2)
db <- data.frame(X)
db$y <- stats::rbinom(N, 1, stats::plogis(drop(-0.5 + X %*% beta)))
rm(X)
cat(sprintf("logistic: N = %g, d = %d, data %.0f MB, peak RSS so far %.0f MB\n", N, k,
            8 * N * (k + 1) / 2^20, peak_rss_mb()))
ml <- stats::glm(y ~ ., data = db, family = stats::binomial())
ref_b <- list(mean = stats::coef(ml), sd = sqrt(diag(stats::vcov(ml))))
rm(ml)
samplers("logistic", db, binomial(), ref_b, iter_exact = 400, iter_sg = 40, iter_cv = 2000)

res <- do.call(rbind, rows)
utils::write.csv(res, out_file, row.names = FALSE)
cat("written to", out_file, "\n")

# The bar, measured in this run.
bar <- function(model) {
  r <- res[res$model == model, ]
  nuts_t <- r$time_to_400_ess_s[r$sampler == "NUTS"]
  for (s in c("SGHMC", "SGHMC-CV")) {
    x <- r[r$sampler == s, ]
    cat(sprintf("%s %s: max mean error %.3f sd (bar 0.1) in %.1f s (mode %.1f + warmup %.1f + sampling %.1f); NUTS to 400 ESS: %.1f s (warmup %.1f + %.1f x 400 / %.0f) -> %s\n",
                model, s, x$max_mean_err_sd, x$total_s, x$mode_s, x$warmup_s, x$sampling_s, nuts_t,
                r$warmup_s[r$sampler == "NUTS"], r$sampling_s[r$sampler == "NUTS"],
                r$min_ess_bulk[r$sampler == "NUTS"],
                if (x$max_mean_err_sd < 0.1 && x$total_s < nuts_t) "met" else "not met"))
    # The same with whole-call wall times (model frame, checks, per-chain setup such as the
    # gaussian sufficient statistics, the CV mode search): NUTS's elapsed time with its
    # sampling time scaled to 400 effective draws.
    n <- r[r$sampler == "NUTS", ]
    nuts_e <- n$elapsed_s - n$sampling_s + n$sampling_s * 400 / n$min_ess_bulk
    cat(sprintf("   whole call: %s %.1f s vs NUTS to 400 ESS %.1f s -> %s\n", s, x$elapsed_s, nuts_e,
                if (x$max_mean_err_sd < 0.1 && x$elapsed_s < nuts_e) "met" else "not met"))
  }
}
bar("gaussian")
bar("logistic")
cat(sprintf(paste("Memory (R master process; forked chains share the data pages): data (X and y)",
                  "%.0f MB (gaussian) and %.0f MB (logistic); peak RSS during each fit: %s MB\n"),
            8 * N * 21 / 2^20, 8 * N * 51 / 2^20, paste(round(res$peak_rss_mb), collapse = ", ")))
