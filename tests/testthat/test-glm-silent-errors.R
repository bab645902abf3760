# Silent wrong answers found by trying vhmc as a new user would (issue "make check passes on
# any machine, and no silent wrong answers"): each is now the right answer or an R error
# naming the argument and the fix.

quiet <- function(expr) suppressWarnings(expr)
fit2 <- function(...) quiet(vhmc_glm(..., chains = 2, iter = 300, seed = 1, progress = FALSE))
grouped <- local({
  set.seed(1)
  g <- factor(sample(letters[1:10], 200, TRUE))
  x <- rnorm(200)
  data.frame(y = 0.5 * x + rnorm(10)[g] + rnorm(200), yb = rbinom(200, 1, 0.5), x = x, g = g,
             gn = as.integer(g))
})

test_that("group-level terms are fitted as such, never as a logical OR; vhmc_ardl refuses them", {
  skip_on_cran()
  fit <- fit2(y ~ x + (1 | g), data = grouped)
  expect_s3_class(fit, "vhmc_glmer")
  expect_false(any(grepl("TRUE", colnames(as.matrix(fit)))))
  ref <- lme4::fixef(lme4::lmer(y ~ x + (1 | g), data = grouped))
  expect_equal(fixef(fit)[["x"]], ref[["x"]], tolerance = 0.05)
  expect_error(vhmc_ardl(y ~ x + (1 | g), data = grouped), "which vhmc_ardl\\(\\) does not fit")
  # lme4 reads every bar of the right-hand side as a group-level term, so does vhmc: a
  # logical OR inside I() is an error, never a silently different model.
  expect_error(fit2(y ~ I(x > 0 | x < -1), data = grouped), "`formula` has group-level terms")
})

fit_mt <- fit2(mpg ~ wt + hp, data = mtcars)

test_that("newdata must give each predictor the type it was fitted with", {
  for (wt in list("3", factor(3), as.Date("2020-01-01"), TRUE)) {
    expect_error(predict(fit_mt, newdata = data.frame(wt = wt, hp = 100)),
                 "`newdata` gives `wt` as .*, but it was fitted as numeric", info = class(wt)[1])
  }
  fc <- fit2(mpg ~ factor(cyl) + cylf, data = transform(mtcars, cylf = factor(gear)))
  expect_error(predict(fc, newdata = data.frame(cyl = 4, cylf = 4)),
               "`newdata` gives `cylf` as numeric, but it was fitted as factor. Give one of its levels \\(3, 4, 5\\)")
  # A character where a factor was fitted is what glm() accepts too.
  p <- predict(fc, newdata = data.frame(cyl = 4, cylf = "4"))
  expect_equal(unname(p), unname(predict(fc)[which(mtcars$cyl == 4 & mtcars$gear == 4)[1]]))
})

test_that("a call-level offset is evaluated in newdata, never recycled from the fitted data", {
  fo <- quiet(vhmc_glm(carb ~ wt, data = mtcars, family = poisson(), offset = log(hp), chains = 2,
                       iter = 300, seed = 1, progress = FALSE))
  nd <- data.frame(wt = c(3, 3), hp = c(110, 300))
  b <- as.matrix(fo)
  expect_equal(posterior_epred(fo, newdata = nd),
               exp(b[, "(Intercept)"] + b[, "wt"] * 3 + outer(rep(1, nrow(b)), log(nd$hp))))
  bad <- quiet(vhmc_glm(carb ~ wt, data = mtcars, family = poisson(), offset = log(mtcars$hp),
                        chains = 2, iter = 300, seed = 1, progress = FALSE))
  expect_error(posterior_epred(bad, newdata = data.frame(wt = 3, hp = 300)),
               "`offset` of the fit \\(log\\(mtcars\\$hp\\)\\) uses no column of `newdata`")
  # ... even when newdata has as many rows as the fitted data.
  expect_error(posterior_epred(bad, newdata = transform(mtcars, hp = 2 * hp)), "uses no column of `newdata`")
  expect_equal(dim(posterior_epred(bad)), c(300L, 32L))
})

test_that("residuals() gives pearson and deviance residuals as glm() does", {
  set.seed(2)
  d <- data.frame(x = rnorm(400))
  d$y <- rbinom(400, 1, plogis(0.3 + d$x))
  d$k <- rpois(400, exp(0.5 + 0.4 * d$x))
  for (fam in list(binomial(), poisson(), gaussian())) {
    form <- switch(fam$family, binomial = y ~ x, poisson = k ~ x, gaussian = k ~ x)
    fit <- quiet(vhmc_glm(form, data = d, family = fam, prior = flat(), prior_intercept = flat(),
                          chains = 2, iter = 1000, seed = 1, progress = FALSE))
    ref <- glm(form, data = d, family = fam)
    for (type in c("response", "pearson", "deviance")) {
      # The posterior mean of mu differs from the MLE by O(1/N): a few percent of a residual.
      expect_equal(unname(residuals(fit, type = type)), unname(residuals(ref, type = type)),
                   tolerance = 0.02, info = paste(fam$family, type))
    }
  }
  expect_error(residuals(fit_mt, type = "working"), "`type` must be one of \"response\", \"pearson\", \"deviance\"")
})

test_that("predict() gives confidence and prediction intervals; unknown arguments are errors", {
  nd <- data.frame(wt = c(2.5, 3.5), hp = c(100, 200))
  conf <- predict(fit_mt, newdata = nd, interval = "confidence", level = 0.8)
  expect_identical(colnames(conf), c("fit", "lwr", "upr"))
  eta <- posterior_linpred(fit_mt, newdata = nd)
  expect_equal(unname(conf[, "lwr"]), unname(apply(eta, 2, quantile, 0.1)))
  pred <- predict(fit_mt, newdata = nd, interval = "prediction", seed = 3)
  yrep <- posterior_predict(fit_mt, newdata = nd, seed = 3)
  expect_equal(unname(pred[, "upr"]), unname(apply(yrep, 2, quantile, 0.975)))
  expect_identical(unname(predictive_interval(fit_mt, newdata = nd, prob = 0.95, seed = 3)),
                   unname(pred[, c("lwr", "upr")]))
  # The prediction interval is wider than the confidence interval and near lm()'s.
  ref <- predict(lm(mpg ~ wt + hp, mtcars), newdata = nd, interval = "prediction")
  expect_equal(unname(pred), unname(ref), tolerance = 0.1)
  fb <- fit2(am ~ wt, data = mtcars, family = binomial())
  expect_error(predict(fb, interval = "prediction"), "prediction intervals are for new observations")
  expect_error(predict(fit_mt, intervall = "prediction"), "`...` must be empty, but has `intervall`")
  for (f in list(coef, vcov, fitted, residuals, log_lik, posterior_epred, posterior_predict,
                 posterior_linpred, bayes_R2, loo_R2, posterior_interval)) {
    expect_error(f(fit_mt, newdta = 1), "`...` must be empty, but has `newdta`")
  }
})

test_that("bayes_R2() takes newdata", {
  nd <- mtcars[1:10, ]
  r2 <- bayes_R2(fit_mt, newdata = nd)
  mu <- posterior_epred(fit_mt, newdata = nd)
  v <- apply(mu, 1, var)
  expect_equal(r2, v / (v + as.matrix(fit_mt)[, "sigma"]^2))
  expect_false(isTRUE(all.equal(r2, bayes_R2(fit_mt))))
  # Binomial trials come from a cbind() response in newdata.
  d <- data.frame(x = c(-1, 0, 1, 2), n = c(5, 6, 7, 8))
  d$s <- c(1, 3, 5, 7)
  fb <- fit2(cbind(s, n - s) ~ x, data = d, family = binomial())
  expect_equal(bayes_R2(fb, newdata = d), bayes_R2(fb))
})

test_that("loo_compare() refuses fits with different frequency weights", {
  skip_if_not_installed("loo")
  w2 <- quiet(vhmc_glm(mpg ~ wt, data = mtcars, weights = rep(2, 32), chains = 2, iter = 300,
                       seed = 1, progress = FALSE))
  w1 <- fit2(mpg ~ wt, data = mtcars)
  expect_error(loo::loo_compare(w2, w1), "different observation weights: `w2` and `w1`")
})

test_that("responses of any magnitude fit, and single-level factors are named", {
  ref <- coef(fit2(mpg ~ wt, data = mtcars))
  # Powers of two near 1e300, 1e-200 and 1e160: scaling by them is exact in binary, so the
  # fit must be the same one. (By 1e300 itself the response is rounded, 1 part in 1e16, and
  # a chain amplifies such differences: 6e-8 relative after 300 iterations.)
  for (s in c(2^996, 2^-664, 2^531)) {
    d <- transform(mtcars, mpg = mpg * s)
    expect_equal(coef(fit2(mpg ~ wt, data = d)) / s, ref, tolerance = 1e-12, info = format(s))
  }
  d <- transform(mtcars, f = "a")
  expect_error(vhmc_glm(mpg ~ wt + f, data = d), "`data` gives the factor `f` a single level \\(\"a\"\\)")
  expect_error(vhmc_glm(mpg ~ wt + factor(cyl), data = mtcars, subset = cyl == 4),
               "gives the factor `factor\\(cyl\\)` a single level \\(\"4\"\\)")
})

test_that("the rank-deficiency warning names its subject", {
  d <- transform(mtcars, wt2 = 2 * wt)
  w <- character()
  withCallingHandlers(vhmc_glm(mpg ~ wt + wt2, data = d, chains = 1, iter = 100, progress = FALSE),
                      warning = function(cnd) {
                        w <<- c(w, conditionMessage(cnd))
                        invokeRestart("muffleWarning")
                      })
  expect_match(w[1], "^`formula` gives a rank-deficient model matrix: `wt2` is a linear combination")
})

test_that("sampler errors list every sampler", {
  for (f in list(function() vhmc_glm(mpg ~ wt, data = mtcars, sampler = "nuts"),
                 function() vhmc_ardl(lh ~ 1, data = lh, sampler = "nuts"))) {
    expect_error(f(), "nuts\\(\\), hmc\\(\\), rwm\\(\\), rmhmc\\(\\), surrogate_hmc\\(\\), variational_hmc\\(\\), sghmc\\(\\) or sgld\\(\\)")
  }
  expect_error(vhmc_sample(function(t) -sum(t^2), init = c(a = 0), sampler = 1),
               "Use nuts\\(\\), hmc\\(\\), rwm\\(\\), demc\\(\\), surrogate_mh\\(\\), surrogate_hmc\\(\\), variational_hmc\\(\\), or rmhmc\\(\\) with a `metric_tensor`")
})
