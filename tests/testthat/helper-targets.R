# Test targets with known answers , written as R log densities with gradients, and
# Monte Carlo tolerances taken from posterior's MCSE estimates.

gaussian_target <- function(mean, sd) {
  list(
    log_density = function(th) -0.5 * sum(((th - mean) / sd)^2),
    gradient = function(th) -(th - mean) / sd^2
  )
}

correlated_target <- function(rho) {
  P <- solve(matrix(c(1, rho, rho, 1), 2))
  list(
    log_density = function(th) -0.5 * sum(th * (P %*% th)),
    gradient = function(th) -as.vector(P %*% th)
  )
}

# Gaussian with means mu, sds `sds` and every correlation rho (a known-moment target).
equicorrelated_target <- function(sds, rho, mu = rep(0, length(sds))) {
  S <- rho * outer(sds, sds)
  diag(S) <- sds^2
  P <- solve(S)
  list(
    log_density = function(th) -0.5 * sum((th - mu) * (P %*% (th - mu))),
    gradient = function(th) -as.vector(P %*% (th - mu))
  )
}

# Neal's funnel: nu ~ N(0, 9), x_i | nu ~ N(0, exp(nu)), i = 1..9.
funnel_centred <- list(
  log_density = function(th) {
    nu <- th[1]; x <- th[-1]
    -nu^2 / 18 - 0.5 * sum(x^2) * exp(-nu) - 0.5 * length(x) * nu
  },
  gradient = function(th) {
    nu <- th[1]; x <- th[-1]
    c(-nu / 9 + 0.5 * sum(x^2) * exp(-nu) - 0.5 * length(x), -x * exp(-nu))
  }
)
funnel_noncentred <- list(
  log_density = function(th) -th[1]^2 / 18 - 0.5 * sum(th[-1]^2),
  gradient = function(th) c(-th[1] / 9, -th[-1])
)

# |estimate - truth| within k Monte Carlo standard errors, for means and sds of every variable.
expect_moments <- function(fit, mean, sd, k = 4) {
  d <- if (inherits(fit, "vhmc_fit")) fit$draws else fit
  m <- summarise_capped(d, "mean", "sd", "mcse_mean", "mcse_sd")
  z_mean <- abs(as.numeric(m$mean) - mean) / as.numeric(m$mcse_mean)
  z_sd <- abs(as.numeric(m$sd) - sd) / as.numeric(m$mcse_sd)
  expect_true(all(z_mean < k), info = paste("mean z:", paste(round(z_mean, 2), collapse = " ")))
  expect_true(all(z_sd < k), info = paste("sd z:", paste(round(z_sd, 2), collapse = " ")))
}

# Convergence warnings are the subject of their own tests; elsewhere they are muted
# (short test runs often have ESS < 400) unless warnings = TRUE.
quiet_sample <- function(target, ..., warnings = FALSE) {
  run <- function() suppressMessages(vhmc_sample(target$log_density, target$gradient, ...,
                                                 progress = FALSE))
  if (warnings) run() else suppressWarnings(run())
}

# posterior's summaries of draws whose ESS exceeds its cap (n log10 n: antithetic chains)
# warn and use the capped ESS; the capped MCSE is the larger, so tolerances built on it stay
# valid, and that warning (only that one) is muffled.
summarise_capped <- function(...) {
  withCallingHandlers(posterior::summarise_draws(...), warning = function(w) {
    if (grepl("ESS has been capped", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  })
}
