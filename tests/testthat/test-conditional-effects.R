# conditional_effects(): grids, reference values and summaries checked against the same
# quantities computed here from the draws (as_draws_matrix()), for gaussian, binomial,
# multilevel and ordinal fits; every family of the registry; the plots; the errors.

quiet <- function(expr) suppressWarnings(expr)
fit_g <- quiet(vhmc_glm(mpg ~ wt + factor(am), data = mtcars, chains = 2, iter = 300, seed = 1, progress = FALSE))
# The draws as a plain matrix (a draws_matrix keeps its columns as matrices).
draws_of <- function(fit) {
  m <- as_draws_matrix(fit)
  matrix(as.numeric(m), nrow(m), dimnames = list(NULL, colnames(m)))
}
B <- draws_of(fit_g)
col_median <- function(m) apply(m, 2L, stats::median)
col_quantile <- function(m, p) apply(m, 2L, stats::quantile, probs = p, names = FALSE)

test_that("a numeric effect: the draws' median and quantiles of the prediction at the other variables' reference values", {
  ce <- conditional_effects(fit_g)
  expect_s3_class(ce, "vhmc_conditional_effects")
  expect_named(ce, c("wt", "am"))
  expect_identical(attr(ce, "response"), "mpg")
  d <- ce$wt
  expect_named(d, c("wt", "am", "cond__", "effect1__", "estimate__", "se__", "lower__", "upper__"))
  expect_equal(d$wt, seq(min(mtcars$wt), max(mtcars$wt), length.out = 100))
  expect_identical(d$effect1__, d$wt)
  expect_true(all(d$am == 0))  # the first level of factor(am): no factor(am)1 term
  expect_identical(levels(d$cond__), "1")
  mu <- B[, "(Intercept)"] + outer(B[, "wt"], d$wt)
  expect_equal(d$estimate__, col_median(mu))
  expect_equal(d$se__, apply(mu, 2L, stats::mad))
  expect_equal(d$lower__, col_quantile(mu, 0.025))
  expect_equal(d$upper__, col_quantile(mu, 0.975))
  expect_identical(attr(d, "effects"), "wt")
  expect_identical(attr(d, "response"), "mpg")

  m <- conditional_effects(fit_g, effects = "wt", robust = FALSE, prob = 0.8, resolution = 7)$wt
  mu <- B[, "(Intercept)"] + outer(B[, "wt"], m$wt)
  expect_identical(nrow(m), 7L)
  expect_equal(m$estimate__, colMeans(mu))
  expect_equal(m$se__, apply(mu, 2L, stats::sd))
  expect_equal(m$lower__, col_quantile(mu, 0.1))
  expect_equal(m$upper__, col_quantile(mu, 0.9))

  # ndraws: the draws evenly spaced over the chains, as posterior_epred() takes them.
  n <- conditional_effects(fit_g, effects = "wt", ndraws = 50, resolution = 5)$wt
  s <- unique(round(seq(1, nrow(B), length.out = 50)))
  expect_equal(n$estimate__, col_median(B[s, "(Intercept)"] + outer(B[s, "wt"], n$wt)))
})

test_that("a factor effect has one row per level, the numbers at their mean", {
  d <- conditional_effects(fit_g, effects = "am")$am
  expect_identical(nrow(d), 2L)
  expect_identical(d$am, c(0, 1))  # the values of `am` that factor(am) maps to its levels
  expect_identical(d$effect1__, factor(c("0", "1")))
  expect_equal(d$wt, rep(mean(mtcars$wt), 2))
  mu <- cbind(B[, "(Intercept)"] + B[, "wt"] * mean(mtcars$wt),
              B[, "(Intercept)"] + B[, "wt"] * mean(mtcars$wt) + B[, "factor(am)1"])
  expect_equal(d$estimate__, col_median(mu))
  expect_equal(d$lower__, col_quantile(mu, 0.025))
  expect_equal(d$upper__, col_quantile(mu, 0.975))
  # A factor of the data itself, and a logical.
  cars <- transform(mtcars, gear = factor(gear, levels = c(4, 3, 5)), manual = am == 1)
  fit <- quiet(vhmc_glm(mpg ~ gear + manual, data = cars, chains = 2, iter = 200, seed = 1, progress = FALSE))
  ce <- conditional_effects(fit)
  expect_identical(ce$gear$gear, factor(c("4", "3", "5"), levels = c("4", "3", "5")))
  expect_identical(ce$gear$manual, rep(FALSE, 3))
  expect_identical(ce$manual$manual, c(FALSE, TRUE))
  expect_identical(as.character(ce$manual$gear), c("4", "4"))
})

test_that("interactions: the second variable at its levels, or at its mean and mean -/+ sd", {
  d <- conditional_effects(fit_g, effects = "wt:am")[["wt:am"]]
  expect_identical(nrow(d), 200L)
  expect_equal(d$wt, rep(seq(min(mtcars$wt), max(mtcars$wt), length.out = 100), each = 2))
  expect_identical(d$am, rep(c(0, 1), 100))
  expect_identical(d$effect2__, factor(rep(c("0", "1"), 100)))
  mu <- B[, "(Intercept)"] + outer(B[, "wt"], d$wt) + outer(B[, "factor(am)1"], d$am)
  expect_equal(d$estimate__, col_median(mu))

  fit <- quiet(vhmc_glm(mpg ~ wt * hp, data = mtcars, chains = 2, iter = 300, seed = 1, progress = FALSE))
  ce <- conditional_effects(fit, resolution = 10)
  expect_named(ce, c("wt", "hp", "wt:hp"))
  d <- ce[["wt:hp"]]
  hp3 <- mean(mtcars$hp) + c(-1, 0, 1) * sd(mtcars$hp)
  expect_equal(d$hp, rep(hp3, 10))
  expect_identical(levels(d$effect2__), as.character(sort(round(hp3, 2), decreasing = TRUE)))
  b <- draws_of(fit)
  mu <- b[, "(Intercept)"] + outer(b[, "wt"], d$wt) + outer(b[, "hp"], d$hp) + outer(b[, "wt:hp"], d$wt * d$hp)
  expect_equal(d$estimate__, col_median(mu))
  expect_equal(ce$wt$hp, rep(mean(mtcars$hp), 10))
  # A factor first: its levels, each at the three values of the number.
  expect_identical(nrow(conditional_effects(fit_g, effects = "am:wt")[["am:wt"]]), 6L)
})

test_that("conditions: one set of predictions per row, and the observations that match its factors", {
  ce <- conditional_effects(fit_g, effects = "wt", resolution = 5,
                            conditions = data.frame(am = c(0, 1), cond__ = c("automatic", "manual")))
  d <- ce$wt
  expect_identical(levels(d$cond__), c("automatic", "manual"))
  expect_identical(d$am, rep(c(0, 1), each = 5))
  mu <- B[, "(Intercept)"] + outer(B[, "wt"], d$wt) + outer(B[, "factor(am)1"], d$am)
  expect_equal(d$estimate__, col_median(mu))
  pts <- attr(d, "points")
  expect_equal(pts$resp__[pts$cond__ == "manual"], mtcars$mpg[mtcars$am == 1])
  expect_equal(pts$wt[pts$cond__ == "automatic"], mtcars$wt[mtcars$am == 0])
  # A numeric condition; labels from the row names.
  d <- conditional_effects(fit_g, effects = "am", conditions = data.frame(wt = c(2, 4)))$am
  expect_identical(levels(d$cond__), c("1", "2"))
  expect_equal(d$estimate__[d$cond__ == "2"], col_median(cbind(B[, "(Intercept)"] + 4 * B[, "wt"],
                                                                B[, "(Intercept)"] + 4 * B[, "wt"] + B[, "factor(am)1"])))
})

test_that("binomial fits: probabilities in (0, 1), the linear predictor, predictions", {
  fit <- quiet(vhmc_glm(am ~ wt, data = mtcars, family = binomial(), chains = 2, iter = 300, seed = 1, progress = FALSE))
  b <- draws_of(fit)
  d <- conditional_effects(fit)$wt
  eta <- b[, "(Intercept)"] + outer(b[, "wt"], d$wt)
  expect_true(all(d$lower__ > 0 & d$upper__ < 1))
  expect_equal(d$estimate__, col_median(plogis(eta)), tolerance = 1e-12)
  expect_equal(d$upper__, col_quantile(plogis(eta), 0.975), tolerance = 1e-12)
  expect_identical(attr(d, "points")$resp__, mtcars$am)
  l <- conditional_effects(fit, method = "posterior_linpred")$wt
  expect_equal(l$estimate__, col_median(eta))
  p <- conditional_effects(fit, method = "posterior_predict", seed = 3)$wt
  expect_true(all(p$estimate__ %in% c(0, 0.5, 1)) && all(p$lower__ >= 0 & p$upper__ <= 1))
  expect_identical(p, conditional_effects(fit, method = "posterior_predict", seed = 3)$wt)
})

test_that("multilevel fits: group-level terms left out by default, or at the levels conditions give", {
  set.seed(2)
  d <- data.frame(x = rnorm(60), g = factor(rep(letters[1:4], 15)))
  d$y <- 1 + d$x + c(-1, 0, 0.5, 1)[d$g] + rnorm(60, 0, 0.5)
  fit <- quiet(vhmc_glm(y ~ x + (1 | g), data = d, chains = 2, iter = 300, seed = 1, progress = FALSE))
  b <- draws_of(fit)
  ce <- conditional_effects(fit, resolution = 10)
  expect_named(ce, "x")
  expect_false("g" %in% names(ce$x))
  expect_equal(ce$x$estimate__, col_median(b[, "(Intercept)"] + outer(b[, "x"], ce$x$x)))
  e <- conditional_effects(fit, re_formula = NULL, conditions = data.frame(g = "c"), resolution = 10)$x
  expect_identical(as.character(e$g), rep("c", 10))
  expect_equal(e$estimate__, col_median(b[, "(Intercept)"] + b[, "b[(Intercept) g:c]"] + outer(b[, "x"], e$x)))
  gg <- conditional_effects(fit, effects = "g", re_formula = NULL)$g
  expect_identical(gg$effect1__, factor(letters[1:4]))
  expect_equal(gg$estimate__[4], stats::median(b[, "(Intercept)"] + b[, "x"] * mean(d$x) + b[, "b[(Intercept) g:d]"]))
  expect_error(conditional_effects(fit, re_formula = NULL), "`conditions` must give `g`.*re_formula = NA")
  # A new level: refused unless allowed, then drawn as the prediction methods draw it.
  new <- data.frame(g = "z")
  expect_error(conditional_effects(fit, re_formula = NULL, conditions = new), "gives `g` the value z.*allow_new_levels = TRUE")
  z <- conditional_effects(fit, re_formula = NULL, conditions = new, allow_new_levels = TRUE, seed = 1, resolution = 5)$x
  expect_true(all(z$lower__ < z$upper__))
  expect_identical(z, conditional_effects(fit, re_formula = NULL, conditions = new, allow_new_levels = TRUE, seed = 1,
                                          resolution = 5)$x)
  expect_error(conditional_effects(fit, effects = "g"), "`g` groups a group-level term.*re_formula = NULL")
  expect_error(conditional_effects(fit, re_formula = ~ (1 | h)), "`re_formula` names terms the fit does not have")
  expect_error(conditional_effects(fit, re_formula = "g"), "`re_formula` must be NA, NULL or a formula")
})

test_that("ordinal fits: the categories' probabilities with categorical = TRUE, otherwise the expected category", {
  set.seed(4)
  d <- data.frame(x = rnorm(100))
  d$y <- cut(d$x + rlogis(100), c(-Inf, -1, 0, 1, Inf), labels = c("lo", "mid", "hi", "top"), ordered_result = TRUE)
  fit <- quiet(vhmc_glm(y ~ x, data = d, family = cumulative(), chains = 2, iter = 300, seed = 1, progress = FALSE))
  b <- draws_of(fit)
  ce <- conditional_effects(fit, categorical = TRUE, robust = FALSE, resolution = 8)$x
  expect_identical(nrow(ce), 32L)
  expect_identical(levels(ce$cats__), c("lo", "mid", "hi", "top"))
  expect_identical(ce$effect2__, ce$cats__)
  expect_identical(attr(ce, "effects"), c("x", "cats__"))
  x <- ce$x[1:8]
  cdf <- lapply(c("lo|mid", "mid|hi", "hi|top"), function(k) plogis(b[, k] - outer(b[, "x"], x)))
  probs <- list(cdf[[1]], cdf[[2]] - cdf[[1]], cdf[[3]] - cdf[[2]], 1 - cdf[[3]])
  expect_equal(ce$estimate__, unlist(lapply(probs, colMeans)), tolerance = 1e-12)
  expect_equal(ce$upper__[ce$cats__ == "top"], col_quantile(probs[[4]], 0.975), tolerance = 1e-12)
  expect_equal(as.vector(tapply(ce$estimate__, ce$x, sum)), rep(1, 8))
  expect_warning(e <- conditional_effects(fit, robust = FALSE, resolution = 8)$x, "categorical = TRUE")
  expect_equal(e$estimate__, colMeans(probs[[1]] + 2 * probs[[2]] + 3 * probs[[3]] + 4 * probs[[4]]), tolerance = 1e-12)
  expect_error(conditional_effects(fit, categorical = TRUE, method = "posterior_predict"), "method = \"posterior_epred\"")
})

test_that("every family of the registry gives the summaries of its posterior_epred()", {
  set.seed(5)
  n <- 60
  x <- rnorm(n)
  eta <- 0.3 + 0.5 * x
  mu <- exp(eta)
  zero <- function(y) ifelse(runif(n) < 0.3, 0, y)
  positive <- function() qpois(runif(n, dpois(0, mu), 1), mu)
  responses <- list(
    gaussian = eta + rnorm(n), binomial = rbinom(n, 1, plogis(eta)), poisson = rpois(n, mu),
    neg_binomial_2 = rnbinom(n, size = 5, mu = mu), Gamma = rgamma(n, 5, 5 / mu),
    inverse.gaussian = vhmc:::rinvgauss(n, mu, 4), student = eta + rt(n, 4), lognormal = exp(eta + rnorm(n, 0, 0.5)),
    Beta = rbeta(n, 10 * plogis(eta), 10 * (1 - plogis(eta))),
    cumulative = cut(eta + rlogis(n), c(-Inf, -0.5, 0.5, 1.5, Inf), ordered_result = TRUE),
    zero_inflated_poisson = zero(rpois(n, mu)), zero_inflated_negbinomial = zero(rnbinom(n, size = 5, mu = mu)),
    hurdle_poisson = zero(positive()), hurdle_negbinomial = zero(positive()))
  registry <- vhmc:::family_registry()
  expect_setequal(names(registry), names(responses))
  for (name in names(registry)) {
    d <- data.frame(x = x, y = responses[[name]])
    fit <- quiet(vhmc_glm(y ~ x, data = d, family = registry[[name]]$constructor(), chains = 2, iter = 200, seed = 1,
                          progress = FALSE))
    ce <- quiet(conditional_effects(fit, robust = FALSE, resolution = 5))$x
    p <- posterior_epred(fit, newdata = data.frame(x = ce$x))
    if (length(dim(p)) == 3L) p <- Reduce(`+`, lapply(seq_len(dim(p)[3]), function(k) k * p[, , k]))
    expect_equal(ce$estimate__, colMeans(p), info = name)
    expect_true(all(is.finite(c(ce$lower__, ce$upper__))) && all(ce$lower__ <= ce$upper__), info = name)
  }
})

test_that("plot() gives modifiable ggplots: lines and bands, points and error bars, observations, panels", {
  skip_if_not_installed("ggplot2")
  ce <- conditional_effects(fit_g, resolution = 20)
  p <- plot(ce, plot = FALSE)
  expect_named(p, c("wt", "am"))
  expect_s3_class(p$wt, "ggplot")
  geoms <- function(g) vapply(g$layers, function(l) class(l$geom)[1], "")
  expect_identical(geoms(p$wt), c("GeomRibbon", "GeomLine"))
  expect_identical(geoms(p$am), c("GeomPoint", "GeomErrorbar"))
  expect_identical(p$wt$labels$y, "mpg")
  q <- plot(ce, points = TRUE, plot = FALSE, theme = ggplot2::theme_bw())
  expect_identical(geoms(q$wt), c("GeomPoint", "GeomRibbon", "GeomLine"))
  expect_identical(nrow(q$wt$layers[[1]]$data), sum(mtcars$am == 0))  # the observations at am's reference level
  expect_s3_class(q$wt + ggplot2::labs(title = "mpg by weight"), "ggplot")
  two <- conditional_effects(fit_g, effects = "wt", resolution = 5, conditions = data.frame(am = 0:1))
  expect_s3_class(plot(two, plot = FALSE)$wt$facet, "FacetWrap")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(withVisible(plot(ce, ask = FALSE))$visible, FALSE)
  expect_identical(withVisible(print(ce, ask = FALSE))$value, ce)
  expect_error(plot(ce, line_args = 1), "`line_args` must be a list")
  expect_error(plot(ce, colour = "red"), "`...` must be empty")
})

test_that("bad input: clear errors before any prediction", {
  expect_error(conditional_effects(fit_g, effects = "hp"), "`effects` names `hp`, not a predictor variable.*wt, am")
  expect_error(conditional_effects(fit_g, effects = "wt:am:hp"), "`effects` names `hp`")
  expect_error(conditional_effects(fit_g, effects = "wt:wt"), "one variable or two different ones")
  expect_error(conditional_effects(fit_g, effects = 1), "`effects` must be names of predictor variables")
  expect_error(conditional_effects(fit_g, conditions = list(wt = 3)), "`conditions` must be a data frame")
  expect_error(conditional_effects(fit_g, conditions = mtcars[0, ]), "`conditions` must be a data frame with at least one row")
  expect_error(conditional_effects(fit_g, conditions = data.frame(hp = 100)), "`conditions` has columns that are not variables.*`hp`")
  expect_error(conditional_effects(fit_g, conditions = data.frame(am = 2)), "gives `am` the value 2, which is not one of its levels")
  expect_error(conditional_effects(fit_g, conditions = data.frame(wt = "3")), "numeric variable `wt` finite numbers")
  expect_error(conditional_effects(fit_g, conditions = data.frame(wt = NA_real_)), "missing values in `wt`")
  expect_error(conditional_effects(fit_g, prob = 1), "`prob` must lie in \\(0, 1\\)")
  expect_error(conditional_effects(fit_g, prob = 0), "`prob` must lie in \\(0, 1\\)")
  expect_error(conditional_effects(fit_g, method = "predict"), "`method` must be one of")
  expect_error(conditional_effects(fit_g, resolution = 1), "`resolution` must be a single whole number >= 2")
  expect_error(conditional_effects(fit_g, categorical = TRUE), "`categorical` is TRUE, but a gaussian model.*cumulative\\(\\)")
  expect_error(conditional_effects(fit_g, re_formula = NULL, effects = "hp"), "`effects` names `hp`")
  expect_error(conditional_effects(fit_g, re_formula = ~ (1 | cyl)), "`re_formula` applies to models with group-level terms only")
  expect_error(conditional_effects(fit_g, newdata = mtcars), "`...` sets `newdata`")
  expect_error(conditional_effects(fit_g, foo = 1), "`\\.\\.\\.` must be empty, but has `foo`")
  fit_1 <- quiet(vhmc_glm(mpg ~ 1, data = mtcars, chains = 2, iter = 200, seed = 1, progress = FALSE))
  expect_error(conditional_effects(fit_1), "has no predictor variables")
  ar <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 200, seed = 1, progress = FALSE))
  expect_error(conditional_effects(ar), "`x` is an ARDL fit.*forecast\\(\\)")
  fs <- quiet(suppressMessages(vhmc_sample(function(th) -sum(th^2) / 2, init = c(0, 0), chains = 1, iter = 200, seed = 1, progress = FALSE)))
  expect_error(conditional_effects(fs), "`x` is a vhmc_sample\\(\\) fit of an R log density")
})

test_that("the data are read again from the call, and a change to them is an error", {
  my_cars <- mtcars
  fit <- quiet(vhmc_glm(mpg ~ wt, data = my_cars, subset = cyl > 4, chains = 2, iter = 200, seed = 1, progress = FALSE))
  d <- conditional_effects(fit, resolution = 3)$wt
  expect_equal(range(d$wt), range(mtcars$wt[mtcars$cyl > 4]))
  expect_identical(nrow(attr(d, "points")), sum(mtcars$cyl > 4))
  my_cars <- my_cars[1:10, ]
  expect_error(conditional_effects(fit), "`x` was fitted to 21 rows, but its call's data \\(my_cars\\) now give 7")
  rm(my_cars)
  expect_error(conditional_effects(fit), "`x` needs its data again.*object 'my_cars' not found")
  # A vector outside the data is a variable as for model.frame(); a constant is not.
  z <- mtcars$qsec
  k0 <- 1
  fit <- quiet(vhmc_glm(mpg ~ log(wt + k0) + z, data = mtcars, chains = 2, iter = 200, seed = 1, progress = FALSE))
  ce <- conditional_effects(fit, resolution = 3)
  expect_named(ce, c("wt", "z"))
  expect_equal(ce$wt$z, rep(mean(z), 3))
  b <- draws_of(fit)
  expect_equal(ce$wt$estimate__, col_median(b[, "(Intercept)"] + outer(b[, "log(wt + k0)"], log(ce$wt$wt + 1)) +
                                                b[, "z"] * mean(z)))
  wrapper <- function(...) vhmc_glm(..., chains = 2, iter = 200, seed = 1, progress = FALSE)
  fit <- quiet(wrapper(mpg ~ wt, data = mtcars))
  expect_error(conditional_effects(fit), "fitted through a wrapper function")
})

test_that("the method is registered for brms's generic too", {
  s3 <- getNamespaceInfo("vhmc", "S3methods")
  brms_rows <- s3[s3[, 1] == "conditional_effects" & s3[, 2] == "vhmc_fit", 4]
  expect_setequal(brms_rows, c(NA, "brms"))
})
