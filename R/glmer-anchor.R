# The Laplace anchor of a multilevel model whose effects are sampled, for the samplers that
# start from one (surrogate_hmc(), variational_hmc(): their needs, R/samplers.R).
#
# The joint posterior has no mode (a standard deviation can shrink with its effects), but
# where the levels' data outweigh their prior the centred density has a local one beside its
# funnel, near the non-centred mode that the start found (R/start-noncentred.R) mapped to
# the sampled form; the non-centred density has a mode. From that point L-BFGS finds it and
# the Hessian comes from differences of the gradient; the start's checks that its Gaussian
# describes the posterior apply (R/start.R). On the funnel side of a weakly informed centred
# term there is no local mode (L-BFGS slides down the neck, or the Gaussian fails): with
# parameterization = "auto" the terms are then sampled non-centred and searched again.
#
# The other samplers (nuts(), hmc(), rwm()) start there too when some term is centred and the
# dimension is moderate: the chains then start in the typical set with the Laplace
# covariance as their metric, where the non-centred start's diagonal, carried to the centred
# effects, misses their ridge with the intercept (a logistic (1 | state) model, N = 1e5, 50
# states: NUTS's warmup took 84,666 gradients from the diagonal start and 3,982 from the
# anchor, its whole call 55.6 s and 10.2 s, min bulk ESS 1,371 and 2,646). Where there is none
# they keep the non-centred start.

# The sampled target for the terms' forms `centred`, with the start mapped to it.
sampled_form <- function(spec, model, priors, target_nc, start, centred) {
  model$glmer$centred <- centred
  target <- glmer_target(spec, model, priors, centred)
  mapped <- smooth_centred_start(centred_start(start, target_nc, target, model, spec), target, spec)
  list(target = target, centred = centred, start = mapped)
}

# `sampled` (sampled_form()'s) with the start at the local mode: of the chosen forms, or
# (under "auto", when some term is centred) of the non-centred ones. Where a mode was found
# but its Gaussian does not describe the posterior, the chains start as without it (near the
# non-centred mode, the exploration learning the scales) and the surrogate's quadratic base
# may still take its Hessian; where none was found, a clear error. The messages give the
# search's finding without a flat GLM's advice about priors and init: the funnel is the cause.
anchored_form <- function(sampled, spec, model, priors, target_nc, start, sampler, seed, progress) {
  found <- list(list(sampled = sampled, start = anchored_start(sampler, sampled, seed, progress)))
  if (any(sampled$centred) && model$glmer$parameterization == "auto" && failed_anchor(found[[1]])) {
    check_noncentred_sampler(sampler, FALSE)
    nc <- structure(rep(FALSE, length(sampled$centred)), information_ratio = attr(sampled$centred, "information_ratio"))
    nc <- sampled_form(spec, model, priors, target_nc, start, nc)
    found <- c(list(list(sampled = nc, start = anchored_start(sampler, nc, seed, progress))), found)
  }
  full <- Find(Negate(failed_anchor), found)
  if (!is.null(full)) {
    if (length(found) > 1L) {
      message(sprintf("%s(): the centred form has no local posterior mode here (%s); %s", sampler_name(sampler),
                      found[[2]]$start$finding,
                      "the group-level effects are sampled non-centred, whose posterior has one."))
    }
    for (f in Filter(failed_anchor, found)) full$start <- with_spent(full$start, f$start)
    return(replace(full$sampled, "start", list(full$start)))
  }
  loose <- Find(function(f) !is.null(f$start$anchors), found)
  if (!is.null(loose)) return(loose_anchor(loose$sampled, loose$start, sampler))
  stop_arg("sampler", sprintf(paste("is %s(), which starts from a posterior mode and its curvature, and this",
                                    "multilevel model's sampled posterior has none: %s"),
                              sampler_name(sampler), found[[1]]$start$finding),
           if (model$glmer$parameterization == "centered") "Use parameterization = \"auto\", or nuts()." else "Use nuts().")
}

# The dimension up to which the start of a sampler that does not need an anchor searches one:
# the Laplace covariance is dense (d^2 numbers) and its Hessian costs 2 d gradients per
# Newton step; beyond it memory stays linear in the levels (R/start-noncentred.R).
anchor_max_dim <- 500L

# Beyond this many parameters the samplers that need an anchor are refused: its dense
# covariance (8 d^2 bytes: 32 MB at 2,000) and the 2 d gradients of each Hessian cost more
# than NUTS's whole warmup, and a surrogate's training points grow with d.
anchor_refuse_dim <- 2000L

check_anchor_dim <- function(target, sampler) {
  d <- length(target$internal_names)
  if (d <= anchor_refuse_dim) return(invisible())
  stop_arg("sampler", sprintf(paste("is %s(), which starts from a posterior mode and its dense curvature, and this",
                                    "multilevel model samples %d parameters (its group-level effects; at most %d here)"),
                              sampler_name(sampler), d, anchor_refuse_dim),
           "Use nuts(), whose memory stays linear in the number of levels.")
}

anchor_helps <- function(sampled, start, sampler) {
  any(sampled$centred) && !is.null(start$mode_nc) && !uses_minibatch(sampler) &&
    length(sampled$target$internal_names) <= anchor_max_dim
}

# `sampled` with its start at the local mode when one is found with a Gaussian that
# describes the posterior, else as it was.
anchored_if_found <- function(sampled, sampler, seed, progress) {
  anchored <- anchored_start(sampler, sampled, seed, progress)
  if (!inherits(anchored, "vhmc_no_mode")) return(replace(sampled, "start", list(anchored)))
  sampled$start <- with_spent(sampled$start, anchored)
  sampled
}

# The start with the evaluations of a search that failed (a "vhmc_no_mode" condition) added
# to its cost (fit$start).
with_spent <- function(start, failed) {
  start$info$evaluations <- start$info$evaluations + failed$evaluations
  start
}

failed_anchor <- function(found) inherits(found$start, "vhmc_no_mode")

# The start without the Laplace metric and dispersion (the chains near the non-centred mode,
# as for nuts()), but with the mode and Hessian found (`failed`, mode_start()'s condition) as
# the anchor of the surrogate's quadratic base and of variational HMC.
loose_anchor <- function(sampled, failed, sampler) {
  message(sprintf(paste("%s(): the Gaussian at the posterior mode does not describe this multilevel posterior",
                        "(%s); the chains start near the mode and their exploration learns its scales."),
                  sampler_name(sampler), failed$finding))
  start <- sampled$start
  start$inv_metric <- NULL
  start$laplace <- lapply(failed$anchors, function(a) list(mode = a$mode, hessian = a$hessian))
  start$inits$anchor <- failed$anchors[[1]]
  sampled$start <- with_spent(start, failed)
  sampled
}

# The start of sampled_form() moved to the local mode (one search for every chain, from the
# mapped non-centred mode), with the Laplace metric and anchor; or mode_start()'s
# "vhmc_no_mode" condition. Its cost adds to the non-centred search's.
anchored_start <- function(sampler, sampled, seed, progress) {
  start <- sampled$start
  inits <- start$inits
  inits$internal <- rep(list(inits$mode_point), length(inits$internal))
  seconds <- elapsed_seconds(res <- tryCatch(catch_interrupt(mode_start(sampled$target, inits, seed, progress, shared = TRUE)),
                                             vhmc_no_mode = function(e) e))
  if (inherits(res, "vhmc_no_mode")) return(res)
  anchored <- mode_start_result(sampler, sampled$target, inits, res, seconds)
  anchored$mode_nc <- start$mode_nc
  anchored$info$evaluations <- anchored$info$evaluations + start$info$evaluations
  anchored$info$seconds <- anchored$info$seconds + start$info$seconds
  anchored
}
