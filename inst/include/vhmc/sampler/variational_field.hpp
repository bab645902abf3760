#pragma once
// The potential that variational HMC samples (Zhang, Shahbaba & Zhao 2018, Algorithm 2):
//   V(theta) = mu z(theta) + (1 - mu)/2 (theta - theta_L)' H_L (theta - theta_L),
// a blend of the random-basis surrogate z (trained online on true gradients) with the Laplace
// approximation at the mode theta_L. mu rises from ~0 to ~1 along the schedule, so the early,
// poorly trained surrogate is held in place by the Gaussian. The chain never evaluates the
// true potential through this field: only the trainer sees true gradients.
#include "../base/types.hpp"
#include "../surrogate/network.hpp"

namespace vhmc {

class VariationalField {
 public:
  VariationalField(RandomBasisNetwork& net, const Vec& mode, const Mat& hessian)
      : net_(net), mode_(mode), H_(hessian), diff_(mode.size()), Hd_(mode.size()), gz_(mode.size()) {}

  int dim() const { return static_cast<int>(mode_.size()); }
  double& mu() { return mu_; }
  double mu() const { return mu_; }

  double U(const Vec& theta) {
    ++n_value_;
    diff_ = theta - mode_;
    Hd_.noalias() = H_ * diff_;
    const double v = mu_ * net_.value(theta) + 0.5 * (1.0 - mu_) * diff_.dot(Hd_);
    return std::isfinite(v) ? v : kInf;
  }

  double U_grad(const Vec& theta, Vec& g) {
    ++n_grad_;
    diff_ = theta - mode_;
    Hd_.noalias() = H_ * diff_;
    const double z = net_.value_grad(theta, gz_);
    if (g.size() != dim()) g.resize(dim());
    g = mu_ * gz_ + (1.0 - mu_) * Hd_;
    const double v = mu_ * z + 0.5 * (1.0 - mu_) * diff_.dot(Hd_);
    return (std::isfinite(v) && g.allFinite()) ? v : kInf;
  }

  long n_grad() const { return n_grad_; }
  long n_value() const { return n_value_; }

 private:
  RandomBasisNetwork& net_;
  Vec mode_;
  Mat H_;
  double mu_ = 0.0;
  Vec diff_, Hd_, gz_;
  long n_grad_ = 0, n_value_ = 0;
};

}  // namespace vhmc
