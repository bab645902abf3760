# posterior_epred(), bayes_R2(), loo_R2(), pp_check(), waic(), loo_compare() and update() on
# GLM fits and on ARDL fits of both noise models, checked against computations from the
# draws and the data written out here.

quiet <- function(expr) suppressWarnings(expr)
# Through `...` the stored call would refer to the wrapper's dots: update() needs direct calls.
glm2 <- function(...) quiet(vhmc_glm(..., chains = 2, iter = 300, seed = 1, progress = FALSE))
ardl2 <- function(...) quiet(vhmc_ardl(..., chains = 2, iter = 300, seed = 1, progress = FALSE))

fit_wt <- quiet(vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 300, seed = 1, progress = FALSE))
fit_1 <- glm2(mpg ~ 1, data = mtcars)
counts <- local({
  set.seed(3)
  d <- data.frame(x = rnorm(40), n = sample(3:8, 40, TRUE))
  d$s <- rbinom(40, d$n, plogis(-0.2 + 0.9 * d$x))
  d$k <- rpois(40, exp(0.3 + 0.5 * d$x))
  d
})
fit_bin <- glm2(cbind(s, n - s) ~ x, data = counts, family = binomial())
fit_pois <- glm2(k ~ x, data = counts, family = poisson())
ar <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 300, seed = 1, progress = FALSE))
ar_fixed <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, noise_precision = 4, chains = 2, iter = 300,
                            seed = 1, progress = FALSE))
# The lagged data of an AR(1) of lh, written out: rows 2..48 on an intercept and lag 1.
lh_Z <- cbind(1, as.numeric(lh)[1:47])
lh_y <- as.numeric(lh)[2:48]
ar_coefs <- function(fit) as.matrix(fit)[, c("(Intercept)", "L1.lh")]

test_that("posterior_epred is the inverse link of the linear predictor", {
  expect_identical(posterior_epred(fit_bin), posterior_linpred(fit_bin, transform = TRUE))
  # binomial()$linkinv is C code, within an ulp of plogis().
  expect_equal(posterior_epred(fit_bin), plogis(posterior_linpred(fit_bin)), tolerance = 1e-14)
  expect_identical(posterior_epred(fit_pois), exp(posterior_linpred(fit_pois)))
  expect_identical(posterior_epred(fit_wt), posterior_linpred(fit_wt))
  B <- as.matrix(fit_wt)
  expect_equal(posterior_epred(fit_wt), B[, "(Intercept)"] + outer(B[, "wt"], mtcars$wt))
  nd <- data.frame(x = c(-1, 0, 2))
  e <- posterior_epred(fit_bin, newdata = nd, ndraws = 25)
  expect_identical(dim(e), c(25L, 3L))
  expect_equal(e, plogis(posterior_linpred(fit_bin, newdata = nd, ndraws = 25)), tolerance = 1e-14)
  skip_if_not_installed("rstantools")
  expect_identical(rstantools::posterior_epred(fit_pois), posterior_epred(fit_pois))
})

test_that("ARDL fits of both noise models give one-step-ahead means, and no newdata", {
  expect_equal(posterior_epred(ar), ar_coefs(ar) %*% t(lh_Z), ignore_attr = TRUE)
  expect_equal(posterior_epred(ar_fixed), ar_coefs(ar_fixed) %*% t(lh_Z), ignore_attr = TRUE)
  expect_identical(dim(posterior_epred(ar_fixed, ndraws = 10)), c(10L, 47L))
  expect_error(posterior_epred(ar, newdata = data.frame(lh = 1)), "`newdata` is not supported by posterior_epred\\(\\) for ARDL fits.*forecast")
  expect_error(posterior_epred(ar_fixed, newdata = data.frame(lh = 1)), "Use forecast")
  # The fixed-precision model's predictive draws and log likelihood (sd 1/2) now exist too.
  expect_equal(log_lik(ar_fixed), dnorm(matrix(lh_y, 300, 47, byrow = TRUE),
                                        posterior_epred(ar_fixed), 0.5, log = TRUE))
  yrep <- posterior_predict(ar_fixed, seed = 2)
  expect_identical(dim(yrep), c(300L, 47L))
  expect_identical(yrep, posterior_predict(ar_fixed, seed = 2))
  expect_equal(sd(yrep - posterior_epred(ar_fixed)), 0.5, tolerance = 0.02)
  skip_if_not_installed("rstantools")
  expect_identical(rstantools::posterior_predict(ar_fixed, seed = 2), yrep)
})

test_that("fits of R log densities get an error naming the alternative", {
  fake <- make_fake_fit()
  expect_error(posterior_epred(fake), "`object` is a vhmc_sample\\(\\) fit of an R log density.*as_draws_df")
  expect_error(bayes_R2(fake), "bayes_R2\\(\\) has no observations")
})

test_that("bayes_R2 is Gelman et al.'s (2019) eq. 3 with the model's residual variance", {
  var_rows <- function(m) apply(m, 1, var)
  B <- as.matrix(fit_wt)
  mu <- B[, "(Intercept)"] + outer(B[, "wt"], mtcars$wt)
  expect_equal(bayes_R2(fit_wt), var_rows(mu) / (var_rows(mu) + B[, "sigma"]^2))
  # Binomial on the scale of successes: n p and n p (1 - p); Poisson: mu and mu.
  Bb <- as.matrix(fit_bin)
  p <- plogis(Bb[, 1] + outer(Bb[, 2], counts$x))
  np <- sweep(p, 2, counts$n, `*`)
  expect_equal(bayes_R2(fit_bin), var_rows(np) / (var_rows(np) + rowMeans(np * (1 - p))))
  Bp <- as.matrix(fit_pois)
  lam <- exp(Bp[, 1] + outer(Bp[, 2], counts$x))
  expect_equal(bayes_R2(fit_pois), var_rows(lam) / (var_rows(lam) + rowMeans(lam)))
  # ARDL: sigma draws, or the fixed noise variance 1/alpha = 1/4.
  m <- ar_coefs(ar) %*% t(lh_Z)
  expect_equal(bayes_R2(ar), var_rows(m) / (var_rows(m) + as.matrix(ar)[, "sigma"]^2), ignore_attr = TRUE)
  mf <- ar_coefs(ar_fixed) %*% t(lh_Z)
  expect_equal(bayes_R2(ar_fixed), var_rows(mf) / (var_rows(mf) + 1 / 4), ignore_attr = TRUE)
  # The posterior mean is close to the classical R-squared for this well-determined model.
  expect_equal(mean(bayes_R2(fit_wt)), summary(lm(mpg ~ wt, mtcars))$r.squared, tolerance = 0.05)
  s <- bayes_R2(fit_wt, summary = TRUE, probs = c(0.05, 0.5, 0.95))
  expect_identical(dimnames(s), list("R2", c("Estimate", "Est.Error", "Q5", "Q50", "Q95")))
  r2 <- bayes_R2(fit_wt)
  expect_equal(unname(s[1, ]), c(mean(r2), sd(r2), quantile(r2, c(0.05, 0.5, 0.95), names = FALSE)))
  expect_length(bayes_R2(fit_wt, ndraws = 30), 30L)
  expect_error(bayes_R2(fit_wt, summary = TRUE, probs = 2), "`probs` must be probabilities")
  skip_if_not_installed("rstantools")
  expect_identical(rstantools::bayes_R2(fit_bin), bayes_R2(fit_bin))
})

test_that("loo_R2 is 1 - V(loo residuals) / V(y) under Bayesian-bootstrap weights", {
  skip_if_not_installed("loo")
  check <- function(fit, y) {
    ll <- log_lik(fit)
    r_eff <- loo::relative_eff(exp(ll), chain_id = rep(1:2, each = 150))
    psis <- quiet(loo::psis(-ll, r_eff = r_eff))
    e <- y - quiet(loo::E_loo(posterior_epred(fit), psis, log_ratios = -ll)$value)
    set.seed(11)
    w <- matrix(rexp(300 * length(y)), 300)
    w <- w / rowSums(w)
    wvar <- function(x) (w %*% x^2 - (w %*% x)^2) * length(y) / (length(y) - 1)
    expect_equal(quiet(loo_R2(fit, seed = 11)), pmin(pmax(drop(1 - wvar(e) / wvar(y)), -1), 1))
    # Without the bootstrap: the point estimate of rstanarm's first loo_R2.
    expect_equal(mean(quiet(loo_R2(fit, seed = 11))), 1 - var(e) / var(y), tolerance = 0.1)
  }
  check(fit_wt, mtcars$mpg)
  check(ar_fixed, lh_y)
  r <- quiet(loo_R2(fit_wt, seed = 1))
  expect_identical(r, quiet(loo_R2(fit_wt, seed = 1)))
  expect_lt(mean(r), mean(bayes_R2(fit_wt)))
  expect_identical(colnames(quiet(loo_R2(fit_wt, summary = TRUE, seed = 1))),
                   c("Estimate", "Est.Error", "Q2.5", "Q97.5"))
})

test_that("waic is loo::waic of log_lik; loo takes both ARDL noise models", {
  skip_if_not_installed("loo")
  for (fit in list(fit_wt, fit_pois, ar, ar_fixed)) {
    expect_equal(quiet(loo::waic(fit))$estimates, quiet(loo::waic(log_lik(fit)))$estimates)
  }
  l <- quiet(loo::loo(ar_fixed))
  expect_s3_class(l, "psis_loo")
  expect_identical(dim(l$pointwise)[1], 47L)
  expect_error(loo::waic(make_fake_fit()), "`x` is a vhmc_sample\\(\\) fit")
})

test_that("loo_compare puts the better model first, named from the call", {
  skip_if_not_installed("loo")
  cmp <- quiet(loo::loo_compare(fit_1, fit_wt))
  expect_identical(rownames(cmp), c("fit_wt", "fit_1"))
  expect_lt(cmp["fit_1", "elpd_diff"], -4 * cmp["fit_1", "se_diff"])
  ref <- quiet(loo::loo_compare(list(fit_1 = loo::loo(fit_1), fit_wt = loo::loo(fit_wt))))
  expect_equal(unclass(cmp), unclass(ref))
  w <- quiet(loo::loo_compare(fit_wt, fit_1, criterion = "waic", model_names = c("wt", "none")))
  expect_identical(rownames(w), c("wt", "none"))
  expect_setequal(rownames(quiet(do.call(loo::loo_compare, list(fit_1, fit_wt)))), c("model1", "model2"))
  expect_true("waic" %in% colnames(w))
  expect_identical(rownames(quiet(loo::loo_compare(ar, ar_fixed))) %in% c("ar", "ar_fixed"), c(TRUE, TRUE))
  # Different observations: a subset, another response, ARDL fits with other lags.
  fit_sub <- glm2(mpg ~ wt, data = mtcars[1:20, ])
  expect_error(loo::loo_compare(fit_wt, fit_sub), "`fit_wt` has 32 and `fit_sub` has 20.*same rows")
  fit_hp <- glm2(hp ~ wt, data = mtcars)
  expect_error(loo::loo_compare(fit_wt, fit_hp), "the responses of `fit_wt` and `fit_hp` differ")
  ar2 <- ardl2(lh ~ 1, data = lh, p = 2)
  expect_error(loo::loo_compare(ar, ar2), "`ar` has 47 and `ar2` has 46.*max\\(p, q\\)")
  expect_error(loo::loo_compare(fit_wt, suppressWarnings(loo::loo(fit_1))), "not a vhmc fit")
  expect_error(loo::loo_compare(fit_wt, fit_1, model_names = "a"), "`model_names` must be 2 distinct")
})

test_that("pp_check draws bayesplot's PPC plots from posterior_predict", {
  skip_if_not_installed("bayesplot")
  p <- bayesplot::pp_check(fit_wt, seed = 1)
  expect_s3_class(p, "ggplot")
  expect_identical(p$data$value[p$data$is_y], mtcars$mpg)
  expect_identical(sum(!p$data$is_y), 50L * 32L)           # 50 replications by default
  expect_identical(p$data$value[!p$data$is_y],
                   as.vector(posterior_predict(fit_wt, ndraws = 50, seed = 1)))
  pb <- bayesplot::pp_check(fit_bin, plotfun = "ppc_hist", seed = 1)
  expect_s3_class(pb, "ggplot")
  expect_identical(pb$data$value[pb$data$is_y], as.numeric(counts$s))  # successes, not proportions
  expect_s3_class(bayesplot::pp_check(fit_pois, plotfun = "stat", stat = "sd", ndraws = 100, seed = 1), "ggplot")
  expect_s3_class(bayesplot::pp_check(ar, plotfun = "intervals", seed = 1), "ggplot")
  expect_s3_class(bayesplot::pp_check(ar_fixed, plotfun = "dens_overlay", seed = 1), "ggplot")
  expect_error(bayesplot::pp_check(fit_wt, plotfun = "densty"), "`plotfun` is \"densty\", which is not a bayesplot PPC function")
  expect_error(bayesplot::pp_check(fit_wt, ndraws = 0), "`ndraws` must be a single whole number")
  expect_error(bayesplot::pp_check(make_fake_fit()), "pp_check\\(\\) has no observations")
  skip_if_not_installed("loo")
  expect_s3_class(quiet(bayesplot::pp_check(fit_wt, plotfun = "loo_intervals")), "ggplot")
  expect_s3_class(quiet(bayesplot::pp_check(ar_fixed, plotfun = "loo_pit_overlay")), "ggplot")
  expect_error(bayesplot::pp_check(fit_wt, plotfun = "loo_pit_qq", ndraws = 10), "`ndraws` must be NULL")
})

test_that("update refits with the changed arguments and keeps the rest", {
  hmc_fit <- quiet(update(fit_wt, sampler = hmc()))
  expect_s3_class(hmc_fit$sampler, "vhmc_hmc")
  expect_s3_class(fit_wt$sampler, "vhmc_nuts")
  expect_identical(hmc_fit$args[c("chains", "iter", "warmup", "seed")],
                   fit_wt$args[c("chains", "iter", "warmup", "seed")])
  expect_identical(vhmc:::observed_response(hmc_fit, "t"), mtcars$mpg)
  expect_identical(hmc_fit$call$sampler, quote(hmc()))
  prior_fit <- quiet(update(fit_wt, prior = normal(0, 1)))
  invisible(capture.output(priors <- prior_summary(prior_fit)))
  expect_identical(priors$prior$specified, normal(0, 1))
  expect_s3_class(prior_fit$sampler, "vhmc_nuts")
  expect_false(identical(as.matrix(prior_fit), as.matrix(fit_wt)))
  # Nothing changed: the same seed gives the same draws, also when the seed was random.
  expect_identical(as.matrix(quiet(update(fit_wt))), as.matrix(fit_wt))
  random <- quiet(vhmc_glm(mpg ~ wt, data = mtcars, chains = 1, iter = 200, progress = FALSE))
  expect_identical(as.matrix(quiet(update(random))), as.matrix(random))
  expect_identical(update(random, seed = NULL, evaluate = FALSE)$seed, NULL)
  # A new formula; the call records it.
  f2 <- quiet(update(fit_wt, . ~ . + hp, iter = 200))
  expect_identical(names(coef(f2)), c("(Intercept)", "wt", "hp"))
  expect_identical(f2$args$iter, 200L)
  expect_equal(f2$call$formula, mpg ~ wt + hp, ignore_attr = TRUE)
  expect_error(update(fit_wt, hmc()), "`formula.` must be a formula.*update\\(fit, sampler = hmc\\(\\)\\)")
  expect_error(update(fit_wt, . ~ ., hmc()), "`...` must hold named arguments")
  expect_error(update(fit_1, iter = 200), "`object` was fitted through a wrapper function.*\\.\\.1")
})

test_that("update evaluates old arguments where the fit was made, new ones where it is called", {
  make <- function() {
    local_data <- mtcars[1:20, ]
    quiet(vhmc_glm(mpg ~ wt, data = local_data, chains = 1, iter = 200, seed = 3, progress = FALSE))
  }
  fit <- make()
  refit <- function(s) quiet(update(fit, prior = normal(0, s)))
  u <- refit(0.5)
  expect_identical(nobs(u), 20L)
  invisible(capture.output(priors <- prior_summary(u)))
  expect_identical(priors$prior$specified, normal(0, 0.5))
})

test_that("update refits vhmc_sample() fits through their call", {
  s <- quiet(vhmc_sample(function(th) -sum(th^2) / 2, gradient = function(th) -th, init = c(a = 0),
                         chains = 1, iter = 200, seed = 1, progress = FALSE))
  u <- quiet(update(s, iter = 300))
  expect_identical(dim(as.matrix(u)), c(150L, 1L))
  expect_identical(u$args$seed, 1L)
  expect_error(update(s, . ~ .), "`formula.` is given, but the fit \\(of an R log density\\) has no model formula")
})

test_that("update works for ARDL fits of both noise models", {
  a2 <- quiet(update(ar, p = 2))
  expect_s3_class(a2, c("vhmc_ardl", "vhmc_glm"))
  expect_identical(names(coef(a2)), c("(Intercept)", "L1.lh", "L2.lh"))
  expect_identical(a2$args$seed, ar$args$seed)
  fx <- quiet(update(ar_fixed, noise_precision = 2))
  expect_identical(fx$ardl$noise_precision, 2)
  expect_false(inherits(fx, "vhmc_glm"))
  expect_identical(as.matrix(quiet(update(ar_fixed))), as.matrix(ar_fixed))
  to_fixed <- quiet(update(ar, noise_precision = 4))
  expect_identical(as.matrix(to_fixed), as.matrix(ar_fixed))
  expect_equal(formula(ar), lh ~ 1, ignore_attr = TRUE)
})
