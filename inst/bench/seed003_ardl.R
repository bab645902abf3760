# The ARDL slides' protocol (Asaad 2017) on real data shipped with
# R, with vhmc's defaults for what the slides leave open.
#
# Data: datasets::Seatbelts (UK road casualties, monthly). Response: year-over-year growth
# (percent, 100 * 12-month log difference) of `drivers`, car drivers killed or seriously
# injured; regressors: year-over-year growth of `kms` (distance driven) and of
# `PetrolPrice`. Like the slides' series (growth rates of GDP, exchange rate, stock index),
# these are growth rates of an activity series and its drivers, and the 12-month difference
# removes the strong seasonality of the monthly levels. Sample: Jan 1969 - Jan 1983, i.e.
# before the seatbelt law (law = 1 from Feb 1983), which a model fitted on the first 80% of
# rows could not learn: 169 monthly levels, 157 growth observations (>= 150), m = 2
# regressors. `drivers` rather than `DriversKilled`: counts around 1500 instead of 120 make
# the growth rate far less dominated by Poisson noise.
#
# Model: ARDL(1, 1), d = 1 + 1 + 2 * 2 = 6, fixed noise precision alpha = plug-in 1/s^2 (OLS
# residual variance on N - d df, training rows), prior precision beta = 0.01. N = 156 rows
# after the lag; the last 20% (32 rows, Jun 1980 - Jan 1983) are held out; the fits use the
# first 124 rows. Two data scales: "raw" (percent growth rates, as the data come) and
# "standardised" (each series centred and scaled by its training-period mean and sd, a
# documented choice because the slides' step sizes are not scale free; RMSEs are always
# reported back on the percent scale).
#
# Samplers, each 4 chains from Uniform(-2, 2) starts, first half of every chain discarded:
#  * sghmc: vhmc's SGHMC (Chen, Fox & Guestrin 2014, Algorithm 2) with the slides' three
#    cases: step 0.09 / 1e3 iterations, 0.009 / 1e4, 0.0009 / 1e5 (step x iterations = 90);
#    one update per iteration, unit metric (the coordinates are w itself), friction C = 1,
#    B_hat = 0, no momentum resampling, B = ceiling(N / 10) rows per minibatch (package
#    default batches: without replacement, reshuffled every epoch).
#  * slides_sghmc: the slides' Algorithm 6 as written (eq. 4.32: the friction C p lacks the
#    step-size factor), same settings, implemented in R below (it is not part of vhmc). It
#    targets a posterior tempered by the step size ; shown for the discussion only.
#  * nuts: vhmc's NUTS, 2000 iterations (1000 warmup, the first half).
#  * sghmc_defaults, sgld_defaults: vhmc's SG samplers with all settings at their defaults
#    (not the slides' protocol; the package's own use: the control variate is on), 10000
#    iterations, first half burn-in.
#  * rwm: random-walk Metropolis implemented below in R on the closed-form U(w),
#    Gaussian proposal with covariance 2.38^2 / d times the posterior covariance estimated in
#    a pilot run (the pilot: 5000 iterations with a scalar proposal sd tuned towards 25%
#    acceptance, then 20000 iterations with 2.38^2 / d times the covariance of the first
#    stage's second half; the proposal uses the covariance of the second stage's second half.
#    Its cost is reported in `pilot_epochs`). Run for 1e3, 1e4 and 1e5 iterations (the
#    slides' iteration counts).
#
# Diagnostics per run (post burn-in draws): coda::heidel.diag stationarity test (per chain
# and parameter; `heidel_pass` counts the passes out of 4 chains x 6 parameters), coda's
# Gelman-Rubin PSRF (autoburnin = FALSE; largest univariate point estimate and the
# multivariate PSRF), posterior's rank-normalised R-hat (largest), lag 1/5/10
# autocorrelations (coda::autocorr.diag, largest over parameters), bulk ESS (posterior,
# smallest) and coda::effectiveSize (smallest), in-sample and out-of-sample RMSE of the
# one-step-ahead point forecasts z(t)'w_bar, and the error of the posterior mean and sd
# against exact_posterior(): the largest |mean - mu| / sd_exact and the range of
# sd / sd_exact. Cost: epochs (per-observation gradient or likelihood terms / N: SGHMC B/N
# per update; NUTS one per leapfrog step, warmup included; RWM one per iteration) and wall
# seconds (indicative: the machine is shared).
#
# Output: vignettes/results/bench/seed003_ardl.csv (one row per data scale x sampler x case),
# seed003_ardl_params.csv.gz (the same diagnostics per parameter) and
# seed003_ardl_forecasts.csv.gz (one-step forecasts of the hold-out rows, for a plot).
# Run from the package root: flock /tmp/vhmc-bench.lock Rscript inst/bench/seed003_ardl.R
library(vhmc)
if (!requireNamespace("coda", quietly = TRUE)) stop("this benchmark needs the coda package")
out_dir <- if (dir.exists("vignettes/results/bench")) "vignettes/results/bench" else "."
chains <- 4L
beta <- 0.01
cases <- data.frame(case = 1:3, step = c(0.09, 0.009, 0.0009), iter = c(1e3, 1e4, 1e5))
if (nzchar(Sys.getenv("SEED003_QUICK"))) cases$iter <- cases$iter / 10  # development runs only

# ---- data -------------------------------------------------------------------------------
sb <- window(datasets::Seatbelts, end = c(1983, 1))
stopifnot(all(sb[, "law"] == 0))
growth <- function(v) 100 * diff(log(as.numeric(v)), lag = 12)
raw <- data.frame(time = as.numeric(time(sb))[-(1:12)], y = growth(sb[, "drivers"]),
                  kms = growth(sb[, "kms"]), petrol = growth(sb[, "PetrolPrice"]))
t0 <- 1L                                   # max(p, q)
n_rows <- nrow(raw) - t0                   # N of the full sample
n_test <- ceiling(0.2 * n_rows)
n_train <- n_rows - n_test
train_series <- seq_len(t0 + n_train)      # series rows the fits see
test_rows <- n_train + seq_len(n_test)     # rows of the lagged design held out
cat(sprintf("Seatbelts growth rates: %d observations, N = %d ARDL rows, %d for fitting, %d held out (%s to %s)\n",
            nrow(raw), n_rows, n_train, n_test, format(raw$time[t0 + test_rows[1]], nsmall = 2),
            format(raw$time[nrow(raw)], nsmall = 2)))

# Standardised copy: training-period mean and sd of each series.
ctr <- vapply(raw[train_series, c("y", "kms", "petrol")], mean, 0)
scl <- vapply(raw[train_series, c("y", "kms", "petrol")], sd, 0)
std <- raw
for (v in names(ctr)) std[[v]] <- (raw[[v]] - ctr[[v]]) / scl[[v]]
datasets_by_scale <- list(raw = raw, standardised = std)
to_percent <- list(raw = function(y) y, standardised = function(y) ctr[["y"]] + scl[["y"]] * y)

# The lagged design of the whole sample (the order and names vhmc_ardl gives).
design <- function(d) {
  t <- (t0 + 1L):nrow(d)
  cbind("(Intercept)" = 1, L1.y = d$y[t - 1], L0.kms = d$kms[t], L0.petrol = d$petrol[t],
        L1.kms = d$kms[t - 1], L1.petrol = d$petrol[t - 1])
}

# ---- samplers written in R ----------------------------------------------------------------
# U(w) = (alpha/2) ||y - Zw||^2 + (beta/2) ||w||^2 from the sufficient statistics.
make_u <- function(Z, y, alpha) {
  ZtZ <- crossprod(Z); Zty <- drop(crossprod(Z, y)); yty <- sum(y^2)
  function(w) 0.5 * alpha * (yty - 2 * sum(w * Zty) + sum(w * (ZtZ %*% w))) + 0.5 * beta * sum(w * w)
}

rwm_chain <- function(U, init, n_iter, L) {
  d <- length(init)
  out <- matrix(NA_real_, n_iter, d)
  w <- init; u <- U(w); acc <- 0
  for (i in seq_len(n_iter)) {
    prop <- w + drop(L %*% stats::rnorm(d))
    up <- U(prop)
    if (is.finite(up) && log(stats::runif(1)) < u - up) { w <- prop; u <- up; acc <- acc + 1 }
    out[i, ] <- w
  }
  list(draws = out, accept = acc / n_iter)
}

rwm_pilot <- function(U, d, seed) {
  set.seed(seed)
  w <- stats::runif(d, -2, 2); u <- U(w); s <- 0.1
  first <- matrix(NA_real_, 5000, d)
  for (i in 1:5000) {
    prop <- w + s * stats::rnorm(d)
    up <- U(prop)
    ok <- is.finite(up) && log(stats::runif(1)) < u - up
    if (ok) { w <- prop; u <- up }
    s <- s * exp(((if (ok) 1 else 0) - 0.25) / sqrt(i))   # Robbins-Monro towards 25%
    first[i, ] <- w
  }
  L1 <- t(chol(2.38^2 / d * cov(first[2501:5000, ])))
  second <- rwm_chain(U, w, 20000, L1)$draws
  t(chol(2.38^2 / d * cov(second[10001:20000, ])))
}

# The slides' Algorithm 6, one update per iteration: w <- w + g p, then
# p <- p - g grad U~(w) - C p + N(0, 2 g C)  (friction without the step size g).
slides_sghmc_chain <- function(Z, y, alpha, init, n_iter, g, B, C = 1) {
  N <- nrow(Z); d <- ncol(Z)
  out <- matrix(NA_real_, n_iter, d)
  w <- init; p <- stats::rnorm(d)
  for (i in seq_len(n_iter)) {
    w <- w + g * p
    S <- sample.int(N, B)
    Zs <- Z[S, , drop = FALSE]
    grad <- -alpha * (N / B) * drop(crossprod(Zs, y[S] - Zs %*% w)) + beta * w
    p <- p - g * grad - C * p + sqrt(2 * g * C) * stats::rnorm(d)
    out[i, ] <- w
    if (!all(is.finite(w))) return(list(draws = out, diverged = i))
  }
  list(draws = out, diverged = NA)
}

# ---- diagnostics ---------------------------------------------------------------------------
# arr: post burn-in draws, iterations x chains x parameters. Z_all: the full lagged design
# on the fit's scale; y_all the matching percent-scale response.
rows <- list(); params <- list(); forecasts <- list()
record <- function(scale, sampler, case, step, iter, arr, ep, epochs, seconds, Z_all, y_all,
                   note = "", status = "ok", accept = NA, pilot_epochs = NA, batch = NA) {
  base <- data.frame(scale = scale, sampler = sampler, case = case, step_size = step,
                     iterations = iter, chains = chains, batch_size = batch,
                     status = status, accept_rate = accept, epochs = epochs,
                     pilot_epochs = pilot_epochs, seconds = seconds)
  nm <- names(ep$mu)
  if (!is.null(arr) && all(is.finite(arr))) {
    # Draws that reach 1000 posterior sds from the exact mean have left the posterior for
    # good (the dynamics are unstable at this step size): no diagnostics for those.
    far <- max(abs(sweep(arr, 3, ep$mu)) / rep(ep$sd, each = prod(dim(arr)[1:2])))
    if (far > 1000) {
      base$status <- "unstable"
      note <- paste0(if (nzchar(note)) paste0(note, "; ") else "",
                     sprintf("draws reach %.2g posterior sd from the exact mean", far))
      arr <- NULL
    }
  }
  if (is.null(arr) || any(!is.finite(arr))) {
    rows[[length(rows) + 1L]] <<- cbind(base, note = note)
    cat(sprintf("%-12s %-13s case %s: %s (%s)\n", scale, sampler, case, base$status, note))
    return(invisible())
  }
  dimnames(arr) <- list(NULL, NULL, nm)
  ml <- coda::mcmc.list(lapply(seq_len(dim(arr)[2]), function(c) coda::mcmc(arr[, c, ])))
  heidel <- sapply(seq_len(dim(arr)[2]), function(c) {
    h <- tryCatch(coda::heidel.diag(ml[[c]])[, "stest"], error = function(e) rep(NA, length(nm)))
    as.numeric(h)
  })
  gd <- tryCatch(coda::gelman.diag(ml, autoburnin = FALSE, multivariate = TRUE),
                 error = function(e) list(psrf = matrix(NA, length(nm), 2), mpsrf = NA))
  rhat <- apply(arr, 3, posterior::rhat)
  # (posterior caps the ESS of nearly independent draws at S log10(S) and warns; the cap
  # only matters for the exact draws.)
  ess <- suppressWarnings(apply(arr, 3, posterior::ess_bulk))
  ess_coda <- coda::effectiveSize(ml)
  ac <- coda::autocorr.diag(ml, lags = c(1, 5, 10))
  m <- apply(arr, 3, mean); s <- apply(arr, 3, sd)
  z <- (m - ep$mu) / ep$sd; r <- s / ep$sd
  wbar <- m
  yhat <- to_percent[[scale]](drop(Z_all %*% wbar))
  rmse <- function(i) sqrt(mean((y_all[i] - yhat[i])^2))
  rows[[length(rows) + 1L]] <<- cbind(base,
    heidel_pass = sum(heidel == 1, na.rm = TRUE), heidel_tests = sum(!is.na(heidel)),
    gelman_psrf_max = max(gd$psrf[, 1]), gelman_mpsrf = gd$mpsrf, rhat_max = max(rhat),
    acf1_max = max(ac[1, ]), acf5_max = max(ac[2, ]), acf10_max = max(ac[3, ]),
    ess_bulk_min = min(ess), ess_coda_min = min(ess_coda),
    rmse_in = rmse(seq_len(n_train)), rmse_out = rmse(test_rows),
    mean_err_max_sd = max(abs(z)), sd_ratio_min = min(r), sd_ratio_max = max(r), note = note)
  params[[length(params) + 1L]] <<- data.frame(scale = scale, sampler = sampler, case = case,
    parameter = nm, heidel_pass_chains = colSums(t(heidel) == 1), gelman_psrf = gd$psrf[, 1],
    rhat = rhat, acf1 = ac[1, ], acf5 = ac[2, ], acf10 = ac[3, ], ess_bulk = ess,
    ess_coda = as.numeric(ess_coda), mean = m, sd = s, exact_mean = ep$mu, exact_sd = ep$sd,
    mean_err_sd = z, sd_ratio = r, row.names = NULL)
  forecasts[[length(forecasts) + 1L]] <<- data.frame(scale = scale, sampler = sampler, case = case,
    time = raw$time[t0 + test_rows], observed = y_all[test_rows], forecast = yhat[test_rows])
  cat(sprintf("%-12s %-13s case %s: mean err <= %.2f sd, sd ratio %.2f-%.2f, R-hat %.3f, ESS %.0f, RMSE in %.2f out %.2f, %.1f s\n",
              scale, sampler, case, max(abs(z)), min(r), max(r), max(rhat), min(ess),
              rmse(seq_len(n_train)), rmse(test_rows), seconds))
}

# vhmc draws after warmup as iterations x chains x parameters.
vhmc_array <- function(fit) unclass(posterior::as_draws_array(fit))
time_it <- function(expr) {
  t <- system.time(v <- tryCatch(expr, error = function(e) e))[["elapsed"]]
  list(value = v, seconds = t)
}

for (scale in names(datasets_by_scale)) {
  d <- datasets_by_scale[[scale]]
  d_train <- d[train_series, ]
  Z_all <- design(d)
  y_all <- raw$y[(t0 + 1L):nrow(raw)]
  Z <- Z_all[seq_len(n_train), ]
  y <- d$y[t0 + seq_len(n_train)]
  ols <- lm.fit(Z, y)
  alpha <- 1 / (sum(ols$residuals^2) / (n_train - ncol(Z)))
  B <- ceiling(n_train / 10)
  cat(sprintf("\n== %s scale: plug-in alpha = %.4g (noise sd %.3g), beta = %g, B = %d\n",
              scale, alpha, 1 / sqrt(alpha), beta, B))
  fit_ardl <- function(sampler, iter, warmup, seed) {
    suppressWarnings(vhmc_ardl(y ~ kms + petrol, data = d_train, p = 1, q = 1, time = "time",
                               noise_precision = alpha, prior_precision = beta, sampler = sampler,
                               chains = chains, iter = iter, warmup = warmup, seed = seed,
                               progress = FALSE))
  }
  # NUTS; its fit also gives the exact posterior (and checks that the fits see the design
  # built here).
  tt <- time_it(fit_ardl(nuts(), 2000, 1000, 3))
  f <- tt$value
  stopifnot(isTRUE(all.equal(unname(f$ardl$Z), unname(Z))), identical(colnames(f$ardl$Z), colnames(Z)))
  ep <- exact_posterior(f)
  print(ep)
  U <- make_u(Z, y, alpha)
  # Reference row: 4 x 1000 independent draws of the exact posterior.
  ed <- exact_posterior(f, ndraws = 4000, seed = 1)$draws
  record(scale, "exact", NA, NA, NA, array(ed, c(1000, chains, ncol(Z))), ep, NA, NA, Z_all, y_all,
         note = "independent draws from exact_posterior()")
  record(scale, "nuts", NA, NA, 2000, vhmc_array(f), ep, sum(f$counts$n_grad), tt$seconds, Z_all,
         y_all, note = sprintf("%d divergences",
                               sum(vapply(f$diagnostics, function(x) sum(x$divergent__), 0))))
  # vhmc's SG samplers with every setting at its default (diag metric, step size, friction
  # and updates per iteration from the estimated curvature; B = max(ceiling(N/100),
  # min(N, 100))), 10000 iterations, first half burn-in: not the slides' protocol, the
  # package's own use.
  for (smp in c("sghmc", "sgld")) {
    tt <- time_it(fit_ardl(get(smp)(), 10000, 5000, 4))
    f <- tt$value
    record(scale, paste0(smp, "_defaults"), NA, signif(mean(f$sg$step_size), 3), 10000, vhmc_array(f),
           ep, sum(f$sg$epochs_warmup + f$sg$epochs_sampling), tt$seconds, Z_all, y_all,
           batch = f$sg$batch_size[1],
           note = sprintf("diag metric, %d updates per iteration", f$sg$updates_per_draw[1]))
  }

  for (k in seq_len(nrow(cases))) {
    g <- cases$step[k]; n_iter <- cases$iter[k]; keep <- (n_iter / 2 + 1):n_iter
    # vhmc SGHMC (Chen et al.)
    tt <- time_it(fit_ardl(sghmc(batch_size = B, step_size = g, friction = 1, updates = 1,
                                 metric = "unit", control_variate = FALSE), n_iter, n_iter / 2, 10 + k))
    if (inherits(tt$value, "error")) {
      record(scale, "sghmc", k, g, n_iter, NULL, ep, NA, tt$seconds, Z_all, y_all,
             status = "diverged", batch = B, note = gsub("\\s+", " ", conditionMessage(tt$value)))
    } else {
      f <- tt$value
      record(scale, "sghmc", k, g, n_iter, vhmc_array(f), ep,
             sum(f$sg$epochs_warmup + f$sg$epochs_sampling), tt$seconds, Z_all, y_all, batch = B)
    }
    # The slides' SGHMC (R)
    set.seed(100 + k)
    tt <- time_it(lapply(seq_len(chains), function(c)
      slides_sghmc_chain(Z, y, alpha, stats::runif(ncol(Z), -2, 2), n_iter, g, B)))
    div <- vapply(tt$value, function(ch) ch$diverged, 0)
    arr <- simplify2array(lapply(tt$value, function(ch) ch$draws[keep, , drop = FALSE]))
    arr <- aperm(arr, c(1, 3, 2))
    record(scale, "slides_sghmc", k, g, n_iter, if (all(is.na(div))) arr, ep,
           chains * n_iter * B / n_train, tt$seconds, Z_all, y_all,
           status = if (all(is.na(div))) "ok" else "diverged", batch = B,
           note = if (any(!is.na(div))) sprintf("non-finite w in %d of %d chains (first at iteration %d)",
                                                sum(!is.na(div)), chains, min(div, na.rm = TRUE)) else
                    "R implementation of the slides' Algorithm 6; targets exp(-U/step)")
  }

  # Random-walk Metropolis with a pilot-tuned proposal
  pilot_sec <- system.time(L <- rwm_pilot(U, ncol(Z), 7))[["elapsed"]]
  for (k in seq_len(nrow(cases))) {
    n_iter <- cases$iter[k]; keep <- (n_iter / 2 + 1):n_iter
    set.seed(200 + k)
    tt <- time_it(lapply(seq_len(chains), function(c) rwm_chain(U, stats::runif(ncol(Z), -2, 2), n_iter, L)))
    arr <- aperm(simplify2array(lapply(tt$value, function(ch) ch$draws[keep, , drop = FALSE])), c(1, 3, 2))
    record(scale, "rwm", k, NA, n_iter, arr, ep, chains * n_iter, tt$seconds, Z_all, y_all,
           accept = mean(vapply(tt$value, function(ch) ch$accept, 0)), pilot_epochs = 25000,
           note = sprintf("proposal 2.38^2/d x pilot covariance (pilot %.1f s)", pilot_sec))
  }
}

res <- do.call(rbind, lapply(rows, function(r) {
  all_cols <- c("scale", "sampler", "case", "step_size", "iterations", "chains", "batch_size", "status",
                "accept_rate", "epochs", "pilot_epochs", "seconds", "heidel_pass", "heidel_tests",
                "gelman_psrf_max", "gelman_mpsrf", "rhat_max", "acf1_max", "acf5_max", "acf10_max",
                "ess_bulk_min", "ess_coda_min", "rmse_in", "rmse_out", "mean_err_max_sd",
                "sd_ratio_min", "sd_ratio_max", "note")
  for (v in setdiff(all_cols, names(r))) r[[v]] <- NA
  r[all_cols]
}))
num <- vapply(res, is.numeric, TRUE)
res[num] <- lapply(res[num], function(v) signif(v, 4))
# Why these data fit the protocol, carried with the results.
ym <- function(t) { m <- round(t * 12); sprintf("%s %d", month.abb[m %% 12 + 1], m %/% 12) }
res$data <- sprintf(paste("datasets::Seatbelts, yoy %% growth of drivers ~ kms + PetrolPrice, %s - %s:",
                          "%d observations (>= 150), m = 2 regressors, ARDL(1,1) N = %d (%d fitted, %d held out)"),
                    ym(raw$time[1]), ym(raw$time[nrow(raw)]), nrow(raw), n_rows, n_train, n_test)
utils::write.csv(res, file.path(out_dir, "seed003_ardl.csv"), row.names = FALSE)
pr <- do.call(rbind, params)
num <- vapply(pr, is.numeric, TRUE)
pr[num] <- lapply(pr[num], function(v) signif(v, 4))
utils::write.csv(pr, gzfile(file.path(out_dir, "seed003_ardl_params.csv.gz")), row.names = FALSE)
fc <- do.call(rbind, forecasts)
fc$forecast <- signif(fc$forecast, 5)
fc$observed <- signif(fc$observed, 5)
utils::write.csv(fc, gzfile(file.path(out_dir, "seed003_ardl_forecasts.csv.gz")), row.names = FALSE)
print(res[, c("scale", "sampler", "case", "status", "rhat_max", "ess_bulk_min", "rmse_in", "rmse_out",
              "mean_err_max_sd", "sd_ratio_min", "sd_ratio_max")], row.names = FALSE)
cat("written to", file.path(out_dir, c("seed003_ardl.csv", "seed003_ardl_params.csv.gz", "seed003_ardl_forecasts.csv.gz")), "\n")
