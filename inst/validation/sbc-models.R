# The models of the simulation-based calibration (sbc.R). Each is a list with
#   simulate()  draws the parameters from the prior, then data given them: list(data, truth),
#               truth named as the quantities ranked;
#   fit(data, sampler, iter, seed)  a vhmc fit with one chain;
#   quantities(fit)  a draws x quantities matrix with the columns of truth;
#   exact_samplers  the exact samplers that run on it;
#   sampler_args, iter  optional, by sampler: arguments of its constructor and its chain's
#               iterations for this model (otherwise the sampler table's).
# Every prior is proper and independent of the data (autoscale = FALSE), as SBC requires.

# The ranked quantities of a fit: the draws of the variables `draws` (posterior's names),
# as columns named `pars` (names without commas, for the results files).
sbc_quantities <- function(draws, pars = draws) {
  function(fit) {
    d <- posterior::as_draws_df(fit)
    q <- vapply(draws, function(p) as.numeric(d[[p]]), numeric(nrow(d)))
    colnames(q) <- pars
    q
  }
}

# A GLM y ~ x1 + x2 with n rows: x1 standard normal, x2 a 0/1 dummy (so the predictors'
# means are not 0). Coefficients and the intercept normal(0, 1), sigma exponential(1). The
# intercept's prior is on the intercept at the predictors' means (vhmc_glm centres the
# predictors), so the true reported intercept is that minus the slopes times the means.
sbc_glm_model <- function(family, n) {
  fam <- family$family
  pars <- c("(Intercept)", "x1", "x2", if (fam == "gaussian") "sigma")
  simulate <- function() {
    x <- data.frame(x1 = stats::rnorm(n), x2 = stats::rbinom(n, 1, 0.5))
    alpha_c <- stats::rnorm(1)
    beta <- stats::rnorm(2)
    xc <- sweep(as.matrix(x), 2L, colMeans(x))
    eta <- alpha_c + drop(xc %*% beta)
    sigma <- stats::rexp(1)
    x$y <- switch(fam,
      gaussian = stats::rnorm(n, eta, sigma),
      binomial = stats::rbinom(n, 1, stats::plogis(eta)),
      poisson = stats::rpois(n, exp(eta)))
    truth <- c(alpha_c - sum(colMeans(x[c("x1", "x2")]) * beta), beta,
               if (fam == "gaussian") sigma)
    list(data = x, truth = stats::setNames(truth, pars))
  }
  fit <- function(data, sampler, iter, seed) {
    args <- list(y ~ x1 + x2, data = data, family = family, prior = vhmc::normal(0, 1),
                 prior_intercept = vhmc::normal(0, 1), sampler = sampler, chains = 1,
                 iter = iter, seed = seed, cores = 1, progress = FALSE)
    if (fam == "gaussian") args$prior_aux <- vhmc::exponential(1)
    do.call(vhmc::vhmc_glm, args)
  }
  quantities <- sbc_quantities(pars)
  list(simulate = simulate, fit = fit, quantities = quantities,
       # rmhmc()'s Fisher metric: binomial(logit) and poisson(log), not a free sigma.
       exact_samplers = c("nuts", "hmc", "rwm", if (fam != "gaussian") "rmhmc", "surrogate_hmc"))
}
