# Every family of vhmc_glm() with every sampler: each pair runs and agrees with NUTS, or is
# refused in R, before any chain starts, with an error that names the sampler and the fix.
# R's refusal comes from the core's own answer (rmhmc() needs the family's Fisher metric), so
# the two cannot disagree.

quiet <- function(expr) suppressWarnings(suppressMessages(expr))
summarise <- function(fit, ...) suppressWarnings(posterior::summarise_draws(fit$draws, ...))

family_data <- function() {
  set.seed(11)
  n <- 120
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  eta <- 0.3 + 0.6 * d$x1 - 0.4 * d$x2
  d$yg <- eta + rnorm(n, sd = 0.8)
  d$yb <- rbinom(n, 1, plogis(eta))
  d$yp <- rpois(n, exp(eta))
  d$yn <- rnbinom(n, size = 3, mu = exp(eta))
  d$ya <- rgamma(n, shape = 4, rate = 4 / exp(eta))
  d
}

test_that("every family x sampler pair runs and agrees with NUTS, or is refused", {
  skip_on_cran()
  d <- family_data()
  cases <- list(gaussian = list(yg ~ x1 + x2, gaussian()), logit = list(yb ~ x1 + x2, binomial()),
                probit = list(yb ~ x1 + x2, binomial(link = "probit")), poisson = list(yp ~ x1 + x2, poisson()),
                neg_binomial_2 = list(yn ~ x1 + x2, neg_binomial_2()), Gamma = list(ya ~ x1 + x2, Gamma(link = "log")))
  samplers <- list(hmc = hmc(), rwm = rwm(), rmhmc = rmhmc(), surrogate = surrogate_hmc(fallback = FALSE),
                   variational = variational_hmc(), sghmc = sghmc(), sgld = sgld())
  approximate <- c("variational", "sghmc", "sgld")
  fit_with <- function(case, sampler, iter = 1000) {
    quiet(vhmc_glm(case[[1]], data = d, family = case[[2]], sampler = sampler, chains = 2,
                   iter = iter, seed = 2, progress = FALSE))
  }
  for (fam in names(cases)) {
    ref <- summarise(fit_with(cases[[fam]], nuts()), "mean", "sd", "mcse_mean")
    for (s in names(samplers)) {
      info <- paste(fam, s)
      if (s == "rmhmc" && !fam %in% c("logit", "poisson")) {
        expect_error(fit_with(cases[[fam]], samplers[[s]]), "rmhmc\\(\\), which needs a metric tensor", info = info)
        next
      }
      iter <- if (s == "rwm") 4000 else 1000
      m <- summarise(fit_with(cases[[fam]], samplers[[s]], iter), "mean", "mcse_mean")
      diff <- abs(m$mean - ref$mean)
      bound <- if (s %in% approximate) 0.35 * ref$sd else 5 * sqrt(m$mcse_mean^2 + ref$mcse_mean^2) + 0.05 * ref$sd
      expect_true(all(diff < bound), info = paste(info, "diff / sd:", paste(round(diff / ref$sd, 3), collapse = " ")))
    }
  }
})

test_that("rmhmc() runs on a fixed-precision ARDL fit, whose Fisher metric the core has", {
  skip_on_cran()
  fit <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, noise_precision = 4, sampler = rmhmc(), chains = 2,
                         iter = 1000, seed = 1, progress = FALSE))
  ex <- exact_posterior(fit)
  m <- colMeans(as.matrix(fit))
  expect_true(all(abs(m - ex$mu) < 0.2 * ex$sd))
})
