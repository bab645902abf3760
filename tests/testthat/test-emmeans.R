# emmeans's methods (R/interop-emmeans.R): the reference grid's draws are the fit's own
# coefficient draws; under flat priors the marginal means and their contrasts agree with
# emmeans on glm() (posterior medians within 4 MCSE + 5 % of the standard error, intervals
# roughly the confidence intervals); the response scale, multilevel and cumulative fits,
# and the refused fits.

skip_if_not_installed("emmeans")
quiet <- function(expr) suppressWarnings(suppressMessages(expr))

flat_fit <- function(formula, family, iter = 2000, ...) {
  quiet(vhmc_glm(formula, data = warpbreaks, family = family, prior = flat(), prior_intercept = flat(),
                 chains = 2, iter = iter, seed = 5, progress = FALSE, ...))
}

# The draws of each row of an emmGrid (S x rows, in chain order), from its coefficient draws.
emm_draws <- function(emm) {
  d <- emm@post.beta %*% t(emm@linfct)
  offset <- emm@grid[[".offset."]]
  if (is.null(offset)) d else sweep(d, 2L, offset, `+`)
}

# Per row of a summary: |estimate - reference| / (4 MCSE of the median + 0.05 se), below 1.
median_criterion <- function(draws, estimate, reference, se, chains = 2) {
  arr <- array(draws, c(nrow(draws) / chains, chains, ncol(draws)))
  mcse <- apply(arr, 3, posterior::mcse_median)
  abs(estimate - reference) / (4 * mcse + 0.05 * se)
}

# The central 95 % intervals of the draws' columns against confidence limits: each bound
# within 4 MCSE of its quantile + 5 % of the standard error.
expect_interval_agrees <- function(draws, lower, upper, se, chains = 2) {
  arr <- array(draws, c(nrow(draws) / chains, chains, ncol(draws)))
  for (b in list(list(0.025, lower), list(0.975, upper))) {
    q <- apply(draws, 2, stats::quantile, probs = b[[1]], names = FALSE)
    mcse <- apply(arr, 3, posterior::mcse_quantile, probs = b[[1]])
    crit <- abs(q - b[[2]]) / (4 * mcse + 0.05 * se)
    expect_true(all(crit < 1), info = paste(b[[1]], paste(round(crit, 2), collapse = " ")))
  }
}

test_that("gaussian marginal means and contrasts agree with emmeans on glm()", {
  fit <- flat_fit(breaks ~ wool * tension, gaussian(), prior_aux = flat())
  ref <- glm(breaks ~ wool * tension, data = warpbreaks)
  rg <- emmeans::ref_grid(fit)
  # The grid's draws are the fit's coefficient draws, in the model matrix's order.
  expect_equal(rg@post.beta, as.matrix(fit)[, fit$model$coef_names], ignore_attr = TRUE)
  expect_identical(attr(rg@post.beta, "n.chains"), 2L)
  expect_identical(colnames(rg@linfct), fit$model$coef_names)
  expect_equal(rg@bhat, colMeans(as.matrix(fit)[, fit$model$coef_names]), ignore_attr = TRUE)

  emm <- quiet(emmeans::emmeans(fit, ~ tension))
  emm_glm <- quiet(emmeans::emmeans(ref, ~ tension))
  s <- summary(emm)
  s_glm <- summary(emm_glm)
  d <- emm_draws(emm)
  expect_equal(s$emmean, apply(d, 2, stats::median))  # posterior medians, computed from the draws
  crit <- median_criterion(d, s$emmean, s_glm$emmean, s_glm$SE)
  expect_true(all(crit < 1), info = paste(round(crit, 2), collapse = " "))
  # Flat priors on beta and sigma: a t posterior (47 df) against the t interval (48 df), so
  # the central 95 % credible intervals are the confidence intervals; the HPD intervals
  # emmeans prints, noisier, roughly so.
  expect_interval_agrees(d, s_glm$lower.CL, s_glm$upper.CL, s_glm$SE)
  expect_true(all(abs(s$lower.HPD - s_glm$lower.CL) < 0.4 * s_glm$SE))
  expect_true(all(abs(s$upper.HPD - s_glm$upper.CL) < 0.4 * s_glm$SE))

  for (how in c("pairwise", "trt.vs.ctrl")) {
    con <- emmeans::contrast(emm, how)
    con_glm <- emmeans::contrast(emm_glm, how, adjust = "none")
    sc <- summary(con)
    sc_glm <- summary(con_glm)
    expect_identical(as.character(sc$contrast), as.character(sc_glm$contrast))
    crit <- median_criterion(emm_draws(con), sc$estimate, sc_glm$estimate, sc_glm$SE)
    expect_true(all(crit < 1), info = paste(how, paste(round(crit, 2), collapse = " ")))
  }
  expect_equal(summary(pairs(emm))$estimate, summary(emmeans::contrast(emm, "pairwise"))$estimate)
  mc <- coda::as.mcmc(emm)
  expect_identical(coda::nchain(mc), 2L)
})

test_that("poisson means on the response scale agree with emmeans on glm(poisson)", {
  fit <- flat_fit(breaks ~ wool + tension, poisson(), iter = 1000)
  ref <- glm(breaks ~ wool + tension, data = warpbreaks, family = poisson())
  emm <- quiet(emmeans::emmeans(fit, ~ tension, type = "response"))
  emm_glm <- quiet(emmeans::emmeans(ref, ~ tension, type = "response"))
  s <- summary(emm)
  s_glm <- summary(emm_glm)
  expect_true("rate" %in% names(s))
  link <- emmeans::emmeans(fit, ~ tension)
  d <- emm_draws(link)
  expect_equal(s$rate, exp(apply(d, 2, stats::median)))
  se_link <- summary(emmeans::emmeans(ref, ~ tension))$SE
  crit <- median_criterion(d, log(s$rate), log(s_glm$rate), se_link)
  expect_true(all(crit < 1), info = paste(round(crit, 2), collapse = " "))
  expect_interval_agrees(d, log(s_glm$asymp.LCL), log(s_glm$asymp.UCL), se_link)
  # Ratios of rates: pairs() on the response scale.
  r <- summary(pairs(link, type = "response"))
  r_glm <- summary(pairs(emmeans::emmeans(ref, ~ tension), type = "response", adjust = "none"))
  expect_true(all(abs(log(r$ratio) - log(r_glm$ratio)) < 0.1))
})

test_that("an offset enters the grid at its mean, as for glm()", {
  d <- transform(warpbreaks, expo = rep(c(1, 2, 3), 18))
  fit <- quiet(vhmc_glm(breaks ~ wool + tension + offset(log(expo)), data = d, family = poisson(),
                        chains = 2, iter = 400, seed = 1, progress = FALSE))
  rg <- emmeans::ref_grid(fit)
  expect_equal(unique(rg@grid$.offset.), mean(log(d$expo)))
  fit_arg <- quiet(update(fit, breaks ~ wool + tension, offset = log(expo)))
  expect_equal(unique(emmeans::ref_grid(fit_arg)@grid$.offset.), mean(log(d$expo)))
})

test_that("multilevel fits give the marginal means of their fixed effects", {
  skip_if_not_installed("lme4")
  fit <- quiet(vhmc_glm(Reaction ~ Days + (1 | Subject), data = lme4::sleepstudy, chains = 2,
                        iter = 600, seed = 1, progress = FALSE))
  emm <- emmeans::emmeans(fit, ~ Days, at = list(Days = c(0, 5)))
  beta <- as.matrix(fit)[, c("(Intercept)", "Days")]
  expect_equal(summary(emm)$emmean, c(median(beta[, 1]), median(beta[, 1] + 5 * beta[, 2])))
  ref <- lme4::fixef(lme4::lmer(Reaction ~ Days + (1 | Subject), data = lme4::sleepstudy))
  expect_equal(summary(emm)$emmean, c(ref[[1]], ref[[1]] + 5 * ref[[2]]), tolerance = 0.02)
})

test_that("lognormal and cumulative models: the transformed response and polr's modes", {
  set.seed(3)
  d <- data.frame(x = rnorm(60), g = gl(3, 20))
  d$y <- exp(1 + 0.5 * d$x + as.numeric(d$g) / 3 + rnorm(60, sd = 0.4))
  fit <- quiet(vhmc_glm(y ~ x + g, data = d, family = lognormal(), chains = 2, iter = 400, seed = 1,
                        progress = FALSE))
  link <- emmeans::emmeans(fit, ~ g)
  # The response's summary is the median of the transformed draws (with an even number of
  # draws not exactly exp() of the link's median, which averages the two middle draws).
  draws <- link@post.beta %*% t(link@linfct)
  expect_equal(summary(emmeans::regrid(link))$response, apply(exp(draws), 2, median, names = FALSE))

  skip_if_not_installed("MASS")
  h <- MASS::housing
  fc <- quiet(vhmc_glm(Sat ~ Infl + Type, weights = Freq, data = h, family = cumulative(), chains = 2,
                       iter = 400, seed = 1, progress = FALSE))
  m <- as.matrix(fc)
  cuts <- m[, c("Low|Medium", "Medium|High")]
  lat <- emmeans::emmeans(fc, ~ Infl, at = list(Type = "Terrace"))
  eta <- cbind(0, m[, "InflMedium"], m[, "InflHigh"]) + m[, "TypeTerrace"] - rowMeans(cuts)
  expect_equal(summary(lat)$emmean, unname(apply(eta, 2, median)))
  polr <- MASS::polr(Sat ~ Infl + Type, weights = Freq, data = h, Hess = TRUE)
  expect_equal(summary(emmeans::emmeans(fc, ~ Infl))$emmean,
               summary(emmeans::emmeans(polr, ~ Infl))$emmean, tolerance = 0.05)
  # Each draw's category probabilities sum to 1 for every level of Infl.
  prob <- emmeans::emmeans(fc, ~ Sat | Infl, mode = "prob")
  by_infl <- split(seq_len(nrow(prob@grid)), prob@grid$Infl)
  d <- emm_draws(prob)
  for (rows in by_infl) expect_equal(rowSums(d[, rows]), rep(1, nrow(d)), tolerance = 1e-12)
  expect_error(emmeans::emmeans(fc, ~ Infl, mode = "odds"), "`mode` must be one of \"latent\"")
})

test_that("families without one mean, ARDL fits and R targets are refused, saying why", {
  set.seed(2)
  d <- data.frame(x = rnorm(40))
  d$y <- rpois(40, 2) * rbinom(40, 1, 0.7)
  fz <- quiet(vhmc_glm(y ~ x, data = d, family = zero_inflated_poisson(), chains = 1, iter = 100,
                       seed = 1, progress = FALSE))
  expect_error(emmeans::emmeans(fz, ~ x),
               "zero_inflated_poisson\\(log\\) fit, whose linear predictor is not the link of the response's mean.*\\(zi\\).*posterior_epred")
  ar <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_error(emmeans::ref_grid(ar), "`object` is an ARDL fit, not a fit of vhmc_glm\\(\\)")
  expect_error(emmeans::ref_grid(make_fake_fit()), "not a fit of vhmc_glm\\(\\)")
})
