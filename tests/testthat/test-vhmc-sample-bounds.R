# vhmc_sample() with declared bounds and priors: exact posteriors on the natural scale, the
# transforms' gradients, initial values, reporting, and the errors of bad declarations.

binom_poisson <- list(
  log_density = function(th) dbinom(13, 20, th[["p"]], log = TRUE) + sum(dpois(c(3, 5, 4), th[["lambda"]], log = TRUE)),
  gradient = function(th) c(p = 13 / th[["p"]] - 7 / (1 - th[["p"]]), lambda = 12 / th[["lambda"]] - 3)
)

test_that("bounds and priors give the conjugate posteriors (beta-binomial, gamma-Poisson)", {
  # p ~ U(0, 1), 13 of 20: Beta(14, 8); lambda ~ Exponential(0.1), counts 3, 5, 4: Gamma(13, 3.1)
  fit <- quiet_sample(binom_poisson, lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                      prior = list(lambda = exponential(0.1)), chains = 2, iter = 2000, seed = 3)
  expect_identical(posterior::variables(fit$draws), c("p", "lambda"))
  expect_moments(fit, c(14 / 22, 13 / 3.1), c(sqrt(14 * 8 / (22^2 * 23)), sqrt(13) / 3.1))
  expect_identical(fit$model$parameters$sampled_as, c("logit(p)", "log(lambda)"))
  expect_identical(names(fit$adaptation[[1]]$inv_metric), c("logit(p)", "log(lambda)"))
  # The same posterior from the priors' supports alone (beta and gamma bound their parameters).
  fit2 <- quiet_sample(binom_poisson, prior = list(p = beta_prior(1, 1), lambda = gamma_prior(1, 0.1)),
                       chains = 2, iter = 2000, seed = 4)
  expect_identical(fit2$model$parameters$lower, c(0, 0))
  expect_identical(fit2$model$parameters$upper, c(1, Inf))
  expect_moments(fit2, c(14 / 22, 13 / 3.1), c(sqrt(14 * 8 / (22^2 * 23)), sqrt(13) / 3.1))
})

test_that("a prior truncated to an interval and to an upper bound, with finite differences", {
  # x ~ N(1, 1) on (0, 3) and y ~ N(0, 1) on (-Inf, 0.5), no likelihood.
  fit <- quiet_sample(list(log_density = function(th) 0), lower = c(x = 0), upper = c(x = 3, y = 0.5),
                      prior = list(x = normal(1, 1), y = normal(0, 1)), init = c(x = 1, y = 0),
                      chains = 2, iter = 3000, seed = 5)
  tn <- function(mu, a, b) {
    al <- a - mu; be <- b - mu; Z <- pnorm(be) - pnorm(al)
    m <- mu + (dnorm(al) - dnorm(be)) / Z
    v <- 1 + (ifelse(is.finite(al), al * dnorm(al), 0) - be * dnorm(be)) / Z - ((dnorm(al) - dnorm(be)) / Z)^2
    c(m, sqrt(v))
  }
  ex <- rbind(tn(1, 0, 3), tn(0, -Inf, 0.5))
  expect_moments(fit, ex[, 1], ex[, 2])
  expect_identical(fit$model$parameters$sampled_as, c("logit((x - 0) / 3)", "log(0.5 - y)"))
  d <- posterior::as_draws_matrix(fit)
  expect_true(all(d[, "x"] > 0 & d[, "x"] < 3 & d[, "y"] < 0.5))
})

test_that("the unconstrained log density and gradient agree with their finite differences", {
  spec <- declared_parameters(c("a", "b", "c", "d"), lower = c(a = 0, c = -1), upper = c(c = 2, d = 1),
                              prior = list(a = gamma_prior(2, 1), b = student_t(3, 0, 2), c = normal(0, 1)))
  ld <- function(th) -sum((th - c(1, 2, 0.5, -1))^2) / 2 + th[["a"]] * th[["b"]]
  gr <- function(th) -(th - c(1, 2, 0.5, -1)) + c(th[["b"]], th[["a"]], 0, 0)
  f <- bounded_functions(ld, gr, spec)
  t <- c(0.4, -0.3, 1.2, -0.8)
  fd <- vapply(1:4, function(j) {
    h <- replace(numeric(4), j, 1e-6)
    (f$log_density(t + h) - f$log_density(t - h)) / 2e-6
  }, numeric(1))
  expect_equal(unname(f$gradient(t)), fd, tolerance = 1e-6)
})

test_that("initial values are on the natural scale and must lie inside the bounds", {
  run <- function(...) quiet_sample(binom_poisson, lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                                    chains = 2, iter = 200, seed = 1, ...)
  fit <- run(init = c(p = 0.3, lambda = 2))
  expect_equal(fit$inits[[1]], c(p = 0.3, lambda = 2))
  expect_error(run(init = c(p = 1, lambda = 2)), "chain 1 has p = 1, not strictly inside its bounds \\(0, 1\\)")
  expect_error(run(init = list(c(p = 0.5, lambda = 1), c(p = 0.5, lambda = -1))), "chain 2 has lambda = -1")
  # Names from the bounds when neither init nor parameters give them; starts drawn inside.
  fit <- run(init = "random")
  expect_true(all(vapply(fit$inits, function(x) x[["p"]] > 0 && x[["p"]] < 1 && x[["lambda"]] > 0, TRUE)))
})

test_that("unconstrained = TRUE also reports the sampler's coordinates", {
  fit <- quiet_sample(binom_poisson, lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                      unconstrained = TRUE, chains = 1, iter = 300, seed = 2)
  d <- posterior::as_draws_matrix(fit)
  expect_identical(colnames(d), c("p", "lambda", "logit(p)", "log(lambda)"))
  expect_equal(as.numeric(d[, "logit(p)"]), qlogis(as.numeric(d[, "p"])), tolerance = 1e-10)
  expect_equal(as.numeric(d[, "log(lambda)"]), log(as.numeric(d[, "lambda"])), tolerance = 1e-12)
})

test_that("bounded targets run on other samplers and give the same draws on 2 cores", {
  args <- list(lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf), chains = 2, iter = 400, seed = 9)
  one <- do.call(quiet_sample, c(list(binom_poisson, sampler = rwm()), args))
  two <- do.call(quiet_sample, c(list(binom_poisson, sampler = rwm(), cores = 2), args))
  expect_identical(posterior::as_draws_array(one), posterior::as_draws_array(two))
  expect_true(all(posterior::as_draws_matrix(one)[, "p"] < 1))
})

test_that("bad declarations give errors naming the argument and the fix", {
  ld <- binom_poisson$log_density
  s <- function(..., parameters = c("p", "lambda")) {
    suppressMessages(vhmc_sample(ld, chains = 1, iter = 10, progress = FALSE, parameters = parameters, ...))
  }
  expect_error(s(lower = c(p = 0, mu = 0)), "`lower` names `mu`, which is not a parameter")
  expect_error(s(lower = c(p = 0, 1)), "`lower` names some bounds and not others")
  expect_error(s(lower = c(0, 0, 0)), "`lower` has length 3, but there are 2")
  expect_error(s(lower = c(p = 0.5), upper = c(p = 0.2, lambda = Inf)), "`upper` of `p` \\(0.2\\) must be above")
  expect_error(s(lower = c(p = -1, lambda = 0), prior = list(p = beta_prior(2, 2))),
               "`lower` of `p` is -1, outside \\(0, 1\\), where its prior beta_prior")
  expect_error(s(upper = c(p = 1, lambda = 10), prior = list(q = normal())), "`prior` names `q`")
  expect_error(s(upper = c(p = 1, lambda = 10), prior = list(p = normal(0, 1, autoscale = TRUE))),
               "`prior\\$p` has autoscale = TRUE")
  expect_error(s(upper = c(p = 1, lambda = 10), prior = list(p = normal(c(0, 1), 1))),
               "`prior\\$p` must have a single location")
  expect_error(s(upper = c(p = 1, lambda = 10), prior = "normal"), "`prior` must be a prior")
  expect_error(s(upper = c(p = 1, lambda = 10), prior = list(p = hs())), "`prior\\$p` is a horseshoe prior")
  expect_error(s(lower = "a", parameters = "p"), "`lower` must be a numeric vector")
  expect_error(s(init = NULL, prior = normal(), parameters = NULL), "neither `parameters` nor named `lower`/`upper`")
  expect_error(suppressMessages(vhmc_sample(ld, init = c(p = 0.5, lambda = 1), lower = 0, sampler = rmhmc(),
                                            metric_tensor = function(th) NULL, progress = FALSE)),
               "`metric_tensor` cannot be combined with `lower`")
})

test_that("model runs are counted: the start, each chain, and in print()", {
  calls <- new.env()
  calls$n <- 0
  ld <- function(th) {
    calls$n <- calls$n + 1
    binom_poisson$log_density(th)
  }
  fit <- quiet_sample(list(log_density = ld, gradient = binom_poisson$gradient), lower = c(p = 0, lambda = 0),
                      upper = c(p = 1, lambda = Inf), chains = 2, iter = 300, seed = 6)
  runs <- fit$counts$log_density_calls
  expect_length(runs, 2L)
  expect_true(all(runs > 0 & fit$counts$gradient_calls > 0))
  # Every call of the user's log density is counted once (sequential chains, this process).
  expect_equal(sum(runs) + fit$start$model_runs[["log_density"]], calls$n)
  # ... and split by phase: the start, then each chain's warmup phases and sampling.
  by_phase <- fit$model_runs
  expect_equal(sum(by_phase$log_density), calls$n)
  expect_equal(sum(by_phase$gradient), sum(fit$counts$gradient_calls) + fit$start$model_runs[["gradient"]])
  expect_identical(by_phase$phase[1], "start")
  expect_identical(unique(by_phase$phase[by_phase$chain %in% 1]), c("warmup", "sampling"))
  expect_equal(tapply(by_phase$log_density, by_phase$chain, sum)[["2"]], runs[2])
  expect_output(print(summary(fit)), "Model runs \\(log_density \\+ gradient calls\\): start [0-9,]+ \\+ [0-9,]+; warmup")
  # A finite-difference gradient is 2 d log-density calls and no gradient call.
  fd <- quiet_sample(binom_poisson["log_density"], lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                     chains = 1, iter = 200, seed = 6)
  expect_equal(fd$counts$gradient_calls, 0)
  expect_gt(fd$counts$log_density_calls, 4 * fd$counts$n_grad_sampling)
})

test_that("a budget of model runs stops the chains, keeps their draws, and says so", {
  ld <- function(th) dbinom(13, 20, th[["p"]], log = TRUE) + sum(dpois(c(3, 5, 4), th[["lambda"]], log = TRUE))
  run <- function(...) suppressMessages(vhmc_sample(ld, lower = c(p = 0, lambda = 0), upper = c(p = 1, lambda = Inf),
                                                    seed = 2, progress = FALSE, ...))
  caught <- NULL
  fit <- withCallingHandlers(run(sampler = demc(), iter = 2000, max_runs = 6000),
                             warning = function(w) {
                               if (inherits(w, "vhmc_budget")) caught <<- conditionMessage(w)
                               invokeRestart("muffleWarning")
                             })
  expect_match(caught, "The budget of 6,000 model runs was reached: each chain keeps [0-9]+ of its 1000 draws")
  total <- sum(fit$model_runs$log_density)
  expect_lte(total, 6000 + 4)  # the population stops after the iteration that reaches it
  expect_gt(total, 6000 - 4)
  n <- posterior::niterations(fit$draws)
  expect_true(n > 0 && n < 1000)
  expect_identical(fit$args$iter, fit$args$warmup + n)
  # NUTS with finite differences: each chain stops at its share.
  fit2 <- suppressWarnings(run(init = c(p = 0.5, lambda = 4), sampler = nuts(), chains = 2, iter = 1000, max_runs = 20000))
  expect_lt(posterior::niterations(fit2$draws), 500)
  expect_lte(max(tapply(fit2$model_runs$log_density, fit2$model_runs$chain, sum)), 10000 + 5 * 2^10)
  expect_error(run(iter = 1000, max_runs = 50), "`max_runs` \\(50\\) was spent by the start")
  expect_error(suppressWarnings(run(init = c(p = 0.5, lambda = 4), sampler = nuts(), iter = 1000, max_runs = 500)),
               "spent before sampling began")
  expect_error(run(max_runs = 0), "max_runs")
})
