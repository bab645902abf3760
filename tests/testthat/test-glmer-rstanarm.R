# Multilevel models against long stan_glmer() runs with the same priors
# (tools/rstanarm-glmer-fixture.R): a varying-slopes gaussian model (sleepstudy), a binomial
# one (cbpp) and a poisson one with an observation-level effect (epil). Every parameter, the
# group-level effects included: posterior means within 4 combined Monte Carlo standard
# errors, sds within 10 %.

glmer_fixture_data <- function(name) {
  switch(name, sleepstudy = lme4::sleepstudy, cbpp = lme4::cbpp, epil = {
    epil <- MASS::epil
    epil$obs <- factor(seq_len(nrow(epil)))
    transform(epil, lbase = log(base / 4), lage = log(age))
  })
}

test_that("multilevel posteriors match stan_glmer's (sleepstudy, cbpp, epil)", {
  skip_on_cran()
  skip_if_not_installed("lme4")
  for (r in readRDS(test_path("fixtures", "rstanarm_glmer.rds"))) {
    family <- switch(r$family, gaussian = gaussian(), binomial = binomial(), poisson = poisson())
    aux <- if (r$family == "gaussian") exponential(1 / r$aux_adjusted_scale)
    fit <- suppressWarnings(suppressMessages(vhmc_glm(
      r$formula, data = glmer_fixture_data(r$data), family = family, prior = normal(0, r$prior_scale),
      prior_intercept = normal(r$prior_intercept_location, r$prior_intercept_scale), prior_aux = aux,
      chains = 4, iter = 4000, seed = 11, progress = FALSE)))
    s <- suppressWarnings(posterior::summarise_draws(fit$draws, "mean", "sd", "mcse_mean"))
    ref <- r$summary[match(s$variable, r$summary$variable), ]
    expect_false(anyNA(ref$mean), info = r$data)
    z <- abs(as.numeric(s$mean) - ref$mean) / sqrt(as.numeric(s$mcse_mean)^2 + ref$mcse_mean^2)
    ratio <- as.numeric(s$sd) / ref$sd
    expect_true(all(z < 4), info = sprintf("%s: worst z %.2f (%s)", r$data, max(z), s$variable[which.max(z)]))
    expect_true(all(abs(ratio - 1) < 0.1),
                info = sprintf("%s: worst sd ratio %.3f (%s)", r$data, ratio[which.max(abs(ratio - 1))],
                               s$variable[which.max(abs(ratio - 1))]))
  }
})
