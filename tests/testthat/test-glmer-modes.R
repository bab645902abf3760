# Samplers that start from the posterior mode on multilevel models whose effects are
# integrated out (issue 42, item 2): the gaussian family's marginal posterior of the fixed
# effects, sigma and the covariance has a mode (the core's capabilities say so), so
# surrogate_hmc() and variational_hmc() take it; the effects are drawn afterwards from their
# conditional, as for nuts().

test_that("surrogate_hmc() and variational_hmc() sample a gaussian model with its effects integrated out", {
  skip_on_cran()
  skip_if_not_installed("lme4")
  data(sleepstudy, package = "lme4")
  fit_with <- function(sampler) {
    vhmc_glm(Reaction ~ Days + (1 | Subject), data = sleepstudy, sampler = sampler, seed = 1, progress = FALSE)
  }
  moments <- function(fit) posterior::summarise_draws(as_draws_df(fit), "mean", "sd", "mcse_mean")
  ref <- moments(fit_with(nuts()))
  sur <- fit_with(surrogate_hmc(fallback = FALSE))
  expect_identical(sur$model$glmer$likelihood, "marginal")
  s <- moments(sur)[match(ref$variable, moments(sur)$variable), ]
  # exact: the means agree within the Monte Carlo error of both
  expect_true(all(abs(s$mean - ref$mean) < 5 * sqrt(s$mcse_mean^2 + ref$mcse_mean^2)))
  # approximate (variational HMC): within 0.2 posterior sd, sds within 20%
  v <- suppressWarnings(moments(fit_with(variational_hmc())))
  v <- v[match(ref$variable, v$variable), ]
  expect_true(all(abs(v$mean - ref$mean) < 0.2 * ref$sd + 4 * sqrt(v$mcse_mean^2 + ref$mcse_mean^2)))
  expect_true(all(v$sd / ref$sd > 0.8 & v$sd / ref$sd < 1.25))
})
