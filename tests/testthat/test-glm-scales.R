# The sampler's coordinates must make a GLM's answer independent of the data's units: a
# predictor 1e9 times smaller than another, a response of size 1e-6 and a predictor shifted
# by 1e8 all have well-determined posteriors that lm() gets right. (Before the design was
# centred and scaled before forming its cross-products, the first silently dropped the
# small predictor, the second gave R-hat 3 and a sigma 1500 times too large, and the third
# was called rank-deficient or gave a wrong slope.)

scale_data <- function() {
  set.seed(4)
  n <- 500
  d <- data.frame(pop = rnorm(n, 5e5, 2e5), rate = rnorm(n, 0.002, 0.001))
  d$y <- 1 + 2e-6 * d$pop + 800 * d$rate + rnorm(n)
  d
}

flat_gaussian <- function(formula, data, ...) {
  vhmc_glm(formula, data = data, prior = flat(), prior_intercept = flat(), prior_aux = flat(),
           chains = 2, iter = 1000, seed = 1, progress = FALSE, ...)
}

# |mean - lm| within 4 MCSE + 5% of the standard error, sd within 12% of it.
expect_like_lm <- function(fit, ref) {
  est <- coef(ref)
  se <- sqrt(diag(vcov(ref)))
  m <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = names(est)),
                                  "mean", "sd", "mcse_mean", "rhat")
  expect_true(all(abs(m$mean - est) < 4 * m$mcse_mean + 0.05 * se),
              info = paste("z:", paste(signif((m$mean - est) / se, 3), collapse = " ")))
  expect_true(all(abs(m$sd / se - 1) < 0.12), info = paste(signif(m$sd / se, 3), collapse = " "))
  expect_true(all(m$rhat < 1.02))
  sig <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = "sigma"), "mean")
  expect_lt(abs(sig$mean / sigma(ref) - 1), 0.02)
}

test_that("a predictor on a far smaller scale than another is not dropped", {
  d <- scale_data()
  fit <- suppressWarnings(flat_gaussian(y ~ pop + rate, d))
  expect_like_lm(fit, lm(y ~ pop + rate, d))
  # the default (autoscaled) priors barely move a well-determined coefficient
  fit2 <- suppressWarnings(vhmc_glm(y ~ pop + rate, data = d, chains = 2, iter = 600, seed = 1,
                                    progress = FALSE))
  expect_gt(coef(fit2)[["rate"]], 650)
})

test_that("a response of size 1e-6 gives the same posterior in its own units", {
  d <- scale_data()
  d$y <- d$y * 1e-6
  fit <- suppressWarnings(flat_gaussian(y ~ pop + rate, d))
  expect_like_lm(fit, lm(y ~ pop + rate, d))
})

test_that("a predictor shifted by 1e8 is neither aliased nor mis-estimated", {
  d <- scale_data()
  d$pop <- d$pop + 1e8
  fit <- suppressWarnings(flat_gaussian(y ~ pop + rate, d))
  expect_like_lm(fit, lm(y ~ pop + rate, d))
  set.seed(2)
  b <- data.frame(x = rnorm(2000) + 1e8)
  b$y <- rbinom(2000, 1, plogis(0.5 * (b$x - 1e8)))
  msgs <- character()
  f <- withCallingHandlers(
    vhmc_glm(y ~ x, data = b, family = binomial(), chains = 2, iter = 1000, seed = 1,
             progress = FALSE, prior = flat(), prior_intercept = flat()),
    warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_false(any(grepl("rank-deficient", msgs)))
  ref <- glm(y ~ x, data = b, family = binomial())
  m <- posterior::summarise_draws(posterior::subset_draws(f$draws, variable = "x"), "mean", "mcse_mean")
  se <- sqrt(vcov(ref)["x", "x"])
  expect_lt(abs(m$mean - coef(ref)[["x"]]), 4 * m$mcse_mean + 0.05 * se)
})

test_that("truly collinear columns are still found on the scaled design", {
  d <- scale_data()
  d$pop2 <- 3 * d$pop + 7
  expect_error(flat_gaussian(y ~ pop + rate + pop2, d),
               "rank-deficient model matrix: `pop2` is a linear combination of other columns")
})
