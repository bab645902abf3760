# Every setting a sampler's config names in C++ (its fields()) has one default: what R's
# sampler_config() settles must equal the core's member initialiser, except for the settings
# that depend on the run or on other arguments, listed here with the reason.

run_dependent <- list(
  # explore: warmup minus the tuning's share; explore_auto, select_hidden and fallback: from
  # explore, hidden, adaptive, train_on, steps, step_size and riemann (sampler_config()).
  vhmc_surrogate_hmc = c("explore", "explore_auto", "select_hidden", "fallback"),
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
  samplers <- list(nuts(), hmc(), surrogate_hmc(), variational_hmc(), sghmc(), sgld(), rwm(), rmhmc())
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
