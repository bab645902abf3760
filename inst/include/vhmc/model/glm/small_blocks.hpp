#pragma once
// Dense kernels on small column-major blocks (p <= 10 rows or columns, given by pointer and
// leading dimension) for the block elimination of glm/marginal_gaussian.hpp. A gradient there
// runs a few dozen of these per level of the grouping factors, most with p = 1: as plain
// loops they cost a few nanoseconds each, where an Eigen expression on dynamic-size maps
// costs tens (its size dispatch), which for 1,000 levels would be most of the gradient.
#include <cmath>

namespace vhmc {
namespace blocks {

// a (p x p, lda) := its lower Cholesky factor L, a = L L' (upper part untouched). False if a
// is not numerically positive definite.
inline bool cholesky(double* a, int p, int lda) {
  for (int j = 0; j < p; ++j) {
    double d = a[j + j * lda];
    for (int k = 0; k < j; ++k) d -= a[j + k * lda] * a[j + k * lda];
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    a[j + j * lda] = d;
    for (int i = j + 1; i < p; ++i) {
      double s = a[i + j * lda];
      for (int k = 0; k < j; ++k) s -= a[i + k * lda] * a[j + k * lda];
      a[i + j * lda] = s / d;
    }
  }
  return true;
}

// x := L^-1 x (L lower p x p, ldl).
inline void solve_lower(const double* L, int p, int ldl, double* x) {
  for (int i = 0; i < p; ++i) {
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= L[i + k * ldl] * x[k];
    x[i] = s / L[i + i * ldl];
  }
}

// x := L^-T x.
inline void solve_lower_t(const double* L, int p, int ldl, double* x) {
  for (int i = p - 1; i >= 0; --i) {
    double s = x[i];
    for (int k = i + 1; k < p; ++k) s -= L[k + i * ldl] * x[k];
    x[i] = s / L[i + i * ldl];
  }
}

// B (m x p, ldb) := B L^-T: row by row, each row r solves L r' = b'.
inline void right_solve_lower_t(const double* L, int p, int ldl, double* B, int m, int ldb) {
  for (int j = 0; j < p; ++j) {
    for (int k = 0; k < j; ++k) {
      const double l = L[j + k * ldl];
      for (int r = 0; r < m; ++r) B[r + j * ldb] -= B[r + k * ldb] * l;
    }
    const double d = L[j + j * ldl];
    for (int r = 0; r < m; ++r) B[r + j * ldb] /= d;
  }
}

// B (m x p, ldb) := B L^-1: columns from the last, B[:, j] = (B[:, j] - sum_{k > j} B[:, k]
// L[k, j]) / L[j, j].
inline void right_solve_lower(const double* L, int p, int ldl, double* B, int m, int ldb) {
  for (int j = p - 1; j >= 0; --j) {
    for (int k = j + 1; k < p; ++k) {
      const double l = L[k + j * ldl];
      for (int r = 0; r < m; ++r) B[r + j * ldb] -= B[r + k * ldb] * l;
    }
    const double d = L[j + j * ldl];
    for (int r = 0; r < m; ++r) B[r + j * ldb] /= d;
  }
}

// C (m x n, ldc) += alpha op(A) op(B), op(X) = X or X' (ta, tb), with inner dimension k:
// A is m x k (or k x m when transposed), B k x n (or n x k).
inline void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B,
                 int ldb, double* C, int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int l = 0; l < k; ++l) {
      const double b = alpha * (tb ? B[j + l * ldb] : B[l + j * ldb]);
      if (ta) {
        for (int i = 0; i < m; ++i) C[i + j * ldc] += A[l + i * lda] * b;
      } else {
        for (int i = 0; i < m; ++i) C[i + j * ldc] += A[i + l * lda] * b;
      }
    }
  }
}

// y (m) += alpha op(A) x, A m x n (or n x m when transposed).
inline void gemv(bool ta, int m, int n, double alpha, const double* A, int lda, const double* x, double* y) {
  if (ta) {
    for (int i = 0; i < m; ++i) {
      double s = 0.0;
      for (int l = 0; l < n; ++l) s += A[l + i * lda] * x[l];
      y[i] += alpha * s;
    }
  } else {
    for (int l = 0; l < n; ++l) {
      const double b = alpha * x[l];
      for (int i = 0; i < m; ++i) y[i] += A[i + l * lda] * b;
    }
  }
}

}  // namespace blocks
}  // namespace vhmc
