# Every link and family added to the registry against maximum likelihood: under flat
# coefficient priors and with data large enough that the auxiliary parameters' priors do not
# matter, the posterior means lie within 0.35 standard errors of the estimates of glm()
# (links, inverse.gaussian), MASS's glm.nb() and polr(), lm() on log y (lognormal),
# glmmTMB's t_family() and beta_family(), and pscl's zeroinfl() and hurdle(). Auxiliary
# parameters are compared where the references estimate them, on the scale they report
# standard errors for (log sigma, log df, log phi, log theta, logit of the zero probability).

quiet <- function(expr) suppressWarnings(suppressMessages(expr))

flat_family_fit <- function(formula, data, family, ...) {
  quiet(vhmc_glm(formula, data = data, family = family, prior = flat(), prior_intercept = flat(),
                 chains = 2, iter = 2000, seed = 11, progress = FALSE, ...))
}

# Posterior means of `draws` (named columns, already on the reference's scale) within `tol`
# of the estimates, in units of their standard errors.
expect_near_mle <- function(draws, est, se, tol = 0.35, what = "") {
  z <- abs(colMeans(draws[, names(est), drop = FALSE]) - est) / se
  expect_true(all(z < tol), info = paste(what, "|mean - MLE| / se:", paste(names(z), round(z, 3), collapse = ", ")))
}

# A linear predictor, and data whose mean is inside every link's domain (x in (-1, 1)).
link_data <- function(n = 3000, seed = 1) {
  set.seed(seed)
  data.frame(x = runif(n, -1, 1), z = rnorm(n))
}

test_that("every link of the GLM families matches glm() (and glm.nb()) under flat priors", {
  skip_on_cran()
  d <- link_data()
  mu <- list(identity = 2 + 0.6 * d$x, log = exp(0.5 + 0.4 * d$x), inverse = 1 / (0.5 + 0.2 * d$x),
             sqrt = (1.5 + 0.4 * d$x)^2, "1/mu^2" = 1 / sqrt(0.4 + 0.15 * d$x))
  p <- list(cauchit = pcauchy(0.3 + 0.8 * d$x), log = exp(-0.8 + 0.5 * d$x), cloglog = 1 - exp(-exp(-0.2 + 0.7 * d$x)))
  cases <- list(
    list(gaussian("log"), rnorm(3000, mu$log, 0.5)), list(gaussian("inverse"), rnorm(3000, mu$inverse, 0.3)),
    list(binomial("cauchit"), rbinom(3000, 1, p$cauchit)), list(binomial("log"), rbinom(3000, 1, p$log)),
    list(binomial("cloglog"), rbinom(3000, 1, p$cloglog)),
    list(poisson("identity"), rpois(3000, mu$identity)), list(poisson("sqrt"), rpois(3000, mu$sqrt)),
    list(Gamma("inverse"), rgamma(3000, 4, 4 / mu$inverse)), list(Gamma("identity"), rgamma(3000, 4, 4 / mu$identity)),
    list(inverse.gaussian("1/mu^2"), vhmc:::rinvgauss(3000, mu$`1/mu^2`, 6)),
    list(inverse.gaussian("inverse"), vhmc:::rinvgauss(3000, mu$inverse, 6)),
    list(inverse.gaussian("identity"), vhmc:::rinvgauss(3000, mu$identity, 6)),
    list(inverse.gaussian("log"), vhmc:::rinvgauss(3000, mu$log, 6)))
  for (case in cases) {
    family <- case[[1]]
    d$y <- case[[2]]
    ref <- glm(y ~ x + z, data = d, family = family, start = c(family$linkfun(mean(d$y)), 0, 0))
    fit <- flat_family_fit(y ~ x + z, d, family)
    # The likelihood's own dispersion (glm()'s is a moment estimate) behind the standard errors.
    disp <- switch(family$family, gaussian = mean(residuals(ref, "response")^2),
                   Gamma = 1 / MASS::gamma.shape(ref)$alpha,
                   inverse.gaussian = mean((d$y - fitted(ref))^2 / (fitted(ref)^2 * d$y)), 1)
    expect_near_mle(as.matrix(fit), coef(ref), sqrt(diag(vcov(ref, dispersion = disp))),
                    what = sprintf("%s(%s)", family$family, family$link))
  }
  for (link in c("identity", "sqrt")) {
    d$y <- rnbinom(3000, size = 3, mu = mu[[link]])
    ref <- do.call(MASS::glm.nb, list(y ~ x + z, data = d, link = as.name(link)))
    fit <- flat_family_fit(y ~ x + z, d, neg_binomial_2(link))
    m <- cbind(as.matrix(fit), log_theta = log(as.matrix(fit)[, "reciprocal_dispersion"]))
    expect_near_mle(m, c(coef(ref), log_theta = log(ref$theta)),
                    c(sqrt(diag(vcov(ref))), ref$SE.theta / ref$theta), what = paste("neg_binomial_2", link))
  }
})

test_that("student(), lognormal() and Beta() match lm() on log y and glmmTMB", {
  skip_on_cran()
  skip_if_not_installed("glmmTMB")
  # Debian's glmmTMB was built with its TMB; RTMB (a Suggests) needs a newer TMB, and
  # glmmTMB warns of the version difference when it loads. The comparisons below are what
  # tell whether its fits are right.
  same_tmb <- function(expr) withCallingHandlers(expr, warning = function(w) {
    if (grepl("version inconsistency", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  })
  d <- link_data(seed = 2)
  d$yt <- 1 + 0.5 * d$x - 0.3 * d$z + 0.8 * rt(3000, 5)
  d$yl <- exp(0.3 + 0.4 * d$x + rnorm(3000, 0, 0.5))
  mu <- plogis(-0.2 + 0.6 * d$x)
  d$yb <- rbeta(3000, mu * 15, (1 - mu) * 15)
  tm <- same_tmb(glmmTMB::glmmTMB(yt ~ x + z, data = d, family = glmmTMB::t_family()))
  ft <- flat_family_fit(yt ~ x + z, d, student())
  mt <- as.matrix(ft)
  se <- sqrt(diag(vcov(tm, full = TRUE)))
  expect_near_mle(cbind(mt, log_sigma = log(mt[, "sigma"]), log_nu = log(mt[, "nu"])),
                  c(glmmTMB::fixef(tm)$cond, log_sigma = unname(tm$fit$par["betad"]), log_nu = unname(tm$fit$par["psi"])),
                  unname(se), what = "student")
  lmf <- lm(log(yl) ~ x + z, data = d)
  fl <- flat_family_fit(yl ~ x + z, d, lognormal())
  sigma_ml <- sqrt(mean(residuals(lmf)^2))
  expect_near_mle(as.matrix(fl), c(coef(lmf), sigma = sigma_ml),
                  c(sqrt(diag(vcov(lmf))) * sqrt(2997 / 3000), sigma = sigma_ml / sqrt(2 * 3000)), what = "lognormal")
  bm <- same_tmb(glmmTMB::glmmTMB(yb ~ x + z, data = d, family = glmmTMB::beta_family()))
  fb <- flat_family_fit(yb ~ x + z, d, Beta())
  mb <- as.matrix(fb)
  expect_near_mle(cbind(mb, log_phi = log(mb[, "phi"])),
                  c(glmmTMB::fixef(bm)$cond, log_phi = unname(bm$fit$par["betad"])),
                  unname(sqrt(diag(vcov(bm, full = TRUE)))), what = "Beta")
})

test_that("cumulative() matches MASS::polr(), logit and probit", {
  skip_on_cran()
  d <- link_data(seed = 3)
  lat <- 0.8 * d$x - 0.5 * d$z
  for (link in c("logit", "probit")) {
    noise <- if (link == "logit") rlogis(3000) else rnorm(3000)
    d$y <- cut(lat + noise, c(-Inf, -1, 0.3, 1.5, Inf), labels = c("low", "mid", "high", "top"), ordered_result = TRUE)
    ref <- MASS::polr(y ~ x + z, data = d, method = if (link == "logit") "logistic" else link, Hess = TRUE)
    fit <- flat_family_fit(y ~ x + z, d, cumulative(link))
    expect_identical(posterior::variables(fit$draws), c("x", "z", "low|mid", "mid|high", "high|top"))
    est <- c(coef(ref), ref$zeta)
    expect_near_mle(as.matrix(fit), est, sqrt(diag(vcov(ref)))[names(est)], what = paste("cumulative", link))
  }
})

test_that("the zero-inflated and hurdle counts match pscl's zeroinfl() and hurdle()", {
  skip_on_cran()
  skip_if_not_installed("pscl")
  d <- link_data(seed = 4)
  mu <- exp(0.5 + 0.4 * d$x - 0.2 * d$z)
  zero <- runif(3000) < 0.3
  d$zp <- ifelse(zero, 0, rpois(3000, mu))
  d$znb <- ifelse(zero, 0, rnbinom(3000, size = 3, mu = mu))
  d$hp <- ifelse(zero, 0, qpois(runif(3000, dpois(0, mu), 1), mu))
  d$hnb <- ifelse(zero, 0, pmax(1, qnbinom(runif(3000, dnbinom(0, size = 3, mu = mu), 1), size = 3, mu = mu)))
  cases <- list(zp = list(zero_inflated_poisson(), "zi", "poisson"), znb = list(zero_inflated_negbinomial(), "zi", "negbin"),
                hp = list(hurdle_poisson(), "hu", "poisson"), hnb = list(hurdle_negbinomial(), "hu", "negbin"))
  for (y in names(cases)) {
    family <- cases[[y]][[1]]
    p <- cases[[y]][[2]]
    f <- as.formula(paste(y, "~ x + z | 1"))
    ref <- if (p == "zi") pscl::zeroinfl(f, data = d, dist = cases[[y]][[3]]) else
      pscl::hurdle(f, data = d, dist = cases[[y]][[3]])
    fit <- flat_family_fit(as.formula(paste(y, "~ x + z")), d, family)
    m <- as.matrix(fit)
    # pscl's hurdle models P(y > 0): its zero intercept is -logit(hu).
    sign <- if (p == "zi") 1 else -1
    draws <- cbind(m, logit_p = qlogis(m[, p]))
    cf <- coef(ref)
    se <- sqrt(diag(vcov(ref)))
    est <- c(cf[c("count_(Intercept)", "count_x", "count_z")], logit_p = sign * unname(cf["zero_(Intercept)"]))
    names(est)[1:3] <- c("(Intercept)", "x", "z")
    ses <- c(se[c("count_(Intercept)", "count_x", "count_z")], se["zero_(Intercept)"])
    if (cases[[y]][[3]] == "negbin") {
      draws <- cbind(draws, log_shape = log(m[, "shape"]))
      est <- c(est, log_shape = unname(log(ref$theta)))
      ses <- c(ses, ref$SE.logtheta)
    }
    expect_near_mle(draws, est, unname(ses), what = y)
  }
})
