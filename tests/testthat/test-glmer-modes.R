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

# With the effects sampled the joint posterior has no mode, but where each level's rows
# outweigh its prior the centred form has a local one, with a Gaussian near it: the start
# moves there from the non-centred mode (R/glmer-anchor.R), and surrogate_hmc() and
# variational_hmc() start, standardise and (the surrogate's quadratic base) train from it.
strong_levels_data <- function(n = 4000, J = 8, seed = 3) {
  set.seed(seed)
  g <- sample(J, n, TRUE)
  d <- data.frame(x = rnorm(n), z = rnorm(n), g = factor(g))
  d$y <- rbinom(n, 1, plogis(-0.3 + 0.6 * d$x - 0.4 * d$z + rnorm(J, 0, 0.6)[g]))
  d
}

test_that("surrogate_hmc() and variational_hmc() sample sampled group effects from the local mode (issue 42, items 2 and 6)", {
  skip_on_cran()
  d <- strong_levels_data()
  fit_with <- function(sampler) {
    vhmc_glm(y ~ x + z + (1 | g), data = d, family = binomial(), sampler = sampler, seed = 1, progress = FALSE)
  }
  moments <- function(fit) posterior::summarise_draws(as_draws_df(fit), "mean", "sd", "mcse_mean")
  ref <- moments(fit_with(nuts()))
  sur <- fit_with(surrogate_hmc(fallback = FALSE))
  expect_true(sur$model$glmer$centred)
  expect_identical(sur$start$method, "mode")
  expect_true(all(sur$counts$n_grad_sampling == 0))
  s <- moments(sur)[match(ref$variable, moments(sur)$variable), ]
  # exact: the means agree within the Monte Carlo error of both
  z <- abs(s$mean - ref$mean) / sqrt(s$mcse_mean^2 + ref$mcse_mean^2)
  expect_true(all(z < 5), info = paste(round(z, 2), collapse = " "))
  # approximate (variational HMC): within 0.2 posterior sd, sds within 20%
  v <- suppressWarnings(moments(fit_with(variational_hmc())))
  v <- v[match(ref$variable, v$variable), ]
  expect_true(all(abs(v$mean - ref$mean) < 0.2 * ref$sd + 4 * sqrt(v$mcse_mean^2 + ref$mcse_mean^2)))
  expect_true(all(v$sd / ref$sd > 0.8 & v$sd / ref$sd < 1.25))
})

test_that("without a usable local mode the surrogate starts near the non-centred mode, or is refused with the fix", {
  skip_on_cran()
  set.seed(2)
  g <- rep(1:20, each = 15)
  d <- data.frame(g = factor(g), x = rnorm(300))
  d$y <- rbinom(300, 1, plogis(0.2 + 0.5 * d$x + rnorm(20, 0, 0.8)[g]))
  # few rows a level: the centred form has no local mode (where its information ratio chose
  # it), and the non-centred posterior's mode may be far from Gaussian (a funnel's neck)
  said <- character()
  fit <- withCallingHandlers(
    suppressWarnings(vhmc_glm(y ~ x + (1 | g), data = d, family = binomial(), sampler = surrogate_hmc(),
                              chains = 2, iter = 600, seed = 1, progress = FALSE)),
    message = function(m) {
      said <<- c(said, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_true(any(grepl("the centred form has no local posterior mode here|the Gaussian at the posterior mode does not describe", said)))
  expect_false(fit$model$glmer$centred)
  expect_true(all(is.finite(as.matrix(fit))))
  # variational HMC's uncorrected draws left the posterior on non-centred effects: refused
  # before the non-centred form's search, so no message announces that form first
  said <- character()
  refusal <- tryCatch(withCallingHandlers(
    vhmc_glm(y ~ x + (1 | g), data = d, family = binomial(), sampler = variational_hmc(),
             chains = 2, iter = 600, seed = 1, progress = FALSE),
    message = function(m) {
      said <<- c(said, conditionMessage(m))
      invokeRestart("muffleMessage")
    }), error = conditionMessage)
  expect_match(refusal, "is variational_hmc\\(\\), whose draws .* sampled non-centred .*Use surrogate_hmc\\(\\) .* or nuts\\(\\)\\.")
  expect_false(any(grepl("sampled non-centred, whose posterior has one", said)))
  # nuts() keeps the non-centred start there, and the failed search counts in the start's cost
  quick <- function(form) {
    suppressWarnings(vhmc_glm(y ~ x + (1 | g), data = d, family = binomial(), parameterization = form,
                              chains = 2, iter = 200, seed = 1, progress = FALSE))
  }
  centred <- quick("centered")
  expect_gt(sum(centred$start$evaluations), sum(quick("noncentered")$start$evaluations))
  expect_identical(centred$start$method, "mode")
  # too many parameters for a dense anchor: refused before the start
  many <- data.frame(g = factor(rep(1:2100, each = 2)), x = rnorm(4200))
  many$y <- rbinom(4200, 1, 0.5)
  expect_error(vhmc_glm(y ~ x + (1 | g), data = many, family = binomial(), sampler = variational_hmc(), progress = FALSE),
               "samples 2103 parameters .*Use nuts\\(\\), whose memory stays linear")
  # centred by request: the optimiser slides into the funnel, no local mode; the message
  # names the fix, not a flat GLM's advice about proper priors
  refusal <- tryCatch(vhmc_glm(y ~ x + (1 | g), data = d, family = binomial(), sampler = surrogate_hmc(),
                               parameterization = "centered", progress = FALSE), error = conditionMessage)
  expect_match(refusal, "this multilevel model's sampled posterior has none: .*Use parameterization = \"auto\", or nuts\\(\\)")
  expect_no_match(refusal, "proper prior")
})

test_that("the anchor's Hessian differences a term's levels together, exactly where they share nothing", {
  # A quadratic U with the structure of a multilevel posterior: two shared parameters and 4
  # levels x 2 effects, the effects coupled within a level and with the shared parameters,
  # never across levels. Central differences of its gradient are exact up to rounding.
  set.seed(3)
  d <- 10L
  lev <- matrix(2L + seq_len(8L), nrow = 2L)
  H <- matrix(0, d, d)
  H[1:2, ] <- stats::rnorm(2 * d)
  H <- H + t(H)
  for (j in 1:4) H[lev[, j], lev[, j]] <- crossprod(matrix(stats::rnorm(4), 2))
  H <- H + diag(d) * 20
  calls <- 0
  G <- function(th) {
    calls <<- calls + 1
    drop(H %*% th)
  }
  th <- stats::rnorm(d)
  grouped <- vhmc:::fd_hessian(G, th, list(offset = 2L, J = 4L, p = 2L))
  expect_equal(calls, 2 * (2 + 2))  # each shared parameter, each effect column of all levels
  expect_equal(grouped, H, tolerance = 1e-8)
  calls <- 0
  expect_equal(vhmc:::fd_hessian(G, th), H, tolerance = 1e-8)
  expect_equal(calls, 2 * d)
  # The largest term's block is grouped; a one-level term's is not.
  layout <- list(blocks = data.frame(name = c("intercept", "b:1 | g", "sd:1 | g", "b:x | h", "sd:x | h", "cor:x | h", "b:1 | k"),
                                     offset = c(0, 1, 41, 42, 52, 54, 55), size = c(1, 40, 1, 10, 2, 1, 1)))
  model <- list(glmer = list(terms = list(list(label = "1 | g", p = 1L), list(label = "x | h", p = 2L),
                                          list(label = "1 | k", p = 1L))))
  expect_equal(vhmc:::hessian_levels(layout, model), list(offset = 1, J = 40, p = 1L))
  model$glmer$terms <- model$glmer$terms[3]
  expect_null(vhmc:::hessian_levels(layout, model))
})
