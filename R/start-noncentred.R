# Where the chains start when the posterior has no mode in its own parameters but has one
# in a non-centred parameterisation: multilevel GLMs (R/glmer-start.R, b = D L z), the
# horseshoe prior (R/priors-horseshoe.R, beta_j = z_j tau lambda~_j) and smooth terms
# (R/smooth-fit.R, b_j = z_j sd). As a standard deviation
# (or tau) goes to 0 with its effects (coefficients), the centred density grows without
# bound; in the non-centred parameterisation, z ~ N(0, I), that limit has finite density and
# the proper priors on the scales make a mode exist. L-BFGS finds it once per fit (from
# every sampler coordinate 0, or the null model inside the link's domain), and its
# inverse-Hessian estimate gives the initial (diagonal) metric. The Gaussian at that mode is
# not checked against the posterior as a GLM's is (R/start.R): hierarchical posteriors bend
# away from it (a scale against its effects), and the chains only start near the mode, each
# at mode + sqrt(diag) N(0, I), not from the Gaussian. When the search fails the chains start
# at random values, and a message says why.

# The start at the mode of the non-centred target (or of a multilevel model's marginal one,
# where the effects are integrated out): as start_chains() gives it, plus `mode_nc`.
noncentred_mode_start <- function(sampler, target_nc, inits, init, seed, progress,
                                  search = start_how(sampler, init) == "mode") {
  if (!search) return(start_chains(sampler, target_nc, inits, init, seed, progress))
  d <- length(target_nc$internal_names)
  progress_line(progress, "Mode search (L-BFGS, shared by all chains)")
  seconds <- elapsed_seconds(lb <- tryCatch(
    vhmc_lbfgs(lbfgs_potential(target_nc$value_grad, d), lbfgs_start(target_nc, d), 2000L), error = function(e) e))
  reason <- mode_start_problem(lb)
  if (!is.null(reason)) {
    message("Starting the chains from random initial values: ", reason, " (init = \"random\" skips the mode search).")
    start <- start_chains(sampler, target_nc, inits, "random", seed, progress)
    chains <- length(inits$internal)
    start$info <- start_info("random", reason, c(lb$evaluations %||% 0, numeric(chains - 1L)), numeric(chains), seconds)
    return(start)
  }
  progress_line(progress, "Mode search: done after %d evaluations (%.1f s)", as.integer(lb$evaluations), seconds)
  v <- mode_inverse_metric(target_nc, lb)
  internal <- with_local_seed(start_seed(seed), lapply(seq_along(inits$internal), function(c) {
    jitter_inside(lb$mode, sqrt(v), target_nc)
  }))
  chains <- length(internal)
  list(inits = list(internal = internal, user = lapply(internal, target_nc$user_values), mode_point = lb$mode),
       inv_metric = rep(list(v), chains), laplace = NULL, mode_nc = lb$mode,
       info = start_info("mode", NULL, c(lb$evaluations, numeric(chains - 1L)), numeric(chains), seconds))
}

# The start's inverse metric: 1 for the non-centred coordinates z (the layout's blocks labelled
# "noncentred": a multilevel model's effects, a horseshoe's or a smooth's coefficients; their prior
# variance, which the posterior's given the scales does not exceed when the likelihood is
# log-concave), and for the other
# coordinates the inverse of the Hessian's diagonal at the mode where it is positive, else
# L-BFGS's estimate. Neither the curvature at the mode nor L-BFGS's diagonal (a few rank-two
# updates of a scaled identity) suits the effects: where levels have few rows the joint mode
# sits at a large sd with the effects near 0 (a level whose rows are all in one category has
# no finite estimate), and on brms's inhaler model the effects got 0.0003-0.09 (Hessian) or
# 0.0008 (L-BFGS) where their posterior variance is near 0.5; the warmup's first
# trajectories then ran to 256-512 steps (77,000 gradients a chain, against 22,000 from 1).
mode_inverse_metric <- function(target_nc, lb) {
  v <- pmax(lb$inv_hessian_diag, 1e-8)
  effects <- noncentred_indices(target_nc$layout$blocks)
  other <- setdiff(seq_along(v), effects)
  H <- hessian_diagonal(target_nc, lb$mode, other)
  ok <- is.finite(H) & H > 0
  v[other[ok]] <- 1 / H[ok]
  v[effects] <- 1
  v
}

# The diagonal of the Hessian of U at theta for the coordinates idx, by central differences of
# the gradient.
hessian_diagonal <- function(target, theta, idx, h = 1e-4) {
  if (!length(idx)) return(numeric())
  gradient_differences(target, theta, idx, h)[cbind(seq_along(idx), idx)]
}

# The rows of the Hessian of U at theta for the coordinates idx (length(idx) x d), by central
# differences of the gradient: all 2 length(idx) points in one call of the core.
gradient_differences <- function(target, theta, idx, h = 1e-4) {
  rows <- do.call(rbind, lapply(idx, function(i) {
    e <- replace(numeric(length(theta)), i, h)
    rbind(theta + e, theta - e)
  }))
  g <- vhmc_glm_potential(target$ptr, rows)$gradient
  k <- seq_along(idx)
  (g[2L * k - 1L, , drop = FALSE] - g[2L * k, , drop = FALSE]) / (2 * h)
}

# The coordinates (1-based) of the layout's non-centred blocks.
noncentred_indices <- function(blocks) block_indices(blocks[blocks$label == "noncentred", , drop = FALSE])

# The coordinates (1-based) of some blocks of a layout.
block_indices <- function(b) unlist(lapply(seq_len(nrow(b)), function(i) b$offset[i] + seq_len(b$size[i])))

# A chain's start near the mode: mode + sd N(0, I), the jitter halved until the log density
# is finite there (a link's domain can end near the mode), or the mode itself.
jitter_inside <- function(mode, sd, target) {
  z <- stats::rnorm(length(mode))
  for (k in 0:30) {
    theta <- mode + sd * z * 0.5^k
    if (is.finite(target$value_grad(theta)$value)) return(theta)
  }
  mode
}

# Where L-BFGS starts: every coordinate 0, or where that is outside the link's domain, the
# null model inside it (R/glm-spec.R, null_point()).
lbfgs_start <- function(target, d) {
  zero <- numeric(d)
  if (is.finite(target$value_grad(zero)$value) || is.null(target$null)) return(zero)
  target$null
}

# Why an L-BFGS result is no start (NULL when it is one).
mode_start_problem <- function(lb) {
  if (inherits(lb, "error")) return(sprintf("the mode search failed (%s)", conditionMessage(lb)))
  if (!is.finite(lb$value) || !all(is.finite(lb$mode))) return("the mode search found no finite mode")
  if (!all(is.finite(lb$inv_hessian_diag))) return("the curvature at the mode is not finite")
  NULL
}

# A GLM target whose posterior has no mode (a horseshoe's, smooths'; the core's capabilities
# say so): the chains started near the mode of the non-centred posterior.
noncentred_target <- function(target, sampler, inits, init, seed, progress) {
  target$start <- function() noncentred_mode_start(sampler, target, inits, init, seed, progress)
  target
}
