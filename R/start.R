# Where the chains start, and with which metric.
#
# init = NULL (the default) starts from the posterior mode and its curvature: the mode theta*
# and the Hessian H of the potential there give the Laplace approximation N(theta*, S),
# S = H^-1. For a GLM the mode comes from damped Newton with the analytic Hessian (once per
# fit: it is unique); for a target written in R, from L-BFGS started at each chain's own
# random initial values, with H from central differences of the gradient (one search per
# chain, so that chains that find different modes keep them). Each chain then starts at a
# draw of N(theta*, 2 S), overdispersed so that R-hat still compares chains that began
# apart, and its metric starts from S, so that warmup neither has to walk in from
# uniform(-2, 2) nor to learn the posterior's scales from a unit metric.
# The Gaussian must describe the posterior near the mode: at each chain's start and three more
# draws like it, the rise of the potential above the mode, U(theta) - U(theta*), must be
# within a factor 4 (plus 2 nats) of the Gaussian's prediction z'z. Where it is not, S is
# regularised in the directions where the curvature misleads (a half-wall, R/start-regularise.R)
# and the check repeated with it; where it still is not (a funnel, whose mode sits in the neck),
# or where there is no finite mode with a positive definite Hessian (flat directions,
# separation, a search that fails), the chains start as with init = "random" (uniform(-2, 2)
# on the sampler's coordinates and a unit metric), and a message says why.

# How the chains start: "mode", "random" or "init" (the user's values).
start_how <- function(sampler, init) {
  if (identical(init, "random")) return("random")
  if (!is.null(init)) return("init")
  start_method(sampler)
}

# The chains' initial values (list(internal, user)), initial inverse metrics and Laplace
# approximations (list(mode, hessian)); one per chain, or NULL), and what finding them cost
# (fit$start).
start_chains <- function(sampler, target, inits, init, seed, progress = FALSE) {
  how <- start_how(sampler, init)
  chains <- length(inits$internal)
  plain <- list(inits = inits, inv_metric = NULL, laplace = NULL,
                info = start_info(how, NULL, numeric(chains), numeric(chains), 0))
  if (how != "mode") return(plain)
  screen <- screened_inits(sampler, target, inits, seed)
  plain$inits <- inits <- screen$inits
  seconds <- elapsed_seconds(res <- tryCatch(mode_start(target, inits, seed, progress,
                                                        tolerant = start_screen(sampler) > 0L,
                                                        search = mode_search(sampler)),
                                             vhmc_no_mode = function(e) e))
  res$evaluations <- res$evaluations + screen$evaluations
  if (inherits(res, "vhmc_no_mode")) {
    message("Starting the chains from ", if (screen$evaluations[1] > 0) "the best points of a space-filling design" else
      "random initial values", ": ", conditionMessage(res), " (init = \"random\" skips the mode search).")
    plain$info <- start_info("random", conditionMessage(res), res$evaluations, res$hessians, seconds)
    return(plain)
  }
  mode_start_result(sampler, target, inits, res, seconds)
}

# The mode searches of a sampler that screens (start_screen(): points per dimension, for
# posteriors with local modes, such as ODE models whose fits can miss the data's period)
# start from the best points of a Latin hypercube over the parameter space (the target's
# `scatter`: uniform over a box on the logit scale, or in (-2, 2)), instead of random points:
# on a box-bounded Lotka-Volterra model, searches from uniform(-2, 2) reached the main mode
# in 3 of 10 (the others 40 nats below), from the best 4 of 60 such points at least once in
# 8 of 8 designs. `evaluations`: the design's, shared out over the chains.
screened_inits <- function(sampler, target, inits, seed) {
  chains <- length(inits$internal)
  none <- list(inits = inits, evaluations = numeric(chains))
  per_dim <- start_screen(sampler)
  if (per_dim == 0L || is.null(target$scatter)) return(none)
  n <- max(per_dim * length(target$scatter), chains)
  Z <- with_local_seed((start_seed(seed) + 1) %% .Machine$integer.max, latin_points(n, target$scatter))
  # A model that fails somewhere in the box (a solver's error) rejects that point, as a chain would.
  U <- vapply(seq_len(n), function(i) {
    tryCatch(as.numeric(target$potential_values(Z[i, , drop = FALSE])), error = function(e) Inf)
  }, numeric(1))
  U[!is.finite(U)] <- Inf
  best <- order(U)[seq_len(chains)]
  ok <- is.finite(U[best])
  inits$internal[ok] <- lapply(best[ok], function(i) as.numeric(Z[i, ]))
  inits$user[ok] <- lapply(inits$internal[ok], target$user_values)
  list(inits = inits, evaluations = rep(n / chains, chains))
}

# n points of a Latin hypercube: per coordinate uniform over a box on its logit scale
# (scatter 1) or uniform in (-2, 2) (scatter 0).
latin_points <- function(n, scatter) {
  vapply(scatter, function(s) {
    u <- (sample.int(n) - stats::runif(n)) / n
    if (s > 0) stats::qlogis(u) else 4 * u - 2
  }, numeric(n))
}

# The start from mode_start()'s result `res` (found in `seconds`).
mode_start_result <- function(sampler, target, inits, res, seconds) {
  inits$internal <- res$theta
  inits$user <- lapply(res$theta, target$user_values)
  inits$anchor <- res$anchors[[1]]
  inits$anchors <- res$anchors
  info <- start_info("mode", NULL, res$evaluations, res$hessians, seconds)
  inv_metric <- res$cov
  if (!is.null(res$regularised)) {
    info$regularised <- res$regularised$directions
    info$metric_regularised <- start_metric_regularised(sampler)
    if (!info$metric_regularised) inv_metric <- lapply(res$anchors, `[[`, "laplace_cov")
    message(regularised_message(res$regularised, length(res$theta[[1]]), info$metric_regularised))
  }
  list(inits = inits, inv_metric = inv_metric,
       laplace = lapply(res$anchors, function(a) list(mode = a$mode, hessian = a$hessian)),
       info = info)
}

start_info <- function(how, reason, evaluations, hessians, seconds) {
  list(method = how, reason = reason, evaluations = evaluations, hessians = hessians, seconds = seconds)
}

# metric_regularised: whether the chains' metric is the regularised covariance too, or only
# their starting draws come from it (start_metric_regularised()).
regularised_message <- function(reg, d, metric_regularised = TRUE) {
  k <- paste(unique(reg$directions), collapse = "/")
  what <- if (metric_regularised) {
    "the posterior mode with a regularised Laplace metric"
  } else {
    "the posterior mode (drawn from a regularised Laplace approximation, with the Laplace metric)"
  }
  paste0("Starting the chains from ", what, ": ", sub("\\.$", "", reg$reason),
         "; its variance was shrunk in ", k, " of ", d,
         " directions, where the curvature at the mode understates how fast the log density falls.")
}

# The Laplace approximation of each chain and its overdispersed start; signals a
# "vhmc_no_mode" condition (with the evaluations spent) when there is no usable one.
# With `shared`, one search serves every chain (a GLM's mode is unique; a multilevel model's
# local one is searched from one point).
mode_start <- function(target, inits, seed, progress = FALSE, shared = !is.null(target$mode), tolerant = FALSE,
                       search = NULL) {
  chains <- length(inits$internal)
  evals <- numeric(chains)
  hess <- numeric(chains)
  anchors <- vector("list", chains)
  failed <- NULL
  for (c in seq_len(chains)) {
    if (shared && c > 1L) {
      anchors[[c]] <- anchors[[1]]
      next
    }
    a <- tryCatch(start_anchor(target, inits$internal[[c]], if (shared) 0L else c, evals, hess, progress, search),
                  vhmc_no_mode = function(e) if (tolerant) e else stop(e))
    if (inherits(a, "vhmc_no_mode")) {
      evals[c] <- a$evaluations[c]
      failed <- c(failed, list(list(chain = c, reason = a$finding)))
      next
    }
    anchors[[c]] <- a
    evals[c] <- a$evaluations
    hess[c] <- a$hessians
  }
  anchors <- borrowed_anchors(anchors, failed, evals, hess)
  starts <- draw_starts(target, anchors, seed)
  evals <- evals + vapply(starts, `[[`, numeric(1), "evaluations")
  bad <- Find(function(s) !is.null(s$reason), starts)
  regularised <- NULL
  if (!is.null(bad)) {
    anchors <- regularise_anchors(target, anchors, shared)
    evals <- evals + vapply(anchors, function(a) a$regularised$evaluations, numeric(1))
    starts <- draw_starts(target, anchors, seed)
    evals <- evals + vapply(starts, `[[`, numeric(1), "evaluations")
    if (!is.null(Find(function(s) !is.null(s$reason), starts))) no_mode(bad$reason, evals, hess, anchors)
    regularised <- list(reason = bad$reason, directions = vapply(anchors, function(a) {
      a$regularised$directions
    }, numeric(1)))
  }
  list(theta = lapply(starts, `[[`, "theta"), cov = lapply(anchors, `[[`, "cov"),
       anchors = anchors, evaluations = evals, hessians = hess, regularised = regularised)
}

# With `tolerant` searches (a sampler whose chains share what they find), a chain whose
# search failed takes the best mode the others found (with a message); all failed: no mode.
borrowed_anchors <- function(anchors, failed, evals, hess) {
  if (length(failed) == 0L) return(anchors)
  ok <- which(!vapply(anchors, is.null, NA))
  if (length(ok) == 0L) no_mode(failed[[1]]$reason, evals, hess, finding = failed[[1]]$reason)
  best <- ok[which.min(vapply(anchors[ok], `[[`, numeric(1), "value"))]
  bad <- vapply(failed, `[[`, numeric(1), "chain")
  message(sprintf("The mode search%s of chain%s %s failed (%s); %s from chain %d's mode.",
                  if (length(bad) > 1) "es" else "", if (length(bad) > 1) "s" else "", paste(bad, collapse = ", "),
                  failed[[1]]$reason, if (length(bad) > 1) "they start" else "it starts", best))
  for (c in bad) {
    anchors[[c]] <- anchors[[best]]
    anchors[[c]]$evaluations <- evals[c]
    anchors[[c]]$hessians <- 0
  }
  anchors
}

# Each chain's start: a draw of its anchor's N(mode, 2 S), from the start draws' own stream.
draw_starts <- function(target, anchors, seed) {
  with_local_seed(start_seed(seed), lapply(seq_along(anchors), function(c) {
    dispersed_start(target, anchors[[c]], c)
  }))
}

# The anchors with covariances regularised where the Gaussian fails (R/start-regularise.R);
# a shared anchor (a GLM's one mode) once.
regularise_anchors <- function(target, anchors, shared) {
  if (shared) {
    first <- regularise_anchor(target, anchors[[1]])
    rest <- first
    rest$regularised$evaluations <- 0
    return(c(list(first), rep(list(rest), length(anchors) - 1L)))
  }
  lapply(anchors, function(a) regularise_anchor(target, a))
}

# The mode and Hessian from one chain's initial values (R/laplace.R), or a "vhmc_no_mode"
# condition with the reason and the evaluations spent so far (the Newton search's own
# are known only when it returns). evaluations: potential and gradient evaluations;
# hessians: analytic Hessians.
# chain = 0: the search serves every chain.
start_anchor <- function(target, init, chain, evals, hess, progress = FALSE, search = NULL) {
  label <- if (chain > 0L) sprintf("Chain %d: mode search", chain) else "Mode search"
  progress_line(progress, "%s (%s)", label, if (is.null(target$mode))
    "L-BFGS, then the Hessian by central differences" else "Newton's method, shared by all chains")
  n <- 0
  tick <- evaluation_ticker(progress, label)
  counted <- function(theta) {
    n <<- n + 1
    tick(n)
    target$value_grad(theta)
  }
  seconds <- elapsed_seconds(la <- tryCatch(
    withCallingHandlers(laplace_anchor(counted, init, target$mode, who = "mode search", levels = target$hessian_levels,
                                       search = search),
                        warning = function(w) stop(conditionMessage(w), call. = FALSE)),
    error = function(e) e))
  evals[max(chain, 1L)] <- n
  cov <- if (!inherits(la, "error")) tryCatch(chol2inv(chol(la$hessian)), error = function(e) NULL)
  if (is.null(cov) || !all(is.finite(cov))) {
    progress_line(progress, "%s: failed (%.1f s)", label, seconds)
    no_mode(if (inherits(la, "error")) sub("^mode search: ", "", conditionMessage(la)) else
      "the Hessian at the mode cannot be inverted.", evals, hess, finding = la$reason)
  }
  la$cov <- (cov + t(cov)) / 2
  la$evaluations <- la$evaluations - la$hessians + n
  progress_line(progress, "%s: done after %d evaluations (%.1f s)", label, as.integer(la$evaluations), seconds)
  la
}

# `anchors`: the modes and Hessians found, where only their Gaussian failed (else NULL);
# `finding`: the reason without a search's advice (laplace_anchor()'s errors have both).
no_mode <- function(reason, evaluations, hessians, anchors = NULL, finding = NULL) {
  stop(structure(class = c("vhmc_no_mode", "error", "condition"),
                 list(message = reason, call = NULL, evaluations = evaluations, hessians = hessians, anchors = anchors,
                      finding = finding %||% sub("[.]$", "", reason))))
}

# A draw of N(mode, 2 S) for the chain's start, and whether the Gaussian predicts the rise
# of the potential there and at `checks - 1` more such draws (reason is NULL when it does).
# Non-finite draws are redrawn, up to 10 times.
dispersed_start <- function(target, anchor, chain, checks = 4L) {
  R <- chol(anchor$cov)
  out <- list(theta = NULL, evaluations = 0, reason = NULL)
  for (k in seq_len(checks)) {
    for (attempt in seq_len(10)) {
      z <- stats::rnorm(length(anchor$mode))
      theta <- anchor$mode + sqrt(2) * drop(crossprod(R, z))
      u <- tryCatch(target$value_grad(theta)$value, error = function(e) NaN)
      out$evaluations <- out$evaluations + 1
      if (is.finite(u)) break
    }
    if (k == 1L) out$theta <- theta
    out$reason <- laplace_mismatch(u - anchor$value, sum(z^2), chain)
    if (!is.null(out$reason)) break
  }
  out
}

# Why the Gaussian fails to describe the posterior at a draw (NULL when it does): the
# potential rose by `rise` where it predicts `pred`.
laplace_mismatch <- function(rise, pred, chain) {
  if (!is.finite(rise)) {
    return(sprintf("the log density is not finite at draws of the Laplace approximation (chain %d).", chain))
  }
  if (rise <= 4 * pred + 2 && rise >= pred / 4 - 2) return(NULL)
  sprintf(paste("the Gaussian (Laplace) approximation at the mode does not describe the posterior:",
                "at a draw from it the log density fell by %.3g where the approximation predicts",
                "%.3g (chain %d)."), rise, pred, chain)
}

# The start draws' own stream, apart from that of the random initial values.
start_seed <- function(seed) (seed + 104729) %% .Machine$integer.max
