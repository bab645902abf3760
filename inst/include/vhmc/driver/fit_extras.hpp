#pragma once
// What the host computes before the chains: the Laplace anchor (mode and Hessian) of
// variational HMC, the control-variate anchor (mode and full gradient) of SGLD-CV /
// SGHMC-CV (both shared by every chain), and the chain's initial inverse metric: the
// covariance of the Gaussian approximation its start was drawn from (the inverse Hessian at
// the posterior mode), absent when the chain starts from the identity; and how to spread the initial
// archive of differential-evolution MCMC (sampler/demc.hpp).
#include <optional>

#include "../base/types.hpp"

namespace vhmc {

struct Anchor {
  Vec mode;
  Mat hessian;   // empty when not needed
  Vec gradient;  // empty when not needed
};

struct FitExtras {
  std::optional<Anchor> laplace;
  std::optional<Anchor> control_variate;
  std::optional<Mat> inv_metric;
  // differential-evolution MCMC's initial archive: per coordinate, 1 to spread it as the
  // uniform distribution over a box on its logit scale (logistic), 0 uniform in (-2, 2)
  std::optional<Vec> scatter;
};

}  // namespace vhmc
