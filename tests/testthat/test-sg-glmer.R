# Stochastic-gradient samplers on multilevel GLMs (issue 42, item 2): minibatches of rows with
# each level's likelihood terms scaled like every other coordinate's (the core's unbiasedness
# is exact in the Catch2 tests, tests/cpp/test_glm_groups.cpp); here the fits against NUTS.

sg_glmer_data <- local({
  set.seed(11)
  J <- 40
  n <- 25
  g <- factor(rep(seq_len(J), each = n))
  x <- rnorm(J * n)
  b <- rnorm(J, 0, 0.8)
  data.frame(y = rbinom(J * n, 1, plogis(-0.3 + 0.7 * x + b[g])), x = x, g = g)
})

sg_glmer_fit <- function(sampler, chains = 4, ...) {
  suppressWarnings(vhmc_glm(y ~ x + (1 | g), data = sg_glmer_data, family = binomial(), sampler = sampler,
                            chains = chains, seed = 7, progress = FALSE, ...))
}

test_that("sghmc() and sgld() sample a multilevel logistic model as NUTS does (issue 42, item 2)", {
  skip_on_cran()
  ref <- posterior::summarise_draws(as_draws_df(sg_glmer_fit(nuts())), "mean", "sd", "mcse_mean")
  for (s in list(sghmc(), sgld())) {
    fit <- sg_glmer_fit(s)
    expect_false(fit$sampler$control_variate)  # NULL settles to FALSE without a mode
    expect_identical(fit$model$glmer$likelihood, "rows")
    sg <- posterior::summarise_draws(as_draws_df(fit), "mean", "sd", "mcse_mean")
    sg <- sg[match(ref$variable, sg$variable), ]
    # SG draws carry a step-size bias (no Metropolis correction), about 10% of the variance by
    # the defaults' design: 0.15 sd on top of the Monte Carlo error of both.
    allowed <- 0.15 * ref$sd + 4 * sqrt(ref$mcse_mean^2 + sg$mcse_mean^2)
    expect_true(all(abs(sg$mean - ref$mean) <= allowed), label = sampler_name(s))
    expect_true(all(sg$sd / ref$sd > 0.8 & sg$sd / ref$sd < 1.25), label = sampler_name(s))
  }
})

test_that("a minibatch sampler chooses each term's form as NUTS does, and keeps the effects sampled", {
  skip_on_cran()
  sg <- sg_glmer_fit(sgld(), chains = 1, iter = 100)
  expect_identical(sg$model$glmer$centred, sg_glmer_fit(nuts(), chains = 1, iter = 100)$model$glmer$centred)
  set.seed(3)
  d <- data.frame(g = factor(rep(1:8, each = 30)), x = rnorm(240))
  d$y <- 1 + 0.5 * d$x + rnorm(8, 0, 2)[d$g] + rnorm(240, 0, 0.5)
  fit <- suppressWarnings(vhmc_glm(y ~ x + (1 | g), data = d, sampler = sgld(), chains = 1, iter = 200,
                                   seed = 1, progress = FALSE))
  # nuts() would integrate this gaussian term out; minibatches need the effects sampled
  expect_false(fit$model$glmer$marginal)
  expect_true(isTRUE(fit$model$glmer$centred))  # 30 rows of sd 0.5 against a group sd near 2
  expect_error(vhmc_glm(y ~ x + (1 | g), data = d, sampler = sgld(), parameterization = "marginal", chains = 1,
                        iter = 20, seed = 1, progress = FALSE),
               "the sampler takes minibatches of rows")
})

test_that("control_variate = TRUE on a multilevel model anchors at the start's mode", {
  skip_on_cran()
  fit <- sg_glmer_fit(sghmc(control_variate = TRUE), chains = 2, iter = 200)
  expect_true(fit$sampler$control_variate)
  # every chain starts at the anchor (the start's own points are jittered apart)
  expect_identical(fit$inits[[1]], fit$inits[[2]])
  expect_true(all(is.finite(as.matrix(fit))))
  expect_output(print(fit), "SGHMC-CV")
  expect_error(vhmc_glm(y ~ x + (1 | g), data = sg_glmer_data, family = binomial(),
                        sampler = sghmc(control_variate = TRUE), init = "random", chains = 1, iter = 20,
                        seed = 1, progress = FALSE),
               "has no mode, and the start found no point to anchor at")
})

test_that("a multilevel fit's convergence warnings name the sampler that mixes there", {
  skip_on_cran()
  run <- function(sampler) {
    warns <- character()
    withCallingHandlers(vhmc_glm(y ~ x + (1 | g), data = sg_glmer_data, family = binomial(), sampler = sampler,
                                 chains = 2, iter = 200, seed = 7, progress = FALSE),
                        warning = function(w) {
                          warns <<- c(warns, conditionMessage(w))
                          invokeRestart("muffleWarning")
                        })
    warns[grepl("^R-hat|^Bulk", warns)]
  }
  rwm_warns <- run(rwm())
  expect_gt(length(rwm_warns), 0L)
  expect_true(all(grepl("a random walk does not mix on a multilevel posterior of more than a few parameters: use nuts()",
                        rwm_warns, fixed = TRUE)))
  expect_true(all(grepl("try parameterization = ", rwm_warns, fixed = TRUE)))
  sg_warns <- run(sgld(updates = 1))
  expect_gt(length(sg_warns), 0L)
  expect_true(all(grepl("the diagonal metric of sgld() follows the ridge of fixed and group effects slowly",
                        sg_warns, fixed = TRUE)))
})
