#pragma once
// The metric, step size and frequencies of the dynamics that a trained surrogate drives
// (used to tune surrogate HMC's trajectories; see trajectory_length.hpp).
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "../base/types.hpp"
#include "../metric/metrics.hpp"
#include "../surrogate/network.hpp"

namespace vhmc {

// Squared frequencies of the surrogate dynamics where the surrogate's Hessian is H:
// eigenvalues of A H, A the inverse metric (applied column by column through sharp(), so that
// every metric works). A H is similar to the symmetric A^1/2 H A^1/2, so its eigenvalues are
// real; rounding's imaginary parts are dropped.
template <class M>
Vec surrogate_frequencies(const Mat& H, const M& metric) {
  const Eigen::Index d = H.rows();
  Mat AH(d, d);
  Vec col(d), v(d);
  for (Eigen::Index j = 0; j < d; ++j) {
    col = H.col(j);
    metric.sharp(col, v);
    AH.col(j) = v;
  }
  if (!AH.allFinite()) return Vec();
  Eigen::EigenSolver<Mat> es(AH, false);
  if (es.info() != Eigen::Success) return Vec();
  return es.eigenvalues().real();
}

// The squared frequency of the surrogate dynamics along each stiff row z_i (n x d,
// in the sampler's coordinates; integrator/split_leapfrog.hpp): row i's predictor z_i' theta
// moves along A z_i, and the Rayleigh quotient a' H a / a' A^-1 a = a' H a / z_i' a with
// a = A z_i is the squared frequency of the motion in that direction. A stiff row is one whose
// curvature can far exceed the posterior's: a rare category that separates the responses
// makes a wall there (trajectory_length.hpp chooses shorter trajectories for it). Not the
// eigen-directions of A H: on a near-Gaussian posterior with the base's metric most
// frequencies are ~1 and their eigenvectors mix any wall's direction among them. H: the
// surrogate's Hessian (as for surrogate_frequencies()).
inline Vec wall_frequencies(const Mat& H, const Mat& A, const Mat& Z) {
  if (Z.rows() == 0) return Vec();
  const Mat AZ = A * Z.transpose();  // d x n
  Vec out(Z.rows());
  for (Eigen::Index i = 0; i < Z.rows(); ++i) {
    const double norm = Z.row(i).dot(AZ.col(i));
    out[i] = norm > 0.0 ? AZ.col(i).dot(H * AZ.col(i)) / norm : 0.0;
  }
  return out.allFinite() ? out : Vec();
}

// The step size of the surrogate dynamics (trajectory_tuning.hpp) from the exploration's:
// the stability margin eps w_max of the fastest direction kept when the metric changes the
// largest squared frequency from r_old to r_new (when both are known), halved: surrogate steps cost a small
// fraction of the one true evaluation an iteration makes, and a smaller discretisation
// error raises acceptance. It is also capped where the leapfrog's energy error on a
// Gaussian of d directions would have a standard deviation above 0.05 (acceptance ~0.96):
// the leapfrog conserves p^2 / (2 (1 - a)) + w^2 q^2 / 2 with a = (w eps)^2 / 4 exactly on
// a harmonic oscillator, so H changes by a (p_0^2 - p_1^2) / 2, sd a per direction and
// sqrt(d) a over d. The exploration's step, adapted over a few dozen NUTS iterations, varies
// between chains and seeds: on a multilevel logistic model (d = 62, N = 1e6) the chains
// whose halved step still had w eps ~0.36 got a min bulk ESS of 849-1,591 against
// 3,319 at w eps ~0.15, an antithetic chain paying dearly for each rejection.
inline double surrogate_step_size(double eps_explore, double r_old, double r_new, int d) {
  double eps = eps_explore;
  if (r_old > 0 && r_new > 0) eps *= std::sqrt(r_old / r_new);
  eps *= 0.5;
  if (r_new > 0) eps = std::min(eps, std::sqrt(0.2 / std::sqrt(static_cast<double>(d)) / r_new));
  return eps;
}

// The inverse metric as a matrix (columns sharp(e_j)), for any metric type.
template <class M>
Mat inverse_metric_matrix(const M& metric, int d) {
  Mat A(d, d);
  Vec e = Vec::Zero(d), v(d);
  for (int j = 0; j < d; ++j) {
    e[j] = 1.0;
    metric.sharp(e, v);
    A.col(j) = v;
    e[j] = 0.0;
  }
  return 0.5 * (A + A.transpose());
}

// Squared frequencies of the dynamics with inverse metric A on the Gaussian of covariance
// L L' (its Hessian (L L')^-1; L lower triangular, e.g. a standardizer's): the eigenvalues
// of A H, those of the symmetric L^-1 A L^-T. Empty if the eigensolver fails.
inline Vec gaussian_frequencies(const Mat& A, const Mat& L) {
  const auto Lt = L.triangularView<Eigen::Lower>();
  const Mat X = Lt.solve(A);                   // L^-1 A
  const Mat M = Lt.solve(Mat(X.transpose()));  // L^-1 A L^-T
  Eigen::SelfAdjointEigenSolver<Mat> es(0.5 * (M + M.transpose()), Eigen::EigenvaluesOnly);
  if (es.info() != Eigen::Success || !es.eigenvalues().allFinite()) return Vec();
  return es.eigenvalues();
}

// The inverse of the quadratic's theta-space Hessian plus the exact rows' at theta.
inline bool inverse_with_rows(RandomBasisNetwork& net, const Vec& theta, Mat& A) {
  const Mat H = net.base_hessian(theta);
  const Vec ev = Eigen::SelfAdjointEigenSolver<Mat>(H, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(ev.minCoeff() > 1e-8 * ev.maxCoeff())) return false;
  A = Eigen::LLT<Mat>(H).solve(Mat::Identity(H.rows(), H.cols()));
  A = 0.5 * (A + A.transpose());
  return A.allFinite();
}

// Inverse of the base's theta-space Hessian at theta: L Q^{-1} L' (Q in u-space), or with
// exact rows (exact_rows.hpp) the inverse of L^-T Q L^-1 plus their Hessian there. False when
// that Hessian is not positive definite (the base is not a Gaussian approximation there).
inline bool inverse_of_base(RandomBasisNetwork& net, const Vec& theta, Mat& A) {
  if (net.has_exact_rows()) return inverse_with_rows(net, theta, A);
  const Mat& Q = net.quadratic_Q();
  Eigen::LLT<Mat> llt(Q);
  if (llt.info() != Eigen::Success) return false;
  const Vec ev = Eigen::SelfAdjointEigenSolver<Mat>(Q, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(ev.minCoeff() > 1e-8 * ev.maxCoeff())) return false;
  const Mat& L = net.standardizer().L;
  const Mat L_dense = L.triangularView<Eigen::Lower>();
  A = L_dense * llt.solve(Mat(L_dense.transpose()));
  A = 0.5 * (A + A.transpose());
  return A.allFinite();
}

}  // namespace vhmc
