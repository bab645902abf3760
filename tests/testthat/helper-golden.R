# Golden draws: fixed-seed fits of every sampler on small models, recorded once
# (tools/golden-draws.R writes tests/testthat/fixtures/golden.rds) and compared bit for bit
# by test-golden-draws.R, so that a restructuring proves it changed no draw. A deliberate
# change of draws re-records the fixture and says so in NEWS.md.

golden_data <- function() {
  set.seed(20261123)
  n <- 200
  x <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("x1", "x2", "x3")))
  d <- data.frame(x)
  d$yb <- rbinom(n, 1, plogis(0.3 + drop(x %*% c(1, -0.5, 0.25))))
  d$yg <- 1 + drop(x %*% c(0.5, -1, 2)) + rnorm(n, sd = 0.7)
  ts_d <- data.frame(y = as.numeric(arima.sim(list(ar = 0.6), 80)), x = rnorm(80))
  list(glm = d, ardl = ts_d)
}

# The samplers as they were when the fixture was recorded: Stan's warmup adaptation and
# exploration length, and (below) random initial values and fixed warmups, so that these
# fits keep proving that restructurings change no draw. The defaults that replaced them in
# 0.3.0 (mode start, draw/gradient adaptation, automatic warmup) have their own tests.
golden_samplers <- function() {
  stan <- "stan"
  list(nuts = nuts(adaptation = stan), nuts_dense = nuts(metric = "dense", adaptation = stan),
       hmc = hmc(adaptation = stan), surrogate = surrogate_hmc(explore = 100, adaptation = stan),
       surrogate_adaptive = surrogate_hmc(adaptive = TRUE, explore = 100, adaptation = stan),
       variational = variational_hmc(), sghmc = sghmc(), sgld = sgld())
}

# The parts of a fit that the sampler determines (not its timing).
golden_parts <- function(fit) {
  report <- if (!is.null(fit$surrogate)) surrogate_info(fit) else
    if (!is.null(fit$variational)) variational_info(fit) else if (!is.null(fit$sg)) sg_info(fit)
  timing <- c("train_seconds", "update_seconds", "mode_seconds", "explore_seconds", "tuning_seconds",
              "seconds_per_gradient", "seconds_per_surrogate_gradient", "cost_ratio")
  counts <- setdiff(names(fit$counts), c("chain", "n_grad_start", "n_hessian_start"))
  list(draws = unclass(fit$draws), diagnostics = fit$diagnostics,
       step_size = vapply(fit$adaptation, function(a) a$step_size %||% NA_real_, numeric(1)),
       counts = fit$counts[counts], inits = fit$inits,
       report = if (!is.null(report)) report[setdiff(names(report), timing)])
}

golden_fits <- function() {
  dat <- golden_data()
  run <- function(expr) suppressWarnings(suppressMessages(golden_parts(expr)))
  # Minibatch samplers start as they did (at the mode with control variates) with init = NULL.
  glm_fit <- function(formula, family, sampler) {
    init <- if (inherits(sampler, c("vhmc_sghmc", "vhmc_sgld"))) NULL else "random"
    vhmc_glm(formula, data = dat$glm, family = family, sampler = sampler, chains = 2, iter = 300,
             warmup = 150, seed = 11, init = init, progress = FALSE)
  }
  out <- list()
  for (nm in names(golden_samplers())) {
    s <- golden_samplers()[[nm]]
    out[[paste0("logistic_", nm)]] <- run(glm_fit(yb ~ x1 + x2 + x3, binomial(), s))
    out[[paste0("gaussian_", nm)]] <- run(glm_fit(yg ~ x1 + x2 + x3, gaussian(), s))
  }
  out$ardl_nuts <- run(vhmc_ardl(y ~ x, data = dat$ardl, p = 2, q = 1, chains = 2, iter = 300,
                                 warmup = 150, sampler = nuts(adaptation = "stan"), init = "random",
                                 seed = 12, progress = FALSE))
  out$ardl_fixed_sgld <- run(vhmc_ardl(y ~ x, data = dat$ardl, p = 1, q = 0, noise_precision = 1,
                                       sampler = sgld(), chains = 2, iter = 300, warmup = 150,
                                       seed = 13, progress = FALSE))
  P <- solve(matrix(c(1, 0.8, 0.8, 1), 2))
  ld <- function(th) -0.5 * sum(th * (P %*% th))
  gr <- function(th) -as.vector(P %*% th)
  extra <- list(hmc_fixed = hmc(steps = 5, step_size = 0.3, metric = "unit", adaptation = "stan"),
                surrogate_paper = surrogate_hmc(steps = 6, step_size = 0.25, metric = "unit",
                                                explore = 100, adaptation = "stan"))
  samplers <- c(golden_samplers()[c("nuts", "hmc", "surrogate", "variational")], extra)
  for (nm in names(samplers)) {
    out[[paste0("target_", nm)]] <- run(vhmc_sample(ld, gr, init = c(a = 0.5, b = -0.5),
                                                    sampler = samplers[[nm]], chains = 2,
                                                    iter = 300, warmup = 150, seed = 14,
                                                    progress = FALSE))
  }
  out$target_nuts_thin <- run(vhmc_sample(ld, gr, init = c(a = 0.5, b = -0.5), chains = 2,
                                          iter = 400, warmup = 100, thin = 3, seed = 15,
                                          sampler = nuts(adaptation = "stan"), progress = FALSE))
  out
}
