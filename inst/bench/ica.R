# Bayesian ICA (Zhang, Shahbaba and Zhao 2018) with the
# stand-in for the MEG data, shared by the benchmark and the vignette.
# Model: p(x | W) = |det W| prod_i p(w_i' x), p(y) = 1 / (4 cosh(y / 2)) (up to a constant),
# prior w_ij ~ N(0, 100). For data X (n x N) and Y = W X:
#   U(W) = -N log|det W| + sum log(4 cosh(Y / 2)) + ||W||_F^2 / 200,
#   grad U = -N W^{-T} + tanh(Y / 2) X' / 2 + W / 100.
# W is a parameter vector in column-major order (vec(W)).

# Sources y = 2 log(tan(pi u / 2)), u ~ U(0, 1), have density sech(y / 2) / (2 pi): the
# model's own super-Gaussian (hyperbolic-secant) law, so W_0 = A^{-1} is the true parameter.
ica_data <- function(n = 5L, N = 17730L, seed = 1996L) {
  set.seed(seed)
  S <- matrix(2 * log(tan(pi * stats::runif(n * N) / 2)), n, N)
  A <- matrix(stats::rnorm(n * n), n, n)
  list(X = A %*% S, A = A, W0 = solve(A), n = n, N = N)
}

ica_names <- function(n) sprintf("W[%d,%d]", rep(seq_len(n), n), rep(seq_len(n), each = n))

# log(4 cosh(y / 2)) without overflow.
log4cosh <- function(y) abs(y) / 2 + log1p(exp(-abs(y))) + log(2)

# vhmc_sample() asks for the log density and the gradient separately, mostly at the same
# point: Y = W X, the costly part, is kept for the last W.
ica_potential <- function(X) {
  n <- nrow(X)
  N <- ncol(X)
  last <- NULL
  Y <- NULL
  unmix <- function(theta) {
    if (!identical(theta, last)) {
      last <<- theta
      Y <<- matrix(theta, n, n) %*% X
    }
    Y
  }
  list(
    log_density = function(theta) {
      W <- matrix(theta, n, n)
      ld <- determinant(W, logarithm = TRUE)$modulus
      -(-N * ld + sum(log4cosh(unmix(theta))) + sum(W^2) / 200)
    },
    gradient = function(theta) {
      W <- matrix(theta, n, n)
      Wi <- tryCatch(solve(W), error = function(e) matrix(NaN, n, n))
      -as.vector(-N * t(Wi) + tcrossprod(tanh(unmix(theta) / 2), X) / 2 + W / 100)
    })
}

# Amari distance between W and W_ref (zero iff W W_ref^{-1} is a scaled permutation), and
# its normalised form d / (2 n (n - 1)) in [0, 1].
amari <- function(W, W_ref) {
  P <- abs(W %*% solve(W_ref))
  n <- nrow(P)
  d <- sum(rowSums(P) / apply(P, 1, max) - 1) + sum(colSums(P) / apply(P, 2, max) - 1)
  c(amari = d, amari_norm = d / (2 * n * (n - 1)))
}

# Natural-gradient SGLD (Amari et al. 1996 metric W'W), in R: vhmc's sgld()
# handles GLMs only. Step eps_t = a (b + t)^(-delta); with X_b the batch and Y_b = W X_b,
#   W += (eps/2) ([N I - (N/B) tanh(Y_b/2) Y_b'/2] W - W W'W/100) + noise, rows ~ N(0, eps W'W).
# The metric's correction term (its divergence) is omitted, as in the paper. Stores every
# `thin`-th state with its wall-clock stamp; stops after `seconds` or `iterations`.
ica_sgld <- function(X, W, batch = 500L, a = 5e-3, b = 1e4, delta = 0.5, iterations = Inf,
                     seconds = Inf, thin = 10L, seed = 1L) {
  set.seed(seed)
  n <- nrow(X)
  N <- ncol(X)
  cap <- 1e5
  draws <- matrix(NA_real_, cap, n * n)
  stamp <- numeric(cap)
  k <- 0L
  t <- 0
  perm <- sample.int(N)
  pos <- 0L
  t_start <- proc.time()[["elapsed"]]
  repeat {
    now <- proc.time()[["elapsed"]] - t_start
    if (t >= iterations || now >= seconds || k >= cap) break
    if (pos + batch > N) {
      perm <- sample.int(N)
      pos <- 0L
    }
    Xb <- X[, perm[pos + seq_len(batch)], drop = FALSE]
    pos <- pos + batch
    eps <- a * (b + t)^(-delta)
    Yb <- W %*% Xb
    WtW <- crossprod(W)
    drift <- (N * diag(n) - (N / batch) * tcrossprod(tanh(Yb / 2), Yb) / 2) %*% W - W %*% WtW / 100
    noise <- matrix(stats::rnorm(n * n), n, n) %*% chol(WtW) * sqrt(eps)
    W <- W + (eps / 2) * drift + noise
    t <- t + 1
    if (t %% thin == 0) {
      k <- k + 1L
      draws[k, ] <- as.vector(W)
      stamp[k] <- proc.time()[["elapsed"]] - t_start
    }
  }
  list(draws = draws[seq_len(k), , drop = FALSE], stamp = stamp[seq_len(k)], iterations = t,
       epochs = t * batch / N)
}
