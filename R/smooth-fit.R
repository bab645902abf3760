# What a GLM with smooth terms adds to the fit: the prior of the smooths' standard
# deviations, and the target's start and capabilities (no joint mode: the density grows
# without bound as a standard deviation shrinks with its coefficients, as for group-level
# terms).

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

# The GLM's target with smooths: started near the mode of the non-centred posterior
# (R/start-noncentred.R); the samplers that need a mode, a Fisher metric or minibatches are
# refused before anything runs.
smooth_target <- function(target, sampler, inits, init, seed, progress) {
  noncentred_target(target, smooth_capabilities(), sampler, inits, init, seed, progress)
}

smooth_capabilities <- function() {
  list(minibatch = FALSE, metric_tensor = FALSE, has_mode = FALSE,
       no_mode = "its density grows without bound as a smooth's standard deviation shrinks with its coefficients",
       description = "a model with smooth terms", samplers = "nuts() (the default), hmc() or rwm()")
}
