# A fingerprint of the platform's floating point, for the golden-draws test
# (tests/testthat/test-golden-draws.R): where it equals the one recorded with the fixture,
# the fits must reproduce the fixture bit for bit; elsewhere within a tight tolerance.
# The C++ kernels (src/glue_platform.cpp) cover libm and Eigen as the core calls them; the
# R kernels cover what the R side of a fit computes (BLAS products, LAPACK factorisations,
# R's own exp and log) and the R version. Equal fingerprints do not prove equal results in
# every case, and unequal ones do not prove different draws: the fingerprint only decides
# which comparison is fair.
platform_fingerprint <- function() {
  hash <- function(x) vhmc_hash_doubles(as.numeric(x))
  u <- (seq_len(4096) * 0.6180339887498949) %% 1
  M <- matrix(u[seq_len(64 * 64)] - 0.5, 64, 64)
  S <- crossprod(M) + diag(64)
  r_kernels <- c(
    r_exp = hash(exp(-700 + 1400 * u)), r_log = hash(log(1e-300 + 1e6 * u)),
    r_pnorm = hash(stats::pnorm(-30 + 60 * u, log.p = TRUE)),
    blas_gemv = hash(M %*% u[seq_len(64)]), blas_gemm = hash(M %*% t(M)),
    blas_crossprod = hash(S), lapack_chol = hash(chol(S)),
    lapack_solve = hash(solve(S, u[seq_len(64)])),
    lapack_eigen = hash(eigen(S, symmetric = TRUE)$values))
  c(vhmc_float_kernels(), r_kernels, r_version = R.version.string)
}

# The kernels on which two fingerprints differ (character(0) when they are equal).
fingerprint_differences <- function(now, recorded) {
  keys <- union(names(now), names(recorded))
  keys[vapply(keys, function(k) !identical(now[k][[1]], recorded[k][[1]]), logical(1))]
}
