# Flat-prior posteriors against maximum likelihood (test-glm-vs-glm.R, test-glm-families.R;
# also sourced by inst/validation/agreement.R, which records the same comparisons for the
# "Validation" vignette). Under flat priors with many observations the posterior mean is the
# maximum likelihood estimate up to O(1/N) and the posterior sd is its standard error up to
# O(1/sqrt(N)): |mean - MLE| <= 4 MCSE + 5 % of the standard error, sd within 10 % of the
# standard error.

# do.call() puts evaluated weights and offsets in the call (model.frame() cannot see a
# wrapper's `...`, as with glm()); pass them as vectors.
flat_glm <- function(formula, data, family, ...) {
  args <- list(formula, data = data, family = family, prior = flat(), prior_intercept = flat(),
               chains = 2, iter = 1500, seed = 7, progress = FALSE, ...)
  if (family$family == "gaussian") args$prior_aux <- flat()
  suppressWarnings(do.call(vhmc_glm, args))
}

# The negative binomial and Gamma fits: flat priors on the auxiliary parameter too.
flat_fit <- function(formula, data, family) {
  suppressWarnings(suppressMessages(
    vhmc_glm(formula, data = data, family = family, prior = flat(), prior_intercept = flat(),
             prior_aux = flat(), chains = 2, iter = 1500, seed = 3, progress = FALSE)))
}

# Per coefficient: the estimate, its standard error, the posterior mean, sd and MCSE, and
# `criterion`, |mean - MLE| / (4 MCSE + 0.05 se), which must be below 1.
mle_agreement <- function(fit, est, se) {
  m <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = names(est)),
                                  "mean", "sd", "mcse_mean")
  mean <- as.numeric(m$mean)
  sd <- as.numeric(m$sd)
  mcse <- as.numeric(m$mcse_mean)
  data.frame(variable = names(est), mle = unname(est), se = unname(se), mean = mean, sd = sd,
             mcse_mean = mcse, criterion = unname(abs(mean - est) / (4 * mcse + 0.05 * se)),
             sd_ratio = unname(sd / se), row.names = NULL)
}

expect_matches_mle <- function(fit, est, se) {
  a <- mle_agreement(fit, est, se)
  expect_true(all(a$criterion < 1), info = paste("mean - MLE:", paste(signif(a$mean - a$mle, 3), collapse = " ")))
  expect_true(all(abs(a$sd_ratio - 1) < 0.1), info = paste("sd / se:", paste(round(a$sd_ratio, 3), collapse = " ")))
}

sim_data <- function(family, n = 3000, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n, 2, 1.5), g = factor(sample(c("a", "b", "c"), n, TRUE)),
                  expo = runif(n, 0.5, 2), w = sample(1:3, n, TRUE))
  eta <- 0.3 + 0.5 * d$x1 - 0.25 * d$x2 + c(a = 0, b = 0.4, c = -0.3)[d$g]
  d$y <- switch(family,
    gaussian = eta + rnorm(n, sd = 0.7),
    logit = rbinom(n, 1, plogis(eta)),
    probit = rbinom(n, 1, pnorm(eta)),
    poisson = rpois(n, d$expo * exp(eta))
  )
  d
}

sim_counts <- function(n = 3000, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), g = factor(sample(c("a", "b", "c"), n, TRUE)), expo = runif(n, 0.5, 2))
  mu <- exp(0.8 + 0.5 * d$x1 + c(a = 0, b = 0.4, c = -0.3)[d$g])
  d$k <- rnbinom(n, size = 2, mu = d$expo * mu)
  d$y <- rgamma(n, shape = 3, rate = 3 / mu)
  d
}

families <- list(gaussian = gaussian(), logit = binomial(), probit = binomial(link = "probit"),
                 poisson = poisson())
