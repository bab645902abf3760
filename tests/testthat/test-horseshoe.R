# The horseshoe priors hs() and hs_plus() (R/priors-horseshoe.R,
# inst/include/vhmc/model/glm/horseshoe.hpp): a sparse gaussian regression against long
# stan_glm() runs with the same priors (inst/validation/horseshoe-reference.R: posterior means
# within 4 combined Monte Carlo standard errors, sds within 4 combined MCSEs of the sd); the
# prior alone against the known distributions of its scales; the reported parameters and
# what the methods compute from them; bad arguments and the samplers that cannot take it.

horseshoe_reference <- function() readRDS(test_path("fixtures", "horseshoe_reference.rds"))

horseshoe_fit <- function(prior, data, ...) {
  suppressWarnings(vhmc_glm(y ~ ., data = data, prior = prior, prior_intercept = normal(0, 10),
                            prior_aux = exponential(1), chains = 4, iter = 2000, progress = FALSE, ...))
}

# Means and sds of the coefficients and sigma against the reference's; z-scores returned.
expect_matches_reference <- function(fit, ref, what) {
  s <- posterior::summarise_draws(fit$draws, "mean", "sd", "mcse_mean", "mcse_sd")
  r <- ref$summary[match(s$variable, ref$summary$variable), ]
  s <- s[!is.na(r$mean), ]
  r <- r[!is.na(r$mean), ]
  expect_equal(sort(r$variable), sort(c("(Intercept)", paste0("x", 1:10), "sigma")))
  z_mean <- (s$mean - r$mean) / sqrt(s$mcse_mean^2 + r$mcse_mean^2)
  z_sd <- (s$sd - r$sd) / sqrt(s$mcse_sd^2 + r$mcse_sd^2)
  expect_true(all(abs(z_mean) < 4), info = sprintf("%s: worst mean z %.2f (%s)", what, max(abs(z_mean)),
                                                    s$variable[which.max(abs(z_mean))]))
  expect_true(all(abs(z_sd) < 4), info = sprintf("%s: worst sd z %.2f (%s)", what, max(abs(z_sd)),
                                                  s$variable[which.max(abs(z_sd))]))
  invisible(list(mean = z_mean, sd = z_sd))
}

divergences <- function(fit) sum(summary(fit)$chains$divergences)

test_that("hs() and hs_plus() posteriors match stan_glm's (sparse gaussian regression)", {
  skip_on_cran()
  ref <- horseshoe_reference()
  # Divergent transitions of 4000 (seeds 3-12, 4 chains x 1000): at nuts()'s default
  # adapt_delta = 0.8, 52-176 for hs() (the funnel of the non-centred form where a noise
  # coefficient's local scale is large); at 0.99 (rstanarm's default for these priors), 0-12
  # for hs() and 0-5 for hs_plus() but for one chain of 48. The bounds are twice the worst.
  fit <- horseshoe_fit(hs(), ref$data, seed = 3)
  expect_matches_reference(fit, ref$hs, "hs()")
  expect_lt(divergences(fit), 0.09 * 4000)
  if (divergences(fit) > 0) {
    expect_match(capture_warnings(check_fit(fit)), "with a horseshoe prior, nuts\\(adapt_delta = 0.99\\)", all = FALSE)
  }
  fit99 <- horseshoe_fit(hs(), ref$data, seed = 4, sampler = nuts(adapt_delta = 0.99))
  expect_matches_reference(fit99, ref$hs, "hs(), adapt_delta = 0.99")
  expect_lt(divergences(fit99), 0.025 * 4000)
  fit_plus <- horseshoe_fit(hs_plus(), ref$data, seed = 5, sampler = nuts(adapt_delta = 0.99))
  expect_matches_reference(fit_plus, ref$hs_plus, "hs_plus()")
  expect_lt(divergences(fit_plus), 0.025 * 4000)
})

test_that("the prior alone gives the scales' known distributions (binomial, not relative to sigma)", {
  skip_on_cran()
  set.seed(1)
  d <- data.frame(y = rep(0:1, 20), x1 = rnorm(40), x2 = rnorm(40))
  priors <- list(hs(df = 3, global_df = 2, global_scale = 0.5, slab_df = 6, slab_scale = 2),
                 hs_plus(df1 = 3, df2 = 5, global_df = 2, global_scale = 0.5, slab_df = 6, slab_scale = 2))
  for (prior in priors) {
    fit <- suppressWarnings(vhmc_glm(y ~ x1 + x2, data = d, family = binomial(), prior = prior, prior_PD = TRUE,
                                     chains = 4, iter = 2000, seed = 2, progress = FALSE))
    s <- posterior::summarise_draws(fit$draws, "median", "mcse_median")
    med <- stats::setNames(s$median, s$variable)
    mcse <- stats::setNames(s$mcse_median, s$variable)
    # Medians: a half-t(nu)'s is qt(0.75, nu); c^2 ~ InvGamma(3, 6 * 2^2 / 2) = 1 / Gamma(3, rate 12).
    truth <- c(`hs_lambda[x1]` = stats::qt(0.75, 3), `hs_lambda[x2]` = stats::qt(0.75, 3),
               hs_tau = 0.5 * stats::qt(0.75, 2), hs_c = sqrt(1 / stats::qgamma(0.5, 3, rate = 12)))
    if (prior$dist == "hs_plus") truth <- c(truth, `hs_eta[x1]` = stats::qt(0.75, 5), `hs_eta[x2]` = stats::qt(0.75, 5))
    z <- (med[names(truth)] - truth) / mcse[names(truth)]
    expect_true(all(abs(z) < 4), info = paste(prior$dist, names(truth), round(z, 2), collapse = ", "))
    # beta_j | scales ~ N(0, m_j^2): the prior's coefficients are symmetric about 0.
    expect_true(all(abs(med[c("x1", "x2")] / mcse[c("x1", "x2")]) < 4), info = prior$dist)
  }
})

test_that("a horseshoe fit reports beta under its names and the scales as named variables", {
  ref <- horseshoe_reference()
  d <- ref$data[, c("y", "x1", "x2", "x3")]
  fit <- suppressWarnings(vhmc_glm(y ~ ., data = d, prior = hs_plus(), chains = 2, iter = 400, seed = 1,
                                   progress = FALSE))
  coefs <- c("(Intercept)", "x1", "x2", "x3")
  expect_equal(posterior::variables(fit$draws),
               c(coefs, "sigma", sprintf("hs_lambda[x%d]", 1:3), sprintf("hs_eta[x%d]", 1:3), "hs_tau", "hs_c"))
  expect_equal(fit$start$method, "mode")
  expect_named(coef(fit), coefs)
  # posterior_epred() and predict() from the reported coefficients: X beta exactly.
  m <- as.matrix(fit)
  X <- stats::model.matrix(~ x1 + x2 + x3, d)
  expect_equal(unname(posterior_epred(fit)), unname(m[, coefs] %*% t(X)), tolerance = 1e-12)
  nd <- d[1:3, ]
  expect_equal(unname(predict(fit, newdata = nd)), unname(colMeans(m[, coefs] %*% t(X[1:3, ]))), tolerance = 1e-12)
  # The scales are positive, and tau is the global scale times sigma (gaussian).
  expect_true(all(m[, grep("^hs_", colnames(m))] > 0))
  expect_true("z[x1]" %in% names(fit$adaptation[[1]]$inv_metric))
  # Initial values on the reported scale (every variable, the scales included) map to the
  # sampler's coordinates and back.
  init <- apply(m, 2L, stats::median)
  fit_init <- suppressWarnings(vhmc_glm(y ~ ., data = d, prior = hs_plus(), chains = 2, iter = 200, seed = 2,
                                        init = init, progress = FALSE))
  expect_equal(fit_init$start$method, "init")
  expect_equal(fit_init$inits[[1]], init, tolerance = 1e-12)
  expect_error(vhmc_glm(y ~ ., data = d, prior = hs_plus(), chains = 1, iter = 200, progress = FALSE,
                        init = replace(init, "hs_tau", -1)),
               "hs_tau = -1 for chain 1; hs_tau must be positive", fixed = TRUE)
  p <- capture.output(print(prior_summary(fit)))
  expect_true(any(grepl("hs_plus(df1 = 1, df2 = 1, global_df = 1, global_scale = 0.01, slab_df = 4, slab_scale = 2.5)",
                        p, fixed = TRUE)))
  expect_true(any(grepl("global scale: 0.01 x sigma", p, fixed = TRUE)))
  expect_output(print(hs()), "hs(df = 1, global_df = 1, global_scale = 0.01, slab_df = 4, slab_scale = 2.5)", fixed = TRUE)
})

test_that("bad horseshoe arguments and uses are refused clearly", {
  expect_error(hs(df = -1), "`df` of hs() must be a single positive finite number, not -1", fixed = TRUE)
  expect_error(hs(global_scale = 0), "`global_scale` of hs()", fixed = TRUE)
  expect_error(hs(slab_scale = c(1, 2)), "`slab_scale` of hs() must be a single positive finite number, not a numeric of length 2",
               fixed = TRUE)
  expect_error(hs_plus(df2 = "a"), "`df2` of hs_plus()", fixed = TRUE)
  expect_error(hs(slab_df = Inf), "`slab_df` of hs()", fixed = TRUE)
  d <- data.frame(y = c(1.2, 0.4, 2.2, 1.9, 0.1, 1.1, 0.8, 1.5), x = c(1, 2, 3, 4, 5, 6, 7, 8),
                  g = rep(c("a", "b"), 4))
  expect_error(vhmc_glm(y ~ x, data = d, prior_intercept = hs(), progress = FALSE),
               "`prior_intercept` cannot be hs(", fixed = TRUE)
  expect_error(vhmc_glm(y ~ x, data = d, prior_aux = hs(), progress = FALSE),
               "`prior_aux` cannot be hs(", fixed = TRUE)
  expect_error(vhmc_glm(y ~ x + (1 | g), data = d, prior = hs(), progress = FALSE),
               "not available for a formula with group-level terms", fixed = TRUE)
  expect_error(vhmc_glm(y ~ x, data = d, prior = hs(), sampler = variational_hmc(), progress = FALSE),
               "a model with a horseshoe prior has no mode", fixed = TRUE)
  expect_error(vhmc_glm(y ~ x, data = d, prior = hs(), sampler = surrogate_hmc(), progress = FALSE),
               "a model with a horseshoe prior has no mode", fixed = TRUE)
  expect_error(vhmc_glm(y ~ x, data = d, prior = hs(), sampler = sgld(), progress = FALSE),
               "which a model with a horseshoe prior does not provide", fixed = TRUE)
  db <- transform(d, y = as.integer(y > 1))
  expect_error(vhmc_glm(y ~ x, data = db, family = binomial(), prior = hs(), sampler = rmhmc(), progress = FALSE),
               "no horseshoe prior", fixed = TRUE)
})
