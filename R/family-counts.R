# The registry entries of the discrete families (R/family-registry.R): binomial, Poisson,
# negative binomial, and the zero-inflated and hurdle counts. Predictive functions as in
# R/family-continuous.R; p$trials holds a binomial fit's numbers of trials.

binomial_entry <- function() {
  family_entry(
    "binomial", c("logit", "probit", "cauchit", "log", "cloglog"),
    constructor = function(link = "logit") stats::binomial(link), trials = TRUE, mean_label = "prob",
    response = function(y, w, bad_y) binomial_response(y, w, bad_y),
    uninformative = function(y) all(y == 0) || all(y == 1),
    observed = function(y, trials) round(y * (trials %||% 1)),
    epred = mu_of,
    variance = function(p) {
      mu <- mu_of(p)
      trials_matrix(p) * mu * (1 - mu)
    },
    simulate = function(p) stats::rbinom(length(p$eta), trials_matrix(p), mu_of(p)),
    log_lik = function(y, p) {
      nm <- trials_matrix(p)
      s <- round(y * nm)
      lp <- binomial_log_probs(p$eta, p$family$link)
      lchoose(nm, s) + ifelse(s > 0, s * lp$p, 0) + ifelse(nm - s > 0, (nm - s) * lp$q, 0)
    },
    eta_information = function(p) {
      mu <- mu_of(p)
      (p$trials %||% 1) * p$family$mu.eta(p$eta)^2 / (mu * (1 - mu))
    },
    dev_resids = function(y, mu, w, aux) stats::binomial()$dev.resids(y, mu, w),
    pearson_variance = function(mu, aux) mu * (1 - mu))
}

# The trials of each observation as a draws x observations matrix (1 without them).
trials_matrix <- function(p) matrix(p$trials %||% 1, nrow(p$eta), ncol(p$eta), byrow = TRUE)

# log p and log(1 - p) of a probability link, each without cancellation in its own tail.
binomial_log_probs <- function(eta, link) {
  switch(link,
         logit = list(p = stats::plogis(eta, log.p = TRUE), q = stats::plogis(-eta, log.p = TRUE)),
         probit = list(p = stats::pnorm(eta, log.p = TRUE), q = stats::pnorm(-eta, log.p = TRUE)),
         cauchit = list(p = stats::pcauchy(eta, log.p = TRUE), q = stats::pcauchy(-eta, log.p = TRUE)),
         cloglog = list(p = log(-expm1(-exp(eta))), q = -exp(eta)),
         log = list(p = eta, q = log(-expm1(eta))))
}

# A family of counts; `what` names them in messages ("negative binomial counts").
count_family_entry <- function(name, what, ...) {
  family_entry(name, ..., response = function(y, w, bad_y) count_response(y, w, bad_y, what))
}

poisson_entry <- function() {
  count_family_entry(
    "poisson", "Poisson", c("log", "identity", "sqrt"), constructor = function(link = "log") stats::poisson(link),
    mean_label = "rate",
    epred = mu_of,
    variance = mu_of,
    simulate = function(p) stats::rpois(length(p$eta), mu_of(p)),
    log_lik = function(y, p) stats::dpois(y, mu_of(p), log = TRUE),
    eta_information = function(p) p$family$mu.eta(p$eta)^2 / mu_of(p),
    dev_resids = function(y, mu, w, aux) stats::poisson()$dev.resids(y, mu, w),
    pearson_variance = function(mu, aux) mu)
}

neg_binomial_entry <- function() {
  count_family_entry(
    "neg_binomial_2", "negative binomial", c("log", "identity", "sqrt"), constructor = neg_binomial_2, aliases = "negbinomial",
    aux_priors = list(reciprocal_dispersion = exponential(1, autoscale = TRUE)),
    epred = mu_of,
    variance = function(p) {
      mu <- mu_of(p)
      mu + mu^2 / p$aux$reciprocal_dispersion
    },
    simulate = function(p) stats::rnbinom(length(p$eta), size = p$aux$reciprocal_dispersion, mu = mu_of(p)),
    log_lik = function(y, p) stats::dnbinom(y, size = p$aux$reciprocal_dispersion, mu = mu_of(p), log = TRUE),
    eta_information = function(p) {
      mu <- mu_of(p)
      p$family$mu.eta(p$eta)^2 / (mu + mu^2 / p$aux$reciprocal_dispersion)
    },
    dev_resids = function(y, mu, w, aux) {
      phi <- aux$reciprocal_dispersion
      2 * w * (y * log(pmax(1, y) / mu) - (y + phi) * log((y + phi) / (mu + phi)))
    },
    pearson_variance = function(mu, aux) mu + mu^2 / aux$reciprocal_dispersion)
}

# The count part of the zero-inflated and hurdle families: its log probability of y, of 0,
# its mean, its second moment and its draws, at mean mu and (negative binomial) brms's shape.
count_part <- function(kind) {
  if (kind == "poisson") {
    return(list(log_p = function(y, mu, aux) stats::dpois(y, mu, log = TRUE),
                log_p0 = function(mu, aux) -mu,
                second = function(mu, aux) mu + mu^2,
                draw = function(n, mu, aux) stats::rpois(n, mu),
                quantile = function(u, mu, aux) stats::qpois(u, mu),
                information = function(mu, aux) mu))
  }
  list(log_p = function(y, mu, aux) stats::dnbinom(y, size = aux$shape, mu = mu, log = TRUE),
       log_p0 = function(mu, aux) aux$shape * (log(aux$shape) - log(mu + aux$shape)),
       second = function(mu, aux) mu + mu^2 * (1 + 1 / aux$shape),
       draw = function(n, mu, aux) stats::rnbinom(n, size = aux$shape, mu = mu),
       quantile = function(u, mu, aux) stats::qnbinom(u, size = aux$shape, mu = mu),
       information = function(mu, aux) mu / (1 + mu / aux$shape))
}

# The counts' auxiliary defaults: brms's gamma(0.01, 0.01) on the negative binomial's shape,
# and beta(1, 1) (uniform) on the zero-inflation or hurdle probability.
zero_model_priors <- function(kind, zero) {
  priors <- stats::setNames(list(beta_prior(1, 1)), zero)
  if (kind == "negbinomial") priors <- c(list(shape = gamma_prior(0.01, 0.01)), priors)
  priors
}

# Zero-inflated counts: P(0) = zi + (1 - zi) P_c(0), P(y) = (1 - zi) P_c(y) for y > 0.
zero_inflated_entry <- function(kind) {
  name <- paste0("zero_inflated_", kind)
  part <- count_part(kind)
  count_family_entry(
    name, paste("zero-inflated", kind), "log", constructor = function(link = "log") new_family(name, link, "log"),
    aux_priors = zero_model_priors(kind, "zi"), eta_mean = "none",
    epred = function(p) (1 - p$aux$zi) * exp(p$eta),
    variance = function(p) {
      mu <- exp(p$eta)
      (1 - p$aux$zi) * part$second(mu, p$aux) - ((1 - p$aux$zi) * mu)^2
    },
    simulate = function(p) {
      n <- length(p$eta)
      ifelse(stats::runif(n) < p$aux$zi, 0, part$draw(n, exp(p$eta), p$aux))
    },
    log_lik = function(y, p) {
      mu <- exp(p$eta)
      zero <- log_sum_exp2(log(p$aux$zi), log1p(-p$aux$zi) + part$log_p0(mu, p$aux))
      ifelse(y == 0, zero, log1p(-p$aux$zi) + part$log_p(y, mu, p$aux))
    },
    # The count part's information, lowered where a zero may be inflation: for the Poisson
    # exactly (1 - zi) mu (1 - zi mu exp(-mu) / P(0)).
    eta_information = function(p) {
      mu <- exp(p$eta)
      zi <- p$aux$zi
      p0 <- exp(part$log_p0(mu, p$aux))
      (1 - zi) * part$information(mu, p$aux) * (1 - zi * mu * p0 / (zi + (1 - zi) * p0))
    })
}

# Hurdle counts: P(0) = hu, P(y) = (1 - hu) P_c(y) / (1 - P_c(0)) for y > 0.
hurdle_entry <- function(kind) {
  name <- paste0("hurdle_", kind)
  part <- count_part(kind)
  count_family_entry(
    name, paste("hurdle", kind), "log", constructor = function(link = "log") new_family(name, link, "log"),
    aux_priors = zero_model_priors(kind, "hu"), eta_mean = "none",
    epred = function(p) {
      mu <- exp(p$eta)
      (1 - p$aux$hu) * mu / (-expm1(part$log_p0(mu, p$aux)))
    },
    variance = function(p) {
      mu <- exp(p$eta)
      positive <- (1 - p$aux$hu) / (-expm1(part$log_p0(mu, p$aux)))
      positive * part$second(mu, p$aux) - (positive * mu)^2
    },
    simulate = function(p) {
      n <- length(p$eta)
      mu <- exp(p$eta)
      p0 <- exp(part$log_p0(mu, p$aux))
      u <- p0 + (1 - p0) * stats::runif(n)  # a draw of the count above 0, by inversion
      ifelse(stats::runif(n) < p$aux$hu, 0, pmax(1, part$quantile(u, mu, p$aux)))
    },
    log_lik = function(y, p) {
      mu <- exp(p$eta)
      ifelse(y == 0, log(p$aux$hu),
             log1p(-p$aux$hu) + part$log_p(y, mu, p$aux) - log(-expm1(part$log_p0(mu, p$aux))))
    },
    eta_information = function(p) (1 - p$aux$hu) * part$information(exp(p$eta), p$aux))
}

# log(exp(a) + exp(b)) elementwise.
log_sum_exp2 <- function(a, b) {
  m <- pmax(a, b)
  m + log(exp(a - m) + exp(b - m))
}

# Non-negative whole numbers.
count_response <- function(y, w, bad_y, what) {
  r <- plain_response(y, w, bad_y)
  if (any(r$y < 0)) bad_y(sprintf("has negative values; %s counts must be >= 0", what))
  if (any(r$y != round(r$y))) bad_y(sprintf("has non-integer values; %s counts must be whole numbers", what))
  r
}

# A numeric response with one value per observation.
plain_response <- function(y, w, bad_y) {
  if (!is.numeric(y)) bad_y(sprintf("must be numeric, not %s", class(y)[1]))
  y <- as.numeric(y)
  if (any(!is.finite(y))) bad_y("has non-finite values (Inf or NaN)", "Remove or fix those rows.")
  list(y = y, weights = w, trials = NULL, matrix = FALSE)
}

# A binomial response as 0/1 or proportions: a factor (first level failure), a logical,
# cbind(successes, failures) (then proportions, with the trials times the prior weights as
# the likelihood's weights), or numbers in [0, 1] (proportions need `weights` = trials).
binomial_response <- function(y, w, bad_y) {
  if (is.factor(y)) y <- as.numeric(y != levels(y)[1L])
  if (is.logical(y)) y <- as.numeric(y)
  if (!is.matrix(y)) {
    r <- plain_response(y, w, bad_y)
    r$trials <- check_proportions(r$y, w, bad_y)
    return(r)
  }
  if (ncol(y) != 2L) bad_y("must have two columns, cbind(successes, failures)")
  if (any(!is.finite(y)) || any(y < 0) || any(y != round(y))) {
    bad_y("must hold non-negative whole numbers of successes and failures")
  }
  trials <- as.numeric(y[, 1] + y[, 2])
  list(y = ifelse(trials > 0, y[, 1] / pmax(trials, 1), 0), weights = (w %||% 1) * trials,
       trials = trials, matrix = TRUE)
}

# 0/1 responses, or proportions whose `weights` are the numbers of trials; returns the trials.
check_proportions <- function(y, prior_weights, bad_y) {
  if (any(y < 0 | y > 1)) {
    bad_y("must lie in [0, 1] for the binomial family",
          "Use 0/1, proportions with `weights` = trials, or cbind(successes, failures).")
  }
  if (any(y > 0 & y < 1)) {
    if (is.null(prior_weights)) {
      bad_y("has proportions strictly between 0 and 1 but no `weights`",
            "Give the numbers of trials as `weights`, or use cbind(successes, failures).")
    }
    succ <- y * prior_weights
    if (any(abs(succ - round(succ)) > 1e-7 * pmax(1, succ))) {
      bad_y("times `weights` (the trials) must give whole numbers of successes")
    }
  }
  prior_weights
}

