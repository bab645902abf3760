# The priors of a GLM: checked against the design, autoscaled to the data, and carried into
# the sampler's coordinates.

# Priors checked against the design and autoscaled. Each element keeps the prior as the user
# specified it and as the core uses it.
glm_priors <- function(model, family, prior, prior_intercept, prior_aux) {
  X <- model$x
  slopes <- if (model$intercept) seq_len(ncol(X))[-1L] else seq_len(ncol(X))
  scale_y <- 1
  if (family$entry$standardise) scale_y <- weighted_sd(model$y, model$weights)
  # As rstanarm: a predictor with two values (a dummy) is scaled by its range, others by sd.
  scale_x <- vapply(slopes, function(j) {
    cols <- model$columns
    if (cols$n_distinct[j] == 2L) cols$max[j] - cols$min[j] else cols$weighted_sd[j]
  }, numeric(1))
  scale_x[!is.finite(scale_x) | scale_x == 0] <- 1
  out <- list()
  if (model$intercept) {
    out$prior_intercept <- list(specified = prior_intercept, adjusted = resolve_prior(
      prior_intercept, "prior_intercept", "intercept", scale_y = scale_y))
  }
  if (length(slopes)) {
    out$prior <- list(specified = prior, adjusted = resolve_prior(
      prior, "prior", "coef", k = length(slopes), scale_y = scale_y, scale_x = scale_x))
  }
  if (family$has_aux) {
    out$prior_aux <- list(specified = prior_aux, adjusted = resolve_prior(
      prior_aux, "prior_aux", "aux", scale_y = scale_y, aux_name = family$aux_name))
  }
  out
}

# Frequency-weighted sd (n - 1 denominator as sd(); the plain weighted mean square when the
# weights sum to at most 1, where that denominator is not positive). Computed on x / 2^k,
# 2^k near max|x|, and scaled back, so that responses near 1e300 or 1e-200 neither overflow
# nor underflow in the squares (scaling by a power of 2 is exact: ordinary responses give
# the same bits as without it).
weighted_sd <- function(x, w) {
  big <- power_of_two(max(abs(x)))
  x <- x / big
  if (is.null(w)) return(stats::sd(x) * big)
  m <- sum(w * x) / sum(w)
  big * sqrt(sum(w * (x - m)^2) / (if (sum(w) > 1) sum(w) - 1 else sum(w)))
}

# Location m and scale s of the gaussian response (weighted, after the offset); m = 0
# without an intercept, which is the only coefficient that can absorb it. Other families: 0, 1.
# Like weighted_sd(), on r / 2^k.
response_standardisation <- function(model, family) {
  if (!family$entry$standardise) return(list(center = 0, scale = 1))
  r <- if (is.null(model$offset)) model$y else model$y - model$offset
  if (any(!is.finite(r))) {
    stop_arg("offset", "subtracted from the response gives values beyond double precision",
             "Rescale the response and the offset.")
  }
  big <- power_of_two(max(abs(r)))
  r <- r / big
  w <- model$weights
  m <- if (is.null(w)) sum(r) / length(r) else sum(w * r) / sum(w)
  s <- sqrt(if (is.null(w)) sum((r - m)^2) / length(r) else sum(w * (r - m)^2) / sum(w))
  if (!is.finite(s) || s <= 0) s <- max(abs(r), 1 / big)
  list(center = if (model$intercept) m * big else 0, scale = s * big)
}

# The power of 2 nearest below |x| (1 for 0 or a non-finite x): a scale whose division is exact.
power_of_two <- function(x) if (is.finite(x) && x > 0) 2^floor(log2(x)) else 1

# A prior on a parameter p carried to p' = (p - shift) / s.
prior_to_units <- function(prior, shift, s) {
  if (prior$dist == "flat") return(prior)
  if (prior$dist == "exponential") {
    prior$rate <- prior$rate * s
    return(prior)
  }
  prior$location <- (prior$location - shift) / s
  prior$scale <- prior$scale / s
  prior
}

