# Stochastic-gradient samplers (sghmc(), sgld()): argument checks, errors, the
# printed warning about the missing Metropolis correction and the epochs count, seeds, and
# accuracy against NUTS on a gaussian linear regression (N = 5000).
#
# Tolerances. SG draws are biased (no Metropolis step); at the step sizes used here the
# predicted variance inflation is about 5% for both samplers (noise ratio eps (N/B) / 2 in
# natural units with B = N/10, eps = 0.01), so the checks are: SGHMC means within 0.1
# posterior sd and sds within 20% of NUTS; SGLD, whose diffusive moves give a smaller ESS
# at equal cost, means within 0.2 posterior sd and sds within 20%.

sg_data <- local({
  set.seed(42)
  n <- 5000
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = rnorm(n))
  d$y <- 3 + 0.5 * d$x1 - 0.25 * d$x2 + 0.1 * d$x3 + rnorm(n, sd = 2)
  d
})

test_that("sghmc() and sgld() validate their arguments", {
  expect_s3_class(sghmc(), c("vhmc_sghmc", "vhmc_sampler"))
  expect_s3_class(sgld(), c("vhmc_sgld", "vhmc_sampler"))
  expect_error(sghmc(batch_size = 0), "`batch_size`")
  expect_error(sgld(batch_size = -3), "`batch_size`")
  expect_error(sghmc(batch_size = 2.5), "`batch_size`")
  expect_error(sghmc(step_size = 0), "`step_size`")
  expect_error(sgld(step_size = -1e-3), "`step_size`")
  expect_error(sghmc(friction = 0), "`friction`")
  expect_error(sghmc(friction = -1), "`friction`")
  expect_error(sghmc(updates = 0), "`updates`")
  expect_warning(s <- sghmc(steps = 3), "`steps` is deprecated")
  expect_identical(s$updates, 3L)
  expect_error(sghmc(friction = 1, noise_estimate = 2), "`noise_estimate`")
  expect_error(sghmc(learning_rate = 1e-4), "`momentum_decay`")
  expect_error(sghmc(learning_rate = 1e-4, momentum_decay = 0.1, step_size = 1), "`learning_rate`")
  expect_error(sgld(decay = 1.5), "`decay`")
  expect_error(sgld(decay_offset = 0), "`decay_offset`")
  expect_error(sgld(metric = "dense"), "`metric`")
  s <- sghmc(learning_rate = 1e-4, momentum_decay = 0.1)
  expect_equal(s$step_size, 1e-2)
  expect_equal(s$friction, 10)
  expect_output(print(sghmc()), "sghmc")
})

test_that("batch_size is checked against the data, and vhmc_sample() refuses SG samplers", {
  expect_error(
    vhmc_glm(y ~ x1, data = sg_data, sampler = sghmc(batch_size = 5001), chains = 1,
             iter = 20, seed = 1, progress = FALSE),
    "`batch_size` \\(5001\\) exceeds the number of observations \\(5000\\)")
  expect_error(
    vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0), sampler = sgld(),
                chains = 1, iter = 20, seed = 1, progress = FALSE),
    "`sampler` is sgld\\(\\), a stochastic-gradient sampler")
})

test_that("a diverging SG chain stops with an error suggesting a smaller step size", {
  expect_error(
    vhmc_glm(y ~ x1, data = sg_data, chains = 1, iter = 50, seed = 1, progress = FALSE,
             sampler = sghmc(step_size = 1, friction = 1, updates = 10, metric = "unit")),
    "non-finite.*smaller step_size")
})

test_that("SG fits say there is no Metropolis correction and report epochs", {
  # (too short to mix: the convergence warnings are expected)
  fit <- suppressWarnings(vhmc_glm(y ~ x1 + x2, data = sg_data,
                                   sampler = sgld(batch_size = 100, updates = 10,
                                                  control_variate = FALSE),
                                   chains = 2, iter = 60, warmup = 20, seed = 3, progress = FALSE))
  expect_true(all(c("n_obs_grad", "epochs") %in% names(fit$counts)))
  info <- sg_info(fit)
  expect_equal(info$batch_size, c(100, 100))
  expect_equal(info$updates_per_draw, c(10, 10))
  # 60 iterations x 10 updates x 100 rows, plus the curvature estimates (500 rows each)
  expect_true(all(fit$counts$epochs > 60 * 10 * 100 / 5000))
  expect_equal(fit$counts$n_grad, c(600, 600))
  expect_equal(info$epochs_sampling, rep(40 * 10 * 100 / 5000, 2))
  out <- capture.output(print(fit))
  expect_true(any(grepl("No Metropolis correction", out)))
  expect_true(any(grepl("epochs per chain", out)))
  out_s <- capture.output(print(summary(fit)))
  expect_true(any(grepl("No Metropolis correction", out_s)))
  expect_true(any(grepl("epochs", out_s)))
  nuts_fit <- suppressWarnings(vhmc_glm(y ~ x1, data = sg_data, chains = 1, iter = 40, seed = 1,
                                        progress = FALSE))
  expect_error(sg_info(nuts_fit), "stochastic-gradient")
})

test_that("a seed reproduces SG draws on 1 and 2 cores", {
  skip_on_os("windows")
  run <- function(seed, cores) {
    suppressWarnings(vhmc_glm(y ~ x1 + x2, data = sg_data, sampler = sghmc(), chains = 2,
                              iter = 40, warmup = 20, seed = seed, cores = cores,
                              progress = FALSE))
  }
  fit1 <- run(11, 1)
  fit2 <- run(11, 2)
  fit3 <- run(12, 1)
  expect_identical(unclass(fit1$draws), unclass(fit2$draws))
  expect_false(identical(unclass(fit1$draws), unclass(fit3$draws)))
})

test_that("SGHMC and SGLD at a small step size agree with NUTS on a linear regression", {
  skip_on_cran()
  ref <- vhmc_glm(y ~ x1 + x2 + x3, data = sg_data, chains = 4, iter = 3000, seed = 1,
                  progress = FALSE)
  compare <- function(fit, mean_tol, sd_tol) {
    a <- posterior::summarise_draws(ref$draws, "mean", "sd")
    b <- posterior::summarise_draws(fit$draws, "mean", "sd")
    # (posterior's columns are pillar_num vectors: compare plain doubles)
    z <- abs(as.numeric(b$mean) - as.numeric(a$mean)) / as.numeric(a$sd)
    r <- as.numeric(b$sd) / as.numeric(a$sd)
    expect_true(all(z < mean_tol), info = paste("mean error / sd:", paste(round(z, 3), collapse = " ")))
    expect_true(all(abs(r - 1) < sd_tol), info = paste("sd ratio:", paste(round(r, 3), collapse = " ")))
  }
  fit <- suppressWarnings(vhmc_glm(y ~ x1 + x2 + x3, data = sg_data, chains = 2, iter = 2500,
                                   warmup = 500, seed = 2, progress = FALSE,
                                   sampler = sghmc(batch_size = 500, step_size = 0.01,
                                                   control_variate = FALSE)))
  compare(fit, 0.1, 0.2)
  fit <- suppressWarnings(vhmc_glm(y ~ x1 + x2 + x3, data = sg_data, chains = 2, iter = 2500,
                                   warmup = 500, seed = 2, progress = FALSE,
                                   sampler = sgld(batch_size = 500, step_size = 0.01,
                                                  control_variate = FALSE)))
  compare(fit, 0.2, 0.2)
})

test_that("sghmc(noise_estimate = \"auto\") and fresh batches run and are validated", {
  expect_error(sghmc(noise_estimate = "yes"), "`noise_estimate`")
  expect_error(sgld(batches = "all"), "`batches`")
  expect_true(sghmc(noise_estimate = "auto")$estimate_noise)
  fit <- suppressWarnings(vhmc_glm(y ~ x1, data = sg_data, chains = 1, iter = 40, warmup = 20,
                                   seed = 5, progress = FALSE,
                                   sampler = sghmc(noise_estimate = "auto", batches = "fresh")))
  info <- sg_info(fit)
  expect_true(info$clamped >= 0 && info$clamped <= info$updates)
  expect_true(all(is.finite(unclass(fit$draws))))
})

test_that("control_variate is validated", {
  expect_error(sghmc(control_variate = "yes"), "`control_variate`")
  expect_error(sgld(control_variate = NA), "`control_variate`")
  expect_null(sghmc()$control_variate)  # settled by the target: TRUE where it has a mode
  expect_false(sgld(control_variate = FALSE)$control_variate)
})

test_that("SGHMC-CV and SGLD-CV match the exact posterior of a linear regression", {
  skip_on_cran()
  # Flat priors on the coefficients and on sigma: beta | y is multivariate t with
  # nu = N - p - 1 degrees of freedom around the least-squares fit, sigma^2 | y is
  # inverse-gamma(nu / 2, SSR / 2).
  ls <- stats::lm(y ~ x1 + x2 + x3, data = sg_data)
  nu <- nrow(sg_data) - 4 - 1
  s2 <- sum(stats::residuals(ls)^2) / nu
  a <- nu / 2
  b <- s2 * nu / 2
  sigma_mean <- sqrt(b) * exp(lgamma(a - 0.5) - lgamma(a))
  exact_mean <- c(stats::coef(ls), sigma = sigma_mean)
  exact_sd <- c(sqrt(diag(stats::vcov(ls)) * (nu + 1) / nu * nu / (nu - 2)), sigma = sqrt(b / (a - 1) - sigma_mean^2))
  run <- function(sampler, init = NULL) {
    suppressWarnings(vhmc_glm(y ~ x1 + x2 + x3, data = sg_data, prior = flat(),
                              prior_intercept = flat(), prior_aux = flat(), chains = 2,
                              iter = 6000, warmup = 1000, seed = 4, init = init, progress = FALSE,
                              sampler = sampler))
  }
  check <- function(fit) {
    s <- posterior::summarise_draws(fit$draws, "mean", "sd")
    z <- abs(as.numeric(s$mean) - exact_mean) / exact_sd
    r <- as.numeric(s$sd) / exact_sd
    # 0.1 sd is about 4 Monte Carlo standard errors at the ESS of these runs (about 1800);
    # sds within 10% (the default step's predicted inflation is a few percent)
    expect_true(all(z < 0.1), info = paste("mean error / sd:", paste(round(z, 3), collapse = " ")))
    expect_true(all(abs(r - 1) < 0.1), info = paste("sd ratio:", paste(round(r, 3), collapse = " ")))
  }
  fit <- run(sghmc(control_variate = TRUE))
  check(fit)
  info <- sg_info(fit)
  expect_true(all(info$epochs_mode >= 1))
  expect_identical(info$epochs_mode[1], info$epochs_mode[2])
  # chains start at the mode: both at the same point
  expect_equal(fit$inits[[1]], fit$inits[[2]])
  expect_true(max(abs(fit$inits[[1]][1:4] - stats::coef(ls)) / exact_sd[1:4]) < 1e-3)
  out <- capture.output(print(fit))
  expect_true(any(grepl("SGHMC-CV", out)))
  expect_true(any(grepl("Control variate: \\+ .* epochs once per fit", out)))
  # the CV updates cost 2B rows: sampling epochs = 2 x updates x B / N
  expect_equal(info$epochs_sampling, 2 * 5000 * info$updates_per_draw * info$batch_size / info$n_obs)
  check(run(sgld(control_variate = TRUE)))
  # a user init is kept
  fit <- run(sghmc(control_variate = TRUE),
             init = c(`(Intercept)` = 0, x1 = 0, x2 = 0, x3 = 0, sigma = 1))
  expect_equal(unname(fit$inits[[1]]), c(0, 0, 0, 0, 1))
})
