# What a GLM with smooth terms adds to the fit: the prior of the smooths' standard
# deviations, and the target's start (no joint mode, as the core's capabilities say: the
# density grows without bound as a standard deviation shrinks with its coefficients, as for
# group-level terms).

# The prior of the smooths' sds as specified and as used; a proper prior of a positive
# parameter (a flat one leaves the posterior improper as the sd grows).
smooth_prior <- function(prior_smooth, scale_y) {
  specified <- prior_smooth
  if (is_prior(specified) && specified$dist == "flat") {
    stop_arg("prior_smooth", "cannot be flat(): a smooth's standard deviation needs a proper prior",
             "Use exponential(), student_t(3, 0, s), normal(0, s) or gamma_prior().")
  }
  list(specified = specified, adjusted = resolve_prior(specified, "prior_smooth", "aux", scale_y = scale_y,
                                                       aux_name = "a smooth's standard deviation"))
}

# The GLM's target with smooths: the chains start near the mode of the non-centred posterior
# (R/start-noncentred.R), and each penalised column is then sampled centred where the data
# say more about its coefficient than its prior does (smooth_centring()); the samplers that
# need a mode, a Fisher metric or minibatches are refused before anything runs. The target
# carries the choice (`smooth_centred`).
smooth_target <- function(target, spec, model, sampler, inits, init, seed, progress) {
  target_nc <- noncentred_target(target, sampler, inits, init, seed, progress)
  start <- catch_interrupt(target_nc$start())
  spec <- with_smooth_centring(spec, target_nc, start)
  centred <- unlist(lapply(smooth_sets(target_nc$layout$blocks, spec), `[[`, "centred"))
  target <- if (any(centred)) glm_target(spec, model) else target_nc
  target$start <- function() smooth_centred_start(start, target, spec)
  target$smooth_centred <- spec$smooths$centred
  target
}

# Which penalised columns to sample centred: every column of a penalty block whose
# coefficients all have an information ratio kappa_j = I_j sd^2 above 1 (Papaspiliopoulos,
# Roberts and Skold 2007), I_j the likelihood's information about b_j, even with sd three of
# its posterior standard deviations (on the log scale, from the inverse Hessian of the
# smooth's coordinates at the mode) below the non-centred mode: a centred coefficient is a
# funnel wherever its sd's posterior reaches values that make kappa small. In z_j = b_j / sd,
# d2U/dz_j^2 = I_j sd^2 + 1, so kappa_j at the mode is the Hessian's diagonal less 1. None
# without a mode search (random starts, rwm()) or without the likelihood (prior_PD: kappa_j
# = 0). Measured: y ~ s(x) on 200 rows of a sine curve, non-centred throughout: 183 of 4,000
# transitions diverged, sds's bulk ESS 116; every column centred: none diverged. y ~ t2(x,
# z, k = 4) of an additive truth, every column centred: 228 divergences, R-hat 1.21; column
# by column (sd two sds lower): 394; block by block: 6 (non-centred throughout: 3), and the
# informed block's sd's bulk ESS 5,313 (non-centred: 979). On the SBC model of
# inst/validation/sbc-smooth.R (60 rows, 200 replications of 1,000 draws): total
# divergences 1,067 non-centred, 2,527 centred (and sds's ranks biased, ECDF p 0.001), 988
# with sd two sds lower, 584 with three (calibrated, p 0.915).
smooth_centring <- function(target_nc, start, set) {
  idx <- set$idx
  if (is.null(start$mode_nc) || !length(idx)) return(rep(FALSE, length(idx)))
  sd_idx <- set$sd_idx
  at <- c(idx, unique(sd_idx))
  H <- hessian_block(target_nc, start$mode_nc, at)
  kappa <- diag(H)[seq_along(idx)] - 1
  V <- tryCatch(solve(H), error = function(e) diag(1 / pmax(diag(H), 1e-12)))
  log_sd_sd <- sqrt(pmax(diag(V)[-seq_along(idx)], 0))
  kappa_low <- kappa * exp(-6 * log_sd_sd[match(sd_idx, unique(sd_idx))])
  informed <- is.finite(kappa_low) & kappa_low > 1
  stats::ave(informed, sd_idx, FUN = all) == 1
}

# The Hessian of U at theta among the coordinates idx, symmetrised.
hessian_block <- function(target, theta, idx) {
  H <- gradient_differences(target, theta, idx)[, idx, drop = FALSE]
  (H + t(H)) / 2
}

# The coordinate of each penalised column's sd (block "sm:sd", or a distributional
# formula's "sm:sd:NAME").
smooth_sd_indices <- function(blocks, sizes, name = "sm:sd") {
  blocks$offset[blocks$name == name] + rep(seq_along(sizes), sizes)
}

# Every set of penalised columns in the layout: the mean's smooths and each distributional
# formula's, with their coordinates, their sds', each column's unit (its scale over the
# response's; a link scale has no response units) and centring flags (spec's), and where
# the flags go in spec (`path`).
smooth_sets <- function(blocks, spec) {
  sets <- list()
  if (!is.null(spec$smooths$sizes)) {
    idx <- layout_indices(blocks, "smooth")
    sets$main <- list(idx = idx, sd_idx = smooth_sd_indices(blocks, spec$smooths$sizes),
                      unit = (if (is.null(spec$scale)) 1 else utils::tail(spec$scale, length(idx))) / spec$y_scale,
                      centred = spec$smooths$centred %||% rep(FALSE, length(idx)), path = "smooths")
  }
  for (j in seq_along(spec$dpars)) {
    sm <- spec$dpars[[j]]$smooths
    if (is.null(sm)) next
    nm <- blocks$label[startsWith(blocks$name, "dpar:")][j]
    n <- sum(sm$sizes)
    sets[[nm]] <- list(idx = utils::tail(layout_indices(blocks, paste0("dpar:", nm)), n),
                       sd_idx = smooth_sd_indices(blocks, sm$sizes, paste0("sm:sd:", nm)),
                       unit = utils::tail(spec$dpars[[j]]$scale, n), centred = sm$centred %||% rep(FALSE, n),
                       path = c("dpars", j, "smooths"))
  }
  sets
}

# spec with every smooth set's centring chosen (smooth_centring()).
with_smooth_centring <- function(spec, target_nc, start) {
  for (set in smooth_sets(target_nc$layout$blocks, spec)) {
    flags <- smooth_centring(target_nc, start, set)
    if (identical(set$path, "smooths")) spec$smooths$centred <- flags else spec$dpars[[as.integer(set$path[2L])]]$smooths$centred <- flags
  }
  spec
}

# The start on the non-centred coordinates carried to the target's: each centred column's
# theta_j = z_j sd unit_j (unit_j: its column's scale over the response's, as the core's
# glm/smooths.hpp), and its inverse metric times (sd unit_j)^2 at the mode.
smooth_centred_start <- function(start, target, spec) {
  sets <- Filter(function(s) any(s$centred), smooth_sets(target$layout$blocks, spec))
  if (!length(sets)) return(start)
  for (set in sets) {
    factor_at <- function(theta) ifelse(set$centred, exp(theta[set$sd_idx]) * set$unit, 1)
    map_point <- function(theta) replace(theta, set$idx, theta[set$idx] * factor_at(theta))
    start$inits$internal <- lapply(start$inits$internal, map_point)
    if (!is.null(start$inits$mode_point)) start$inits$mode_point <- map_point(start$inits$mode_point)
    f2 <- factor_at(start$mode_nc)^2
    if (!is.null(start$inv_metric)) start$inv_metric <- lapply(start$inv_metric, function(v) replace(v, set$idx, v[set$idx] * f2))
  }
  start$inits$user <- lapply(start$inits$internal, target$user_values)
  start
}

# The coordinates (1-based) of the layout's block `name`.
layout_indices <- function(blocks, name) block_indices(blocks[blocks$name == name, , drop = FALSE])

