# Every family of vhmc_glm() with every sampler: each pair runs and agrees with NUTS, or is
# refused in R, before any chain starts, with an error that names the sampler and the fix.
# R's refusal comes from the core's own answer (rmhmc() needs the family's Fisher metric), so
# the two cannot disagree.

quiet <- function(expr) suppressWarnings(suppressMessages(expr))
summarise <- function(fit, ...) suppressWarnings(posterior::summarise_draws(fit$draws, ...))

family_data <- function() {
  set.seed(11)
  n <- 300
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  eta <- 0.3 + 0.6 * d$x1 - 0.4 * d$x2
  d$yg <- eta + rnorm(n, sd = 0.8)
  d$yb <- rbinom(n, 1, plogis(eta))
  d$yp <- rpois(n, exp(eta))
  d$yn <- rnbinom(n, size = 3, mu = exp(eta))
  d$ya <- rgamma(n, shape = 4, rate = 4 / exp(eta))
  d$yt <- eta + 0.8 * rt(n, 4)
  d$yl <- exp(eta + rnorm(n, sd = 0.5))
  d$ybeta <- rbeta(n, 12 * plogis(eta), 12 * (1 - plogis(eta)))
  d$yo <- cut(eta + rlogis(n), c(-Inf, -0.5, 0.5, 1.5, Inf), labels = c("a", "b", "c", "d"), ordered_result = TRUE)
  d$yz <- ifelse(runif(n) < 0.3, 0, rpois(n, exp(eta)))
  # Counts large enough that the negative binomial's shape is identified (at means near 1 its
  # posterior has a tail as long as the prior's, whose sample means settle slowly).
  mu <- exp(1 + eta)
  d$yzn <- ifelse(runif(n) < 0.3, 0, rnbinom(n, size = 3, mu = mu))
  d$yh <- ifelse(runif(n) < 0.3, 0, qpois(runif(n, dpois(0, exp(eta)), 1), exp(eta)))
  d$yhn <- ifelse(runif(n) < 0.3, 0, pmax(1, qnbinom(runif(n, dnbinom(0, size = 3, mu = mu), 1), size = 3, mu = mu)))
  d$yi <- vhmc:::rinvgauss(n, exp(eta), 5)
  d$g <- factor(rep(letters[1:6], length.out = n))
  d
}

# Every family of the registry, on the data above (one case per family; two more links).
family_cases <- function() {
  list(gaussian = list(yg ~ x1 + x2, gaussian()), logit = list(yb ~ x1 + x2, binomial()),
       probit = list(yb ~ x1 + x2, binomial(link = "probit")), cloglog = list(yb ~ x1 + x2, binomial(link = "cloglog")),
       poisson = list(yp ~ x1 + x2, poisson()), poisson_sqrt = list(yp ~ x1 + x2, poisson(link = "sqrt")),
       neg_binomial_2 = list(yn ~ x1 + x2, neg_binomial_2()), Gamma = list(ya ~ x1 + x2, Gamma(link = "log")),
       inverse.gaussian = list(yi ~ x1 + x2, inverse.gaussian(link = "log")), student = list(yt ~ x1 + x2, student()),
       lognormal = list(yl ~ x1 + x2, lognormal()), Beta = list(ybeta ~ x1 + x2, Beta()),
       cumulative = list(yo ~ x1 + x2, cumulative()), zip = list(yz ~ x1 + x2, zero_inflated_poisson()),
       zinb = list(yzn ~ x1 + x2, zero_inflated_negbinomial()), hurdle_p = list(yh ~ x1 + x2, hurdle_poisson()),
       hurdle_nb = list(yhn ~ x1 + x2, hurdle_negbinomial()))
}

test_that("every family x sampler pair runs and agrees with NUTS, or is refused", {
  skip_on_cran()
  d <- family_data()
  cases <- family_cases()
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
      if (s == "rmhmc" && !vhmc:::resolve_family(cases[[fam]][[2]])$traits$has_fisher) {
        expect_error(fit_with(cases[[fam]], samplers[[s]]), "rmhmc\\(\\), which needs a metric tensor", info = info)
        next
      }
      iter <- if (s == "rwm") 4000 else 1000
      m <- summarise(fit_with(cases[[fam]], samplers[[s]], iter), "mean", "mcse_mean")
      diff <- abs(m$mean - ref$mean)
      bound <- if (s %in% approximate) 0.35 * ref$sd else 5 * sqrt(m$mcse_mean^2 + ref$mcse_mean^2) + 0.05 * ref$sd
      expect_true(all(diff < bound), info = paste(info, "diff / sd:", paste(round(as.numeric(diff / ref$sd), 3), collapse = " ")))
    }
  }
})

test_that("with group-level terms every family runs under hmc() and rwm() and agrees with NUTS", {
  skip_on_cran()
  d <- family_data()
  cases <- family_cases()
  fit_with <- function(case, sampler, iter) {
    f <- stats::update(case[[1]], . ~ . + (1 | g))
    quiet(vhmc_glm(f, data = d, family = case[[2]], sampler = sampler, chains = 2, iter = iter, seed = 3,
                   progress = FALSE))
  }
  for (fam in names(cases)) {
    ref <- summarise(fit_with(cases[[fam]], nuts(), 1000), "mean", "sd", "mcse_mean")
    for (s in c("hmc", "rwm")) {
      m <- summarise(fit_with(cases[[fam]], if (s == "hmc") hmc() else rwm(), if (s == "rwm") 8000 else 1000),
                     "mean", "mcse_mean")
      diff <- abs(m$mean - ref$mean)
      bound <- 5 * sqrt(m$mcse_mean^2 + ref$mcse_mean^2) + 0.05 * ref$sd
      expect_true(all(diff < bound), info = paste(fam, s, "diff / sd:", paste(round(as.numeric(diff / ref$sd), 3), collapse = " ")))
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

test_that("a GLM's capabilities are its core potential's, and a refusal names what the model lacks (issue 42, item 1)", {
  set.seed(2)
  d <- data.frame(x = rnorm(60), z = rnorm(60), g = factor(rep(1:6, 10)))
  d$y <- exp(1 + 0.5 * d$x + rnorm(60, 0, 0.5))
  d$c <- ifelse(d$y > 6, "right", "none")
  refusal <- function(...) {
    tryCatch(vhmc_glm(..., data = d, chains = 1, iter = 100, seed = 1, progress = FALSE), error = conditionMessage)
  }
  # the core's layout says by which kind of block a capability is missing ...
  expect_match(refusal(log(y) ~ s(x), sampler = surrogate_hmc()),
               "a model with smooth terms has no mode: its density grows without bound as a smooth's standard deviation shrinks with its coefficients", fixed = TRUE)
  # sampled group effects leave no joint mode but a local one, which the start searches
  # (test-glmer-modes.R): every sampler but rmhmc() takes them
  group_layout <- list(no_mode = "group", no_anchor = "", no_minibatch = "", no_minibatch_noise = "group", has_fisher = FALSE)
  expect_identical(vhmc:::glm_capabilities(group_layout)$samplers,
                   "nuts() (the default), hmc(), rwm(), surrogate_hmc(), variational_hmc(), sghmc() or sgld()")
  expect_match(refusal(y ~ x + z, family = lognormal(), prior = hs(), sampler = variational_hmc()),
               "a model with a horseshoe prior has no mode", fixed = TRUE)
  expect_match(refusal(y | cens(c) ~ x, family = lognormal(), sampler = sgld()),
               "which a model with censored rows (whose minibatch gradients the core has not) does not provide. Use nuts() (the default), hmc(), rwm(), surrogate_hmc() or variational_hmc() here.", fixed = TRUE)
  expect_match(refusal(bf(y ~ x, sigma ~ z), family = lognormal(), sampler = sghmc()),
               "a model with distributional formulas", fixed = TRUE)
  # group-level terms keep minibatch gradients, but not their per-row noise estimate
  expect_match(refusal(log(y) ~ x + (1 | g), sampler = sghmc(noise_estimate = "auto")),
               "`noise_estimate` is \"auto\", which estimates the variance of each coordinate's minibatch gradient from the batch's rows, and the core has no such estimate for a model with group-level terms", fixed = TRUE)
  # ... and the hint lists the samplers whose needs the capabilities meet
  expect_identical(vhmc:::usable_samplers(list(anchor = TRUE, minibatch = FALSE, metric_tensor = TRUE)),
                   "nuts() (the default), hmc(), rwm(), rmhmc(), surrogate_hmc() or variational_hmc()")
})
