# The registry entries of the continuous families (R/family-registry.R): gaussian, Student's
# t, lognormal, Gamma, inverse Gaussian and Beta. Their predictive functions take the parts
# `p` of R/glm-predictive.R: p$eta (draws x observations), p$aux (the auxiliary parameters'
# draws by name, one per draw), p$family; the core's mathematics of each is in
# inst/include/vhmc/model/glm/family/.

mu_of <- function(p) p$family$linkinv(p$eta)

gaussian_entry <- function() {
  family_entry(
    "gaussian", c("identity", "log", "inverse"), constructor = function(link = "identity") stats::gaussian(link),
    aux_priors = list(sigma = exponential(1, autoscale = TRUE)),
    standardise = function(link) link == "identity", relative_to_sigma = TRUE,
    min_rows = 2L, separation = FALSE, uninformative = function(y) FALSE,
    spread_identifies = "sigma",
    epred = mu_of,
    variance = function(p) matrix(p$aux$sigma^2, nrow(p$eta), ncol(p$eta)),
    simulate = function(p) stats::rnorm(length(p$eta), mu_of(p), p$aux$sigma),
    log_lik = function(y, p) stats::dnorm(y, mu_of(p), p$aux$sigma, log = TRUE),
    log_cdf = function(y, p, upper) stats::pnorm(y, mu_of(p), p$aux$sigma, lower.tail = !upper, log.p = TRUE),
    eta_information = function(p) p$family$mu.eta(p$eta)^2 / p$aux$sigma^2,
    dev_resids = function(y, mu, w, aux) w * (y - mu)^2,
    pearson_variance = function(mu, aux) rep(1, length(mu)))
}

# A response whose values are all equal leaves a scale parameter unidentified (at fit time:
# new data may hold one value many times).
not_constant <- function(r, bad_y, what) {
  if (length(r$y) > 1L && all(r$y == r$y[1L])) {
    bad_y(sprintf("is constant (every value is %s), so %s is not identified", format(r$y[1L]), what))
  }
  r
}

# Student's t (brms's student()): sigma and the degrees of freedom nu > 1.
student_entry <- function() {
  family_entry(
    "student", c("identity", "log", "inverse"), constructor = student,
    aux_priors = list(sigma = exponential(1, autoscale = TRUE), nu = gamma_prior(2, 0.1)),
    standardise = function(link) link == "identity", min_rows = 2L, separation = FALSE,
    uninformative = function(y) FALSE,
    spread_identifies = "sigma",
    epred = mu_of,
    variance = function(p) {
      nu <- p$aux$nu
      matrix(ifelse(nu > 2, p$aux$sigma^2 * nu / (nu - 2), Inf), nrow(p$eta), ncol(p$eta))
    },
    simulate = function(p) mu_of(p) + p$aux$sigma * stats::rt(length(p$eta), p$aux$nu),
    log_lik = function(y, p) stats::dt((y - mu_of(p)) / p$aux$sigma, p$aux$nu, log = TRUE) - log(p$aux$sigma),
    log_cdf = function(y, p, upper) stats::pt((y - mu_of(p)) / p$aux$sigma, p$aux$nu, lower.tail = !upper, log.p = TRUE),
    # The Fisher information of a t location: (nu + 1) / ((nu + 3) sigma^2) (Lange, Little
    # and Taylor 1989, eq. 6).
    eta_information = function(p) {
      p$family$mu.eta(p$eta)^2 * (p$aux$nu + 1) / ((p$aux$nu + 3) * p$aux$sigma^2)
    },
    pearson_variance = function(mu, aux) rep(1, length(mu)))
}

# The lognormal (brms's lognormal()): a gaussian model of log y, which the core fits as
# gaussian(identity) on log y, with all of that family's closed forms.
lognormal_entry <- function() {
  family_entry(
    "lognormal", "identity", constructor = lognormal, core = function(link) "gaussian_identity",
    aux_priors = list(sigma = exponential(1, autoscale = TRUE)),
    standardise = function(link) TRUE, core_response = log, spread_identifies = "sigma", relative_to_sigma = TRUE,
    eta_mean = "log",
    min_rows = 2L, separation = FALSE, uninformative = function(y) FALSE,
    response = function(y, w, bad_y) {
      r <- plain_response(y, w, bad_y)
      if (any(r$y <= 0)) bad_y("has values <= 0; the lognormal family needs positive outcomes")
      r
    },
    epred = function(p) exp(p$eta + p$aux$sigma^2 / 2),
    variance = function(p) (exp(p$aux$sigma^2) - 1) * exp(2 * p$eta + p$aux$sigma^2),
    simulate = function(p) stats::rlnorm(length(p$eta), p$eta, p$aux$sigma),
    log_lik = function(y, p) stats::dlnorm(y, p$eta, p$aux$sigma, log = TRUE),
    log_cdf = function(y, p, upper) stats::plnorm(y, p$eta, p$aux$sigma, lower.tail = !upper, log.p = TRUE),
    eta_information = function(p) rep(1 / p$aux$sigma^2, length(p$eta)))
}

# Positive numbers (Gamma, inverse Gaussian).
positive_response <- function(what) {
  function(y, w, bad_y) {
    r <- plain_response(y, w, bad_y)
    if (any(r$y <= 0)) bad_y(sprintf("has values <= 0; the %s family needs positive outcomes", what))
    r
  }
}

gamma_entry <- function() {
  family_entry(
    "Gamma", c("inverse", "identity", "log"), constructor = function(link = "inverse") stats::Gamma(link),
    aux_priors = list(shape = exponential(1, autoscale = TRUE)), separation = FALSE,
    uninformative = function(y) FALSE, response = positive_response("Gamma"),
    epred = mu_of,
    variance = function(p) mu_of(p)^2 / p$aux$shape,
    simulate = function(p) stats::rgamma(length(p$eta), shape = p$aux$shape, rate = p$aux$shape / mu_of(p)),
    log_lik = function(y, p) stats::dgamma(y, shape = p$aux$shape, rate = p$aux$shape / mu_of(p), log = TRUE),
    log_cdf = function(y, p, upper) {
      stats::pgamma(y, shape = p$aux$shape, rate = p$aux$shape / mu_of(p), lower.tail = !upper, log.p = TRUE)
    },
    eta_information = function(p) p$family$mu.eta(p$eta)^2 * p$aux$shape / mu_of(p)^2,
    dev_resids = function(y, mu, w, aux) stats::Gamma()$dev.resids(y, mu, w),
    pearson_variance = function(mu, aux) mu^2)
}

# The inverse Gaussian with shape lambda (rstanarm's name; variance mu^3 / lambda).
inverse_gaussian_entry <- function() {
  family_entry(
    "inverse.gaussian", c("1/mu^2", "inverse", "identity", "log"),
    constructor = function(link = "1/mu^2") stats::inverse.gaussian(link),
    aux_priors = list(lambda = exponential(1, autoscale = TRUE)), separation = FALSE,
    uninformative = function(y) FALSE, response = positive_response("inverse.gaussian"),
    epred = mu_of,
    variance = function(p) mu_of(p)^3 / p$aux$lambda,
    simulate = function(p) rinvgauss(length(p$eta), mu_of(p), p$aux$lambda),
    log_lik = function(y, p) {
      mu <- mu_of(p)
      0.5 * log(p$aux$lambda / (2 * pi * y^3)) - p$aux$lambda * (y - mu)^2 / (2 * mu^2 * y)
    },
    log_cdf = function(y, p, upper) log_pinvgauss(y, mu_of(p), p$aux$lambda, upper),
    eta_information = function(p) p$family$mu.eta(p$eta)^2 * p$aux$lambda / mu_of(p)^3,
    dev_resids = function(y, mu, w, aux) stats::inverse.gaussian()$dev.resids(y, mu, w),
    pearson_variance = function(mu, aux) mu^3)
}

# The inverse Gaussian's log cdf (upper: of the upper tail), F(y) = Phi(r (y/mu - 1)) +
# exp(2 lambda / mu) Phi(-r (y/mu + 1)), r = sqrt(lambda / y) (Chhikara and Folks 1989,
# eq. 2.9), on the log scale as the core computes it.
log_pinvgauss <- function(y, mu, lambda, upper) {
  r <- sqrt(lambda / y)
  lb <- 2 * lambda / mu + stats::pnorm(-r * (y / mu + 1), log.p = TRUE)
  la <- stats::pnorm(r * (y / mu - 1), lower.tail = !upper, log.p = TRUE)
  if (!upper) return(log_sum_exp2(la, lb))
  la + log1m_exp(pmin(lb - la, -.Machine$double.eps))
}

# Inverse Gaussian draws by Michael, Schucany and Haas (1976): a chi-square(1) root, then one
# of its two preimages chosen with probability mu / (mu + x).
rinvgauss <- function(n, mu, lambda) {
  mu <- rep_len(mu, n)
  lambda <- rep_len(lambda, n)
  v <- stats::rnorm(n)^2
  x <- mu + mu^2 * v / (2 * lambda) - mu / (2 * lambda) * sqrt(4 * mu * lambda * v + mu^2 * v^2)
  ifelse(stats::runif(n) <= mu / (mu + x), x, mu^2 / x)
}

# Beta (brms's Beta()): mean mu and precision phi, y ~ Beta(mu phi, (1 - mu) phi).
beta_entry <- function() {
  family_entry(
    "Beta", c("logit", "probit", "cloglog", "cauchit"), constructor = Beta, aliases = "beta",
    aux_priors = list(phi = gamma_prior(0.01, 0.01)), separation = FALSE, uninformative = function(y) FALSE,
    response = function(y, w, bad_y) {
      r <- plain_response(y, w, bad_y)
      if (any(r$y <= 0 | r$y >= 1)) {
        bad_y(sprintf("has %d values outside (0, 1) (exactly 0 or 1 included); Beta() needs proportions strictly between 0 and 1",
                      sum(r$y <= 0 | r$y >= 1)),
              "Model exact zeros and ones apart, or squeeze the values into (0, 1), e.g. (y * (n - 1) + 0.5) / n (Smithson and Verkuilen 2006).")
      }
      r
    },
    epred = mu_of,
    variance = function(p) {
      mu <- mu_of(p)
      mu * (1 - mu) / (1 + p$aux$phi)
    },
    simulate = function(p) {
      mu <- mu_of(p)
      stats::rbeta(length(mu), mu * p$aux$phi, (1 - mu) * p$aux$phi)
    },
    log_lik = function(y, p) {
      mu <- mu_of(p)
      stats::dbeta(y, mu * p$aux$phi, (1 - mu) * p$aux$phi, log = TRUE)
    },
    eta_information = function(p) {
      mu <- mu_of(p)
      phi <- p$aux$phi
      p$family$mu.eta(p$eta)^2 * phi^2 * (trigamma(mu * phi) + trigamma((1 - mu) * phi))
    })
}
