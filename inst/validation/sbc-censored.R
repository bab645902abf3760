# The censored models of the simulation-based calibration (sbc.R): y | cens(kind) ~ x with
# n rows, x standard normal, each response left-censored below its own detection limit,
# uniform on (0, 0.5), and right-censored above its own follow-up time, 2 plus an exponential
# of mean 3, the Gamma family (log link; censored
# rows from the core's log cdf with central-difference derivatives) or the lognormal
# (analytic normal cdf terms). Priors, proper and independent of the data: intercept (at
# the predictor's mean) and slope normal(0, 1), the Gamma's shape gamma(4, 1), the
# lognormal's sigma exponential(1).
sbc_censored_model <- function(family_name, n) {
  pars <- c("(Intercept)", "x", if (family_name == "Gamma") "shape" else "sigma")
  draw <- function(mu, aux) {
    if (family_name == "Gamma") stats::rgamma(length(mu), shape = aux, rate = aux / exp(mu))
    else stats::rlnorm(length(mu), mu, aux)
  }
  simulate <- function() {
    x <- stats::rnorm(n)
    alpha_c <- stats::rnorm(1)
    beta <- stats::rnorm(1)
    aux <- if (family_name == "Gamma") stats::rgamma(1, 4, 1) else stats::rexp(1)
    y <- draw(alpha_c + beta * (x - mean(x)), aux)
    # Bounds drawn apart from the responses and the parameters: the censored likelihood is
    # the data's only then (bounds at the sample's quantiles would make it an approximation,
    # and SBC would test that instead of the sampler); each row its own, so that the
    # censored values differ.
    lo <- stats::runif(n, 0, 0.5)
    hi <- 2 + stats::rexp(n, 1 / 3)
    kind <- ifelse(y < lo, "left", ifelse(y > hi, "right", "none"))
    data <- data.frame(x, y = pmin(pmax(y, lo), hi), kind)
    list(data = data, truth = stats::setNames(c(alpha_c - beta * mean(x), beta, aux), pars))
  }
  fit <- function(data, sampler, iter, seed) {
    family <- if (family_name == "Gamma") stats::Gamma("log") else vhmc::lognormal()
    prior_aux <- if (family_name == "Gamma") vhmc::gamma_prior(4, 1) else vhmc::exponential(1)
    vhmc::vhmc_glm(y | cens(kind) ~ x, data = data, family = family, prior = vhmc::normal(0, 1),
                   prior_intercept = vhmc::normal(0, 1), prior_aux = prior_aux, sampler = sampler,
                   chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
  }
  quantities <- sbc_quantities(pars)
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"))
}
