# The distributional model of the simulation-based calibration (sbc.R): a gaussian
# location-scale regression bf(y ~ x, sigma ~ x) with n rows, x standard normal. Priors,
# proper and independent of the data: the mean's intercept (at the predictor's mean) and
# slope normal(0, 1); log sigma's intercept (at the predictor's mean) normal(0, 1) and slope
# normal(0, 0.5).
sbc_dpar_model <- function(n) {
  pars <- c("(Intercept)", "x", "sigma_(Intercept)", "sigma_x")
  simulate <- function() {
    x <- stats::rnorm(n)
    xc <- x - mean(x)
    a <- stats::rnorm(1)
    b <- stats::rnorm(1)
    as <- stats::rnorm(1)
    bs <- stats::rnorm(1, 0, 0.5)
    y <- stats::rnorm(n, a + b * xc, exp(as + bs * xc))
    list(data = data.frame(x, y), truth = stats::setNames(c(a - b * mean(x), b, as - bs * mean(x), bs), pars))
  }
  fit <- function(data, sampler, iter, seed) {
    vhmc::vhmc_glm(vhmc::bf(y ~ x, sigma ~ x), data = data, prior = vhmc::normal(0, 1),
                   prior_intercept = vhmc::normal(0, 1),
                   prior_dpar = list(intercept = vhmc::normal(0, 1), coef = vhmc::normal(0, 0.5)),
                   sampler = sampler, chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
  }
  quantities <- function(fit) {
    d <- posterior::as_draws_df(fit)
    vapply(pars, function(p) as.numeric(d[[p]]), numeric(nrow(d)))
  }
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"))
}
