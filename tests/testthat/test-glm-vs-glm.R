# Under flat priors with many observations the posterior mean is the maximum likelihood
# estimate up to O(1/N) and the posterior sd is its standard error up to O(1/sqrt(N)), so
# vhmc_glm must reproduce glm(): |mean - MLE| <= 4 MCSE + 5 % of the standard error, sd within
# 10 % of the standard error (flat_glm(), sim_data() and expect_matches_mle() are in
# helper-glm-mle.R).

test_that("flat-prior posteriors match glm() for every family and link", {
  skip_on_cran()
  for (nm in names(families)) {
    d <- sim_data(nm)
    f <- if (nm == "poisson") y ~ x1 + x2 + g + offset(log(expo)) else y ~ x1 + x2 + g
    ref <- glm(f, data = d, family = families[[nm]])
    fit <- flat_glm(f, d, families[[nm]])
    expect_matches_mle(fit, coef(ref), sqrt(diag(vcov(ref))))
    if (nm == "gaussian") {
      sig <- posterior::summarise_draws(posterior::subset_draws(fit$draws, variable = "sigma"))
      expect_lt(abs(sig$mean - sigma(ref)) / sigma(ref), 0.02)
    }
  }
})

test_that("weights and the offset argument agree with glm()", {
  skip_on_cran()
  # Poisson: frequency weights are glm's prior weights; offset given as an argument.
  d <- sim_data("poisson", seed = 2)
  ref <- glm(y ~ x1 + x2, data = d, family = poisson(), weights = w, offset = log(expo))
  fit <- flat_glm(y ~ x1 + x2, d, poisson(), weights = d$w, offset = log(d$expo))
  expect_matches_mle(fit, coef(ref), sqrt(diag(vcov(ref))))

  # Binomial proportions with trials as weights (logit and probit).
  set.seed(3)
  n <- 1500
  b <- data.frame(x = rnorm(n), trials = sample(1:6, n, TRUE))
  for (link in c("logit", "probit")) {
    p <- binomial(link = link)$linkinv(-0.2 + 0.7 * b$x)
    b$prop <- rbinom(n, b$trials, p) / b$trials
    ref <- glm(prop ~ x, data = b, family = binomial(link = link), weights = trials)
    fit <- flat_glm(prop ~ x, b, binomial(link = link), weights = b$trials)
    expect_matches_mle(fit, coef(ref), sqrt(diag(vcov(ref))))
  }

  # Gaussian frequency weights equal repeated rows (glm's weights are precision weights, so
  # the comparison is with the expanded data).
  d <- sim_data("gaussian", n = 1500, seed = 4)
  long <- d[rep(seq_len(nrow(d)), d$w), ]
  ref <- glm(y ~ x1 + x2, data = long)
  fit <- flat_glm(y ~ x1 + x2, d, gaussian(), weights = d$w)
  expect_matches_mle(fit, coef(ref), sqrt(diag(vcov(ref))))
})
