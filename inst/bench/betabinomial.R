# The beta-binomial overdispersion model of the cancer-mortality data (Albert 2009; Zhang et al. 2018
# item 1) as an R log density of x = (logit m, log K), shared by the benchmarks and tests:
# -U(x) = sum_j [log B(Km + y_j, K(1 - m) + n_j - y_j) - log B(Km, K(1 - m))] + x_2 - 2 log(1 + e^x_2).
# The log-beta differences are sums of lgamma ratios, computed without the cancellation of two
# huge lgamma values when K (1 - m) is large (Stirling's series; its next term is O(x^-3)),
# so that finite-difference gradients stay accurate far in the tail.
lgamma_ratio <- function(x, k) {
  big <- x > 1e4
  out <- lgamma(x + k) - lgamma(x)
  xb <- x[big]
  kb <- k[big]
  out[big] <- (xb - 0.5) * log1p(kb / xb) + kb * log(xb + kb) - kb +
    1 / (12 * (xb + kb)) - 1 / (12 * xb)
  out
}

betabinomial_log_density <- function(y, n) {
  function(x) {
    m <- stats::plogis(x[1])
    K <- exp(x[2])
    a <- K * m
    b <- K * (1 - m)
    sum(lgamma_ratio(rep(a, length(y)), y) + lgamma_ratio(rep(b, length(n)), n - y) -
          lgamma_ratio(rep(a + b, length(n)), n)) + x[2] - 2 * log1p(exp(x[2]))
  }
}

# The posterior normalised on a grid (log K is right-skewed: the grid is wider there).
betabinomial_grid <- function(log_density, g1 = seq(-8.2, -5.4, length.out = 300),
                              g2 = seq(3, 24, length.out = 600)) {
  pts <- as.matrix(expand.grid(g1, g2))
  lp <- apply(pts, 1, log_density)
  list(points = pts, log_density = lp, g1 = g1, g2 = g2)
}

# KL(q || p) between two densities given by their logs on the same grid (normalised there).
grid_kl <- function(log_q, log_p) {
  q <- exp(log_q - max(log_q)); q <- q / sum(q)
  p <- exp(log_p - max(log_p)); p <- p / sum(p)
  keep <- q > 0
  sum(q[keep] * (log(q[keep]) - log(p[keep])))
}
