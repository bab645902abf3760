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
  quantities <- sbc_quantities(pars)
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"))
}

# With group-level terms in both formulas: bf(y ~ x + (1 | g), sigma ~ x + (1 | g)), J levels
# of m rows each. Priors as sbc_dpar_model()'s, and each term's standard deviation half
# Student-t(3, 0, 0.5) (lkj() without autoscaling, so independent of the data).
sbc_dpar_group_model <- function(J = 8, m = 12) {
  # The draws' names, and the ranks' (the results files hold no commas: each term's
  # variance by its one column).
  draws <- c("(Intercept)", "x", "sigma_(Intercept)", "sigma_x", "Sigma[g:(Intercept),(Intercept)]",
             "Sigma[g:sigma_(Intercept),sigma_(Intercept)]", "b[(Intercept) g:1]", "b[sigma_(Intercept) g:1]")
  pars <- sub(",.*]", "]", draws)
  simulate <- function() {
    n <- J * m
    x <- stats::rnorm(n)
    xc <- x - mean(x)
    g <- factor(rep(seq_len(J), each = m))
    a <- stats::rnorm(1)
    b <- stats::rnorm(1)
    as <- stats::rnorm(1)
    bs <- stats::rnorm(1, 0, 0.5)
    tau <- 0.5 * abs(stats::rt(2, 3))
    u <- stats::rnorm(J, 0, tau[1])
    v <- stats::rnorm(J, 0, tau[2])
    y <- stats::rnorm(n, a + b * xc + u[g], exp(as + bs * xc + v[g]))
    list(data = data.frame(x, y, g), truth = stats::setNames(c(a - b * mean(x), b, as - bs * mean(x), bs, tau^2, u[1], v[1]), pars))
  }
  fit <- function(data, sampler, iter, seed) {
    vhmc::vhmc_glm(vhmc::bf(y ~ x + (1 | g), sigma ~ x + (1 | g)), data = data, prior = vhmc::normal(0, 1),
                   prior_intercept = vhmc::normal(0, 1),
                   prior_dpar = list(intercept = vhmc::normal(0, 1), coef = vhmc::normal(0, 0.5)),
                   prior_covariance = vhmc::lkj(scale = 0.5, df = 3, autoscale = FALSE),
                   sampler = sampler, chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
  }
  quantities <- sbc_quantities(draws, pars)
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"))
}
