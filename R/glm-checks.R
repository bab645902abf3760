# Checks that the GLM's posterior is proper before anything is sampled.

# Identifiability: all-zero or aliased columns, and a constant binomial/poisson response.
# Under a flat prior these make the posterior improper (an error); otherwise the prior
# identifies the coefficients and a warning says so. Aliasing is judged on the design in the
# sampler's coordinates (centred, scaled columns; the Gram matrix comes from C++, so no copy
# of the design is made): on the raw design, a predictor shifted by 1e8 looks collinear
# with the intercept, and one of scale 1e-9 looks like zero.
check_identified <- function(model, family, priors, spec, target, separation = TRUE) {
  X <- model$x
  flat_coef <- is.null(priors[["prior"]]) || priors[["prior"]]$adjusted$dist == "flat"  # exact: not prior_covariance
  flat_any <- flat_coef || (!is.null(priors$prior_intercept) &&
                              priors$prior_intercept$adjusted$dist == "flat")
  report <- function(problem, flat) {
    if (flat) {
      stop_arg("formula", paste(problem, "and the prior is flat, so the posterior is improper"),
               "Drop those terms or give them a proper prior.")
    }
    warning(sprintf("`formula` %s; only the prior identifies the coefficients involved.", problem),
            call. = FALSE)
  }
  zero <- which(model$columns$zero)
  # The smooths' penalised columns have a proper prior whatever `prior` is (mgcv's "re" and
  # "fs" bases are rank-deficient by design, as random effects are).
  aliased <- setdiff(aliased_columns(vhmc_glm_gram(target$ptr)), smooth_random_columns(model) + model$intercept)
  if (length(zero)) {
    report(sprintf("gives model matrix column%s %s that %s all zero", if (length(zero) > 1) "s" else "",
                   paste0("`", colnames(X)[zero], "`", collapse = ", "),
                   if (length(zero) > 1) "are" else "is"), flat_coef)
  } else if (length(aliased)) {
    report(sprintf("gives a rank-deficient model matrix: %s %s",
                   paste0("`", colnames(X)[aliased], "`", collapse = ", "),
                   if (length(aliased) > 1) "are linear combinations of other columns"
                   else "is a linear combination of other columns"), flat_any)
  }
  check_constant_response(model, family, flat_any)
  problem <- family$entry$unidentified(model)
  if (!is.null(problem)) {
    flat_cut <- !is.null(priors$prior_intercept) && priors$prior_intercept$adjusted$dist == "flat"
    if (flat_cut) stop_arg("data", paste(problem, "and the cutpoints' prior is flat, so the posterior is improper"),
                           "Give prior_intercept a proper prior, or drop the empty category from the response's levels.")
    warning(sprintf("`data` %s; only the prior identifies the cutpoint next to it.", problem), call. = FALSE)
  }
  if (separation && flat_coef && family$entry$separation) check_separation(target)
}

# Without the likelihood the posterior is the prior, which must then be proper.
check_prior_pd <- function(model, priors) {
  if (!isTRUE(model$prior_PD)) return(invisible())
  # A flat prior on a probability is beta(1, 1), proper.
  aux <- Filter(function(p) !identical(p$role, "probability"), priors$prior_aux %||% list())
  entries <- priors[setdiff(names(priors), "prior_aux")]
  if (length(aux)) entries <- c(entries, stats::setNames(aux, sprintf("prior_aux$%s", names(aux))))
  flat <- names(Filter(function(p) identical(p$adjusted$dist, "flat"), entries))
  if (length(flat)) {
    stop_arg("prior_PD", sprintf("is TRUE, but %s %s flat(), so there is no distribution to draw from",
                                 paste0("`", flat, "`", collapse = " and "), if (length(flat) > 1L) "are" else "is"),
             "Give proper priors, or set prior_PD = FALSE.")
  }
}

# Separation (binomial) and its poisson analogue (a group whose counts are all zero): the
# likelihood then keeps increasing as some coefficients go to infinity, so under a flat prior
# on the slopes the posterior is improper. Found from the Newton mode: Newton stops where the
# remaining gain became too small to see (|eta| about 30), with the separating direction the
# Hessian's flattest one; a proper mode rises along every direction, a separated one is flat
# or falls along that one, 10 units either way (the sampler's coordinates have data scale 1).
check_separation <- function(target) {
  d <- length(target$par_names)
  m <- target$mode(rep(0, d))
  if (!is.finite(m$value) || !all(is.finite(m$hessian))) return(invisible())
  e <- eigen(m$hessian, symmetric = TRUE)
  u <- e$vectors[, d]
  U <- target$potential_values(rbind(m$mode + 10 * u, m$mode - 10 * u))
  if (min(U) - m$value > 1e-6 * (1 + abs(m$value))) return(invisible())
  involved <- target$par_names[abs(u) > 0.3 * max(abs(u))]
  stop_arg("data", sprintf(paste("are separated: a combination of the predictors involving %s predicts",
                                 "the response perfectly (or a group has only zero counts), so the",
                                 "likelihood keeps increasing as those coefficients go to infinity and",
                                 "under a flat prior the posterior is improper"),
                           paste0("`", involved, "`", collapse = ", ")),
           "Use a proper prior, e.g. prior = normal(0, 2.5, autoscale = TRUE) (the default), or drop the separating terms.")
}

# Columns of a Gram matrix that are (numerically) linear combinations of earlier ones: a
# pivoted Cholesky factorisation of its correlation form stops when the remaining squared
# distance of a column from the span of the others is below 1e-12, i.e. a column of the
# design within a relative 1e-6 of that span (the Gram squares the design's condition).
aliased_columns <- function(G) {
  d <- diag(G)
  dead <- which(!(d > 0))
  live <- setdiff(seq_along(d), dead)
  if (length(live) == 0L) return(dead)
  S <- G[live, live, drop = FALSE] / sqrt(outer(d[live], d[live]))
  ch <- suppressWarnings(chol(S, pivot = TRUE, tol = 1e-12))
  rank <- attr(ch, "rank")
  out <- c(dead, if (rank < length(live)) live[attr(ch, "pivot")[seq.int(rank + 1L, length(live))]])
  sort(out)
}

# A count response that is always 0 (a binomial one always 0 or always 1) identifies nothing.
check_constant_response <- function(model, family, flat_any) {
  y <- if (is.null(model$weights)) model$y else model$y[model$weights > 0]
  if (family$entry$uninformative(y)) {
    problem <- sprintf("has a response that is always %s", format(y[1]))
    if (flat_any) {
      stop_arg("data", paste(problem, "and a flat prior, so the posterior is improper"),
               "Use proper priors or check the response.")
    }
    warning("the response is always ", format(y[1]),
            ": the posterior of the coefficients is driven by the priors.", call. = FALSE)
  }
  invisible()
}

