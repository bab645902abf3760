# Bad input to vhmc_glm and the prior constructors: a clear R error (or warning) that names
# the argument or column, before any chain runs.

d <- data.frame(y = c(0.2, 1.4, 2.1, 2.9, 4.2, 5.1), x = 1:6, b = c(0, 1, 0, 1, 1, 0),
                k = c(0, 2, 1, 3, 5, 4), f = factor(c("a", "b", "a", "b", "a", "b")))

test_that("prior constructors validate their arguments", {
  expect_error(normal(0, -1), "`scale` of normal\\(\\) must be positive")
  expect_error(normal(0, 0), "positive")
  expect_error(student_t(0, 0, 1), "`df` of student_t\\(\\) must be positive")
  expect_error(cauchy(NA, 1), "`location` of cauchy\\(\\) must be finite")
  expect_error(laplace(0, Inf), "finite")
  expect_error(exponential(0), "`rate` of exponential\\(\\)")
  expect_error(exponential(c(1, 2)), "single")
  expect_error(normal(0, 1, autoscale = NA), "`autoscale`")
  expect_s3_class(flat(), "vhmc_prior")
})

test_that("priors are checked against the model", {
  expect_error(vhmc_glm(y ~ x + b, data = d, prior = normal(0, c(1, 2, 3))),
               "`prior` has scale of length 3, but the model has 2 coefficients")
  expect_error(vhmc_glm(y ~ x, data = d, prior = exponential(1)), "`prior` cannot be exponential")
  expect_error(vhmc_glm(y ~ x, data = d, prior = "normal"), "`prior` must be a prior")
  expect_error(vhmc_glm(y ~ x, data = d, prior_intercept = normal(0, c(1, 2))),
               "`prior_intercept` must have a single scale")
  expect_error(vhmc_glm(y ~ x, data = d, prior_aux = normal(1, 2)),
               "`prior_aux` is a half-normal on sigma and needs location 0")
  expect_error(vhmc_glm(b ~ x, data = d, family = binomial(), prior_aux = exponential(1)),
               "`prior_aux` was given, but the binomial family has no auxiliary parameter")
})

test_that("unknown families, links and arguments are rejected", {
  expect_error(vhmc_glm(y ~ x, data = d, family = quasipoisson()),
               "quasipoisson\\(\\) is not a family vhmc knows.*binomial\\(cloglog\\).*student\\(identity\\)")
  expect_error(vhmc_glm(y ~ x, data = d, family = "tweedie"), "`family` \"tweedie\" is not a family vhmc knows")
  expect_error(zero_inflated_poisson(link = "identity"), "`link` of zero_inflated_poisson\\(\\) must be one of \"log\"")
  expect_error(vhmc_glm(y ~ x, data = d, family = student(link = "logit")),
               "`link` of student\\(\\) must be one of \"identity\", \"log\", \"inverse\"")
  expect_error(vhmc_glm(y ~ x, data = d, famliy = gaussian()), "`...` must be empty, but has `famliy`")
  expect_error(vhmc_glm("y ~ x", data = d), "`formula` must be a formula")
  expect_error(vhmc_glm(y ~ x, data = 1:3), "`data` must be a data frame")
  expect_error(vhmc_glm(y ~ x, data = d, sampler = "nuts"), "`sampler` must be a sampler")
  expect_error(vhmc_glm(y ~ x, data = d, chains = 0), "`chains`")
})

test_that("bad responses name the response and the fix", {
  expect_error(vhmc_glm(y ~ x, data = d, family = binomial()),
               "response `y` must lie in \\[0, 1\\] for the binomial family")
  expect_error(vhmc_glm(I(y / 6) ~ x, data = d, family = binomial()),
               "proportions strictly between 0 and 1 but no `weights`")
  expect_error(vhmc_glm(I(c(0.5, 0.25, 0, 1, 0.5, 0.5)) ~ x, data = d, family = binomial(),
                        weights = c(2, 3, 1, 1, 2, 2)), "whole numbers of successes")
  expect_error(vhmc_glm(cbind(k, 1.5) ~ x, data = d, family = binomial()), "whole numbers")
  expect_error(vhmc_glm(I(k - 3) ~ x, data = d, family = poisson()), "negative values")
  expect_error(vhmc_glm(I(k + 0.5) ~ x, data = d, family = poisson()), "non-integer")
  expect_error(vhmc_glm(f ~ x, data = d), "response `f` must be numeric")
  expect_error(vhmc_glm(I(0 * y + 1) ~ x, data = d), "is constant")
  expect_error(vhmc_glm(I(0 * k) ~ x, data = d, family = poisson(), prior_intercept = flat()),
               "always 0 and a flat prior")
  # (The 100-iteration fit's sampling diagnostics warn too.)
  w <- collect_warnings(vhmc_glm(I(0 * k) ~ x, data = d, family = poisson(), chains = 1, iter = 100,
                                 seed = 1, progress = FALSE))$warnings
  expect_match(w, "always 0", all = FALSE)
})

test_that("missing and non-finite values name their columns", {
  dn <- d
  dn$x[2] <- NA
  expect_error(vhmc_glm(y ~ x, data = dn, na.action = na.fail),
               "`data` has missing values in `x` and na.action is na.fail")
  di <- d
  di$x[3] <- Inf
  expect_error(vhmc_glm(y ~ x, data = di), "non-finite values .* `x`")
  di <- d
  di$y[3] <- -Inf
  expect_error(vhmc_glm(y ~ x, data = di), "response `y` has non-finite values")
  expect_error(vhmc_glm(y ~ x, data = d, weights = c(1, 1, -1, 1, 1, 1)), "`weights` must be non-negative")
  expect_error(vhmc_glm(y ~ x, data = d, offset = c(1, 2)), "offset|variable lengths")
  expect_error(vhmc_glm(y ~ x, data = d, subset = x > 10), "no rows left after `subset`")
  expect_error(vhmc_glm(y ~ x + nothere, data = d), "model frame.*nothere")
})

test_that("rank-deficient designs: an error under flat priors, a warning otherwise", {
  dd <- transform(d, x2 = 2 * x, zero = 0)
  expect_error(vhmc_glm(y ~ x + x2, data = dd, prior = flat(), prior_intercept = flat()),
               "rank-deficient model matrix: `x2` is a linear combination.*improper")
  expect_error(vhmc_glm(y ~ x + zero, data = dd, prior = flat()), "`zero` that is all zero")
  w <- collect_warnings(vhmc_glm(y ~ x + x2, data = dd, chains = 1, iter = 100, seed = 1,
                                 progress = FALSE))$warnings
  expect_match(w, "rank-deficient", all = FALSE)
})

test_that("initial values are checked", {
  expect_error(vhmc_glm(y ~ x, data = d, init = c(`(Intercept)` = 0, x = 1)), "`init` has length 2")
  expect_error(vhmc_glm(y ~ x, data = d, init = c(`(Intercept)` = 0, x = 1, sigma = -1)),
               "sigma must be positive")
  fit <- suppressWarnings(vhmc_glm(y ~ x, data = d, init = c(`(Intercept)` = 0, x = 1, sigma = 0.5),
                                   chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_equal(fit$inits[[1]], c(`(Intercept)` = 0, x = 1, sigma = 0.5))
})

test_that("responses, weights and rows that cannot identify the model are errors in R", {
  dp <- data.frame(y1 = c(3, 1, 4, 1, 5, 9), y2 = c(2, 6, 5, 3, 5, 8), x = 1:6)
  expect_error(vhmc_glm(cbind(y1, y2) ~ x, data = dp, family = poisson()),
               "response `cbind\\(y1, y2\\)` has 2 columns, but the poisson family takes one response")
  expect_error(vhmc_glm(cbind(y1, y2) ~ x, data = dp),
               "2 columns, but the gaussian family.*Only binomial\\(\\) takes a two-column response")
  expect_error(vhmc_glm(y ~ x, data = d[1, ]), "`data` has only one observation; a gaussian model needs at least two")
  expect_error(vhmc_glm(y ~ x, data = d, weights = c(0, 0, 0, 1, 0, 0)),
               "`weights` leave only one observation")
  expect_error(vhmc_glm(y ~ x, data = d, weights = rep(0, 6)), "`weights` are all zero")
  expect_error(vhmc_glm(b ~ x, data = d, family = binomial(), weights = rep(0, 6)), "`weights` are all zero")
  expect_error(vhmc_glm(k ~ x, data = d, family = poisson(), weights = rep(0, 6)), "`weights` are all zero")
  # weights summing to less than 1 are fine (no Rcpp message about prior scales)
  fit <- suppressWarnings(vhmc_glm(y ~ x, data = d, weights = rep(0.1, 6), chains = 1, iter = 200,
                                   seed = 1, progress = FALSE))
  expect_s3_class(fit, "vhmc_glm")
})

test_that("separation under flat priors is called improper, not sampled", {
  sep <- data.frame(y = c(0, 0, 0, 1, 1, 1), x = c(-3, -2, -1, 1, 2, 3), z = c(1, -1, 2, 0, 1, -2))
  expect_error(vhmc_glm(y ~ x + z, data = sep, family = binomial(), prior = flat()),
               "`data` are separated: a combination of the predictors involving `x`.*improper.*proper prior")
  zero_group <- data.frame(k = c(0, 0, 0, 3, 5, 2), g = factor(c("a", "a", "a", "b", "b", "b")))
  expect_error(vhmc_glm(k ~ g, data = zero_group, family = poisson(), prior = flat(),
                        prior_intercept = flat()),
               "separated")
  # the default priors make it proper: no error
  expect_s3_class(suppressWarnings(vhmc_glm(y ~ x + z, data = sep, family = binomial(), chains = 1,
                                            iter = 200, seed = 1, progress = FALSE)), "vhmc_glm")
  # overlapping classes are not called separated
  ov <- data.frame(y = c(0, 1, 0, 1, 0, 1, 1, 0), x = c(-3, -2, -1, 0, 0.5, 1, 2, 3))
  expect_s3_class(suppressWarnings(vhmc_glm(y ~ x, data = ov, family = binomial(), prior = flat(),
                                            chains = 1, iter = 200, seed = 1, progress = FALSE)),
                  "vhmc_glm")
})

test_that("arguments given as strings or out of range are named as such", {
  expect_error(vhmc_glm(y ~ x, data = d, chains = "4"), "`chains` must be a single whole number >= 1, not \"4\" \\(a character string\\)")
  expect_error(vhmc_glm(y ~ x, data = d, chains = 1e10), "`chains` must be a single whole number between 1 and 2147483647")
  expect_error(vhmc_glm(y ~ x, data = d, iter = 2^31), "`iter` must be a single whole number between 1 and 2147483647")
})

test_that("missing values in newdata name the variable, not the model-matrix column", {
  dl <- data.frame(y = d$y, x1 = c(TRUE, FALSE, TRUE, FALSE, FALSE, TRUE))
  fit <- suppressWarnings(vhmc_glm(y ~ x1, data = dl, chains = 1, iter = 200, seed = 1, progress = FALSE))
  expect_error(predict(fit, newdata = data.frame(x1 = c(TRUE, NA))), "`newdata` has missing values in `x1`\\.")
})

test_that("na.exclude pads fitted, predict and residuals with NA as glm() does", {
  dn <- d
  dn$x[2] <- NA
  fit <- suppressWarnings(vhmc_glm(y ~ x, data = dn, na.action = na.exclude, chains = 1, iter = 200,
                                   seed = 1, progress = FALSE))
  ref <- glm(y ~ x, data = dn, na.action = na.exclude)
  for (f in list(fitted, residuals, predict)) {
    expect_length(f(fit), nrow(dn))
    expect_identical(which(is.na(f(fit))), which(is.na(f(ref))))
  }
  expect_length(predict(fit, se.fit = TRUE)$se.fit, nrow(dn))
  omit <- suppressWarnings(vhmc_glm(y ~ x, data = dn, na.action = na.omit, chains = 1, iter = 200,
                                    seed = 1, progress = FALSE))
  expect_length(fitted(omit), nrow(dn) - 1L)
})
