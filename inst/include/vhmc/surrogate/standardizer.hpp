#pragma once
// The standardised coordinates of the surrogate's bases (surrogate/random_bases.hpp): u = L^{-1}
// (theta - m), from an exploration's mean and covariance (or its diagonal), or the identity
// (`basis_coords = "raw"`), and the maps of points and gradients between theta and u.
#include <cmath>
#include <stdexcept>

#include "../base/types.hpp"

namespace vhmc {

// u = L^{-1}(theta - m) with L lower triangular (d x d). A diagonal L is a valid dense L.
struct Standardizer {
  Vec m;
  Mat L;

  int dim() const { return static_cast<int>(m.size()); }

  static Standardizer identity(int d) {
    if (d < 1) throw std::invalid_argument("Standardizer::identity: d must be >= 1");
    Standardizer st;
    st.m = Vec::Zero(d);
    st.L = Mat::Identity(d, d);
    return st;
  }

  // L = chol(cov). If cov is not numerically positive definite, a jitter of
  // 1e-10 x mean(diag) (x10 per failure, at most 12 times) is added to the diagonal.
  static Standardizer from_covariance(const Vec& mean, const Mat& cov) {
    const Eigen::Index d = mean.size();
    if (d < 1 || cov.rows() != d || cov.cols() != d)
      throw std::invalid_argument("Standardizer::from_covariance: mean of size d and d x d cov needed");
    if (!mean.allFinite() || !cov.allFinite())
      throw std::invalid_argument("Standardizer::from_covariance: non-finite mean or covariance");
    Mat S = 0.5 * (cov + cov.transpose());
    const double scale = std::fmax(S.diagonal().cwiseAbs().mean(), 1e-300);
    Eigen::LLT<Mat> llt(S);
    double jitter = 1e-10 * scale;
    for (int k = 0; llt.info() != Eigen::Success; ++k) {
      if (k >= 12) throw std::runtime_error("Standardizer::from_covariance: covariance is not positive definite");
      S.diagonal().array() += jitter;
      llt.compute(S);
      jitter *= 10.0;
    }
    Standardizer st;
    st.m = mean;
    st.L = llt.matrixL();
    return st;
  }

  // L = diag(sqrt(var)) (a diagonal-metric standardization); var must be > 0.
  static Standardizer from_diagonal(const Vec& mean, const Vec& var) {
    if (mean.size() < 1 || var.size() != mean.size() || !mean.allFinite() || !var.allFinite() ||
        !(var.array() > 0).all())
      throw std::invalid_argument("Standardizer::from_diagonal: mean and positive var of size d needed");
    Standardizer st;
    st.m = mean;
    st.L = var.cwiseSqrt().asDiagonal();
    return st;
  }

  // Throws unless m has size d >= 1 and L is d x d, finite, with a nonzero diagonal (only
  // the lower triangle is read). The members are public and may be filled by hand (e.g.
  // restored from R), so what keeps a standardizer checks it first (network.hpp).
  void check() const {
    const int d = dim();
    if (d < 1 || L.rows() != d || L.cols() != d)
      throw std::invalid_argument("Standardizer: m of size d >= 1 and d x d L needed");
    if (!m.allFinite() || !L.allFinite() || !(L.diagonal().array() != 0).all())
      throw std::invalid_argument("Standardizer: L must be finite, lower triangular, nonsingular");
  }

  // u = L^{-1}(theta - m). No allocation when u already has size d (u may alias theta).
  void to_u(const Vec& theta, Vec& u) const {
    u = theta - m;
    L.triangularView<Eigen::Lower>().solveInPlace(u);
  }
  // theta = m + L u.
  void to_theta(const Vec& u, Vec& theta) const {
    theta.noalias() = L.triangularView<Eigen::Lower>() * u;
    theta += m;
  }
  // grad_theta f = L^{-T} grad_u f.
  void grad_to_theta(const Vec& gu, Vec& g) const {
    g = gu;
    L.triangularView<Eigen::Lower>().transpose().solveInPlace(g);
  }
  // grad_u f = L' grad_theta f.
  void grad_to_u(const Vec& g, Vec& gu) const {
    gu.noalias() = L.triangularView<Eigen::Lower>().transpose() * g;
  }
  // Rows of thetas (n x d) -> columns of Ut (d x n), Ut = L^{-1}(thetas' - m 1').
  template <class Derived>
  void rows_to_u_cols(const Eigen::MatrixBase<Derived>& thetas, Mat& Ut) const {
    Ut = thetas.transpose();
    Ut.colwise() -= m;
    L.triangularView<Eigen::Lower>().solveInPlace(Ut);
  }
  // Rows of theta-space gradients (n x d) -> columns of u-space gradients (d x n), L' g_n.
  template <class Derived>
  void grad_rows_to_u_cols(const Eigen::MatrixBase<Derived>& grads, Mat& Gu) const {
    Gu.noalias() = L.triangularView<Eigen::Lower>().transpose() * grads.transpose();
  }
};

}  // namespace vhmc
