# Benchmark: vhmc_glm (NUTS) against rstanarm::stan_glm on three GLMs of the same size
# (N = 100000 observations, 50 coefficients):
#   logistic - the simulated logistic regression of Zhang et al. 2017: X = (0.1 * 1, X_1), rows of X_1
#              iid N_49(0, I/100), beta ~ U[0,1]^50, y ~ Bernoulli(logit^-1(X beta)), prior
#              beta ~ N(0, 10^2). rstanarm rejects a constant column, so the column 0.1 * 1
#              is fitted as the intercept alpha = 0.1 beta_1, whose prior N(0, 10^2) on
#              beta_1 is normal(0, 1) on alpha (applied at the centred predictors, whose
#              means are ~0 here); the 49 slopes have normal(0, 10)
#   gaussian - y = 1 + X_1 beta + N(0, 1) noise, intercept + 49 slopes + sigma
#   poisson  - y ~ Poisson(exp(1 + X_1 beta)), intercept + 49 slopes
# Both packages get the same data, the same priors without autoscaling (slopes normal(0, 10),
# intercept normal(0, 10) -- normal(0, 1) for the logistic model, see above -- at the centred
# predictors in both packages; gaussian sigma exponential(1)), the same NUTS settings (diag
# metric, adapt_delta = 0.8 -- rstanarm's own default would be 0.95 -- max_treedepth = 10),
# 4 chains, the same iter/warmup, and the same number of cores (chains in parallel on both
# sides). rstanarm runs with mean_PPD = FALSE: its default draws N posterior-predictive values
# at every iteration, work vhmc does not do. Note that for the gaussian family with identity
# link rstanarm evaluates the likelihood from sufficient statistics (X'X, OLS fit, SSR), so
# its gradient costs O(d^2) instead of O(N d).
# Reported per fit: min bulk ESS over all parameters, summed warmup and sampling seconds over
# chains (each package's own per-chain clocks), total wall seconds of the fitting call (what a
# user waits for, including each package's setup and post-processing), min ESS per sampling
# second, gradient evaluations (vhmc: fit$counts; rstanarm: sum of n_leapfrog__ with warmup),
# microseconds per gradient in sampling and min ESS per 1000 sampling gradients, and rows with
# the ratio vhmc / rstanarm. The ratio rows also carry the agreement check: max over parameters
# of |mean_vhmc - mean_rstanarm| / posterior sd, the same difference in units of its MCSE, and
# max |sd_vhmc / sd_rstanarm - 1|.
# rstanarm runs in its own R process (as in nuts_targets.R), reading the data this process
# simulated, so its compiled models and vhmc's library are never loaded together.
#
#   Rscript inst/bench/glm_vs_rstanarm.R      (writes vignettes/results/bench/glm_vs_rstanarm.csv)
# Full size takes about 25 minutes on 2 cores. Seconds depend on whatever else the machine is
# running; gradient counts and ESS do not.
# Environment variables shrink the problem for a smoke run (defaults = the full benchmark):
#   VHMC_BENCH_N (100000), VHMC_BENCH_ITER (2000), VHMC_BENCH_WARMUP (ITER / 2),
#   VHMC_BENCH_CHAINS (4), VHMC_BENCH_CORES (2), VHMC_BENCH_MODELS ("logistic,gaussian,poisson"),
#   VHMC_BENCH_OUT (the CSV path; set it for smoke runs so the full results are not replaced).
# VHMC_BENCH_RDS=file also saves per-parameter summaries, tree depths and the adapted step
# sizes and metrics of both packages there, for looking into the differences.
args <- commandArgs(trailingOnly = TRUE)
worker <- length(args) >= 2 && args[1] == "--rstanarm-worker"

env_int <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.integer(as.numeric(v)) else as.integer(default)
}
n_obs <- env_int("VHMC_BENCH_N", 1e5)
iter <- env_int("VHMC_BENCH_ITER", 2000)
warmup <- env_int("VHMC_BENCH_WARMUP", iter %/% 2L)
chains <- env_int("VHMC_BENCH_CHAINS", 4)
cores <- env_int("VHMC_BENCH_CORES", 2)
models <- strsplit(Sys.getenv("VHMC_BENCH_MODELS", "logistic,gaussian,poisson"), ",")[[1]]
out_file <- Sys.getenv("VHMC_BENCH_OUT",
                       file.path("vignettes", "results", "bench", "glm_vs_rstanarm.csv"))
adapt_delta <- 0.8; max_treedepth <- 10L

# Fit settings shared by both packages; the priors are built per package from these numbers.
setups <- list(
  logistic = list(formula = y ~ ., family = "binomial", intercept_scale = 1),
  gaussian = list(formula = y ~ ., family = "gaussian", intercept_scale = 10),
  poisson = list(formula = y ~ ., family = "poisson", intercept_scale = 10)
)
coef_scale <- 10; aux_rate <- 1

summ <- function(arr) {
  s <- posterior::summarise_draws(arr, "mean", "sd", "ess_bulk", "mcse_mean")
  out <- data.frame(lapply(as.list(s)[-1], as.numeric), row.names = s$variable)
  out
}

# ---------------------------------------------------------------------------------------
# rstanarm worker: fits every model of the data file and saves the summaries.
if (worker) {
  suppressPackageStartupMessages(library(rstanarm))
  # rstanarm always passes save_warmup = FALSE to rstan (rstanarm:::set_sampling_args), which
  # drops the warmup rows of the sampler parameters and with them the warmup gradient count.
  # Keep them in this worker process only; sampling itself is unchanged.
  set_args <- rstanarm:::set_sampling_args
  utils::assignInNamespace("set_sampling_args", function(...) {
    a <- set_args(...)
    a$save_warmup <- TRUE
    a
  }, "rstanarm")
  dat <- readRDS(args[2])
  out <- list()
  for (m in names(dat)) {
    st <- setups[[m]]
    fam <- switch(st$family, binomial = stats::binomial(), gaussian = stats::gaussian(),
                  poisson = stats::poisson())
    fit_args <- list(
      formula = st$formula, data = dat[[m]], family = fam,
      prior = rstanarm::normal(0, coef_scale, autoscale = FALSE),
      prior_intercept = rstanarm::normal(0, st$intercept_scale, autoscale = FALSE),
      chains = chains, iter = iter, warmup = warmup, cores = cores,
      seed = 20240 + match(m, names(setups)),
      refresh = 0, adapt_delta = adapt_delta, control = list(max_treedepth = max_treedepth),
      mean_PPD = FALSE
    )
    if (st$family == "gaussian") {
      fit_args$prior_aux <- rstanarm::exponential(aux_rate, autoscale = FALSE)
    }
    wall <- system.time(fit <- do.call(rstanarm::stan_glm, fit_args))[["elapsed"]]
    et <- rstan::get_elapsed_time(fit$stanfit)
    sp <- rstan::get_sampler_params(fit$stanfit, inc_warmup = TRUE)
    stopifnot(all(sapply(sp, nrow) == iter), dim(as.array(fit))[1] == iter - warmup)
    is_warm <- seq_len(warmup)
    grads_w <- sum(sapply(sp, function(s) sum(s[is_warm, "n_leapfrog__"])))
    grads_all <- sum(sapply(sp, function(s) sum(s[, "n_leapfrog__"])))
    out[[m]] <- list(
      summary = summ(posterior::as_draws_array(as.array(fit))),
      warmup_seconds = sum(et[, "warmup"]), sampling_seconds = sum(et[, "sample"]),
      wall_seconds = wall, grads = grads_all, grads_sampling = grads_all - grads_w,
      divergent = sum(sapply(sp, function(s) sum(s[-is_warm, "divergent__"]))),
      stepsize = mean(sapply(sp, function(s) s[iter, "stepsize__"])),
      mean_leapfrog = mean(sapply(sp, function(s) mean(s[-is_warm, "n_leapfrog__"]))),
      extra = list(treedepth = table(unlist(lapply(sp, function(s) s[-is_warm, "treedepth__"]))),
                   warmup_leapfrog = sapply(sp, function(s) s[is_warm, "n_leapfrog__"]),
                   adaptation = rstan::get_adaptation_info(fit$stanfit),
                   unconstrained_names = fit$stanfit@sim$pars_oi))
    message(sprintf("rstanarm %-8s done in %.1f s", m, wall))
  }
  saveRDS(out, args[3])
  quit(save = "no")
}

# ---------------------------------------------------------------------------------------
# Data (simulated here, handed to the rstanarm worker through a file).
suppressPackageStartupMessages(library(vhmc))
set.seed(20240)
k <- 49L
X1 <- matrix(stats::rnorm(n_obs * k, sd = 0.1), n_obs, k,
             dimnames = list(NULL, sprintf("x%02d", seq_len(k))))
sim <- list(
  logistic = function() {
    beta <- stats::runif(k + 1L)
    eta <- 0.1 * beta[1] + drop(X1 %*% beta[-1])
    data.frame(y = stats::rbinom(n_obs, 1, stats::plogis(eta)), X1)
  },
  gaussian = function() {
    beta <- stats::runif(k)
    data.frame(y = 1 + drop(X1 %*% beta) + stats::rnorm(n_obs), X1)
  },
  poisson = function() {
    beta <- stats::runif(k)
    data.frame(y = stats::rpois(n_obs, exp(1 + drop(X1 %*% beta))), X1)
  }
)
dat <- lapply(sim[models], function(f) f())
rm(X1)

vhmc_fit_one <- function(m) {
  st <- setups[[m]]
  fit_args <- list(
    formula = st$formula, data = dat[[m]], family = st$family,
    prior = vhmc::normal(0, coef_scale, autoscale = FALSE),
    sampler = vhmc::nuts(adapt_delta = adapt_delta, max_treedepth = max_treedepth, metric = "diag"),
    chains = chains, iter = iter, warmup = warmup, cores = cores,
    seed = 10240 + match(m, names(setups)), progress = FALSE
  )
  fit_args$prior_intercept <- vhmc::normal(0, st$intercept_scale, autoscale = FALSE)
  if (st$family == "gaussian") fit_args$prior_aux <- vhmc::exponential(aux_rate, autoscale = FALSE)
  show_warning <- function(w) {
    message("vhmc ", m, " warning: ", conditionMessage(w))
    invokeRestart("muffleWarning")
  }
  wall <- system.time(fit <- withCallingHandlers(do.call(vhmc::vhmc_glm, fit_args),
                                                 warning = show_warning))[["elapsed"]]
  res <- list(
    summary = summ(posterior::as_draws_array(fit)),
    warmup_seconds = sum(fit$timing$warmup_seconds),
    sampling_seconds = sum(fit$timing$sampling_seconds), wall_seconds = wall,
    grads = sum(fit$counts$n_grad), grads_sampling = sum(fit$counts$n_grad_sampling),
    divergent = NA_real_, stepsize = NA_real_, mean_leapfrog = NA_real_)
  sd_df <- tryCatch(vhmc::sampler_diagnostics(fit), error = function(e) NULL)
  if (!is.null(sd_df)) {
    if ("divergent__" %in% names(sd_df)) res$divergent <- sum(sd_df$divergent__)
    if ("stepsize__" %in% names(sd_df)) {
      res$stepsize <- mean(tapply(sd_df$stepsize__, sd_df$.chain, `[`, 1))
    }
    if ("n_leapfrog__" %in% names(sd_df)) res$mean_leapfrog <- mean(sd_df$n_leapfrog__)
  }
  res$extra <- list(treedepth = if (!is.null(sd_df)) table(sd_df$treedepth__),
                    adaptation = fit$adaptation, counts = fit$counts, timing = fit$timing)
  message(sprintf("vhmc     %-8s done in %.1f s", m, wall))
  res
}

t_start <- Sys.time()
results <- list(vhmc = lapply(stats::setNames(models, models), vhmc_fit_one))

rds_in <- tempfile(fileext = ".rds"); rds_out <- tempfile(fileext = ".rds")
saveRDS(dat, rds_in)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
status <- system2(file.path(R.home("bin"), "Rscript"),
                  c(script, "--rstanarm-worker", rds_in, rds_out))
if (status != 0 || !file.exists(rds_out)) stop("the rstanarm worker failed (status ", status, ")")
results$rstanarm <- readRDS(rds_out)
unlink(c(rds_in, rds_out))
if (nzchar(Sys.getenv("VHMC_BENCH_RDS"))) saveRDS(results, Sys.getenv("VHMC_BENCH_RDS"))
total_minutes <- as.numeric(difftime(Sys.time(), t_start, units = "mins"))

# ---------------------------------------------------------------------------------------
# Table
row_of <- function(m, engine, r) {
  min_ess <- min(r$summary$ess_bulk)
  data.frame(
    model = m, engine = engine, n = n_obs, params = nrow(r$summary), chains = chains,
    iter = iter, warmup = warmup, cores = cores,
    min_ess_bulk = min_ess, warmup_s = r$warmup_seconds, sampling_s = r$sampling_seconds,
    total_s = r$wall_seconds, min_ess_per_s = min_ess / r$sampling_seconds,
    grads = r$grads, grads_sampling = r$grads_sampling,
    us_per_grad = 1e6 * r$sampling_seconds / r$grads_sampling,
    ess_per_1000_grads = 1000 * min_ess / r$grads_sampling,
    mean_leapfrog = r$mean_leapfrog, stepsize = r$stepsize, divergent = r$divergent,
    max_mean_diff_sd = NA_real_, max_mean_diff_mcse = NA_real_, max_sd_ratio_dev = NA_real_)
}
num_cols <- c("min_ess_bulk", "warmup_s", "sampling_s", "total_s", "min_ess_per_s", "grads",
              "grads_sampling", "us_per_grad", "ess_per_1000_grads", "mean_leapfrog", "stepsize",
              "divergent")
rows <- list()
for (m in models) {
  v <- results$vhmc[[m]]; s <- results$rstanarm[[m]]
  rv <- row_of(m, "vhmc", v); rs <- row_of(m, "rstanarm", s)
  ratio <- rv
  ratio$engine <- "vhmc/rstanarm"
  ratio[num_cols] <- rv[num_cols] / rs[num_cols]
  # Agreement of the posterior means, parameter by parameter (matched by name).
  p <- intersect(rownames(v$summary), rownames(s$summary))
  if (length(p) != nrow(v$summary) || length(p) != nrow(s$summary)) {
    warning(sprintf("%s: parameter names differ between the packages: %s", m,
                    paste(setdiff(union(rownames(v$summary), rownames(s$summary)), p),
                          collapse = ", ")))
  }
  d <- abs(v$summary[p, "mean"] - s$summary[p, "mean"])
  ratio$max_mean_diff_sd <- max(d / sqrt((v$summary[p, "sd"]^2 + s$summary[p, "sd"]^2) / 2))
  mcse <- sqrt(v$summary[p, "mcse_mean"]^2 + s$summary[p, "mcse_mean"]^2)
  ratio$max_mean_diff_mcse <- max(d / mcse)
  ratio$max_sd_ratio_dev <- max(abs(v$summary[p, "sd"] / s$summary[p, "sd"] - 1))
  rows <- c(rows, list(rv, rs, ratio))
}
tab <- do.call(rbind, rows)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)
show <- c("model", "engine", "min_ess_bulk", "sampling_s", "total_s", "min_ess_per_s", "grads",
          "us_per_grad", "ess_per_1000_grads", "max_mean_diff_sd", "max_mean_diff_mcse",
          "max_sd_ratio_dev")
cat(sprintf("N = %d, %d chains x %d iterations (%d warmup), cores = %d; whole run %.1f min\n",
            n_obs, chains, iter, warmup, cores, total_minutes))
print(format(tab[show], digits = 3), row.names = FALSE)
