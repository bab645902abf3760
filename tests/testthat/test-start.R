# Where chains start (R/start.R): from the posterior mode and curvature by default, random
# or the user's values on request, and random with a message where no usable mode exists.

local({
  set.seed(31)
  n <- 300
  x <- rnorm(n)
  dat <- data.frame(x = x, y = rbinom(n, 1, plogis(0.5 + x)))

  test_that("GLMs start from draws of the Laplace approximation at the Newton mode", {
    fit <- vhmc_glm(y ~ x, data = dat, family = binomial(), chains = 3, iter = 600, seed = 3,
                    progress = FALSE)
    expect_identical(fit$start$method, "mode")
    expect_null(fit$start$reason)
    # One Newton search (on chain 1) with analytic Hessians, plus one evaluation per start.
    expect_gt(fit$counts$n_hessian_start[1], 0)
    expect_equal(fit$counts$n_hessian_start[-1], c(0, 0))
    expect_true(all(fit$counts$n_grad_start >= 1))
    expect_equal(fit$counts$n_grad, fit$counts$n_grad_start + fit$counts$n_grad_warmup +
                   fit$counts$n_grad_sampling)
    # Dispersed: different starts, each within a few posterior sd of the mode.
    inits <- do.call(rbind, fit$inits)
    expect_false(any(duplicated(inits)))
    ref <- glm(y ~ x, data = dat, family = binomial())
    z <- sweep(sweep(inits, 2, coef(ref)), 2, sqrt(diag(vcov(ref))), `/`)
    expect_true(all(abs(z) < 6))
    expect_match(paste(capture.output(print(fit)), collapse = "\n"), "start: posterior mode")
  })

  test_that("init = \"random\" and user values skip the mode search", {
    r <- suppressWarnings(vhmc_glm(y ~ x, data = dat, family = binomial(), chains = 2, iter = 400,
                                   seed = 3, init = "random", progress = FALSE))
    expect_identical(r$start$method, "random")
    expect_equal(r$counts$n_grad_start, c(0, 0))
    u <- suppressWarnings(vhmc_glm(y ~ x, data = dat, family = binomial(), chains = 2, iter = 400,
                                   seed = 3, init = c(`(Intercept)` = 0.1, x = 0.2), progress = FALSE))
    expect_identical(u$start$method, "init")
    expect_equal(u$inits[[2]], c(`(Intercept)` = 0.1, x = 0.2))
  })

  test_that("the start is reproducible and does not touch the user's random stream", {
    set.seed(99)
    before <- runif(1)
    set.seed(99)
    a <- suppressWarnings(vhmc_glm(y ~ x, data = dat, family = binomial(), chains = 2, iter = 400,
                                   seed = 5, progress = FALSE))
    expect_identical(runif(1), before)
    b <- suppressWarnings(vhmc_glm(y ~ x, data = dat, family = binomial(), chains = 2, iter = 400,
                                   seed = 5, progress = FALSE))
    expect_identical(a$inits, b$inits)
    expect_identical(unclass(a$draws), unclass(b$draws))
  })
})

test_that("targets in R: L-BFGS per chain, then the difference Hessian", {
  S <- matrix(c(4, 1.8, 1.8, 1), 2)
  P <- solve(S)
  mu <- c(a = 3, b = -1)
  ld <- function(th) -0.5 * sum((th - mu) * (P %*% (th - mu)))
  gr <- function(th) -as.vector(P %*% (th - mu))
  fit <- vhmc_sample(ld, gr, parameters = c("a", "b"), chains = 2, iter = 1000, seed = 7,
                     progress = FALSE)
  expect_identical(fit$start$method, "mode")
  expect_true(all(fit$counts$n_grad_start > 5))  # one search per chain
  expect_equal(fit$counts$n_hessian_start, c(0, 0))
  s <- posterior::summarise_draws(fit$draws, "mean", "mcse_mean")
  expect_true(all(abs(s$mean - mu) < 4 * s$mcse_mean))
  expect_true(all(fit$timing$warmup_iterations < 500))
})

test_that("no usable mode: random starts and a message that says why", {
  # Neal's funnel: its mode sits deep in the neck, where the Laplace approximation is useless.
  ld <- function(th) dnorm(th[1], 0, 3, log = TRUE) + sum(dnorm(th[-1], 0, exp(th[1] / 2), log = TRUE))
  expect_message(
    fit <- suppressWarnings(vhmc_sample(ld, parameters = 4, sampler = nuts(), chains = 1, iter = 200, seed = 1,
                                        progress = FALSE)),
    "Starting the chains from random initial values: .*(does not describe|not finite|Hessian)"
  )
  expect_identical(fit$start$method, "random")
  expect_type(fit$start$reason, "character")
  expect_match(paste(capture.output(print(fit)), collapse = "\n"), "start: random \\(no usable mode\\)")
  # An improper target (flat in one direction): L-BFGS cannot converge.
  flat <- function(th) -0.5 * th[1]^2
  expect_message(
    fit2 <- suppressWarnings(vhmc_sample(flat, function(th) c(-th[1], 0), parameters = 2,
                                         chains = 1, iter = 100, seed = 1, progress = FALSE)),
    "Starting the chains from random initial values"
  )
  expect_identical(fit2$start$method, "random")
})

test_that("samplers that avoid full passes start randomly by default", {
  d <- data.frame(x = rnorm(200))
  d$y <- rbinom(200, 1, plogis(d$x))
  fit <- suppressWarnings(vhmc_glm(y ~ x, data = d, family = binomial(),
                                   sampler = sgld(control_variate = FALSE), chains = 1,
                                   iter = 200, seed = 1, progress = FALSE))
  expect_identical(fit$start$method, "random")
})

test_that("the Newton mode search stops at U's rounding level on a large logistic regression", {
  skip_on_cran()
  # Seed 002's logistic regression at N = 1e5 (d = 50) from this seed's random values: with
  # an absolute tolerance of 1e-14 nats, below the rounding of U ~ 5e4, Newton wandered in
  # the noise for its 200 iterations and 6212 evaluations (21.6 s) before the chains began.
  set.seed(20240)
  n <- 1e5
  X <- matrix(rnorm(n * 49, sd = 0.1), n, 49)
  beta <- runif(50)
  d <- data.frame(y = rbinom(n, 1, plogis(0.1 * beta[1] + drop(X %*% beta[-1]))), X)
  fit <- suppressWarnings(vhmc_glm(y ~ ., data = d, family = "binomial",
                                   prior = normal(0, 10, autoscale = FALSE),
                                   prior_intercept = normal(0, 1, autoscale = FALSE),
                                   chains = 1, iter = 20, warmup = 10, seed = 3001, progress = FALSE))
  expect_equal(fit$start$method, "mode")
  expect_lt(fit$counts$n_hessian_start, 30)
  expect_lt(fit$counts$n_grad_start, 100)
})

test_that("secant_shrink() keeps quadratic directions and shrinks half-walls", {
  expect_equal(vhmc:::secant_shrink(function(t) t^2 / 2, 2), 1)
  expect_equal(vhmc:::secant_shrink(function(t) t^2 / 8, 2), 1)  # flatter: warmup widens it
  # A wall on one side: rise 50 at 2 scales, where the quadratic predicts 2.
  wall <- function(t) if (t > 0) 12.5 * t^2 else t^2 / 2
  expect_equal(vhmc:::secant_shrink(wall, 2), 2 / 50)
  # Outside the domain at 2 and 1 scales: c halves until finite.
  edge <- function(t) if (abs(t) > 0.6) Inf else t^2 / 2
  expect_equal(vhmc:::secant_shrink(edge, 2), 1)
})

test_that("a near-separated rare category: mode start with a regularised Laplace metric", {
  # Two rows of a rare category, both with y = 0, its indicator standardised (as a9a's
  # columns are): the likelihood is flat below the coefficient's mode and a wall above it
  # (slope ~ 80 per unit); the N(0, 10^2) prior keeps the mode finite, and the curvature
  # there predicts draws that fall 74 nats where it predicts 0.8 (the a9a case, in 3
  # dimensions). Before, the chains started from random values with a unit metric.
  set.seed(8)
  n <- 3000
  d <- data.frame(x = rnorm(n), rare = c(1, 1, rep(0, n - 2)))
  d$y <- rbinom(n, 1, plogis(-0.5 + d$x))
  d$y[d$rare == 1] <- 0
  d$rare <- (d$rare - mean(d$rare)) / sd(d$rare)
  expect_message(
    fit <- suppressWarnings(vhmc_glm(y ~ x + rare, data = d, family = binomial(),
                                     prior = normal(0, 10, autoscale = FALSE), chains = 2,
                                     iter = 1000, seed = 4, progress = FALSE)),
    "from the posterior mode with a regularised Laplace metric: .*shrunk in 1 of 3 directions")
  expect_identical(fit$start$method, "mode")
  expect_equal(fit$start$regularised, c(1, 1))
  expect_true(fit$start$metric_regularised)
  # The directional checks are counted: 2 per direction, once for the shared GLM mode.
  expect_gte(fit$counts$n_grad_start[1], 6)
  s <- posterior::summarise_draws(fit$draws)
  expect_lt(max(s$rhat), 1.05)
  expect_gt(min(s$ess_bulk), 100)
  # The category's two rows are stiff: NUTS integrates them by inner steps (split leapfrog).
  for (a in fit$adaptation) {
    expect_identical(a$stiff_rows, 2L)
    expect_gt(a$inner_steps, 10L)
    expect_gt(a$step_size, 0.3)
  }
  # surrogate_hmc()'s NUTS (its exploration, and its sampling after a hand-over) takes the
  # split leapfrog too, and the draws agree with NUTS's within Monte Carlo error. Its chains
  # start from the same regularised draws but explore with the Laplace metric, whose spread
  # along the coefficient's flat side the training points need (measured: min bulk ESS 394
  # of 1,000 draws, R-hat 1.01, the flat side's sd 6.3 against NUTS's 6.1).
  expect_message(
    sur <- suppressWarnings(
      vhmc_glm(y ~ x + rare, data = d, family = binomial(), prior = normal(0, 10, autoscale = FALSE),
               sampler = surrogate_hmc(), chains = 2, iter = 1000, seed = 4, progress = FALSE)),
    "drawn from a regularised Laplace approximation, with the Laplace metric.*shrunk in 1 of 3")
  expect_false(sur$start$metric_regularised)
  for (a in sur$adaptation) expect_identical(a$stiff_rows, 2L)
  # Its surrogate computes the category's rows exactly (surrogate/exact_rows.hpp): the
  # quadratic alone cannot fit their wall, so the row choice keeps them.
  info <- surrogate_info(sur)
  trained <- !info$fallback_before_training %in% TRUE
  expect_true(all(info$exact_rows[trained] >= 2))
  expect_true(all(info$grad_rel_error[trained] < 0.05))
  s_sur <- suppressWarnings(posterior::summarise_draws(sur$draws, "mean", "rhat", "mcse_mean"))
  expect_lt(max(s_sur$rhat), 1.1)
  s_nuts <- posterior::summarise_draws(fit$draws, "mean", "mcse_mean")
  expect_true(all(abs(s_sur$mean - s_nuts$mean) < 4 * sqrt(s_sur$mcse_mean^2 + s_nuts$mcse_mean^2)))
  # Without the category no row is stiff and the leapfrog is the plain one.
  plain <- suppressWarnings(vhmc_glm(y ~ x, data = d, family = binomial(), chains = 1, iter = 200,
                                     seed = 4, progress = FALSE))
  expect_null(plain$adaptation[[1]]$stiff_rows)
})
