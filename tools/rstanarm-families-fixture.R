# Records long rstanarm runs of the negative binomial and Gamma GLMs with rstanarm's default
# priors, the reference of test-glm-families.R: posterior means, sds and Monte Carlo
# standard errors, and the priors rstanarm used (its adjusted scales), which the test gives
# vhmc_glm() explicitly. Needs rstanarm (tools/install-deps.sh --bench). Run from the
# repository root: Rscript tools/rstanarm-families-fixture.R
suppressMessages(library(rstanarm))
models <- list(
  quine_nb = list(formula = Days ~ Sex + Age + Eth + Lrn, data = "quine", family = neg_binomial_2()),
  airquality_gamma = list(formula = Ozone ~ Temp + Wind, data = "airquality",
                          family = Gamma(link = "log")))
family_data <- function(name) {
  if (name == "quine") MASS::quine else na.omit(datasets::airquality[, c("Ozone", "Temp", "Wind")])
}
record <- function(m) {
  fit <- stan_glm(m$formula, data = family_data(m$data), family = m$family, chains = 4,
                  iter = 10000, refresh = 0, seed = 2026)
  s <- posterior::summarise_draws(posterior::as_draws_array(as.array(fit)), "mean", "sd", "mcse_mean",
                                  "ess_bulk", "rhat")
  ps <- prior_summary(fit)
  list(formula = m$formula, data = m$data, family = m$family$family, link = m$family$link,
       summary = as.data.frame(s), prior_scale = as.numeric(ps$prior$adjusted_scale %||% ps$prior$scale),
       prior_intercept_scale = ps$prior_intercept$adjusted_scale %||% ps$prior_intercept$scale,
       aux_rate = ps$prior_aux$rate, rstanarm = as.character(utils::packageVersion("rstanarm")),
       settings = "4 chains x 10000 iterations (5000 warmup), seed 2026")
}
`%||%` <- function(a, b) if (is.null(a)) b else a
out <- lapply(models, record)
saveRDS(out, "tests/testthat/fixtures/rstanarm_families.rds", version = 2)
for (nm in names(out)) {
  cat(nm, "\n")
  print(out[[nm]]$summary)
}
