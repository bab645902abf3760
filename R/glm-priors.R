# The priors of a GLM: checked against the design, autoscaled to the data, and carried into
# the sampler's coordinates.

# Priors checked against the design and autoscaled. Each element keeps the prior as the user
# specified it and as the core uses it; `prior_aux` is a list by auxiliary parameter. A
# family with cutpoints takes prior_intercept as the prior of each cutpoint.
glm_priors <- function(model, family, prior, prior_intercept, prior_aux, prior_smooth = NULL) {
  X <- model$x
  slopes <- if (model$intercept) seq_len(ncol(X))[-1L] else seq_len(ncol(X))
  slopes <- setdiff(slopes, smooth_random_columns(model) + model$intercept)  # their prior: R/smooth-fit.R
  scale_y <- if (standardised(family)) weighted_sd(core_response(model), model$weights) else 1
  # As rstanarm: a predictor with two values (a dummy) is scaled by its range, others by sd.
  scale_x <- vapply(slopes, function(j) {
    cols <- model$columns
    if (cols$n_distinct[j] == 2L) cols$max[j] - cols$min[j] else cols$weighted_sd[j]
  }, numeric(1))
  scale_x[!is.finite(scale_x) | scale_x == 0] <- 1
  out <- list()
  n_cut <- model$n_cutpoints %||% 0L
  if (model$intercept || n_cut > 0L) {
    role <- if (model$intercept) "intercept" else "cutpoints"
    out$prior_intercept <- list(specified = prior_intercept, adjusted = resolve_prior(
      prior_intercept, "prior_intercept", role, k = max(1L, n_cut), scale_y = scale_y))
  }
  if (length(slopes)) {
    out$prior <- list(specified = prior, adjusted = resolve_prior(
      prior, "prior", "coef", k = length(slopes), scale_y = scale_y, scale_x = scale_x))
    if (is_horseshoe(prior)) out$prior$adjusted <- resolve_horseshoe(out$prior$adjusted, family, model)
  }
  if (has_penalised(model)) out$prior_smooth <- smooth_prior(prior_smooth, scale_y)
  aux <- family$aux[!family$aux$sized_by_data, , drop = FALSE]
  specified <- aux_prior_specs(family, prior_aux)
  if (nrow(aux)) out$prior_aux <- stats::setNames(lapply(seq_len(nrow(aux)), function(i) {
    nm <- aux$name[i]
    role <- if (aux$transform[i] == "logit") "probability" else "aux"
    list(specified = specified[[nm]], role = role, adjusted = resolve_prior(
      specified[[nm]], aux_arg(family, nm), role, scale_y = if (aux$scales_with_y[i]) scale_y else 1, aux_name = nm))
  }), aux$name)
  out
}

# The user's prior_aux (NULL, one prior, or a list by name) completed with the family's
# defaults: a list by auxiliary parameter (cutpoints aside: their prior is prior_intercept).
aux_prior_specs <- function(family, prior_aux) {
  names <- family$aux$name[!family$aux$sized_by_data]
  defaults <- family$entry$aux_priors[names]
  if (is.null(prior_aux)) return(defaults)
  if (!length(names)) {
    stop_arg("prior_aux", sprintf("was given, but the %s family has no auxiliary parameter", family$family),
             if (any(family$aux$sized_by_data)) "Its cutpoints take their prior from `prior_intercept`." else
               "Leave `prior_aux` out for this family.")
  }
  if (is_prior(prior_aux)) {
    if (length(names) == 1L) return(stats::setNames(list(prior_aux), names))
    stop_arg("prior_aux", sprintf("is one prior, but the %s family has %d auxiliary parameters (%s)",
                                  family$family, length(names), paste(names, collapse = ", ")),
             sprintf("Give a list by name, e.g. prior_aux = list(%s = ...); names left out keep their defaults.", names[1L]))
  }
  if (!is.list(prior_aux) || is.null(names(prior_aux)) || any(!nzchar(names(prior_aux)))) {
    stop_arg("prior_aux", sprintf("must be a prior or a named list of priors, not %s", describe(prior_aux)))
  }
  unknown <- setdiff(names(prior_aux), names)
  if (length(unknown)) {
    stop_arg("prior_aux", sprintf("names %s, which the %s family does not have", paste0("`", unknown, "`", collapse = ", "),
                                  family$family),
             sprintf("Its auxiliary parameters are %s.", paste0("`", names, "`", collapse = ", ")))
  }
  defaults[names(prior_aux)] <- prior_aux
  defaults
}

# How an auxiliary parameter's prior is named in messages: prior_aux, or prior_aux$nu.
aux_arg <- function(family, name) {
  if (sum(!family$aux$sized_by_data) > 1L) sprintf("prior_aux$%s", name) else "prior_aux"
}

# Whether the core standardises the response (location-scale families on the identity link),
# and the response the core's family models (lognormal: log y).
standardised <- function(family) family$entry$standardise(family$link)
core_response <- function(model) model$family$entry$core_response(model$y)

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
  if (!standardised(family)) return(list(center = 0, scale = 1))
  y <- core_response(model)
  r <- if (is.null(model$offset)) y else y - model$offset
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

# A prior on a parameter p carried to p' = (p - shift) / s (a horseshoe is carried by the core,
# which knows its parameters' units).
prior_to_units <- function(prior, shift, s) {
  if (prior$dist %in% c("flat", "beta", horseshoe_dists)) return(prior)
  if (prior$dist %in% c("exponential", "gamma")) {
    prior$rate <- prior$rate * s
    return(prior)
  }
  prior$location <- (prior$location - shift) / s
  prior$scale <- prior$scale / s
  prior
}

