# vhmc_glm's formula interface: glm() conventions, equivalent specifications giving identical
# draws, the potential against a hand-written log posterior, and the prediction methods.

quiet_glm <- function(...) suppressWarnings(vhmc_glm(..., progress = FALSE))

small <- local({
  set.seed(10)
  n <- 120
  d <- data.frame(x = rnorm(n), z = runif(n), g = factor(sample(c("lo", "mid", "hi"), n, TRUE),
                                                          levels = c("lo", "mid", "hi")),
                  trials = sample(2:5, n, TRUE), expo = runif(n, 1, 3))
  d$succ <- rbinom(n, d$trials, plogis(0.2 + 0.8 * d$x))
  d$y01 <- rbinom(n, 1, plogis(-0.3 + d$x))
  d$count <- rpois(n, d$expo * exp(0.1 + 0.3 * d$x))
  d$yg <- 1 + 2 * d$x - d$z + rnorm(n, sd = 0.5)
  d
})

test_that("coefficients are named after the model matrix; no-intercept forms work", {
  fit <- quiet_glm(yg ~ x * z + g, data = small, chains = 1, iter = 300, seed = 1)
  expect_s3_class(fit, c("vhmc_glm", "vhmc_fit"))
  expect_equal(posterior::variables(fit$draws),
               c(colnames(model.matrix(yg ~ x * z + g, small)), "sigma"))
  expect_equal(names(coef(fit)), colnames(model.matrix(yg ~ x * z + g, small)))
  expect_equal(nobs(fit), nrow(small))
  expect_equal(formula(fit), yg ~ x * z + g, ignore_attr = TRUE)
  f0 <- quiet_glm(yg ~ 0 + x + z, data = small, chains = 1, iter = 300, seed = 1)
  f1 <- quiet_glm(yg ~ x + z - 1, data = small, chains = 1, iter = 300, seed = 1)
  expect_equal(posterior::variables(f0$draws), c("x", "z", "sigma"))
  expect_identical(as.matrix(f0), as.matrix(f1))
  expect_null(f0$model$priors$prior_intercept)
})

test_that("equivalent specifications give identical draws", {
  args <- list(chains = 1, iter = 300, seed = 4)
  # cbind(successes, failures) == proportions with weights = trials
  a <- do.call(quiet_glm, c(list(cbind(succ, trials - succ) ~ x, data = small, family = binomial()), args))
  b <- do.call(quiet_glm, c(list(succ / trials ~ x, data = small, family = binomial(),
                                 weights = small$trials), args))
  expect_identical(unname(as.matrix(a)), unname(as.matrix(b)))
  # offset() in the formula == the offset argument
  a <- do.call(quiet_glm, c(list(count ~ x + offset(log(expo)), data = small, family = poisson()), args))
  b <- do.call(quiet_glm, c(list(count ~ x, data = small, family = poisson(), offset = log(small$expo)), args))
  expect_identical(as.matrix(a), as.matrix(b))
  # a factor response (first level = failure) == 0/1; family by name and by function
  d <- transform(small, yf = factor(ifelse(y01 == 1, "yes", "no")))
  a <- do.call(quiet_glm, c(list(yf ~ x, data = d, family = "binomial"), args))
  b <- do.call(quiet_glm, c(list(y01 ~ x, data = d, family = binomial), args))
  expect_identical(as.matrix(a), as.matrix(b))
  # subset == subsetting the data; na.omit drops the rows with missing values
  a <- suppressWarnings(vhmc_glm(yg ~ x, data = small, subset = z > 0.3, chains = 1, iter = 300,
                                 seed = 4, progress = FALSE))
  b <- do.call(quiet_glm, c(list(yg ~ x, data = small[small$z > 0.3, ]), args))
  expect_identical(as.matrix(a), as.matrix(b))
  dna <- small
  dna$x[c(3, 50)] <- NA
  a <- do.call(quiet_glm, c(list(yg ~ x, data = dna), args))
  b <- do.call(quiet_glm, c(list(yg ~ x, data = small[-c(3, 50), ]), args))
  expect_identical(as.matrix(a), as.matrix(b))
  expect_equal(nobs(a), nrow(small) - 2)
})

test_that("the potential is the negative log posterior, priors and Jacobian included", {
  fit_spec <- function(prior, prior_intercept, prior_aux) {
    fit <- quiet_glm(yg ~ x + z, data = small, prior = prior, prior_intercept = prior_intercept,
                     prior_aux = prior_aux, chains = 1, iter = 20, warmup = 10, seed = 1)
    vhmc:::glm_spec(fit$model, fit$model$family, fit$model$priors)
  }
  spec <- fit_spec(student_t(4, c(0.5, -1), c(2, 3)), normal(1, 10), cauchy(0, 2.5))
  Xc <- sweep(cbind(small$x, small$z), 2, spec$center)
  log_post <- function(th) {  # internal scale: centred intercept, slopes, log sigma
    sigma <- exp(th[4])
    sum(dnorm(small$yg, th[1] + Xc %*% th[2:3], sigma, log = TRUE)) +
      dnorm(th[1], 1, 10, log = TRUE) +
      sum(dt((th[2:3] - c(0.5, -1)) / c(2, 3), 4, log = TRUE)) +
      dcauchy(sigma, 0, 2.5, log = TRUE) + th[4]
  }
  th <- rbind(c(0.3, 1.5, -0.7, log(0.6)), c(1.2, 2.2, -1.1, log(0.4)))
  # The sampler's coordinates standardise the response, y' = (y - m) / s_y, and multiply
  # the slopes by their predictor's sd: intercept' = (intercept - m) / s_y, slope' =
  # slope sd(x) / s_y, log sigma' = log sigma - log s_y.
  m <- spec$y_center
  sy <- spec$y_scale
  expect_equal(spec$scale, c(sd(small$x), sd(small$z)))
  expect_equal(c(m, sy), c(mean(small$yg), sqrt(mean((small$yg - mean(small$yg))^2))))
  fac <- c(sy, sy / spec$scale, 1)  # d(reported) / d(sampler's coordinate)
  internal <- cbind((th[, 1] - m) / sy, sweep(th[, 2:3], 2, fac[2:3], `/`), th[, 4] - log(sy))
  u <- vhmc:::vhmc_glm_potential(vhmc:::vhmc_glm_model(spec), internal)
  # constants are dropped, so compare differences
  expect_equal(u$value[1] - u$value[2], -(log_post(th[1, ]) - log_post(th[2, ])), tolerance = 1e-10)
  fd <- vapply(1:4, function(j) {
    e <- replace(numeric(4), j, 1e-6)
    -(log_post(th[1, ] + e) - log_post(th[1, ] - e)) / 2e-6
  }, numeric(1))
  expect_equal(u$gradient[1, ] / fac, fd, tolerance = 1e-6)
})

test_that("autoscaled default priors follow the data's scale", {
  fit <- quiet_glm(yg ~ x + z, data = small, chains = 1, iter = 20, warmup = 10, seed = 1)
  p <- fit$model$priors
  expect_true(p$prior$specified$autoscale)
  expect_equal(p$prior$adjusted$scale, 2.5 * sd(small$yg) / c(sd(small$x), sd(small$z)))
  expect_equal(p$prior_intercept$adjusted$scale, 10 * sd(small$yg))
  expect_equal(p$prior_aux$sigma$adjusted$rate, 1 / sd(small$yg))
  fb <- quiet_glm(y01 ~ x, data = small, family = binomial(), chains = 1, iter = 20, warmup = 10, seed = 1)
  expect_equal(fb$model$priors$prior$adjusted$scale, 2.5 / sd(small$x))
  expect_null(fb$model$priors$prior_aux)
  expect_snapshot(prior_summary(fit))
})

test_that("predictions on new data with factor levels match the draws", {
  fit <- quiet_glm(count ~ x + g, data = small, family = poisson(), chains = 2, iter = 400, seed = 2)
  nd <- data.frame(x = c(-1, 0, 2), g = factor(c("hi", "lo", "mid"), levels = c("lo", "mid", "hi")))
  B <- as.matrix(fit)
  X <- cbind(1, nd$x, nd$g == "mid", nd$g == "hi")
  eta <- B %*% t(X)
  expect_equal(posterior_linpred(fit, newdata = nd), unname(eta))
  expect_equal(unname(predict(fit, newdata = nd)), colMeans(eta))
  p <- predict(fit, newdata = nd, type = "response", se.fit = TRUE)
  expect_equal(unname(p$fit), colMeans(exp(eta)))
  expect_equal(unname(p$se.fit), apply(exp(eta), 2, sd))
  # a level given as character, the fit's levels reused
  nd2 <- data.frame(x = 0.5, g = "mid")
  expect_equal(ncol(posterior_linpred(fit, newdata = nd2)), 1L)
  expect_error(predict(fit, newdata = data.frame(x = 0, g = "new")), "newdata")
  expect_error(predict(fit, newdata = data.frame(x = NA_real_, g = "lo")), "missing values in `x`")
  # fitted values, residuals, coef, vcov, intervals
  expect_length(fitted(fit), nrow(small))
  expect_equal(unname(residuals(fit)), small$count - unname(fitted(fit)))
  expect_equal(coef(fit), apply(B[, 1:4], 2, median))
  expect_equal(vcov(fit), cov(B[, 1:4]))
  pi <- posterior_interval(fit, prob = 0.8, pars = "x")
  expect_equal(dimnames(pi), list("x", c("10%", "90%")))
  expect_equal(unname(pi[1, ]), unname(quantile(B[, "x"], c(0.1, 0.9))))
})

test_that("posterior_predict simulates the response with the draws' parameters", {
  fit <- quiet_glm(yg ~ x, data = small, chains = 2, iter = 400, seed = 3)
  old <- .Random.seed
  a <- posterior_predict(fit, seed = 5)
  expect_identical(.Random.seed, old)
  expect_identical(a, posterior_predict(fit, seed = 5))
  expect_equal(dim(a), c(400L, nrow(small)))
  B <- as.matrix(fit)
  set.seed(5)
  manual <- matrix(rnorm(400 * nrow(small), B[, 1:2] %*% t(cbind(1, small$x)), B[, "sigma"]), 400)
  expect_equal(a, manual)
  nd <- data.frame(x = c(0, 1))
  expect_equal(dim(posterior_predict(fit, newdata = nd, ndraws = 10)), c(10L, 2L))

  fb <- quiet_glm(cbind(succ, trials - succ) ~ x, data = small, family = binomial(), chains = 1,
                  iter = 200, seed = 3)
  yrep <- posterior_predict(fb, seed = 1)
  expect_true(all(yrep >= 0 & yrep <= matrix(small$trials, nrow(yrep), nrow(small), byrow = TRUE)))
  expect_true(all(posterior_predict(fb, newdata = data.frame(x = 0), seed = 1) %in% 0:1))
  expect_true(all(posterior_predict(fb, newdata = data.frame(x = 0), trials = 10, seed = 1) <= 10))
  expect_error(posterior_predict(fb, newdata = data.frame(x = 0), trials = -1), "trials")
})

test_that("log_lik is the pointwise log likelihood with constants", {
  fit <- quiet_glm(yg ~ x, data = small, chains = 1, iter = 200, seed = 3)
  B <- as.matrix(fit)
  ll <- log_lik(fit)
  expect_equal(dim(ll), c(100L, nrow(small)))
  expect_equal(ll[7, 5], dnorm(small$yg[5], B[7, 1] + B[7, 2] * small$x[5], B[7, "sigma"], log = TRUE))
  fb <- quiet_glm(cbind(succ, trials - succ) ~ x, data = small, family = binomial(link = "probit"),
                  chains = 1, iter = 200, seed = 3)
  Bb <- as.matrix(fb)
  llb <- log_lik(fb)
  expect_equal(llb[3, 9], dbinom(small$succ[9], small$trials[9], pnorm(Bb[3, 1] + Bb[3, 2] * small$x[9]),
                                 log = TRUE))
  expect_equal(log_lik(fb, newdata = small[1:4, ]), llb[, 1:4])
  # (model.frame() cannot see `weights = trials` through a wrapper's `...`, as with glm())
  fp <- suppressWarnings(vhmc_glm(count ~ x, data = small, family = poisson(), weights = trials,
                                  chains = 1, iter = 200, seed = 3, progress = FALSE))
  Bp <- as.matrix(fp)
  expect_equal(log_lik(fp)[2, 6], small$trials[6] * dpois(small$count[6], exp(Bp[2, 1] + Bp[2, 2] * small$x[6]), log = TRUE))
})

test_that("GLM fits print their model and priors", {
  fit <- quiet_glm(yg ~ x + g, data = small, chains = 2, iter = 400, seed = 8)
  expect_snapshot(print(fit, digits = 2))
  expect_snapshot(print(normal(0, c(1, 2.5))))
  expect_snapshot(print(student_t(3, 0, 10, autoscale = TRUE)))
  expect_snapshot(print(flat()))
  expect_snapshot(print(exponential(2)))
})

test_that("chains give the same GLM draws sequentially and in parallel", {
  skip_on_cran()
  skip_on_os("windows")
  a <- quiet_glm(y01 ~ x, data = small, family = binomial(), chains = 2, iter = 300, seed = 9, cores = 1)
  b <- quiet_glm(y01 ~ x, data = small, family = binomial(), chains = 2, iter = 300, seed = 9, cores = 2)
  expect_identical(as.matrix(a), as.matrix(b))
})

test_that("bayesplot's nuts_params and loo's loo take a fit directly", {
  skip_if_not_installed("loo")
  skip_if_not_installed("bayesplot")
  fit <- quiet_glm(yg ~ x, data = small, chains = 2, iter = 300, seed = 5)
  np <- bayesplot::nuts_params(fit)
  expect_equal(names(np), c("Chain", "Iteration", "Parameter", "Value"))
  sd <- sampler_diagnostics(fit)
  expect_equal(np$Value[np$Parameter == "energy__"], sd$energy__)
  expect_equal(np$Chain[np$Parameter == "divergent__"], sd$.chain)
  l <- suppressWarnings(loo::loo(fit))
  ll <- log_lik(fit)
  ref <- suppressWarnings(loo::loo(ll, r_eff = loo::relative_eff(exp(ll), chain_id = as.data.frame(fit)$.chain)))
  expect_equal(l$estimates, ref$estimates)
})
