#pragma once
// The step size of the generalized leapfrog (riemann/generalized_leapfrog.hpp), whose implicit
// steps can go unsolved: dual averaging toward the target acceptance (Hoffman & Gelman 2014,
// Algorithm 5), an unsolved transition counting as a rejection, under a cap that keeps
// unsolved transitions rare.
// Why a cap: the fixed-point iterations contract at a rate that grows like eps |p| (|p| the
// momentum's size in the metric), so an implicit step goes unsolved when eps |p| exceeds a
// constant of the model: rarely, in the momentum's tail, but increasingly fast with eps (on
// a 4-coefficient logistic regression: 0.01% of transitions at eps = 0.6, 0.9% at 0.8, 6.5%
// at 1.0). Dual averaging sees them only as a little less acceptance and settles where
// 1-3% fail. A rare event is too noisy a signal for dual averaging's aggressive steps, so the
// cap is a Robbins-Monro recursion on log eps with a small constant gain g and the target
// rate r as its fixed point (Robbins & Monro 1951):
//   log cap -= g (1 - r)  after an unsolved transition,   log cap += g r  after any other,
// started at the first failure from the step size that failed. While the cap binds, dual
// averaging sees the capped step's acceptance and does not wind up (DualAveraging's limited
// learn()). The cap restarts at the middle of the adaptation (forget()), so that failures
// of the first iterations (far from the typical set, or during dual averaging's first wide
// steps) do not hold the step size down.
#include <algorithm>
#include <cmath>
#include <limits>

#include "dual_averaging.hpp"

namespace vhmc {

class ImplicitStepSize {
 public:
  explicit ImplicitStepSize(double target_accept, double failure_rate = 0.005, double gain = 0.1)
      : rate_(failure_rate), gain_(gain) {
    DualAveragingConfig dc;
    dc.delta = target_accept;
    da_ = DualAveraging(dc);
  }

  void restart(double eps) {
    da_.restart(eps);
    forget();
  }
  void forget() { log_cap_ = std::numeric_limits<double>::infinity(); }

  // One update with the transition's acceptance statistic, where `eps` was its step size;
  // returns the next step size.
  double learn(double accept_stat, bool unsolved, double eps) {
    if (unsolved) {
      if (!std::isfinite(log_cap_)) log_cap_ = std::log(eps);
      log_cap_ -= gain_ * (1.0 - rate_);
    } else if (std::isfinite(log_cap_)) {
      log_cap_ += gain_ * rate_;
    }
    return da_.learn(accept_stat, cap());
  }

  double final_step_size() const { return std::min(da_.final_step_size(), cap()); }
  double cap() const { return std::exp(log_cap_); }  // +inf before the first failure
  long counter() const { return da_.counter(); }

 private:
  DualAveraging da_;
  double rate_, gain_;
  double log_cap_ = std::numeric_limits<double>::infinity();
};

}  // namespace vhmc
