# The registry entry of cumulative ordinal models (brms's cumulative(), MASS's polr()):
# categories 1..K, P(y <= k) = F(c_k - eta) with K - 1 ordered cutpoints c (the family's
# auxiliary block, sampled at the predictor means and reported for the uncentred ones; the
# linear predictor has no intercept) and F the link's distribution function.

cumulative_entry <- function() {
  family_entry(
    "cumulative", c("logit", "probit", "cloglog", "cauchit"), constructor = cumulative,
    prior_intercept = student_t(3, 0, 2.5), ordinal = TRUE, separation = FALSE, eta_mean = "latent",
    uninformative = function(y) length(unique(y)) < 2L,
    unidentified = function(model) {
      K <- length(model$levels)
      empty <- c(1L, K)[!c(1L, K) %in% model$y]
      if (length(empty)) sprintf("has no observation in the response's %s category \"%s\"",
                                 if (empty[1L] == 1L) "lowest" else "highest", model$levels[empty[1L]])
    },
    response = ordinal_response,
    epred = category_probabilities,
    simulate = function(p) {
      u <- stats::runif(length(p$eta))
      y <- matrix(1, nrow(p$eta), ncol(p$eta))
      for (k in seq_len(ncol(p$aux$cutpoints))) y <- y + (u > p$family$linkinv(p$aux$cutpoints[, k] - p$eta))
      y
    },
    log_lik = function(y, p) {
      probs <- category_probabilities(p)
      S <- nrow(p$eta)
      N <- ncol(p$eta)
      idx <- cbind(rep(seq_len(S), N), rep(seq_len(N), each = S), as.vector(y))
      matrix(log(pmax(probs[idx], 0)), S, N)
    },
    # Fisher information about eta: sum_k (f(c_{k-1} - eta) - f(c_k - eta))^2 / P_k.
    eta_information = function(p) {
      cuts <- c(-Inf, p$aux$cutpoints, Inf)
      dens <- vapply(cuts, function(c) if (is.finite(c)) p$family$mu.eta(c - p$eta) else 0 * p$eta, numeric(length(p$eta)))
      cdf <- vapply(cuts, function(c) p$family$linkinv(c - p$eta), numeric(length(p$eta)))
      dens <- matrix(dens, length(p$eta))
      cdf <- matrix(cdf, length(p$eta))
      K <- ncol(cdf) - 1L
      rowSums((dens[, -1L, drop = FALSE] - dens[, -(K + 1L), drop = FALSE])^2 /
                pmax(cdf[, -1L, drop = FALSE] - cdf[, -(K + 1L), drop = FALSE], 1e-300))
    })
}

# An ordered factor (its levels the categories) or whole numbers 1, 2, ... (categories 1 to
# their maximum): the response as category numbers, with the categories' names in `levels`.
ordinal_response <- function(y, w, bad_y) {
  if (is.factor(y) && !is.ordered(y)) {
    bad_y(sprintf("is an unordered factor (levels %s); cumulative() needs an ordered response",
                  paste0("\"", utils::head(levels(y), 4L), "\"", collapse = ", ")),
          "Make it ordered, e.g. ordered(y, levels = c(...)) with the levels from lowest to highest, or use whole numbers 1, 2, ...")
  }
  if (is.ordered(y)) {
    levels <- levels(y)
    y <- as.integer(y)
  } else {
    r <- plain_response(y, w, bad_y)
    y <- r$y
    if (any(y < 1 | y != round(y))) {
      bad_y("has values that are not whole numbers >= 1; cumulative() takes an ordered factor or categories 1, 2, ...")
    }
    levels <- as.character(seq_len(max(y)))
  }
  if (length(levels) < 2L) bad_y("has a single category; an ordinal model needs at least two")
  list(y = as.numeric(y), weights = w, trials = NULL, matrix = FALSE, levels = levels)
}

# Draws x observations x categories of P(y = k).
category_probabilities <- function(p) {
  cuts <- p$aux$cutpoints
  S <- nrow(p$eta)
  N <- ncol(p$eta)
  K <- ncol(cuts) + 1L
  cdf <- array(1, c(S, N, K))
  for (k in seq_len(K - 1L)) cdf[, , k] <- p$family$linkinv(cuts[, k] - p$eta)
  probs <- cdf
  for (k in seq_len(K)[-1L]) probs[, , k] <- cdf[, , k] - cdf[, , k - 1L]
  probs
}

# The cutpoints' names, as polr(): "low|mid", "mid|high", ...
cutpoint_names <- function(levels) paste(utils::head(levels, -1L), levels[-1L], sep = "|")
