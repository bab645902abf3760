# The "census-like" stand-in for the a9a data , shared by the logistic-regression
# benchmarks: N = 32561 rows of 14 categorical variables one-hot encoded into 123 binary
# columns (a9a's shape), labels from a logistic model tuned to about 24% positives (a9a has
# 24.1%), then a Gaussian random projection to k columns with entries N(0, 1/k), standardised,
# plus an intercept. Everything from one fixed seed.
census_like <- function(N = 32561L, k = 50L, seed = 2017L) {
  set.seed(seed)
  # 14 variables with 2-16 levels, 123 levels in all (a9a's binary columns).
  levels <- c(16L, 16L, 14L, 12L, 10L, 9L, 8L, 8L, 7L, 6L, 6L, 5L, 4L, 2L)
  stopifnot(sum(levels) == 123L)
  # Unequal level frequencies (Dirichlet-like), as census categories are.
  onehot <- lapply(levels, function(L) {
    p <- stats::rgamma(L, shape = 0.7)
    x <- sample.int(L, N, replace = TRUE, prob = p / sum(p))
    m <- matrix(0, N, L)
    m[cbind(seq_len(N), x)] <- 1
    m
  })
  Z <- do.call(cbind, onehot)
  # Level effects N(0, 0.8^2); the offset is solved for 24% positives on average.
  effect <- stats::rnorm(123, 0, 0.8)
  eta0 <- drop(Z %*% effect)
  offset <- stats::uniroot(function(a) mean(stats::plogis(a + eta0)) - 0.24, c(-30, 30))$root
  y <- stats::rbinom(N, 1, stats::plogis(offset + eta0))
  R <- matrix(stats::rnorm(123 * k, 0, sqrt(1 / k)), 123, k)
  X <- scale(Z %*% R)
  dimnames(X) <- list(NULL, sprintf("x%02d", seq_len(k)))
  list(X = X, y = y, data = data.frame(y = y, X), positives = mean(y))
}
