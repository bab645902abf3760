#pragma once
// Low-rank plus diagonal Euclidean metric (the package's conventions: W = M^{-1}, K = p'Wp/2,
// p ~ N(0, W^{-1}), v = W p), with the inverse metric of Seyboldt, Carlson & Carpenter
// (2026, arXiv:2603.18845):
//   W = D (I + U (Lambda - I) U') D,      D = diag(sigma), U'U = I_k.
// Because U has orthonormal columns, any power of the bracket is I + U (Lambda^a - I) U', so
//   W^{-1} = D^{-1} (I + U (Lambda^{-1} - I) U') D^{-1}
// and p = D^{-1} (I + U (Lambda^{-1/2} - I) U') z with z ~ N(0, I) has Cov(p) = W^{-1}.
// sharp() and sample_momentum() each cost two d x k products and O(d) more: no d x d matrix
// is formed outside the reporting accessors.
#include <cmath>
#include <stdexcept>

#include "../adapt/draw_grad_buffer.hpp"
#include "../adapt/fisher_low_rank.hpp"
#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "metric_revision.hpp"

namespace vhmc {

class LowRankMetric : public MetricRevision {
 public:
  using Estimator = DrawGradBuffer;
  static constexpr bool adapts = true;

  // A diagonal start (k = 0) with inverse metric w.
  explicit LowRankMetric(const Vec& w) { set_w(w); }
  explicit LowRankMetric(const LowRankFactors& f) { set(f); }

  void sample_momentum(Rng& rng, Vec& p) const {
    for (Eigen::Index i = 0; i < z_.size(); ++i) z_[i] = rng.normal();
    p = z_;
    if (rank() > 0) {
      t_.noalias() = U_.transpose() * z_;
      t_.array() *= lam_mhalf_m1_.array();
      p.noalias() += U_ * t_;
    }
    p.array() *= inv_sigma_.array();
  }

  void sharp(const Vec& p, Vec& v) const {
    v = sigma_.cwiseProduct(p);
    if (rank() > 0) {
      t_.noalias() = U_.transpose() * v;
      t_.array() *= lam_m1_.array();
      v.noalias() += U_ * t_;
    }
    v.array() *= sigma_.array();
  }

  void set(const LowRankFactors& f) {
    if (f.U.cols() != f.lambda.size() || (f.U.cols() > 0 && f.U.rows() != f.sigma.size()))
      throw std::invalid_argument("low-rank metric: inconsistent factor sizes");
    if (!f.sigma.allFinite() || !(f.sigma.array() > 0).all() || !f.U.allFinite() ||
        !f.lambda.allFinite() || !(f.lambda.array() > 0).all())
      throw std::runtime_error("low-rank metric is not positive definite");
    sigma_ = f.sigma;
    inv_sigma_ = sigma_.cwiseInverse();
    U_ = f.U.cols() > 0 ? f.U : Mat(sigma_.size(), 0);
    lambda_ = f.lambda;
    lam_m1_ = lambda_.array() - 1.0;
    lam_mhalf_m1_ = lambda_.array().rsqrt() - 1.0;
    z_.resize(sigma_.size());
    t_.resize(lambda_.size());
    touch();
  }
  // Re-estimate from a window of (draw, gradient) pairs; the current diagonal is the
  // fallback for coordinates the window says nothing about.
  void set(const Estimator& est, const LowRankConfig& cfg = {}) {
    set(fisher_low_rank(est, inv_metric_diag(), cfg));
  }
  void set_w(const Vec& w) { set(LowRankFactors{w.cwiseSqrt(), Mat(w.size(), 0), Vec(0), Vec()}); }

  int rank() const { return static_cast<int>(lambda_.size()); }
  const Vec& sigma() const { return sigma_; }
  const Mat& U() const { return U_; }
  const Vec& lambda() const { return lambda_; }

  // Reporting only. diag(W)_i = sigma_i^2 (1 + sum_j (lambda_j - 1) U_ij^2).
  Vec inv_metric_diag() const {
    Vec w = Vec::Ones(sigma_.size());
    if (rank() > 0) w += U_.array().square().matrix() * lam_m1_;
    return w.cwiseProduct(sigma_.cwiseAbs2());
  }
  Mat inv_metric_dense() const { return dense(lam_m1_, sigma_); }
  Mat metric_dense() const { return dense((lambda_.array().inverse() - 1.0).matrix(), inv_sigma_); }

 private:
  // diag(s) (I + U diag(a) U') diag(s)
  Mat dense(const Vec& a, const Vec& s) const {
    Mat B = U_ * a.asDiagonal() * U_.transpose();
    B.diagonal().array() += 1.0;
    return s.asDiagonal() * B * s.asDiagonal();
  }
  Vec sigma_, inv_sigma_, lambda_, lam_m1_, lam_mhalf_m1_;
  Mat U_;
  mutable Vec z_, t_;
};

}  // namespace vhmc
