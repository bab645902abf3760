# Smooth terms s() and t2() in vhmc_glm() (R/smooth-terms.R, R/smooth-design.R; core
# inst/include/vhmc/model/glm/smooths.hpp): the columns mgcv builds, names, predictions on
# new data, agreement with mgcv::gam(REML) and with the true curve, every family, group
# terms, conditional_smooths(), emmeans, and the errors.

smooth_data <- function(n = 200, seed = 1) {
  set.seed(seed)
  x <- sort(stats::runif(n))
  z <- stats::runif(n)
  g <- factor(sample(letters[1:8], n, replace = TRUE))
  f <- sin(2 * pi * x)
  data.frame(x = x, z = z, g = g, f = f, y = f + stats::rnorm(n, 0, 0.3),
             yb = stats::rbinom(n, 1, stats::plogis(1.5 * f)), yc = stats::rpois(n, exp(0.5 + 0.8 * f)))
}

test_that("s(x) gives mgcv's columns, names, and the smooths' sds", {
  d <- smooth_data()
  fit <- suppressWarnings(vhmc_glm(y ~ s(x, k = 8), data = d, chains = 2, iter = 600, seed = 1, progress = FALSE))
  nm <- variables(fit)
  expect_true(all(c("(Intercept)", "s(x).fx1", sprintf("s(x).%d", 1:6), "sigma", "sds[s(x)]") %in% nm))
  # The columns are smooth2random()'s of mgcv's basis with its constraint absorbed.
  sm <- mgcv::smoothCon(mgcv::s(x, k = 8), data = d, absorb.cons = TRUE, modCon = 3, diagonal.penalty = TRUE)[[1]]
  re <- mgcv::smooth2random(sm, names(d), type = 2)
  expect_equal(unname(fit$model$x[, sprintf("s(x).%d", 1:6)]), unname(re$rand[[1]]), tolerance = 1e-10,
               ignore_attr = TRUE)
  expect_equal(unname(fit$model$x[, "s(x).fx1"]), unname(drop(re$Xf)), tolerance = 1e-10)
  expect_true(all(as.matrix(fit)[, "sds[s(x)]"] > 0))
  # New rows: the fitted rows again give the fitted linear predictor.
  expect_equal(posterior_linpred(fit, newdata = d[c(5, 50, 150), ]), posterior_linpred(fit)[, c(5, 50, 150)],
               tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("a gaussian smooth follows the true curve and mgcv::gam(REML)", {
  # Measured over data seeds 2-4: pointwise coverage of the truth 0.78, 0.98, 1 (gam's
  # intervals: 0.78, 1, 1: a property of the data set); |vhmc - gam| / gam's se at most
  # 0.15, band widths within 2 % of gam's.
  d <- smooth_data(n = 300, seed = 3)
  fit <- vhmc_glm(y ~ s(x), data = d, chains = 2, iter = 1000, seed = 2, progress = FALSE)
  mu <- posterior_epred(fit)
  est <- colMeans(mu)
  band <- apply(mu, 2, stats::quantile, probs = c(0.025, 0.975))
  expect_gt(mean(d$f >= band[1, ] & d$f <= band[2, ]), 0.9)
  gam <- mgcv::gam(y ~ s(x), data = d, method = "REML")
  pg <- stats::predict(gam, se.fit = TRUE)
  # Pointwise: the Monte Carlo error within 4 MCSE, plus the difference between REML's
  # plug-in smoothing parameter and the posterior over it, 0.2 of gam's se (measured: at
  # most 0.14 se in all, MCSE at most 0.025 se).
  mcse <- suppressWarnings(apply(mu, 2, posterior::mcse_mean))  # a vector: capped-ESS notes
  expect_true(all(abs(est - pg$fit) <= 4 * mcse + 0.2 * pg$se.fit))
  expect_equal(mean((band[2, ] - band[1, ]) / (2 * 1.96 * pg$se.fit)), 1, tolerance = 0.1)
  expect_true(all(fit$model$smooths$centred))  # the data determine every coefficient here
})

test_that("smooths in binomial and Poisson models agree with gam(REML)", {
  d <- smooth_data(n = 400, seed = 3)
  for (case in list(list(f = yb ~ s(x), family = binomial()), list(f = yc ~ s(x), family = poisson()))) {
    fit <- suppressWarnings(vhmc_glm(case$f, data = d, family = case$family, chains = 2, iter = 1000, seed = 3,
                                     progress = FALSE))
    draws <- posterior_linpred(fit)
    gam <- mgcv::gam(case$f, data = d, family = case$family, method = "REML")
    pg <- stats::predict(gam, se.fit = TRUE)
    # As for the gaussian model: 4 MCSE plus the REML plug-in's difference, 0.3 of gam's se
    # (measured: at most 0.32 and 0.17 se in all, MCSE at most 0.054 and 0.032 se).
    mcse <- suppressWarnings(apply(draws, 2, posterior::mcse_mean))
    expect_true(all(abs(colMeans(draws) - pg$fit) <= 4 * mcse + 0.3 * pg$se.fit))
  }
})

test_that("t2(), by-factor smooths and group-level terms compose", {
  d <- smooth_data(n = 250, seed = 4)
  d$y2 <- d$f + 0.5 * cos(3 * d$z) + stats::rnorm(nrow(d), 0, 0.3)
  fit <- suppressWarnings(vhmc_glm(y2 ~ t2(x, z, k = 4), data = d, chains = 2, iter = 1000, seed = 4, progress = FALSE))
  expect_equal(sum(startsWith(variables(fit), "sds[t2(x,z)")), 3L)
  expect_gt(stats::cor(colMeans(posterior_epred(fit)), d$f + 0.5 * cos(3 * d$z)), 0.95)
  # The truth is additive: the two blocks of the interaction have sds near 0 (non-centred),
  # the third is determined by the data (centred), block by block.
  expect_equal(fit$model$smooths$centred, rep(c(FALSE, TRUE), c(8, 4)))
  expect_lt(mean(sampler_diagnostics(fit)$divergent__), 0.01)
  d$h <- factor(rep(c("a", "b"), length.out = nrow(d)))
  fit_by <- suppressWarnings(vhmc_glm(y ~ h + s(x, by = h, k = 6), data = d, chains = 2, iter = 400, seed = 4,
                                      progress = FALSE))
  expect_true(all(c("sds[s(x):ha]", "sds[s(x):hb]") %in% variables(fit_by)))
  fit_g <- suppressWarnings(vhmc_glm(y ~ s(x, k = 6) + (1 | g), data = d, chains = 2, iter = 600, seed = 5,
                                     progress = FALSE))
  expect_true(all(c("sds[s(x)]", "b[(Intercept) g:a]") %in% variables(fit_g)))
  expect_gt(stats::cor(colMeans(posterior_epred(fit_g, re.form = NA)), d$f), 0.95)
  nd <- data.frame(x = c(0.25, 0.75), g = c("a", "b"))
  expect_equal(dim(posterior_epred(fit_g, newdata = nd)), c(600L, 2L))
})

test_that("conditional_smooths() and conditional_effects() show the smooth", {
  d <- smooth_data(n = 150, seed = 6)
  fit <- suppressWarnings(vhmc_glm(y ~ z + s(x, k = 6), data = d, chains = 2, iter = 400, seed = 6, progress = FALSE))
  cs <- conditional_smooths(fit, resolution = 30)
  expect_s3_class(cs, "vhmc_conditional_effects")
  expect_named(cs, "s(x)")
  df <- cs[["s(x)"]]
  expect_equal(nrow(df), 30L)
  expect_true(all(df$lower__ <= df$estimate__ & df$estimate__ <= df$upper__))
  # The function is the centred sin curve (mgcv centres each smooth over the fitted rows).
  truth <- sin(2 * pi * df$x) - mean(d$f)
  expect_gt(stats::cor(df$estimate__, truth), 0.97)
  ce <- conditional_effects(fit, resolution = 20)
  expect_true(all(c("z", "x") %in% names(ce)))
  expect_error(conditional_smooths(fit, smooths = "s(w)"), "s\\(x\\)")
  # A smooth by a factor: one function per level, each at its own level.
  d$h <- factor(rep(c("a", "b"), length.out = nrow(d)))
  d$y2 <- ifelse(d$h == "a", d$f, cos(2 * pi * d$x)) + stats::rnorm(nrow(d), 0, 0.3)
  fit_by <- suppressWarnings(vhmc_glm(y2 ~ h + s(x, by = h, k = 8), data = d, chains = 2, iter = 600, seed = 6,
                                      progress = FALSE))
  cs_by <- conditional_smooths(fit_by, resolution = 25)
  expect_named(cs_by, c("s(x):ha", "s(x):hb"))
  expect_true(all(cs_by[["s(x):hb"]]$h == "b"))
  expect_gt(stats::cor(cs_by[["s(x):hb"]]$estimate__, cos(2 * pi * cs_by[["s(x):hb"]]$x)), 0.95)
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    p <- plot(cs, plot = FALSE)
    expect_s3_class(p[["s(x)"]], "ggplot")
  }
})

test_that("emmeans reads a fit with a smooth", {
  skip_if_not_installed("emmeans")
  d <- smooth_data(n = 150, seed = 7)
  d$h <- factor(rep(c("a", "b", "c"), length.out = nrow(d)))
  fit <- suppressWarnings(vhmc_glm(y ~ h + s(x, k = 6), data = d, chains = 2, iter = 400, seed = 7, progress = FALSE))
  em <- summary(emmeans::emmeans(fit, ~ h))
  # At x's mean: the posterior mean of the linear predictor on that grid.
  grid <- data.frame(h = factor(c("a", "b", "c")), x = mean(d$x))
  expect_equal(em$emmean, unname(apply(posterior_linpred(fit, newdata = grid), 2, stats::median)), tolerance = 1e-8)
})

test_that("smooths' errors name the argument and the fix", {
  d <- smooth_data(n = 60)
  expect_error(vhmc_glm(y ~ s(x):z, data = d, progress = FALSE), "smooth inside another term")
  expect_error(vhmc_glm(y ~ te(x, z), data = d, progress = FALSE), "t2\\(x, z\\)")
  expect_error(vhmc_glm(y ~ s(x, k = 6), data = d, prior_smooth = flat(), progress = FALSE), "prior_smooth")
  expect_error(vhmc_glm(y ~ s(x, k = 6), data = d, prior_smooth = normal(1, 1), progress = FALSE), "prior_smooth")
  expect_error(vhmc_glm(y ~ s(x, k = 6), data = d, prior = hs(), progress = FALSE), "not available for a formula with smooth terms")
  expect_error(vhmc_glm(y ~ s(x, k = 100), data = d, progress = FALSE), "k = ")
  expect_error(vhmc_glm(y ~ s(x, k = 6), data = d, sampler = sghmc(), progress = FALSE), "smooth terms")
  fit <- suppressWarnings(vhmc_glm(y ~ s(x, k = 6), data = d, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_error(posterior_epred(fit, newdata = data.frame(z = 1)), "newdata")
})

test_that("update(), loo() and kfold() refit and score smooth models", {
  skip_if_not_installed("loo")
  d <- smooth_data(n = 120, seed = 8)
  fit <- suppressWarnings(vhmc_glm(y ~ s(x, k = 6), data = d, chains = 2, iter = 600, seed = 1, progress = FALSE))
  expect_equal(formula(fit), y ~ s(x, k = 6), ignore_attr = TRUE)
  fit2 <- suppressWarnings(update(fit, . ~ . + z))
  expect_true(all(c("z", "sds[s(x)]") %in% variables(fit2)))
  l <- suppressWarnings(loo::loo(fit))
  k <- suppressWarnings(loo::kfold(fit, K = 2))
  # Each fold's refit builds the smooth's basis on its training rows and scores the others
  # through PredictMat(): the held-out elpd is finite and close to loo's (fewer rows: lower).
  expect_true(is.finite(k$estimates["elpd_kfold", "Estimate"]))
  expect_lt(abs(k$estimates["elpd_kfold", "Estimate"] - l$estimates["elpd_loo", "Estimate"]), 3 * l$estimates["elpd_loo", "SE"])
})

test_that("mgcv's other bases, random-effect smooths and unpenalised smooths fit", {
  d <- smooth_data(n = 150, seed = 9)
  d$f <- factor(rep(letters[1:4], length.out = nrow(d)))
  fit_quiet <- function(f) suppressWarnings(vhmc_glm(f, data = d, chains = 2, iter = 400, seed = 1, progress = FALSE))
  expect_true("sds[s(x)]" %in% variables(fit_quiet(y ~ s(x, bs = "cr", k = 6))))
  # "re" and "fs" bases are rank-deficient by design; their prior is proper.
  expect_true("sds[s(f)]" %in% variables(fit_quiet(y ~ s(f, bs = "re"))))
  expect_equal(sum(startsWith(variables(fit_quiet(y ~ s(x, f, bs = "fs", k = 4))), "sds[s(x,f)")), 3L)
  # fx = TRUE: an unpenalised regression spline, an ordinary GLM with the smooth's columns.
  fit_fx <- fit_quiet(y ~ s(x, fx = TRUE, k = 5))
  expect_false(any(startsWith(variables(fit_fx), "sds[")))
  expect_equal(sum(startsWith(variables(fit_fx), "s(x).fx")), 4L)
  expect_equal(dim(posterior_epred(fit_fx, newdata = d[1:2, ])), c(400L, 2L))
  expect_error(vhmc_glm(y ~ s(x, bs = "ad"), data = d, progress = FALSE), "cannot write in mixed-model form")
})

test_that("smooths work with the registry's other families (ordinal, zero-inflated)", {
  set.seed(3)
  d <- data.frame(x = stats::runif(300))
  d$r <- cut(2 * sin(2 * pi * d$x) + stats::rlogis(300), c(-Inf, -1, 0, 1, Inf), labels = 1:4, ordered_result = TRUE)
  d$c <- stats::rpois(300, exp(0.5 + sin(2 * pi * d$x)))
  # Measured: the estimated function's correlation with the true sine 0.991 and 0.973.
  for (case in list(list(r ~ s(x), cumulative()), list(c ~ s(x), zero_inflated_poisson()))) {
    fit <- suppressWarnings(vhmc_glm(case[[1]], data = d, family = case[[2]], chains = 2, iter = 600, seed = 1,
                                     progress = FALSE))
    cs <- conditional_smooths(fit, resolution = 20)[[1]]
    expect_gt(stats::cor(cs$estimate__, sin(2 * pi * cs$x)), 0.9)
  }
})
