# Records long stan_glmer() runs of three multilevel models, the references of
# test-glmer-rstanarm.R: a varying-slopes gaussian model (lme4's sleepstudy), a binomial one
# (lme4's cbpp) and a poisson one with an observation-level effect (MASS's epil, as in
# rstanarm's and brms's examples). The priors rstanarm used (its adjusted scales, decov's
# defaults) are stored with the posterior means, sds and Monte Carlo standard errors; the test
# gives vhmc_glm() the same priors. Needs rstanarm and lme4 (tools/install-deps.sh --bench).
# Run from the repository root: Rscript tools/rstanarm-glmer-fixture.R
suppressMessages(library(rstanarm))
`%||%` <- function(a, b) if (is.null(a)) b else a
epil <- MASS::epil
epil$obs <- factor(seq_len(nrow(epil)))
models <- list(
  sleepstudy = list(formula = Reaction ~ Days + (Days | Subject), data = "sleepstudy", family = gaussian()),
  cbpp = list(formula = cbind(incidence, size - incidence) ~ period + (1 | herd), data = "cbpp",
              family = binomial()),
  epil = list(formula = y ~ lbase * trt + lage + V4 + (1 | subject) + (1 | obs), data = "epil",
              family = poisson()))
glmer_data <- function(name) {
  switch(name, sleepstudy = lme4::sleepstudy, cbpp = lme4::cbpp,
         epil = transform(epil, lbase = log(base / 4), lage = log(age)))
}
record <- function(m) {
  t0 <- Sys.time()
  fit <- stan_glmer(m$formula, data = glmer_data(m$data), family = m$family, chains = 4, iter = 10000,
                    refresh = 0, seed = 2026, adapt_delta = 0.95)
  secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  s <- posterior::summarise_draws(posterior::as_draws_array(as.array(fit)), "mean", "sd", "mcse_mean",
                                  "ess_bulk", "rhat")
  ps <- prior_summary(fit)
  list(formula = m$formula, data = m$data, family = m$family$family, summary = as.data.frame(s),
       prior_scale = as.numeric(ps$prior$adjusted_scale %||% ps$prior$scale),
       prior_intercept_location = as.numeric(ps$prior_intercept$location),
       prior_intercept_scale = as.numeric(ps$prior_intercept$adjusted_scale %||% ps$prior_intercept$scale),
       aux_rate = ps$prior_aux$rate %||% NA_real_, aux_adjusted_scale = ps$prior_aux$adjusted_scale %||% NA_real_,
       seconds = secs, rstanarm = as.character(utils::packageVersion("rstanarm")),
       settings = "4 chains x 10000 iterations (5000 warmup), adapt_delta 0.95, seed 2026")
}
out <- lapply(models, record)
saveRDS(out, "tests/testthat/fixtures/rstanarm_glmer.rds", version = 2)
for (nm in names(out)) {
  cat(nm, sprintf("(%.0f s)", out[[nm]]$seconds), "\n")
  print(utils::head(out[[nm]]$summary, 8))
}
