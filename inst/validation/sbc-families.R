# The families of the registry in the simulation-based calibration (sbc.R): Student's t,
# cumulative (logit), zero-inflated Poisson and Beta regressions y ~ x1 + x2 with n rows, x1
# standard normal and x2 a 0/1 dummy. Every prior is proper and independent of the data:
# coefficients and the intercept (at the predictors' means) normal(0, 1), sigma
# exponential(1), nu gamma(2, 0.1) on nu > 1, Beta's phi gamma(2, 0.1), zi beta(1, 1), and
# the cutpoints at the predictors' means normal(0, 2) each, restricted to increasing values
# (so drawn as sorted normals). The ranked quantities are the reported parameters: the
# intercept and cutpoints for the uncentred predictors.

sbc_family_specs <- function() list(
  student = list(family = vhmc::student(), n = 60,
                 prior_aux = list(sigma = vhmc::exponential(1), nu = vhmc::gamma_prior(2, 0.1)),
                 aux = function() c(sigma = stats::rexp(1), nu = sbc_truncated_gamma(2, 0.1, 1)),
                 response = function(eta, aux) eta + aux[["sigma"]] * stats::rt(length(eta), aux[["nu"]])),
  cumulative = list(family = vhmc::cumulative(), n = 80, cutpoints = 3L,
                    response = function(eta, cuts) {
                      y <- 1 + findInterval(eta + stats::rlogis(length(eta)), cuts)
                      factor(y, levels = 1:4, ordered = TRUE)
                    }),
  zero_inflated_poisson = list(family = vhmc::zero_inflated_poisson(), n = 80,
                               prior_aux = list(zi = vhmc::beta_prior(1, 1)),
                               aux = function() c(zi = stats::runif(1)),
                               response = function(eta, aux) {
                                 ifelse(stats::runif(length(eta)) < aux[["zi"]], 0, stats::rpois(length(eta), exp(eta)))
                               }),
  beta = list(family = vhmc::Beta(), n = 50, prior_aux = list(phi = vhmc::gamma_prior(2, 0.1)),
              aux = function() c(phi = stats::rgamma(1, 2, 0.1)),
              response = function(eta, aux) {
                mu <- stats::plogis(eta)
                y <- stats::rbeta(length(eta), mu * aux[["phi"]], (1 - mu) * aux[["phi"]])
                pmin(pmax(y, 1e-12), 1 - 1e-12)  # a draw rounded to 0 or 1 lies inside
              })
)

sbc_truncated_gamma <- function(shape, rate, lower) {
  repeat {
    x <- stats::rgamma(1, shape, rate)
    if (x > lower) return(x)
  }
}

sbc_family_model <- function(name) {
  spec <- sbc_family_specs()[[name]]
  ordinal <- !is.null(spec$cutpoints)
  pars <- c(if (!ordinal) "(Intercept)", "x1", "x2", if (!ordinal) names(spec$aux()),
            if (ordinal) c("1|2", "2|3", "3|4"))
  simulate <- function() {
    x <- data.frame(x1 = stats::rnorm(spec$n), x2 = stats::rbinom(spec$n, 1, 0.5))
    means <- colMeans(x)
    beta <- stats::rnorm(2)
    eta_c <- drop(sweep(as.matrix(x), 2L, means) %*% beta)
    if (ordinal) {
      cuts <- sort(stats::rnorm(spec$cutpoints, 0, 2))
      x$y <- spec$response(eta_c, cuts)
      truth <- c(beta, cuts + sum(means * beta))
    } else {
      alpha_c <- stats::rnorm(1)
      aux <- spec$aux()
      x$y <- spec$response(alpha_c + eta_c, aux)
      truth <- c(alpha_c - sum(means * beta), beta, aux)
    }
    list(data = x, truth = stats::setNames(truth, pars))
  }
  fit <- function(data, sampler, iter, seed) {
    vhmc::vhmc_glm(y ~ x1 + x2, data = data, family = spec$family, prior = vhmc::normal(0, 1),
                   prior_intercept = if (ordinal) vhmc::normal(0, 2) else vhmc::normal(0, 1),
                   prior_aux = spec$prior_aux, sampler = sampler, chains = 1, iter = iter, seed = seed,
                   cores = 1, progress = FALSE)
  }
  quantities <- sbc_quantities(pars)
  list(simulate = simulate, fit = fit, quantities = quantities,
       exact_samplers = c("nuts", "hmc", "rwm", "surrogate_hmc"))
}
