# A small simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and Gelman 2018)
# of the default sampler: the logistic GLM of inst/validation/sbc.R with nuts(), 300
# replications of one chain of 1000 iterations, ranks among L = 19 thinned draws; and the
# gaussian smooth model (inst/validation/sbc-smooth.R), the censored Gamma model
# (sbc-censored.R) and the location-scale model (sbc-dpars.R), 200 replications each. The full
# study (every exact sampler, four models, 200 to 500 replications) is
# inst/validation/sbc.R; its results are in the "Validation" vignette. Uses the study's own
# code, installed under validation/.

sbc_env <- function() {
  env <- new.env()
  for (part in c("sbc-stats.R", "sbc-models.R", "sbc-smooth.R", "sbc-censored.R", "sbc-dpars.R", "sbc-run.R")) {
    sys.source(system.file("validation", part, package = "vhmc", mustWork = TRUE), envir = env)
  }
  env
}

test_that("the SBC statistics: ranks, chi-square and the ECDF test", {
  e <- sbc_env()
  expect_identical(e$sbc_thin_index(500, 5), c(100L, 200L, 300L, 400L, 500L))
  draws <- cbind(a = 1:10, b = 10:1)
  expect_identical(e$sbc_rank(draws, c(b = 3.5, a = 0), 10), c(b = 3, a = 0))
  # Uniform ranks pass both tests; ranks piled at the ends fail both.
  set.seed(1)
  u <- sample.int(20, 200, replace = TRUE) - 1L
  null <- e$sbc_ecdf_null(200, 19, sims = 2000)
  expect_gt(e$sbc_chisq(u, 19, 20)$p_value, 0.01)
  expect_gt(e$sbc_ecdf_p(u, 19, null), 0.01)
  ends <- c(rep(0L, 30), rep(19L, 30), u[1:140])
  expect_lt(e$sbc_chisq(ends, 19, 20)$p_value, 1e-6)
  expect_lt(e$sbc_ecdf_p(ends, 19, null), 0.001)
  band <- e$sbc_ecdf_band(200, 19, null)
  expect_true(all(band$lower < 0 & band$upper > 0))
})

test_that("nuts() is calibrated on a logistic GLM (SBC, 300 replications)", {
  skip_on_cran()
  e <- sbc_env()
  model <- e$sbc_model_table()$logistic()
  L <- 19L
  N <- 300L
  # 500 draws a chain: bulk ESS above 19 in every replication (400 iterations left one
  # at 18.3), and 300 replications so that the shifted truth is rejected far beyond the
  # thresholds (with 100, its chi-square p-value was 3e-4).
  reps <- lapply(seq_len(N), function(r) {
    set.seed(r)
    sim <- model$simulate()
    fit <- suppressWarnings(model$fit(sim$data, nuts(), iter = 1000, seed = r))
    q <- model$quantities(fit)
    # The truth, and a truth moved by 0.3 posterior sd: the tests must see the difference.
    shifted <- sim$truth + 0.3 * apply(q, 2, stats::sd)
    rbind(true = e$sbc_rank(q, sim$truth, L), shifted = e$sbc_rank(q, shifted, L),
          ess = apply(q, 2, posterior::ess_bulk))
  })
  true <- do.call(rbind, lapply(reps, function(x) x["true", ]))
  shifted <- do.call(rbind, lapply(reps, function(x) x["shifted", ]))
  expect_gt(min(vapply(reps, function(x) min(x["ess", ]), numeric(1))), L)
  null <- e$sbc_ecdf_null(N, L, sims = 2000)
  for (p in colnames(true)) {
    # Thresholds of 0.001: a calibrated sampler fails one of the six tests about once in
    # 170 seeds.
    expect_gt(e$sbc_chisq(true[, p], L, 10)$p_value, 0.001)
    expect_gt(e$sbc_ecdf_p(true[, p], L, null), 0.001)
  }
  # The three parameters' shifted ranks together: a shift of 0.3 sd moves a rank's
  # quantile u to pnorm(qnorm(u) + 0.3), an ECDF difference of up to 0.12, which the tests
  # see clearly in 900 ranks (in one parameter's 300, the chi-square's p-value can be 0.08).
  # Measured: chi-square p 2.8e-13; ECDF p 0.0005, the smallest 2000 null samples can give.
  pooled <- as.vector(shifted)
  expect_lt(e$sbc_chisq(pooled, L, 10)$p_value, 1e-6)
  expect_lt(e$sbc_ecdf_p(pooled, L, e$sbc_ecdf_null(length(pooled), L, sims = 2000)), 0.001)
})

# Ranks of N replications of `model` (the study's) fitted by nuts(), L thinned draws each.
sbc_nuts_ranks <- function(e, model, N, L, iter) {
  do.call(rbind, lapply(seq_len(N), function(r) {
    set.seed(r)
    sim <- model$simulate()
    fit <- suppressWarnings(model$fit(sim$data, nuts(), iter = iter, seed = r))
    e$sbc_rank(model$quantities(fit), sim$truth, L)
  }))
}

# Every parameter's ranks pass the chi-square and ECDF tests at 0.001.
expect_uniform_ranks <- function(e, ranks, L) {
  null <- e$sbc_ecdf_null(nrow(ranks), L, sims = 2000)
  for (p in colnames(ranks)) {
    expect_gt(e$sbc_chisq(ranks[, p], L, 10)$p_value, 0.001, label = p)
    expect_gt(e$sbc_ecdf_p(ranks[, p], L, null), 0.001, label = p)
  }
}

test_that("nuts() is calibrated on a gaussian smooth model (SBC, 200 replications)", {
  skip_on_cran()
  e <- sbc_env()
  # The study's run (inst/validation/sbc.R, L = 99, 200 replications): chi-square p
  # 0.35-0.96, ECDF p 0.24-0.90 for nuts(); the smooth's sd is the parameter a sampler that
  # misses the funnel near sd = 0 would get wrong.
  expect_uniform_ranks(e, sbc_nuts_ranks(e, e$sbc_model_table()$smooth(), N = 200L, L = 19L, iter = 2000), 19L)
})

test_that("nuts() is calibrated on a censored Gamma model (SBC, 200 replications)", {
  skip_on_cran()
  e <- sbc_env()
  # Left- and right-censored rows whose likelihood is the core's Gamma log
  # cdf (the regularised incomplete gamma function on the log scale): an error in it would
  # move the posterior away from the one the data were simulated under.
  expect_uniform_ranks(e, sbc_nuts_ranks(e, e$sbc_model_table()$censored_gamma(), N = 200L, L = 19L, iter = 1000), 19L)
})

test_that("nuts() is calibrated on a gaussian location-scale model (SBC, 200 replications)", {
  skip_on_cran()
  e <- sbc_env()
  # bf(y ~ x, sigma ~ x): every row's sigma from its own predictor, through the core's
  # distributional row pass.
  expect_uniform_ranks(e, sbc_nuts_ranks(e, e$sbc_model_table()$location_scale(), N = 200L, L = 19L, iter = 1000), 19L)
})

test_that("nuts() is calibrated on a location-scale model with group-level terms in both formulas (SBC, 200 replications)", {
  skip_on_cran()
  e <- sbc_env()
  # bf(y ~ x + (1 | g), sigma ~ x + (1 | g)): the sigma formula's term enters each row's
  # sigma through the core's distributional row pass, its variance sampled with it.
  expect_uniform_ranks(e, sbc_nuts_ranks(e, e$sbc_model_table()$location_scale_group(), N = 200L, L = 19L, iter = 1000), 19L)
})
