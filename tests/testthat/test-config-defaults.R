# Every setting a sampler's config names in C++ (its fields()) has one default: what R's
# sampler_config() settles must equal the core's member initialiser, except for the settings
# that depend on the run or on other arguments, listed here with the reason.

run_dependent <- list(
  # explore: warmup minus the tuning's share; explore_auto, select_hidden and fallback: from
  # explore, hidden, adaptive, train_on, steps, step_size and riemann (sampler_config()).
  vhmc_surrogate_hmc = c("explore", "explore_auto", "select_hidden", "fallback"),
  vhmc_surrogate_rmhmc = c("explore", "explore_auto", "select_hidden"),
  # train_until: the warmup; schedule: train_until / 10.
  vhmc_variational_hmc = c("train_until", "schedule"),
  # batch_size: from the number of observations.
  vhmc_sghmc = "batch_size", vhmc_sgld = "batch_size"
)

settled_config <- function(sampler) {
  set.seed(1)
  d <- data.frame(x = rnorm(200))
  d$y <- rbinom(200, 1, plogis(d$x))
  fit <- suppressWarnings(suppressMessages(
    vhmc_glm(y ~ x, data = d, family = binomial(), sampler = sampler, chains = 1, iter = 400,
             seed = 1, progress = FALSE)))
  fit$config
}

test_that("R's settled defaults agree with the core's member initialisers", {
  skip_on_cran()
  samplers <- list(nuts(), hmc(), surrogate_hmc(), surrogate_hmc(riemann = TRUE), variational_hmc(), sghmc(),
                   sgld(), rwm(), rmhmc())
  for (s in samplers) {
    cfg <- settled_config(s)
    cls <- class(cfg)[1]
    core <- vhmc:::vhmc_config_defaults(cls)
    # Every field the core reads is settled in R (fill_config() requires it).
    expect_true(all(names(core) %in% names(cfg)), info = cls)
    for (k in setdiff(names(core), run_dependent[[cls]] %||% character())) {
      expect_equal(unname(as.vector(cfg[[k]])), unname(as.vector(core[[k]])), info = paste(cls, k))
    }
  }
  expect_error(vhmc:::vhmc_config_defaults("vhmc_none"), "no sampler is registered for class 'vhmc_none'")
})

test_that("the config the core reads starts from the core's defaults; R settles only the rest", {
  skip_on_cran()
  core <- vhmc:::vhmc_config_defaults("vhmc_nuts")
  # Settings R never names come from the core (one source): NUTS's divergence threshold,
  # dual averaging's constants, Stan's windows, the low-rank metric's rank.
  for (k in c("max_delta_H", "adapt_gamma", "adapt_t0", "adapt_kappa", "init_buffer", "term_buffer",
              "base_window", "max_rank", "start_step_size", "init_accept")) {
    expect_true(k %in% names(core), info = k)
  }
  cfg <- vhmc:::core_config(nuts(adapt_delta = 0.9), adapt_delta = 0.9, step_size = NULL)
  expect_identical(cfg$adapt_delta, 0.9)
  expect_null(cfg$step_size)                       # NULL: the core's default (none)
  expect_identical(cfg$max_delta_H, core$max_delta_H)
  expect_identical(names(cfg), names(core))
  expect_s3_class(cfg, "vhmc_nuts")
  # One rule for the number of random bases of both surrogates.
  sur <- vhmc:::vhmc_config_defaults("vhmc_surrogate_hmc")
  var <- vhmc:::vhmc_config_defaults("vhmc_variational_hmc")
  for (k in c("hidden_per_dim", "min_hidden", "max_hidden")) expect_identical(sur[[k]], var[[k]], info = k)
  expect_identical(vhmc:::core_default("vhmc_surrogate_hmc", "tune"), sur$tune)
})

test_that("surrogate_hmc(riemann = TRUE) runs the core's RNS-RMHMC sampler, a class of its own", {
  skip_on_cran()
  cfg <- settled_config(surrogate_hmc(riemann = TRUE, riemann_metric = "diagonal", step_size = 0.3))
  expect_s3_class(cfg, "vhmc_surrogate_rmhmc")
  core <- vhmc:::vhmc_config_defaults("vhmc_surrogate_rmhmc")
  expect_identical(names(cfg), names(core))
  expect_identical(cfg$riemann_step_size, 0.3)
  expect_false(cfg$riemann_dense)
  expect_null(cfg$step_size)  # the exploration adapts its own
  # Each dynamics has its own settings: none of surrogate HMC's here, none of RNS-RMHMC's there.
  hmc <- vhmc:::vhmc_config_defaults("vhmc_surrogate_hmc")
  expect_false(any(c("fallback", "adaptive", "max_steps") %in% names(core)))
  expect_false(any(c("riemann_step_size", "riemann_dense", "fixed_point_tol") %in% names(hmc)))
  expect_identical(core$steps, vhmc:::vhmc_config_defaults("vhmc_rmhmc")$steps)
  # The user's sampler object is unchanged.
  expect_s3_class(surrogate_hmc(riemann = TRUE), "vhmc_surrogate_hmc")
})
