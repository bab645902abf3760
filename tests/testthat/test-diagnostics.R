test_that("ebfmi() matches a hand computation", {
  # diffs 2, -1, 3 -> 4 + 1 + 9 = 14; mean 2.75, squared deviations
  # 3.0625 + 0.0625 + 0.5625 + 5.0625 = 8.75; 14 / 8.75 = 1.6
  expect_equal(vhmc:::ebfmi(c(1, 3, 2, 5)), 1.6)
  # a slowly drifting energy has a small E-BFMI
  expect_equal(vhmc:::ebfmi(1:10), 9 / sum((1:10 - 5.5)^2))
  expect_lt(vhmc:::ebfmi(1:10), 0.3)
  expect_identical(vhmc:::ebfmi(c(2, 2, 2)), NA_real_)
  expect_identical(vhmc:::ebfmi(5), NA_real_)
  expect_identical(vhmc:::ebfmi(c(1, NA, 3)), NA_real_)
  expect_identical(vhmc:::ebfmi(c(1, Inf, 3)), NA_real_)
})

test_that("sampler_diagnostics() stacks the per-chain statistics", {
  fit <- make_fake_fit()
  sd <- sampler_diagnostics(fit)
  expect_s3_class(sd, "data.frame")
  expect_named(sd, c(".chain", ".iteration", ".draw", "accept_stat__",
                     "stepsize__", "treedepth__", "n_leapfrog__",
                     "divergent__", "energy__"))
  expect_identical(nrow(sd), 200L)
  expect_identical(sd$.chain, rep(1:2, each = 100))
  expect_identical(sd$.iteration, rep(1:100, 2))
  expect_identical(sd$.draw, 1:200)
  expect_identical(sd$energy__[101:200], fit$diagnostics[[2]]$energy__)
  expect_identical(sd$divergent__, c(fit$diagnostics[[1]]$divergent__,
                                     fit$diagnostics[[2]]$divergent__))
  expect_identical(sum(sd$divergent__), 2L)
  # aligned with as_draws_df()
  expect_identical(sd$.draw, as_draws_df(fit)$.draw)

  expect_error(sampler_diagnostics(fit, inc_warmup = TRUE),
               "only the post-warmup")
  expect_error(sampler_diagnostics(fit, inc_warmup = NA), "TRUE or FALSE")
  expect_error(sampler_diagnostics(list()), "must be a vhmc_fit")

  sg <- make_fake_fit(sampler = "sgld", diag_cols = "stepsize__")
  expect_named(sampler_diagnostics(sg),
               c(".chain", ".iteration", ".draw", "stepsize__"))
})

test_that("chain_diagnostics() summarises each chain", {
  fit <- make_fake_fit(n_chains = 3, n_divergent = c(0, 2, 1),
                       n_treedepth_hits = c(4, 0, 1),
                       energy = c("iid", "random_walk", "iid"))
  cd <- vhmc:::chain_diagnostics(fit)
  expect_named(cd, c("chain", "divergences", "treedepth_hits", "ebfmi",
                     "mean_accept_stat", "step_size", "n_grad",
                     "warmup_seconds", "sampling_seconds"))
  expect_identical(cd$chain, 1:3)
  expect_identical(cd$divergences, c(0L, 2L, 1L))
  expect_identical(cd$treedepth_hits, c(4L, 0L, 1L))
  expect_equal(cd$ebfmi, vapply(fit$diagnostics,
                                function(d) vhmc:::ebfmi(d$energy__), 1))
  expect_lt(cd$ebfmi[2], 0.3)
  expect_gt(cd$ebfmi[1], 1)
  expect_equal(cd$mean_accept_stat,
               vapply(fit$diagnostics, function(d) mean(d$accept_stat__), 1))
  expect_equal(cd$step_size, c(0.6, 0.7, 0.8))
  expect_equal(cd$n_grad, c(1000, 2000, 3000))
  expect_equal(cd$warmup_seconds, c(0.25, 0.5, 0.75))
  expect_equal(cd$sampling_seconds, c(0.5, 1, 1.5))
})

test_that("chain_diagnostics() copes with missing columns", {
  sg <- make_fake_fit(sampler = "sgld", diag_cols = "stepsize__")
  sg$adaptation <- list(NULL, NULL)
  cd <- vhmc:::chain_diagnostics(sg)
  expect_true(all(is.na(cd$divergences)))
  expect_true(all(is.na(cd$treedepth_hits)))
  expect_true(all(is.na(cd$ebfmi)))
  expect_true(all(is.na(cd$mean_accept_stat)))
  # no adapted step size: falls back on the mean of stepsize__
  expect_equal(cd$step_size, c(0.6, 0.7))

  # static HMC has no tree depth
  hmc_fit <- make_fake_fit(sampler = "hmc",
                           diag_cols = c("accept_stat__", "stepsize__",
                                         "n_leapfrog__", "divergent__",
                                         "energy__"))
  cd <- vhmc:::chain_diagnostics(hmc_fit)
  expect_identical(cd$divergences, c(1L, 1L))
  expect_true(all(is.na(cd$treedepth_hits)))
})

test_that("check_fit() is silent on a clean, well-mixed fit", {
  fit <- make_clean_fit()
  conv <- vhmc:::convergence_table(fit$draws)
  # the fake draws really are good enough (guards the test itself)
  expect_true(all(conv$rhat < 1.01))
  expect_true(all(conv$ess_bulk > 400 & conv$ess_tail > 400))
  expect_no_warning(res <- vhmc:::check_fit(fit))
  expect_identical(res$flagged, character())
  expect_length(res$rhat, 0L)
  expect_length(res$ess_bulk, 0L)
  expect_length(res$ess_tail, 0L)
  expect_length(res$ebfmi, 0L)
  expect_identical(res$divergences, 0L)
  expect_identical(res$treedepth_hits, 0L)
})

test_that("check_fit() warns about divergences and names the fix", {
  fit <- make_clean_fit(n_divergent = c(0, 2, 0, 1))
  expect_warning(res <- vhmc:::check_fit(fit),
                 "3 of 4000 transitions after warmup ended with a divergence")
  expect_identical(res$flagged, "divergences")
  expect_identical(res$divergences, 3L)
  w <- collect_warnings(vhmc:::check_fit(fit))$warnings
  expect_length(w, 1L)
  expect_match(w, "nuts(adapt_delta = 0.95)", fixed = TRUE)
  expect_match(w, "reparameterise", fixed = TRUE)

  hmc_fit <- make_clean_fit(n_divergent = 1, sampler = "hmc",
                            diag_cols = c("accept_stat__", "stepsize__",
                                          "n_leapfrog__", "divergent__",
                                          "energy__"))
  expect_warning(vhmc:::check_fit(hmc_fit), "hmc(adapt_delta = 0.95)",
                 fixed = TRUE)
})

test_that("check_fit() warns about tree-depth saturation", {
  fit <- make_clean_fit(n_treedepth_hits = c(5, 0, 0, 0))
  expect_warning(
    res <- vhmc:::check_fit(fit),
    "5 of 4000 transitions after warmup hit the maximum tree depth of 10"
  )
  expect_identical(res$flagged, "treedepth")
  expect_identical(res$treedepth_hits, 5L)
  expect_warning(vhmc:::check_fit(fit), "increase max_treedepth")
})

test_that("check_fit() warns about low E-BFMI per chain", {
  fit <- make_clean_fit(energy = c("iid", "random_walk", "iid", "iid"))
  expect_warning(res <- vhmc:::check_fit(fit),
                 "1 of 4 chains had an E-BFMI below 0.3")
  expect_identical(res$flagged, "ebfmi")
  expect_named(res$ebfmi, "2")
  expect_lt(res$ebfmi[["2"]], 0.3)
  expect_warning(vhmc:::check_fit(fit), "chain 2: .*reparameterise")
})

test_that("check_fit() flags chains that have not mixed (R-hat)", {
  fit <- make_clean_fit(chain_shift = c(0, 0, 1, 1))
  out <- collect_warnings(vhmc:::check_fit(fit))
  res <- out$value
  expect_true("rhat" %in% res$flagged)
  expect_named(res$rhat, c("a", "b", "beta[1]"))
  expect_true(all(res$rhat >= 1.01))
  rhat_w <- grep("R-hat", out$warnings, value = TRUE)
  expect_length(rhat_w, 1L)
  worst <- paste(names(sort(res$rhat, decreasing = TRUE)), collapse = ", ")
  expect_match(rhat_w, paste0("for 3 variable(s), the worst first: ", worst, " (max"), fixed = TRUE)
  expect_match(rhat_w, "run more iterations (iter)", fixed = TRUE)
  expect_match(rhat_w, "reparameterise", fixed = TRUE)
})

test_that("check_fit() flags low bulk and tail ESS and names the variables", {
  fit <- make_fake_fit(n_divergent = 0)  # 2 chains x 100 iid draws
  out <- collect_warnings(vhmc:::check_fit(fit))
  res <- out$value
  expect_true(all(c("ess_bulk", "ess_tail") %in% res$flagged))
  expect_named(res$ess_bulk, c("a", "b", "beta[1]"))
  expect_true(all(res$ess_bulk < 400))
  expect_true(all(res$ess_tail < 400))
  bulk_w <- grep("Bulk effective sample size", out$warnings, value = TRUE)
  tail_w <- grep("Tail effective sample size", out$warnings, value = TRUE)
  expect_length(bulk_w, 1L)
  expect_length(tail_w, 1L)
  lowest <- paste(names(sort(res$ess_bulk)), collapse = ", ")
  expect_match(bulk_w, paste0("below 400 for 3 variable(s), the lowest first: ", lowest, " (min"), fixed = TRUE)
  expect_match(bulk_w, "run more iterations (iter)", fixed = TRUE)
  expect_match(tail_w, "run more iterations (iter)", fixed = TRUE)

  # strongly autocorrelated chains, long enough that only ESS is the issue
  ar_fit <- make_clean_fit(ar = 0.97)
  out <- collect_warnings(vhmc:::check_fit(ar_fit))
  expect_true("ess_bulk" %in% out$value$flagged)
  expect_true(any(grepl("Bulk effective sample size", out$warnings)))

  # thresholds are arguments; warn = FALSE only reports
  expect_no_warning(res <- vhmc:::check_fit(fit, ess_threshold = 10,
                                            rhat_threshold = 2))
  expect_identical(res$flagged, character())
  expect_no_warning(res <- vhmc:::check_fit(fit, warn = FALSE))
  expect_true("ess_bulk" %in% res$flagged)
})

test_that("check_fit() skips checks the sampler cannot support", {
  sg <- make_clean_fit(sampler = "sgld", diag_cols = "stepsize__")
  expect_no_warning(res <- vhmc:::check_fit(sg))
  expect_identical(res$flagged, character())
  expect_identical(res$divergences, NA_integer_)
  expect_identical(res$treedepth_hits, NA_integer_)
})

test_that("check_fit() lists at most a few variable names", {
  expect_identical(vhmc:::format_names(letters[1:3]), "a, b, c")
  expect_identical(vhmc:::format_names(letters[1:10], max = 2),
                   "a, b and 8 more")
})

test_that("R-hat and ESS that cannot be computed are a warning, with the reason", {
  stuck <- make_clean_fit()
  arr <- unclass(stuck$draws)
  arr[, , 1] <- 0.25
  stuck$draws <- posterior::as_draws_array(arr)
  expect_warning(res <- vhmc:::check_fit(stuck), "R-hat and ESS could not be computed for 1 variable\\(s\\): a, because their draws do not change")
  expect_true("na" %in% res$flagged)
  tg <- gaussian_target(0, 1)
  expect_warning(vhmc_sample(tg$log_density, tg$gradient, init = c(mu = 0), chains = 2, iter = 2,
                             warmup = 1, seed = 1, progress = FALSE),
                 "there is only 1 draw per chain") |> suppressWarnings()
})

test_that("antithetic draws do not print posterior's capped-ESS warning", {
  fit <- make_clean_fit()
  arr <- unclass(fit$draws)
  n <- dim(arr)[1]
  arr[, , ] <- rep(c(1, -1), length.out = n) * seq_len(n) / n  # negatively autocorrelated
  fit$draws <- posterior::as_draws_array(arr)
  expect_no_warning(vhmc:::convergence_table(fit$draws))
  expect_no_warning(capture.output(print(fit)))
})

test_that("hmc() with a fixed step size is told to lower it, not to raise adapt_delta (issue 24, item 6)", {
  cols <- c("accept_stat__", "stepsize__", "n_leapfrog__", "divergent__", "energy__")
  fit <- make_clean_fit(n_divergent = 1, sampler = "hmc", diag_cols = cols)
  fit$sampler$step_size <- 0.3
  w <- collect_warnings(vhmc:::check_fit(fit))$warnings
  expect_match(w, "lower the fixed step size, e.g. hmc(step_size = 0.15), or let the warmup adapt it (step_size = NULL)",
               fixed = TRUE)
  expect_no_match(w, "adapt_delta", fixed = TRUE)
})

test_that("NA diagnostics name the statistics that are NA, with the reason the draws show (issue 24, item 6)", {
  fit <- make_clean_fit()
  arr <- unclass(fit$draws)
  n <- dim(arr)[1]
  arr[, , 1] <- rep(c(0, 0, 0, 1), length.out = n)  # changes, but the 5% quantile is its minimum
  arr[, , 2] <- rep(seq_len(dim(arr)[2]), each = n)     # each chain stuck at its own value
  fit$draws <- posterior::as_draws_array(arr)
  conv <- vhmc:::convergence_table(fit$draws)
  expect_true(!is.na(conv$rhat[1]) && is.na(conv$ess_tail[1]) && !is.na(conv$ess_bulk[1]))
  w <- collect_warnings(vhmc:::check_fit(fit))$warnings
  na <- grep("could not be computed", w, value = TRUE)
  expect_length(na, 1L)
  v <- dimnames(arr)[[3]]
  expect_match(na, sprintf("tail ESS could not be computed for 1 variable(s): %s, because their draws take so few distinct values", v[1]),
               fixed = TRUE)
  expect_match(na, sprintf("could not be computed for 1 variable(s): %s, because each chain stayed at one value (its own)", v[2]),
               fixed = TRUE)
  expect_no_match(na, "R-hat and ESS could not be computed for 1 variable(s): a,", fixed = TRUE)
})

test_that("chains that sit in different modes are named, and the lower energy group pointed at", {
  # A mixture of N(-6, 1) (weight 0.8) and N(6, 1) (0.2): chains started in each mode stay.
  ld <- function(th) log(0.8 * dnorm(th[[1]], -6) + 0.2 * dnorm(th[[1]], 6))
  gr <- function(th) {
    a <- 0.8 * dnorm(th[[1]], -6)
    b <- 0.2 * dnorm(th[[1]], 6)
    (a * (-6 - th[[1]]) + b * (6 - th[[1]])) / (a + b)
  }
  inits <- list(c(x = -6), c(x = 6), c(x = -6), c(x = 6))
  fit <- suppressWarnings(suppressMessages(vhmc_sample(ld, gr, init = inits, chains = 4, iter = 400, seed = 1,
                                                       progress = FALSE)))
  res <- suppressWarnings(check_fit(fit, warn = FALSE))
  expect_true("modes" %in% res$flagged)
  w <- capture_warnings(check_fit(fit))
  expect_match(w, "chains 1, 3 near x = -6.*; chains 2, 4 near x = 6.*more iterations will not join them",
               all = FALSE)
  # One mode: no such finding.
  one <- suppressWarnings(suppressMessages(vhmc_sample(ld, gr, init = inits[c(1, 3)], chains = 2, iter = 400,
                                                       seed = 1, progress = FALSE)))
  expect_false("modes" %in% suppressWarnings(check_fit(one, warn = FALSE))$flagged)
  expect_equal(chain_groups(c(0, 10, 0.2, 9.9), c(1, 1, 1, 1)), list(`1` = c(1L, 3L), `2` = c(2L, 4L)))
})

test_that("parameters determined only through their product are named", {
  # y ~ N(a b, 0.05) with a, b > 0 and wide priors: a ridge a b = 2.
  ld <- function(th) dnorm(2, th[["a"]] * th[["b"]], 0.05, log = TRUE)
  fit <- suppressWarnings(suppressMessages(vhmc_sample(ld, lower = c(a = 0.1, b = 0.1), upper = c(a = 10, b = 10),
                                                       chains = 2, iter = 400, seed = 2, progress = FALSE)))
  res <- suppressWarnings(check_fit(fit, warn = FALSE))
  expect_true("ridge" %in% res$flagged)
  w <- capture_warnings(check_fit(fit))
  expect_match(w, "a and b \\(correlation of their logs -(0.9|1.0)", all = FALSE)
  # Independent positive parameters: no such finding.
  ind <- suppressWarnings(suppressMessages(vhmc_sample(function(th) sum(dexp(th, log = TRUE)), lower = c(a = 0, b = 0),
                                                       chains = 2, iter = 400, seed = 2, progress = FALSE)))
  expect_false("ridge" %in% suppressWarnings(check_fit(ind, warn = FALSE))$flagged)
  # Only parameters declared positive are candidates: bounds of an R log density, a GLM
  # family's scales, never coefficients whose draws happen to be positive.
  expect_equal(declared_positive(fit), c("a", "b"))
  glm_fit <- suppressWarnings(vhmc_glm(mpg ~ wt, data = mtcars, family = student(), chains = 1, iter = 200, seed = 1,
                                       progress = FALSE))
  expect_equal(declared_positive(glm_fit), c("sigma", "nu"))
})
