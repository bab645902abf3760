# A multilevel model of each family added to the registry, y ~ x + (1 | g) on 400 rows and 20
# groups, against a long brms run with the same priors (inst/validation/brms-families.R wrote
# the fixture: 4 chains x 5000 draws each): every posterior mean -- fixed effects, auxiliary
# parameters, the group variance and the 20 group effects -- within 4 combined Monte Carlo
# standard errors, and no divergences (brms had none).

brms_ref <- readRDS(test_path("fixtures", "brms_families.rds"))

# The priors of the fixture, as vhmc_glm() arguments.
brms_family_args <- function(name) {
  aux <- switch(name,
    student = list(sigma = exponential(1), nu = gamma_prior(2, 0.1)),
    lognormal = list(sigma = exponential(1)),
    beta = list(phi = gamma_prior(0.01, 0.01)),
    zero_inflated_poisson = list(zi = beta_prior(1, 1)),
    zero_inflated_negbinomial = list(shape = gamma_prior(0.01, 0.01), zi = beta_prior(1, 1)),
    hurdle_poisson = list(hu = beta_prior(1, 1)),
    hurdle_negbinomial = list(shape = gamma_prior(0.01, 0.01), hu = beta_prior(1, 1)),
    inverse_gaussian = list(lambda = gamma_prior(0.01, 0.01)))
  family <- switch(name, student = student(), lognormal = lognormal(), beta = Beta(), cumulative = cumulative(),
                   zero_inflated_poisson = zero_inflated_poisson(), zero_inflated_negbinomial = zero_inflated_negbinomial(),
                   hurdle_poisson = hurdle_poisson(), hurdle_negbinomial = hurdle_negbinomial(),
                   inverse_gaussian = inverse.gaussian(link = "log"))
  list(family = family, prior = normal(0, 1), prior_intercept = normal(0, 5), prior_aux = aux,
       prior_covariance = lkj(scale = 1, df = 3, autoscale = FALSE))
}

test_that("multilevel models of every new family agree with long brms runs", {
  skip_on_cran()
  for (name in names(brms_ref)) {
    ref <- brms_ref[[name]]
    args <- c(list(y ~ x + (1 | g), data = ref$data, chains = 4, iter = 2000, seed = 21, progress = FALSE),
              brms_family_args(name))
    fit <- suppressWarnings(suppressMessages(do.call(vhmc_glm, args)))
    s <- posterior::summarise_draws(fit$draws, "mean", "mcse_mean")
    r <- ref$summary[match(s$variable, ref$summary$variable), ]
    expect_false(anyNA(r$mean), info = paste(name, "variables:", paste(s$variable[is.na(r$mean)], collapse = ", ")))
    z <- as.numeric((s$mean - r$mean) / sqrt(s$mcse_mean^2 + r$mcse_mean^2))  # not pillar_num: round() in the message
    expect_true(all(abs(z) < 4), info = paste(name, "largest |z|:", paste(s$variable[which.max(abs(z))], round(max(abs(z)), 2))))
    expect_identical(sum(fit$diagnostics$divergent__), 0L, info = name)
  }
})
