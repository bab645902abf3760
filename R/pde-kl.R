# Karhunen-Loeve expansion of the log-conductivity prior of the elliptic inverse problem:
# a zero-mean Gaussian process on the unit square with covariance
# sigma2 exp(-|x - x'|^2 / (2 l^2)), truncated to its leading modes, so that
# log c(x, theta) = sum_i theta_i sqrt(lambda_i) v_i(x) (Zhang, Shahbaba and Zhao 2017, the
# K-L display after eq. 13; Dashti and Stuart 2011; Conrad et al. 2014).
#
# The eigenpairs of the covariance operator are computed by the Nystrom method with the
# midpoint rule on the element centres (weights h^2, the element areas), so the modes come
# out exactly where the elementwise conductivity needs them, normalised so that
# sum_e h^2 v_i(x_e)^2 = 1. The kernel is separable and the centres form a tensor grid, so
# the n^2 x n^2 Nystrom matrix is the Kronecker product of two n x n one-dimensional ones:
# its eigenpairs are the products of the one-dimensional eigenpairs, found in O(n^3)
# instead of O(n^6), and each two-dimensional mode is the definite product
# phi_a(x1) phi_b(x2) rather than an arbitrary rotation within the two-dimensional
# eigenspaces that modes (a, b) and (b, a) share.

kl_expansion <- function(n, n_terms, length_scale, sigma2) {
  x <- (seq_len(n) - 0.5) / n
  eig <- eigen(exp(-outer(x, x, "-")^2 / (2 * length_scale^2)) / n, symmetric = TRUE)
  phi <- fix_signs(eig$vectors) * sqrt(n)
  a <- rep(seq_len(n), n)
  b <- rep(seq_len(n), each = n)
  # mu_a * mu_b before scaling, so that the products of a pair (a, b), (b, a) tie exactly.
  lambda <- sigma2 * (eig$values[a] * eig$values[b])
  keep <- order(-lambda, b)[seq_len(n_terms)]
  resolved <- sum(lambda > 1e-12 * lambda[1])
  if (n_terms > resolved) {
    stop_arg("n_terms", sprintf(paste("(%d) exceeds the %d Karhunen-Loeve modes whose",
                                      "eigenvalues are resolved above rounding on this mesh"), n_terms, resolved),
             "Use fewer terms, or a finer mesh or a longer length scale.")
  }
  cells <- cbind(rep(seq_len(n), n), rep(seq_len(n), each = n))
  modes <- phi[cells[, 1], a[keep], drop = FALSE] * phi[cells[, 2], b[keep], drop = FALSE]
  list(lambda = lambda[keep], modes = modes,
       scaled = sweep(modes, 2L, sqrt(lambda[keep]), `*`),
       index = cbind(x1 = a[keep], x2 = b[keep]),
       variance_fraction = sum(lambda[keep]) / sigma2)
}

# Eigenvectors are defined up to sign: make the first clearly nonzero entry of each
# positive, so that the modes, and hence the meaning of theta, are reproducible.
fix_signs <- function(vectors) {
  first <- apply(vectors, 2L, function(v) v[which(abs(v) > 1e-8 * max(abs(v)))[1]])
  sweep(vectors, 2L, sign(first), `*`)
}
