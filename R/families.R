# The families of vhmc_glm(): resolved from what users pass to glm() or rstanarm, and one
# entry per family and link holding everything R needs of it (response rules, predictive
# draws, pointwise log likelihood, moments, residuals). The core's own mathematics of each
# family is in inst/include/vhmc/model/glm/families.hpp; ARCHITECTURE.md says how to add one.

#' Negative binomial family
#'
#' The family object of the negative binomial GLM in rstanarm's `neg_binomial_2`
#' parameterisation, for [vhmc_glm()]: mean \eqn{\mu = \exp(\eta)} and variance
#' \eqn{\mu + \mu^2 / \phi}, with the reciprocal dispersion \eqn{\phi > 0}
#' (`reciprocal_dispersion` in the fit; a Poisson model is the limit \eqn{\phi \to \infty})
#' estimated with the prior `prior_aux` (default `exponential(1)`, as rstanarm).
#'
#' @param link The link function; only `"log"`.
#' @return An object of class `family`.
#' @examples
#' neg_binomial_2()
#' \donttest{
#' if (requireNamespace("MASS", quietly = TRUE)) {
#'   fit <- vhmc_glm(Days ~ Sex + Age + Eth + Lrn, data = MASS::quine,
#'                   family = neg_binomial_2(), chains = 2, iter = 1000, seed = 1,
#'                   progress = FALSE)
#'   coef(fit)
#' }
#' }
#' @export
neg_binomial_2 <- function(link = "log") {
  link <- if (is.character(link)) link else deparse1(substitute(link))
  if (!identical(link, "log")) {
    stop_arg("link", sprintf("of neg_binomial_2() must be \"log\", not %s", describe(link)))
  }
  lk <- stats::make.link("log")
  structure(list(family = "neg_binomial_2", link = "log", linkfun = lk$linkfun,
                 linkinv = lk$linkinv, mu.eta = lk$mu.eta, valideta = lk$valideta,
                 variance = function(mu, phi) mu + mu^2 / phi),
            class = "family")
}

# Family entries, keyed by the core's code "family_link".
glm_family_entries <- function() {
  list(gaussian_identity = gaussian_entry(), binomial_logit = binomial_entry("logit"),
       binomial_probit = binomial_entry("probit"), poisson_log = poisson_entry(),
       neg_binomial_2_log = neg_binomial_entry(), Gamma_log = gamma_entry())
}

supported_families <- c("gaussian(identity)", "binomial(logit)", "binomial(probit)",
                        "poisson(log)", "neg_binomial_2(log)", "Gamma(log)")

# family: a family object (binomial(link = "probit")), a family function (poisson) or a name
# ("binomial"). Returns the family object plus `code` (the core's name for the pair),
# `entry` (glm_family_entries()), `has_aux` and `aux_name`.
resolve_family <- function(family) {
  if (is.character(family) && length(family) == 1L) {
    fun <- switch(family, gaussian = stats::gaussian, binomial = stats::binomial,
                  poisson = stats::poisson, neg_binomial_2 = neg_binomial_2, Gamma = stats::Gamma, NULL)
    if (is.null(fun)) {
      stop_arg("family", sprintf("\"%s\" is not supported", family),
               paste("Supported:", paste(supported_families, collapse = ", ")))
    }
    family <- fun()
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) {
    stop_arg("family", sprintf("must be a family such as binomial(), not %s", describe(family)))
  }
  key <- paste0(family$family, "(", family$link, ")")
  if (!key %in% supported_families) {
    stop_arg("family", sprintf("%s is not supported", key),
             paste("Supported:", paste(supported_families, collapse = ", ")))
  }
  family$code <- paste0(family$family, "_", family$link)
  family$entry <- glm_family_entries()[[family$code]]
  family$aux_name <- family$entry$aux
  family$has_aux <- !is.null(family$aux_name)
  family
}

# A family without an auxiliary parameter, with the defaults the others override. `trials`:
# the response counts successes out of trials (binomial), which a two-column response, the
# predictive draws and the log likelihood use.
# `response(y, prior_weights, bad_y)` returns list(y, weights, trials, matrix): the response
# on the core's scale and the likelihood's weights; the functions of draws take S x N
# matrices (eta, mu) and the auxiliary draws (one per row) or NULL.
base_entry <- function(...) {
  entry <- list(aux = NULL, standardise = FALSE, min_rows = 1L, separation = TRUE, trials = FALSE,
                response = function(y, w, bad_y) plain_response(y, w, bad_y),
                uninformative = function(y) all(y == 0),
                observed = function(y, trials) y,
                expected = function(mu, trials) mu,
                pearson_variance = function(mu, aux) mu,
                eta_information = function(mu, aux, trials) mu)
  utils::modifyList(entry, list(...))
}

gaussian_entry <- function() {
  base_entry(
    aux = "sigma", standardise = TRUE, min_rows = 2L, separation = FALSE,
    response = function(y, w, bad_y) {
      r <- plain_response(y, w, bad_y)
      if (length(r$y) > 1L && all(r$y == r$y[1L])) {
        bad_y(sprintf("is constant (every value is %s), so sigma is not identified", format(r$y[1L])))
      }
      r
    },
    uninformative = function(y) FALSE,
    variance = function(mean, mu, aux) matrix(aux^2, nrow(mu), ncol(mu)),
    simulate = function(n, mu, aux, size) stats::rnorm(n, mu, aux),
    log_lik = function(y, eta, aux, trials, link) stats::dnorm(y, eta, aux, log = TRUE),
    pearson_variance = function(mu, aux) rep(1, length(mu)),
    eta_information = function(mu, aux, trials) rep(1 / aux^2, length(mu)),
    dev_resids = function(y, mu, w, aux) w * (y - mu)^2)
}

binomial_entry <- function(link) {
  base_entry(
    trials = TRUE,
    response = function(y, w, bad_y) binomial_response(y, w, bad_y),
    uninformative = function(y) all(y == 0) || all(y == 1),
    observed = function(y, trials) round(y * (trials %||% 1)),
    expected = function(mu, trials) mu * rep(rep_len(trials %||% 1, ncol(mu)), each = nrow(mu)),
    variance = function(mean, mu, aux) mean * (1 - mu),
    simulate = function(n, mu, aux, size) stats::rbinom(n, size, mu),
    log_lik = binomial_log_lik,
    pearson_variance = function(mu, aux) mu * (1 - mu),
    eta_information = function(mu, aux, trials) (trials %||% 1) * mu * (1 - mu),
    dev_resids = function(y, mu, w, aux) stats::binomial()$dev.resids(y, mu, w))
}

poisson_entry <- function() {
  base_entry(
    response = function(y, w, bad_y) count_response(y, w, bad_y, "Poisson"),
    variance = function(mean, mu, aux) mean,
    simulate = function(n, mu, aux, size) stats::rpois(n, mu),
    log_lik = function(y, eta, aux, trials, link) stats::dpois(y, exp(eta), log = TRUE),
    dev_resids = function(y, mu, w, aux) stats::poisson()$dev.resids(y, mu, w))
}

neg_binomial_entry <- function() {
  base_entry(
    aux = "reciprocal_dispersion",
    response = function(y, w, bad_y) count_response(y, w, bad_y, "negative binomial"),
    variance = function(mean, mu, aux) mean + mean^2 / aux,
    simulate = function(n, mu, aux, size) stats::rnbinom(n, size = aux, mu = mu),
    log_lik = function(y, eta, aux, trials, link) stats::dnbinom(y, size = aux, mu = exp(eta), log = TRUE),
    pearson_variance = function(mu, aux) mu + mu^2 / aux,
    eta_information = function(mu, aux, trials) mu / (1 + mu / aux),
    dev_resids = function(y, mu, w, aux) {
      2 * w * (y * log(pmax(1, y) / mu) - (y + aux) * log((y + aux) / (mu + aux)))
    })
}

gamma_entry <- function() {
  base_entry(
    aux = "shape", separation = FALSE,
    response = function(y, w, bad_y) {
      r <- plain_response(y, w, bad_y)
      if (any(r$y <= 0)) bad_y("has values <= 0; the Gamma family needs positive outcomes")
      r
    },
    uninformative = function(y) FALSE,
    variance = function(mean, mu, aux) mean^2 / aux,
    simulate = function(n, mu, aux, size) stats::rgamma(n, shape = aux, rate = aux / mu),
    log_lik = function(y, eta, aux, trials, link) stats::dgamma(y, shape = aux, rate = aux / exp(eta), log = TRUE),
    pearson_variance = function(mu, aux) mu^2,
    eta_information = function(mu, aux, trials) rep(aux, length(mu)),
    dev_resids = function(y, mu, w, aux) stats::Gamma()$dev.resids(y, mu, w))
}

# A numeric response with one value per observation.
plain_response <- function(y, w, bad_y) {
  if (!is.numeric(y)) bad_y(sprintf("must be numeric, not %s", class(y)[1]))
  y <- as.numeric(y)
  if (any(!is.finite(y))) bad_y("has non-finite values (Inf or NaN)", "Remove or fix those rows.")
  list(y = y, weights = w, trials = NULL, matrix = FALSE)
}

# Non-negative whole numbers (Poisson and negative binomial counts).
count_response <- function(y, w, bad_y, what) {
  r <- plain_response(y, w, bad_y)
  if (any(r$y < 0)) bad_y(sprintf("has negative values; %s counts must be >= 0", what))
  if (any(r$y != round(r$y))) bad_y(sprintf("has non-integer values; %s counts must be whole numbers", what))
  r
}

# Binomial log likelihood of S x N draws of eta with n trials: log p and log(1 - p) without
# cancellation; 0 * log(0) terms are 0.
binomial_log_lik <- function(y, eta, aux, trials, link) {
  nm <- matrix(trials %||% rep(1, ncol(eta)), nrow(eta), ncol(eta), byrow = TRUE)
  s <- round(y * nm)
  lp <- if (link == "logit") stats::plogis else stats::pnorm
  lchoose(nm, s) + ifelse(s > 0, s * lp(eta, log.p = TRUE), 0) +
    ifelse(nm - s > 0, (nm - s) * lp(-eta, log.p = TRUE), 0)
}
