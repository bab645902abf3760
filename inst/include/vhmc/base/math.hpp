#pragma once
// Scalar functions shared by the likelihoods, the priors and the surrogate's activations,
// written once so that no two parts of the core disagree by a rounding.
#include <cmath>

namespace vhmc {

// softplus(x) = log(1 + exp(x)) without overflow or loss of precision for large |x|.
inline double softplus(double x) { return (x > 0 ? x : 0.0) + std::log1p(std::exp(-std::fabs(x))); }

// The logistic function 1 / (1 + exp(-x)) without overflow.
inline double logistic(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// logistic(x) and its complement 1 - logistic(x) = logistic(-x) from one exp(-|x|), so that
// products l (1 - l) keep full relative accuracy in both tails (the activations' derivatives).
inline void logistic_pair(double x, double& l, double& lc) {
  const double e = std::exp(-std::fabs(x));  // in (0, 1]
  const double r = 1.0 / (1.0 + e);
  if (x >= 0) {
    l = r;
    lc = e * r;
  } else {
    l = e * r;
    lc = r;
  }
}

}  // namespace vhmc
