# parameterization = "auto": centred where each level's rows say more about its effect than
# the prior (information ratio kappa above 1), non-centred where they say less, and under
# prior_PD. The cells are those of inst/bench/parameterization_grid.R, where the chosen form
# mixed best (min bulk ESS per gradient); the choice is made before any chain runs.

grid_data <- function(family, n_per, sd, seed = 1, J = 50) {
  set.seed(seed)
  g <- rep(seq_len(J), each = n_per)
  x <- rnorm(length(g))
  eta <- 0.3 + 0.5 * x + rnorm(J, 0, sd)[g]
  y <- if (family == "binomial") rbinom(length(g), 1, plogis(eta)) else rpois(length(g), exp(eta))
  data.frame(y = y, x = x, g = factor(g))
}

auto_choice <- function(d, family, ...) {
  fit <- suppressWarnings(vhmc_glm(y ~ x + (1 | g), data = d, family = family, chains = 2, iter = 100,
                                   seed = 1, progress = FALSE, ...))
  list(centred = fit$model$glmer$centred, kappa = fit$model$glmer$information_ratio, fit = fit)
}

test_that("weak data per level give the non-centred form, strong data the centred one", {
  weak <- auto_choice(grid_data("binomial", 2, 0.25), binomial())
  expect_false(weak$centred)
  expect_lt(weak$kappa, 1)
  weak_sd <- auto_choice(grid_data("binomial", 2, 1), binomial())
  expect_false(weak_sd$centred)
  strong <- auto_choice(grid_data("poisson", 32, 1), poisson())
  expect_true(strong$centred)
  expect_gt(strong$kappa, 1)
  expect_output(print(strong$fit), "centred \\(information ratio [0-9.]+\\)")
})

test_that("prior_PD = TRUE samples the effects non-centred", {
  pd <- auto_choice(grid_data("poisson", 32, 1), poisson(), prior_PD = TRUE)
  expect_false(pd$centred)
  expect_identical(pd$kappa, 0)
})
