# ARDL(p, q) models (Asaad 2017): lag construction, names, ts/mts input, errors raised before
# sampling, the fixed-precision model against its conjugate posterior (NUTS, SGHMC, SGLD), AR(5) against the
# posteriordb arK reference, and forecasts.

ardl_data <- function(n = 60, seed = 1) {
  set.seed(seed)
  x1 <- cumsum(rnorm(n)) / 3
  x2 <- rnorm(n)
  y <- numeric(n)
  y[1] <- 0.5
  for (t in 2:n) y[t] <- 0.3 + 0.5 * y[t - 1] + 0.8 * x1[t] - 0.4 * x2[t - 1] + rnorm(1, sd = 0.5)
  data.frame(y = y, x1 = x1, x2 = x2)
}

build <- function(...) vhmc:::ardl_build(...)

test_that("the lagged design matches a hand-built one (intercept, lags, regressor lags; names)", {
  d <- ardl_data(20)
  b <- build(y ~ x1 + x2, d, p = 2, q = 1)
  t <- 3:20
  Z <- cbind(1, d$y[t - 1], d$y[t - 2], d$x1[t], d$x2[t], d$x1[t - 1], d$x2[t - 1])
  colnames(Z) <- c("(Intercept)", "L1.y", "L2.y", "L0.x1", "L0.x2", "L1.x1", "L1.x2")
  expect_identical(b$Z, Z)
  expect_identical(b$y, d$y[t])
  expect_identical(b$t0, 2L)
  # q larger than p drops max(p, q) rows; one q per regressor, lag-major order.
  b2 <- build(y ~ x1 + x2, d, p = 1, q = c(3, 0))
  t <- 4:20
  Z2 <- cbind(1, d$y[t - 1], d$x1[t], d$x2[t], d$x1[t - 1], d$x1[t - 2], d$x1[t - 3])
  colnames(Z2) <- c("(Intercept)", "L1.y", "L0.x1", "L0.x2", "L1.x1", "L2.x1", "L3.x1")
  expect_identical(b2$Z, Z2)
  expect_identical(b2$q, c(x1 = 3L, x2 = 0L))
  # No intercept, p = 0 (distributed lags only), transformed regressors keep their labels.
  b3 <- build(y ~ 0 + exp(x1), d, p = 0, q = 1)
  expect_identical(colnames(b3$Z), c("L0.exp(x1)", "L1.exp(x1)"))
  expect_equal(unname(b3$Z[, 2]), exp(d$x1[1:19]))
  # Lags are taken in the order of the `time` column, not of the rows.
  shuffled <- transform(d, when = seq_len(20))[c(20:1), ]
  b4 <- build(y ~ x1 + x2, shuffled, p = 2, q = 1, time = "when")
  expect_identical(b4$Z, b$Z)
  expect_identical(b4$time, 1:20)
})

test_that("the design agrees with stats::embed", {
  d <- ardl_data(30)
  p <- 3
  q <- 2
  b <- build(y ~ x1, d, p = p, q = q)
  ey <- stats::embed(d$y, p + 1)      # columns y(t), y(t-1), ..., y(t-p)
  ex <- stats::embed(d$x1, q + 1)     # columns x(t), ..., x(t-q)
  expect_equal(b$y, ey[, 1])
  expect_equal(unname(b$Z[, paste0("L", 1:p, ".y")]), ey[, -1])
  expect_equal(unname(b$Z[, paste0("L", 0:q, ".x1")]), ex[-seq_len(p - q), ])  # t0 = max(p, q)
  # AR(5) of a univariate ts
  b5 <- build(lh ~ 1, lh, p = 5, q = NULL)
  e5 <- stats::embed(as.numeric(lh), 6)
  expect_equal(unname(b5$Z), cbind(1, e5[, -1]))
  expect_identical(colnames(b5$Z), c("(Intercept)", paste0("L", 1:5, ".lh")))
  expect_equal(b5$time, as.numeric(time(lh)))
})

test_that("mts columns are formula variables and keep the time index", {
  s <- ts(cbind(y = as.numeric(ardl_data(40)$y), x = rnorm(40)), start = c(2000, 1), frequency = 4)
  b <- build(y ~ x, s, p = 1, q = 1)
  expect_identical(colnames(b$Z), c("(Intercept)", "L1.y", "L0.x", "L1.x"))
  expect_equal(b$y, as.numeric(s[-1, "y"]))
  expect_equal(b$time, as.numeric(time(s)))
  expect_equal(b$tsp, tsp(s))
  # A ts response taken from the formula's environment
  y <- lh
  b2 <- build(y ~ 1, NULL, p = 2, q = 1)
  expect_equal(b2$time, as.numeric(time(lh)))
})

test_that("bad inputs give errors naming the argument, before any sampling", {
  d <- ardl_data(30)
  expect_error(vhmc_ardl(y ~ x1, d, p = -1), "`p` must be >= 0")
  expect_error(vhmc_ardl(y ~ x1, d, q = -2), "`q` must be >= 0")
  expect_error(vhmc_ardl(y ~ x1, d, p = 1.5), "`p` must be a whole number.*Use 1 or 2")
  expect_error(vhmc_ardl(y ~ x1, d, q = 0.5), "`q` must be whole numbers")
  expect_error(vhmc_ardl(y ~ x1 + x2, d, q = c(1, 2, 3)), "`q` has length 3, but the formula has 2 regressors")
  expect_error(vhmc_ardl(y ~ x1, d, q = NULL), "`q` is NULL, but the formula has regressors")
  expect_error(vhmc_ardl(y ~ 1, d, p = 0), "`p` is 0 and the formula has no regressors")
  expect_error(vhmc_ardl(y ~ x1, d[1:6, ], p = 3, q = 3), "`data` has 6 observations, too few")
  expect_error(vhmc_ardl(y ~ x1, d, p = 25), "too few.*smaller lag orders")
  d$f <- factor(rep(c("a", "b"), 15))
  expect_error(vhmc_ardl(y ~ f, d), "`data` regressor `f` is not numeric \\(it is a factor\\)")
  d$ch <- rep(c("a", "b"), 15)
  expect_error(vhmc_ardl(y ~ ch, d), "regressor `ch` is not numeric")
  dn <- d
  dn$x1[7] <- NA
  expect_error(vhmc_ardl(y ~ x1, dn), "missing values inside the series `x1` \\(at position 7\\).*impute")
  dn <- d
  dn$y[c(3, 9)] <- NA
  expect_error(vhmc_ardl(y ~ x1, dn), "series `y` \\(at positions 3, 9\\)")
  expect_error(vhmc_ardl(y ~ x1 + nope, d), "`formula` uses `nope`, not found in `data`")
  expect_error(vhmc_ardl(y ~ x1 * x2, d), "`formula` has interaction terms")
  expect_error(vhmc_ardl(~ x1, d), "`formula` must be a two-sided formula")
  expect_error(vhmc_ardl(y ~ x1, d, time = "when"), "`time` is \"when\", which is not a column")
  gap <- d
  gap$t <- c(seq_len(nrow(d) / 2), seq_len(nrow(d) / 2) + nrow(d) / 2 + 20)
  expect_error(vhmc_ardl(y ~ x1, gap, time = "t"),
               "`time` column \"t\" is not equally spaced: the step from 15 to 36 is 21, where the typical step is 1; lags need equally spaced")
  monthly <- d
  monthly$t <- seq(as.Date("2001-01-01"), by = "month", length.out = nrow(d))
  expect_s3_class(build(y ~ x1, monthly, 1, 1, "t")$time, "Date")
  monthly$t[10:nrow(d)] <- monthly$t[10:nrow(d)] + 31
  expect_error(vhmc_ardl(y ~ x1, monthly, time = "t"), "not equally spaced")
  expect_error(vhmc_ardl(y ~ x1, d, prior_precision = 1), "`prior_precision` applies only with a fixed `noise_precision`")
  expect_error(vhmc_ardl(y ~ x1, d, noise_precision = -1), "`noise_precision` must lie in")
  expect_error(vhmc_ardl(y ~ x1, d, noise_precision = 1, prior = normal(0, 1)), "`prior` is for the model with sigma estimated")
  expect_error(vhmc_ardl(y ~ x1, d, sampler = "nuts"), "`sampler` must be a sampler object")
  expect_error(vhmc_ardl(y ~ x1, d, iterations = 10), "`...` must be empty, but has `iterations`")
  expect_error(vhmc_ardl(y ~ x1, as.list(1:3)), "`data`")
})

test_that("a sigma-estimated fit is a vhmc_glm fit with readable names and ARDL metadata", {
  d <- ardl_data(60)
  fit <- suppressWarnings(vhmc_ardl(y ~ x1 + x2, d, p = 1, q = 1, chains = 2, iter = 300,
                                    seed = 3, progress = FALSE))
  expect_s3_class(fit, c("vhmc_ardl", "vhmc_glm", "vhmc_fit"), exact = TRUE)
  nm <- c("(Intercept)", "L1.y", "L0.x1", "L0.x2", "L1.x1", "L1.x2")
  expect_identical(posterior::variables(fit), c(nm, "sigma"))
  expect_identical(names(coef(fit)), nm)
  expect_identical(colnames(fit$model$x), nm)
  expect_equal(unname(fit$model$x), unname(fit$ardl$Z), ignore_attr = TRUE)
  expect_identical(fit$ardl$last_y, d$y[60])
  expect_identical(fit$ardl$last_x, as.matrix(d[60, c("x1", "x2")], rownames.force = FALSE))
  expect_equal(nobs(fit), 59L)
  expect_length(fitted(fit), 59L)
  expect_match(fit$model$label, "ARDL\\(1, 1\\) of y")
  expect_error(exact_posterior(fit), "`fit` is an ARDL fit with sigma estimated.*noise_precision")
  expect_error(exact_posterior(lm(y ~ x1, d)), "`fit` has no closed-form posterior")
  # Initial values by the readable names; any sampler passes through, in both models.
  init <- c("(Intercept)" = 0.3, L1.y = 0.5, L0.x1 = 0.8, sigma = 0.5)
  f2 <- suppressWarnings(vhmc_ardl(y ~ x1, d, p = 1, q = 0, init = init, sampler = hmc(steps = 5),
                                   chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_equal(f2$inits[[1]], init)
  expect_s3_class(f2$sampler, "vhmc_sampler")
  expect_s3_class(f2$sampler, "vhmc_hmc")
  expect_error(vhmc_ardl(y ~ x1, d, p = 1, q = 0, init = replace(init, "sigma", -1), chains = 1,
                         iter = 100, progress = FALSE), "`init` gives sigma = -1")
  f3 <- suppressWarnings(vhmc_ardl(y ~ x1, d, p = 1, q = 0, noise_precision = 4, init = init[1:3],
                                   sampler = hmc(steps = 5), chains = 1, iter = 100, seed = 1,
                                   progress = FALSE))
  expect_equal(f3$inits[[1]], init[1:3])
  expect_s3_class(f3$sampler, "vhmc_hmc")
  expect_identical(posterior::variables(f3), names(init)[1:3])
  expect_output(print(prior_summary(f3)), "fixed precision 4")
  expect_snapshot(print(exact_posterior(f3)))
  # Warnings of vhmc_glm() name the ARDL coefficients, not internal columns.
  d$x3 <- 2 * d$x1
  w <- character()
  withCallingHandlers(vhmc_ardl(y ~ x1 + x3, d, p = 1, q = 0, chains = 1, iter = 100, seed = 1,
                                progress = FALSE),
                      warning = function(cnd) {
                        w <<- c(w, conditionMessage(cnd))
                        invokeRestart("muffleWarning")
                      })
  expect_match(w[1], "`L0.x3`")
})

test_that("with a fixed noise precision NUTS matches the conjugate posterior", {
  skip_on_cran()
  d <- ardl_data(150, seed = 7)
  alpha <- 4
  fit <- vhmc_ardl(y ~ x1 + x2, d, p = 1, q = 1, noise_precision = alpha, prior_precision = 0.01,
                   chains = 4, iter = 2000, seed = 5, progress = FALSE)
  expect_s3_class(fit, "vhmc_ardl")
  ep <- exact_posterior(fit)
  # The closed form, computed directly (Asaad 2017)
  Z <- fit$ardl$Z
  Sigma <- solve(alpha * crossprod(Z) + 0.01 * diag(ncol(Z)))
  expect_equal(unname(ep$Sigma), unname(Sigma), tolerance = 1e-10)
  expect_equal(unname(ep$mu), as.numeric(alpha * Sigma %*% crossprod(Z, fit$ardl$y)), tolerance = 1e-10)
  s <- posterior::summarise_draws(posterior::as_draws_array(fit), mean = mean, sd = stats::sd,
                                  mcse = posterior::mcse_mean, ess_sd = posterior::ess_sd)
  expect_identical(s$variable, names(ep$mu))
  z <- abs(s$mean - ep$mu) / s$mcse
  expect_true(all(z < 4), info = paste("z:", paste(round(z, 2), collapse = " ")))
  ratio <- s$sd / ep$sd
  expect_true(all(abs(ratio - 1) < 0.1), info = paste("sd ratios:", paste(round(ratio, 3), collapse = " ")))
  expect_true(all(s$ess_sd > 400))
  # Draws from the exact posterior
  ed <- exact_posterior(fit, ndraws = 20000, seed = 1)$draws
  expect_equal(colMeans(ed), ep$mu, tolerance = 4 * max(ep$sd) / sqrt(20000) / min(abs(ep$mu)))
  expect_equal(cov(ed), ep$Sigma, tolerance = 0.05)
})

test_that("SGHMC and SGLD on the fixed-precision model recover the conjugate posterior", {
  skip_on_cran()
  # iid regressors: a posterior with moderate correlations (condition number about 10), so
  # that chains of a few seconds give Monte Carlo errors far below the tolerances.
  set.seed(7)
  n <- 200
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- 0
  for (t in 2:n) d$y[t] <- 0.3 + 0.5 * d$y[t - 1] + 0.8 * d$x1[t] - 0.4 * d$x2[t - 1] + rnorm(1, sd = 0.5)
  check_sg <- function(sampler) {
    fit <- vhmc_ardl(y ~ x1 + x2, d, p = 1, q = 1, noise_precision = 4, sampler = sampler,
                     chains = 4, iter = 20000, warmup = 1000, seed = 5, progress = FALSE)
    expect_s3_class(fit, c("vhmc_ardl", "vhmc_fit"), exact = TRUE)
    ep <- exact_posterior(fit)
    s <- posterior::summarise_draws(posterior::as_draws_array(fit), mean = mean, sd = stats::sd,
                                    mcse = posterior::mcse_mean)
    expect_identical(s$variable, names(ep$mu))
    # Tolerances: means within 0.1 posterior sd, sds within 20% (the step-size bias of the
    # small steps below is a few percent); the Monte Carlo error is at most 0.025 sd, so a
    # bias of 0.1 sd would show at 4 MCSE.
    expect_true(all(s$mcse / ep$sd < 0.025), info = paste("mcse/sd:", paste(round(s$mcse / ep$sd, 3), collapse = " ")))
    z <- (s$mean - ep$mu) / ep$sd
    expect_true(all(abs(z) < 0.1), info = paste("(mean - mu)/sd:", paste(round(z, 3), collapse = " ")))
    ratio <- s$sd / ep$sd
    expect_true(all(abs(ratio - 1) < 0.2), info = paste("sd ratios:", paste(round(ratio, 3), collapse = " ")))
    fit
  }
  fit <- check_sg(sghmc(batch_size = 20, step_size = 0.02, control_variate = FALSE))
  info <- sg_info(fit)
  expect_identical(info$batch_size, rep(20, 4))
  expect_identical(info$n_obs, rep(199, 4))
  expect_true(all(info$epochs_sampling > 0))
  # The same fit object as with NUTS: readable names, forecasts, exact posterior.
  expect_identical(names(coef(fit)), c("(Intercept)", "L1.y", "L0.x1", "L0.x2", "L1.x1", "L1.x2"))
  fc <- forecast(fit, newdata = data.frame(x1 = c(0, 1), x2 = c(0, 0)), ndraws = 500, seed = 1)
  expect_identical(dim(fc$draws), c(500L, 2L))
  expect_output(print(fit), "SGHMC.*No Metropolis correction")
  check_sg(sgld(batch_size = 20, step_size = 0.005, control_variate = FALSE))
  # The plain estimator is tested (the control variate is tested in test-sg.R).
  # The test can fail: large steps on batches of 5 inflate the posterior sd far beyond 20%.
  big <- suppressWarnings(vhmc_ardl(y ~ x1 + x2, d, p = 1, q = 1, noise_precision = 4,
                                    sampler = sghmc(batch_size = 5, step_size = 0.3, batches = "fresh",
                                                    control_variate = FALSE),
                                    chains = 2, iter = 2000, seed = 5, progress = FALSE))
  expect_true(all(apply(as.matrix(big), 2, sd) / exact_posterior(big)$sd > 1.3))
})

test_that("vhmc_ardl(p = 5) reproduces the arK reference posterior", {
  skip_on_cran()
  db <- posteriordb()
  ref <- db$reference[["arK-arK"]]
  y <- db$data$arK$y
  # The reference model: alpha, beta ~ normal(0, 10), sigma ~ half-Cauchy(0, 2.5). (vhmc's
  # intercept prior applies at the predictor means; with a prior sd of 10 on a series of
  # sd 0.4 the difference is far below Monte Carlo error, as in test-glm-posteriordb.R.)
  fit <- suppressWarnings(vhmc_ardl(y ~ 1, data.frame(y = y), p = 5, q = NULL,
                                    prior = normal(0, 10), prior_intercept = normal(0, 10),
                                    prior_aux = cauchy(0, 2.5), chains = 4, iter = 2000,
                                    seed = 11, progress = FALSE))
  expect_equal(nobs(fit), length(y) - 5L)
  draws <- posterior::as_draws_df(fit)
  posterior::variables(draws) <- c("alpha", sprintf("beta[%d]", 1:5), "sigma")
  m <- compare_reference(draws, ref)
  expect_setequal(m$variable, ref$variable)
  expect_true(all(m$z <= 4), info = paste("z:", paste(round(m$z, 2), collapse = " ")))
  expect_true(all(abs(m$sd_ratio - 1) <= 0.1), info = paste("sd ratios:", paste(round(m$sd_ratio, 3), collapse = " ")))
  expect_true(all(m$ess_sd > 400))
})

test_that("forecasts have the documented shape and validate newdata", {
  d <- ardl_data(60)
  fit <- suppressWarnings(vhmc_ardl(y ~ x1 + x2, d, p = 2, q = c(1, 0), chains = 2, iter = 300,
                                    seed = 2, progress = FALSE))
  new <- data.frame(x1 = c(0.1, 0.2, 0.3, 0.4), x2 = c(0, 1, 0, -1))
  fc <- forecast(fit, newdata = new, h = 4, level = c(0.5, 0.9), seed = 1)
  expect_s3_class(fc, "vhmc_forecast")
  expect_identical(dim(fc$draws), c(300L, 4L))
  expect_identical(names(fc$forecast), c("h", "time", "mean", "median", "lower_50", "upper_50",
                                         "lower_90", "upper_90"))
  expect_identical(fc$forecast$h, 1:4)
  expect_equal(fc$forecast$time, 61:64)
  expect_true(all(fc$forecast$lower_90 <= fc$forecast$lower_50))
  expect_true(all(fc$forecast$upper_50 <= fc$forecast$upper_90))
  expect_equal(fc$forecast$mean, unname(colMeans(fc$draws)))
  # h defaults to the rows of newdata; the seed reproduces the draws
  expect_identical(forecast(fit, newdata = new, level = c(0.5, 0.9), seed = 1)$draws, fc$draws)
  expect_identical(dim(forecast(fit, newdata = new[1:2, ], ndraws = 50, seed = 1)$draws), c(50L, 2L))
  expect_output(print(fc), "Forecasts of y from an ARDL\\(2, \\(1, 0\\)\\) fit: 4 steps ahead")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_invisible(plot(fc))
  expect_invisible(plot(fc, n_history = 10))
  expect_error(forecast(fit, h = 2), "`newdata` is needed: the model has regressors")
  expect_error(forecast(fit, newdata = new, h = 3), "`newdata` has 4 rows but h = 3")
  expect_error(forecast(fit, newdata = new["x1"], h = 4), "`newdata` does not give the regressor `x2`")
  expect_error(forecast(fit, newdata = transform(new, x2 = NA), h = 4), "regressor `x2` has missing")
  expect_error(forecast(fit, newdata = new, level = 95), "`level` must be probabilities")
  expect_error(forecast(fit, newdata = new, h = 0), "`h` must be a single whole number >= 1")
  expect_error(predict(fit, newdata = new), "`newdata` is not supported by predict\\(\\) for ARDL fits.*forecast")
  expect_error(posterior_predict(fit, newdata = new), "Use forecast")
  expect_length(predict(fit), 58L)  # p = 2 lags: 60 - 2 rows
  # A monthly Date column continues by calendar months, and labels the plot
  dd <- transform(d, month = seq(as.Date("2001-01-01"), by = "month", length.out = 60))
  fd <- suppressWarnings(vhmc_ardl(y ~ x1, dd, p = 1, q = 0, time = "month", chains = 1, iter = 200,
                                   seed = 1, progress = FALSE))
  fcd <- forecast(fd, newdata = new["x1"], seed = 1)
  expect_equal(fcd$forecast$time, seq(as.Date("2006-01-01"), by = "month", length.out = 4))
  expect_invisible(plot(fcd))
  # A ts fit continues its time index
  fts <- suppressWarnings(vhmc_ardl(lh ~ 1, lh, p = 1, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_equal(forecast(fts, h = 3, seed = 1)$forecast$time, 49:51)
})

test_that("the forecast recursion is exact: hand-computed ARDL paths and AR(1) means", {
  # Without noise the recursion of one coefficient vector is a deterministic path.
  d <- ardl_data(30)
  b <- build(y ~ x1 + x2, d, p = 2, q = 1)
  w <- rbind(c(0.2, 0.5, -0.1, 0.7, 0.3, -0.4, 0.05))
  xf <- cbind(x1 = c(1, 2, 3), x2 = c(-1, 0, 1))
  path <- vhmc:::ardl_recursion(w, 1, b, xf, 3, rep(0, 3))
  yy <- c(d$y, numeric(3))
  xx <- rbind(as.matrix(d[c("x1", "x2")]), xf)
  for (t in 31:33) {
    yy[t] <- sum(w * c(1, yy[t - 1], yy[t - 2], xx[t, 1], xx[t, 2], xx[t - 1, 1], xx[t - 1, 2]))
  }
  expect_equal(as.numeric(path), yy[31:33], tolerance = 1e-12)
  # A distributed-lag model without intercept (p = 0, q = 2)
  b0 <- build(y ~ 0 + x1, d, p = 0, q = 2)
  w0 <- rbind(c(0.5, 0.3, 0.1))
  path0 <- vhmc:::ardl_recursion(w0, 1, b0, cbind(x1 = c(1, 0, 0)), 3, rep(0, 3))
  expect_equal(as.numeric(path0), c(0.5 + 0.3 * d$x1[30] + 0.1 * d$x1[29], 0.3 + 0.1 * d$x1[30], 0.1),
               tolerance = 1e-12)

  # AR(1): the h-step mean of each draw is c (1 - phi^h) / (1 - phi) + phi^h y_T.
  skip_on_cran()
  set.seed(4)
  y <- as.numeric(arima.sim(list(ar = 0.7), n = 120)) + 2
  fit <- suppressWarnings(vhmc_ardl(y ~ 1, data.frame(y = y), p = 1, chains = 2, iter = 1000,
                                    seed = 9, progress = FALSE))
  h <- 6
  fc <- forecast(fit, h = h, seed = 3)
  draws <- as.matrix(fit)
  cc <- draws[, "(Intercept)"]
  phi <- draws[, "L1.y"]
  yT <- y[120]
  analytic <- sapply(seq_len(h), function(k) cc * (1 - phi^k) / (1 - phi) + phi^k * yT)
  # With the noise switched off the recursion gives exactly these means, draw by draw ...
  exact <- vhmc:::ardl_recursion(draws[, c("(Intercept)", "L1.y")], draws[, "sigma"], fit$ardl,
                                 matrix(0, h, 0), h, rep(0, nrow(draws) * h))
  expect_equal(unname(exact), unname(analytic), tolerance = 1e-10)
  # ... and the predictive draws scatter around them by the noise only.
  se <- apply(fc$draws - analytic, 2, sd) / sqrt(nrow(draws))
  expect_true(all(abs(fc$forecast$mean - colMeans(analytic)) < 4 * se))
  # The predictive spread grows with the horizon toward the stationary sd.
  expect_true(all(diff(apply(fc$draws, 2, sd)[c(1, h)]) > 0))
})

test_that("a gap in daily, weekly and hourly time columns names the step in days or hours (issue 24, item 6)", {
  set.seed(1)
  n <- 40
  d <- data.frame(y = rnorm(n), x1 = rnorm(n))
  daily <- transform(d, t = as.Date("2020-01-01") + c(0:30, 32:40))
  expect_error(vhmc_ardl(y ~ x1, daily, time = "t"),
               "the step from 2020-01-31 to 2020-02-02 is 2 days, where the typical step is 1 day;")
  weekly <- transform(d, t = as.Date("2020-01-06") + 7 * c(0:19, 21:40))
  expect_error(vhmc_ardl(y ~ x1, weekly, time = "t"),
               "the step from 2020-05-18 to 2020-06-01 is 14 days, where the typical step is 7 days;")
  hourly <- transform(d, t = as.POSIXct("2020-03-01 00:00", tz = "UTC") + 3600 * c(0:9, 12:41))
  expect_error(vhmc_ardl(y ~ x1, hourly, time = "t"),
               "the step from 2020-03-01 09:00:00 to 2020-03-01 12:00:00 is 3 hours, where the typical step is 1 hour;")
  monthly <- transform(d, t = seq(as.Date("2001-01-01"), by = "month", length.out = n + 1)[-10])
  expect_error(vhmc_ardl(y ~ x1, monthly, time = "t"),
               "the step from 2001-09-01 to 2001-11-01 is 2 months, where the typical step is 1 month;")
})
