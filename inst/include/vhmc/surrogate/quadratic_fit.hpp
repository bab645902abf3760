#pragma once
// A weighted least-squares quadratic q(u) = c + b'u + u'Au/2 of values P at points U (rows),
// made concave: A's eigenvalues are clamped at -curvature_floor, so that exp(q) is a proper
// Gaussian shape even where the points do not determine every direction, and the constant
// is refitted to the clamped form. The mean of the Gaussian-process surrogate
// (gp_surrogate.hpp) and the Laplace refinement of the surrogate-transition sampler's
// exploration (sampler/surrogate_transition.hpp) both fit one.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "../base/types.hpp"

namespace vhmc {

struct Quadratic {
  double c = 0.0;
  Vec b;  // gradient at u = 0
  Mat A;  // Hessian (negative definite)
  double operator()(const Vec& u) const { return c + b.dot(u) + 0.5 * u.dot(A * u); }
  int dim() const { return static_cast<int>(b.size()); }
};

inline int quadratic_features(int d) { return 1 + d + d * (d + 1) / 2; }

// The features [1, u, u_i u_j (i <= j)] of one point.
inline void quadratic_row(const Vec& u, Eigen::Ref<Vec> f) {
  const int d = static_cast<int>(u.size());
  f[0] = 1.0;
  f.segment(1, d) = u;
  int k = 1 + d;
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j) f[k++] = u[i] * u[j];
}

// The unclamped fit, solved by a column-pivoted QR of the weighted features (a point set that
// leaves a coefficient undetermined gives it no weight rather than a huge value).
inline Quadratic fit_quadratic_raw(const Mat& U, const Vec& P, const Vec& w) {
  const int d = static_cast<int>(U.cols()), nf = quadratic_features(d);
  Mat F(U.rows(), nf);
  Vec y(U.rows()), f(nf);
  for (Eigen::Index i = 0; i < U.rows(); ++i) {
    quadratic_row(U.row(i).transpose(), f);
    const double s = std::sqrt(w[i]);
    F.row(i) = s * f.transpose();
    y[i] = s * P[i];
  }
  const Vec beta = F.colPivHouseholderQr().solve(y);
  Quadratic q;
  q.c = beta[0];
  q.b = beta.segment(1, d);
  q.A.resize(d, d);
  int k = 1 + d;
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j, ++k) {
      q.A(i, j) = q.A(j, i) = (i == j ? 2.0 : 1.0) * beta[k];
    }
  return q;
}

// Clamps the Hessian's eigenvalues at -floor, multiplies the curvature by `widen` around
// the quadratic's maximum (b and A both scaled: the maximum stays where it is), and refits
// the constant (weighted mean of the residuals).
inline void make_concave(Quadratic& q, const Mat& U, const Vec& P, const Vec& w, double floor, double widen) {
  Eigen::SelfAdjointEigenSolver<Mat> es(q.A);
  if (es.info() != Eigen::Success || !q.A.allFinite()) {
    q.A = -floor * Mat::Identity(q.dim(), q.dim());
  } else if (es.eigenvalues().maxCoeff() > -floor) {
    const Vec lam = es.eigenvalues().cwiseMin(-floor);
    q.A = es.eigenvectors() * lam.asDiagonal() * es.eigenvectors().transpose();
  }
  if (!q.b.allFinite()) q.b.setZero();
  q.A *= widen;
  q.b *= widen;
  double num = 0.0, den = 0.0;
  for (Eigen::Index i = 0; i < U.rows(); ++i) {
    const Vec u = U.row(i).transpose();
    num += w[i] * (P[i] - q.b.dot(u) - 0.5 * u.dot(q.A * u));
    den += w[i];
  }
  q.c = den > 0 ? num / den : 0.0;
}

inline Quadratic fit_concave_quadratic(const Mat& U, const Vec& P, const Vec& w, double floor, double widen = 1.0) {
  Quadratic q = fit_quadratic_raw(U, P, w);
  make_concave(q, U, P, w, floor, widen);
  return q;
}

}  // namespace vhmc
