# The methods of a fit for every family added to the registry: responses checked with errors
# that name the fix, log_lik() against the density written out, posterior_predict() in the
# family's support, posterior_epred() (an array of category probabilities for ordinal
# models), loo(), pp_check() (bars for ordinal models), predict(), group-level terms of every
# form.

quiet <- function(expr) suppressWarnings(suppressMessages(expr))

methods_data <- function() {
  set.seed(5)
  n <- 150
  d <- data.frame(x = rnorm(n), g = factor(rep(letters[1:5], length.out = n)), h = factor(rep(1:3, each = 50)))
  eta <- 0.3 + 0.5 * d$x
  d$yt <- eta + rt(n, 4)
  d$yl <- exp(eta + rnorm(n, 0, 0.5))
  d$yb <- rbeta(n, 10 * plogis(eta), 10 * (1 - plogis(eta)))
  d$yo <- cut(eta + rlogis(n), c(-Inf, -0.5, 0.5, 1.5, Inf), labels = c("lo", "mid", "hi", "top"), ordered_result = TRUE)
  d$yz <- ifelse(runif(n) < 0.3, 0, rpois(n, exp(eta)))
  d$yh <- ifelse(runif(n) < 0.3, 0, qpois(runif(n, dpois(0, exp(eta)), 1), exp(eta)))
  d$yi <- vhmc:::rinvgauss(n, exp(eta), 4)
  d
}

test_that("responses outside a family's support are errors that say what the family needs", {
  d <- methods_data()
  d$neg <- d$yl - 2
  expect_error(vhmc_glm(neg ~ x, data = d, family = lognormal()),
               "response `neg` has values <= 0; the lognormal family needs positive outcomes")
  d$b01 <- replace(d$yb, 1:2, c(0, 1))
  expect_error(vhmc_glm(b01 ~ x, data = d, family = Beta()),
               "has 2 values outside \\(0, 1\\) \\(exactly 0 or 1 included\\); Beta\\(\\) needs proportions strictly between 0 and 1")
  d$uo <- factor(d$yo, ordered = FALSE)
  expect_error(vhmc_glm(uo ~ x, data = d, family = cumulative()),
               "response `uo` is an unordered factor \\(levels \"lo\", \"mid\", \"hi\", \"top\"\\); cumulative\\(\\) needs an ordered response")
  d$half <- d$yz + 0.5
  expect_error(vhmc_glm(half ~ x, data = d, family = zero_inflated_poisson()),
               "response `half` has non-integer values; zero-inflated poisson counts must be whole numbers")
  expect_error(vhmc_glm(x ~ 1, data = d, family = hurdle_negbinomial()), "has negative values")
  expect_error(vhmc_glm(I(yi - 3) ~ x, data = d, family = inverse.gaussian()), "the inverse.gaussian family needs positive outcomes")
})

test_that("log_lik(), posterior_predict() and posterior_epred() follow each family's density", {
  skip_on_cran()
  d <- methods_data()
  cases <- list(list(yt ~ x, student()), list(yl ~ x, lognormal()), list(yb ~ x, Beta()),
                list(yz ~ x, zero_inflated_poisson()), list(yh ~ x, hurdle_poisson()),
                list(yi ~ x, inverse.gaussian(link = "log")))
  for (case in cases) {
    fit <- quiet(vhmc_glm(case[[1]], data = d, family = case[[2]], chains = 2, iter = 400, seed = 1, progress = FALSE))
    fam <- case[[2]]$family
    all <- as.matrix(fit)
    m <- all[unique(round(seq(1, nrow(all), length.out = 5))), ]  # log_lik(ndraws = 5)'s draws
    eta <- m[, "(Intercept)"] + outer(m[, "x"], d$x)
    y <- d[[all.vars(case[[1]])[1]]]
    Y <- matrix(y, 5, length(y), byrow = TRUE)
    mu <- exp(eta)
    ref <- switch(fam,
      student = stats::dt((Y - eta) / m[, "sigma"], m[, "nu"], log = TRUE) - log(m[, "sigma"]),
      lognormal = stats::dlnorm(Y, eta, m[, "sigma"], log = TRUE),
      Beta = stats::dbeta(Y, plogis(eta) * m[, "phi"], (1 - plogis(eta)) * m[, "phi"], log = TRUE),
      zero_inflated_poisson = log(ifelse(Y == 0, m[, "zi"] + (1 - m[, "zi"]) * exp(-mu), (1 - m[, "zi"]) * stats::dpois(Y, mu))),
      hurdle_poisson = log(ifelse(Y == 0, m[, "hu"], (1 - m[, "hu"]) * stats::dpois(Y, mu) / (1 - exp(-mu)))),
      inverse.gaussian = 0.5 * log(m[, "lambda"] / (2 * pi * Y^3)) - m[, "lambda"] * (Y - mu)^2 / (2 * mu^2 * Y))
    expect_equal(log_lik(fit, ndraws = 5), unname(ref), tolerance = 1e-10, info = fam)
    yrep <- posterior_predict(fit, ndraws = 200, seed = 1)
    expect_identical(dim(yrep), c(200L, length(y)))
    if (fam %in% c("lognormal", "inverse.gaussian")) expect_true(all(yrep > 0), info = fam)
    if (fam == "Beta") expect_true(all(yrep > 0 & yrep < 1))
    if (fam %in% c("zero_inflated_poisson", "hurdle_poisson")) expect_true(all(yrep >= 0 & yrep == round(yrep)), info = fam)
    # The mean of the predictive draws matches the expected response (200 draws x 150 rows).
    expect_lt(abs(mean(yrep) - mean(posterior_epred(fit, ndraws = 200))), 4 * sd(yrep) / sqrt(length(yrep)) + 0.02)
    if (requireNamespace("loo", quietly = TRUE)) expect_s3_class(loo(fit), "psis_loo")
  }
})

test_that("ordinal fits: category probabilities, predictions, draws and bars", {
  skip_on_cran()
  d <- methods_data()
  fit <- quiet(vhmc_glm(yo ~ x, data = d, family = cumulative(), chains = 2, iter = 400, seed = 1, progress = FALSE))
  p <- posterior_epred(fit)
  expect_identical(dim(p), c(400L, 150L, 4L))
  expect_identical(dimnames(p)[[3]], c("lo", "mid", "hi", "top"))
  expect_equal(apply(p, c(1, 2), sum), matrix(1, 400, 150), ignore_attr = TRUE)
  pr <- predict(fit, newdata = d[1:3, ], type = "response")
  expect_identical(dim(pr), c(3L, 4L))
  expect_equal(unname(pr), unname(apply(posterior_epred(fit, newdata = d[1:3, ]), c(2, 3), mean)))
  expect_error(predict(fit, type = "response", interval = "prediction"), "must be \"none\" for an ordinal model")
  ll <- log_lik(fit, ndraws = 3)
  idx <- cbind(rep(1:3, 150), rep(1:150, each = 3), rep(as.integer(d$yo), each = 3))
  expect_equal(ll, matrix(log(posterior_epred(fit, ndraws = 3)[idx]), 3), tolerance = 1e-12)
  yrep <- posterior_predict(fit, ndraws = 50, seed = 2)
  expect_true(all(yrep %in% 1:4))
  expect_error(bayes_R2(fit), "its response is a category")
  expect_error(residuals(fit), "whose response is a category")
  skip_if_not_installed("bayesplot")
  pp <- bayesplot::pp_check(fit, seed = 1)
  expect_s3_class(pp, "ggplot")
  expect_true(any(vapply(pp$layers, function(l) inherits(l$geom, "GeomBar"), TRUE)))
})

test_that("every group-term form fits with a new family", {
  skip_on_cran()
  d <- methods_data()
  for (f in list(yb ~ x + (x | g), yb ~ x + (x || g), yb ~ x + (1 | g) + (1 | h), yb ~ x + (1 | h / g))) {
    fit <- quiet(vhmc_glm(f, data = d, family = Beta(), chains = 2, iter = 400, seed = 3, progress = FALSE))
    expect_true(any(startsWith(posterior::variables(fit$draws), "Sigma[")), info = deparse(f))
    expect_identical(dim(posterior_predict(fit, ndraws = 10, seed = 1)), c(10L, 150L))
  }
  fit <- quiet(vhmc_glm(yo ~ x + (1 | g), data = d, family = cumulative(), chains = 2, iter = 400, seed = 3,
                        progress = FALSE))
  expect_identical(dim(posterior_epred(fit, newdata = data.frame(x = 0, g = "new"), allow_new_levels = TRUE, seed = 1)),
                   c(400L, 1L, 4L))
})
