test_that("print() shows the header, the variable table and divergences", {
  fit <- make_fake_fit()
  expect_snapshot(print(fit))
  expect_snapshot(print(fit, digits = 2, max_vars = 2))
  out <- capture.output(res <- withVisible(print(fit)))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  expect_match(out[1], "NUTS (diag metric)", fixed = TRUE)
  expect_true(any(grepl("2 chains x 100 post-warmup draws (thin = 2)", out,
                        fixed = TRUE)))
  expect_true(any(grepl("Divergences: 2 of 200", out, fixed = TRUE)))
  expect_error(print(fit, digits = 0), "`digits` must be")
  expect_error(print(fit, max_vars = -1), "`max_vars` must be")
})

test_that("print() limits the number of variables shown", {
  fit <- make_fake_fit(variables = sprintf("theta[%d]", 1:25), n_divergent = 0)
  out <- capture.output(print(fit))
  expect_true(any(grepl("theta[20]", out, fixed = TRUE)))
  expect_false(any(grepl("theta[21]", out, fixed = TRUE)))
  expect_true(any(grepl("5 more variables not shown", out, fixed = TRUE)))
  expect_true(any(grepl("Divergences: none", out, fixed = TRUE)))
  out_all <- capture.output(print(fit, max_vars = Inf))
  expect_true(any(grepl("theta[25]", out_all, fixed = TRUE)))
  expect_false(any(grepl("not shown", out_all, fixed = TRUE)))
})

test_that("print() works for samplers without divergence information", {
  sg <- make_fake_fit(sampler = "sgld", diag_cols = "stepsize__")
  out <- capture.output(print(sg))
  expect_match(out[1], "SGLD")
  expect_false(any(grepl("Divergences", out)))
})

test_that("summary() returns posterior summaries and chain diagnostics", {
  fit <- make_fake_fit()
  s <- summary(fit)
  expect_s3_class(s, "summary.vhmc_fit")
  expect_named(s, c("variables", "chains", "counts", "model_runs", "timing", "probs",
                    "header"))
  expect_null(s$model_runs)  # model runs are counted for targets written in R only
  expect_s3_class(s$variables, "draws_summary")
  expect_named(s$variables, c("variable", "mean", "median", "sd", "mad",
                              "q5", "q50", "q95", "rhat", "ess_bulk",
                              "ess_tail", "mcse_mean", "mcse_median",
                              "mcse_sd", "mcse_q5", "mcse_q50", "mcse_q95"))
  expect_identical(s$variables$variable, c("a", "b", "beta[1]"))
  expect_type(s$variables$mean, "double")
  m <- as.matrix(fit)
  expect_equal(s$variables$mean, unname(colMeans(m)))
  expect_equal(s$variables$sd, unname(apply(m, 2, stats::sd)))
  expect_equal(s$variables$median, unname(apply(m, 2, stats::median)))
  expect_equal(s$variables$q95,
               unname(apply(m, 2, stats::quantile, probs = 0.95)))
  d <- fit$draws
  per_variable <- function(f) {
    vapply(c("a", "b", "beta[1]"),
           function(v) f(posterior::extract_variable_matrix(d, v)), 1)
  }
  expect_equal(s$variables$rhat,
               per_variable(posterior::rhat), ignore_attr = TRUE)
  expect_equal(s$variables$ess_tail,
               per_variable(posterior::ess_tail), ignore_attr = TRUE)
  expect_equal(s$variables$mcse_mean,
               per_variable(posterior::mcse_mean), ignore_attr = TRUE)
  expect_identical(s$chains, vhmc:::chain_diagnostics(fit))
  expect_identical(s$chains$divergences, c(1L, 1L))
  expect_identical(s$counts, fit$counts)
  expect_identical(s$timing, fit$timing)
})

test_that("summary() honours probs", {
  fit <- make_fake_fit()
  s <- summary(fit, probs = c(0.1, 0.9))
  expect_true(all(c("q10", "q90", "mcse_q10", "mcse_q90") %in%
                    names(s$variables)))
  expect_false(any(c("q5", "q95") %in% names(s$variables)))
  m <- as.matrix(fit)
  expect_equal(s$variables$q10,
               unname(apply(m, 2, stats::quantile, probs = 0.1)))
  expect_identical(s$probs, c(0.1, 0.9))
  expect_error(summary(fit, probs = 2), "`probs`")
  expect_error(summary(fit, probs = "a"), "`probs`")
})

test_that("print(summary()) shows variables and chains", {
  fit <- make_fake_fit()
  s <- summary(fit)
  expect_snapshot(print(s))
  out <- capture.output(res <- withVisible(print(s)))
  expect_false(res$visible)
  expect_true(any(grepl("Chains:", out, fixed = TRUE)))
  expect_true(any(grepl("mcse_mean", out, fixed = TRUE)))

  sg <- make_fake_fit(sampler = "sgld", diag_cols = "stepsize__")
  sg$counts$target_errors <- c(0L, 3L)
  out <- capture.output(print(summary(sg)))
  expect_true(any(grepl("non-finite value 3 times", out, fixed = TRUE)))
})

test_that("plot() draws traces and densities and restores par()", {
  fit <- make_fake_fit()
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  old <- graphics::par(c("mfrow", "mar"))
  expect_identical(withVisible(plot(fit))$visible, FALSE)
  expect_identical(graphics::par(c("mfrow", "mar")), old)
  expect_silent(plot(fit, type = "density"))
  expect_silent(plot(fit, pars = c("beta[1]", "a"), lwd = 2))
  expect_identical(graphics::par(c("mfrow", "mar")), old)
  expect_error(plot(fit, pars = "zzz"), "Unknown variable.*'zzz'")
  expect_error(plot(fit, type = "histogram"), "should be one of")

  many <- make_fake_fit(variables = sprintf("v%d", 1:9), n_chains = 1,
                        n_divergent = 0)
  expect_silent(plot(many))

  const <- make_fake_fit(n_divergent = 0)
  const$draws[, , "a"] <- 1
  expect_silent(plot(const, type = "density"))
})
