# The Laplace covariance regularised where the curvature at the mode misleads.
#
# A posterior can be Gaussian in most directions and not in a few: a coefficient of a rare
# category that (nearly) separates the responses has a likelihood that is flat on one side
# of the mode and a wall on the other, so the curvature at the mode, small, predicts a
# scale that runs into the wall. Draws of the Laplace approximation N(theta*, S) then land
# where the log density has fallen by thousands of nats, although the mode is exact and the
# Gaussian right in every other direction. Along each eigenvector v_i of the Hessian H
# (scale s_i = lambda_i^(-1/2)) the quadratic predicts a rise c^2 / 2 of the potential at
# theta* +- c s_i v_i; where the larger of the two measured rises, r, exceeds twice that,
# the variance along v_i becomes the secant one, (c s_i)^2 / (2 r): the Gaussian that
# predicts the rise on the steep side (the secant condition of quasi-Newton methods,
# Nocedal and Wright 2006, eq. 6.6, along one direction). Directions where the quadratic
# overstates the rise keep their variance: warmup widens them. A point outside the
# potential's domain halves c, up to 30 times. The check costs 2 d evaluations of U.

# The anchor with its covariance regularised (anchor$cov; the Laplace one kept as
# anchor$laplace_cov) and what was done (anchor$regularised: the directions shrunk and the
# evaluations spent).
regularise_anchor <- function(target, anchor, c0 = 2) {
  e <- eigen(anchor$hessian, symmetric = TRUE)
  scale <- 1 / sqrt(pmax(e$values, .Machine$double.xmin))
  U <- function(theta) tryCatch(target$value_grad(theta)$value, error = function(e) NaN)
  evaluations <- 0
  shrink <- vapply(seq_along(scale), function(i) {
    step <- scale[i] * e$vectors[, i]
    res <- secant_shrink(function(t) {
      evaluations <<- evaluations + 1
      U(anchor$mode + t * step) - anchor$value
    }, c0)
    res
  }, numeric(1))
  var <- scale^2 * shrink
  cov <- e$vectors %*% (var * t(e$vectors))
  anchor$laplace_cov <- anchor$cov
  anchor$cov <- (cov + t(cov)) / 2
  anchor$regularised <- list(directions = sum(shrink < 1), evaluations = evaluations,
                             shrink = shrink)
  anchor
}

# The factor (<= 1) by which the variance along one direction shrinks: rise(t) is the
# potential's rise at t scales from the mode along it.
secant_shrink <- function(rise, c0) {
  c <- c0
  for (k in seq_len(30)) {
    r <- max(rise(c), rise(-c))
    if (is.finite(r)) return(if (r > c^2) min(1, c^2 / (2 * r)) else 1)
    c <- c / 2
  }
  c^2
}
