#pragma once
// Gaussian potentials with known moments (the test targets of Hoffman & Gelman 2014 and Neal 2011), used by the core's tests and
// benchmarks: U(theta) = 1/2 (theta - m)' P (theta - m) with precision P.
#include "../base/types.hpp"

namespace vhmc {

class GaussianPotential {
 public:
  // Diagonal covariance: variances s2.
  GaussianPotential(const Vec& mean, const Vec& var)
      : mean_(mean), prec_diag_(var.cwiseInverse()), dense_(false), r_(mean.size()) {}
  // Dense covariance.
  GaussianPotential(const Vec& mean, const Mat& cov)
      : mean_(mean), prec_(cov.llt().solve(Mat::Identity(cov.rows(), cov.cols()))),
        dense_(true), r_(mean.size()) {}

  int dim() const { return static_cast<int>(mean_.size()); }

  double U(const Vec& theta) {
    r_ = theta - mean_;
    return dense_ ? 0.5 * r_.dot(prec_ * r_) : 0.5 * r_.dot(prec_diag_.cwiseProduct(r_));
  }

  double U_grad(const Vec& theta, Vec& g) {
    r_ = theta - mean_;
    if (dense_) g.noalias() = prec_ * r_;
    else g = prec_diag_.cwiseProduct(r_);
    return 0.5 * r_.dot(g);
  }

 private:
  Vec mean_, prec_diag_;
  Mat prec_;
  bool dense_;
  Vec r_;
};

}  // namespace vhmc
