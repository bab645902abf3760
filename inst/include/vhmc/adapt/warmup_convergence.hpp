#pragma once
// When an automatic warmup may end: at a window switch of the draw/gradient adaptation,
// two tests on the two most recent (disjoint) windows of the chain.
//  1. The metric has settled: the diagonal of the inverse metric estimated from the newer
//     window differs from the one estimated at the previous switch by at most rms_tol in
//     root-mean-square log ratio. HMC's cost per effective draw grows with the square root
//     of the condition number of the target under the metric, so coordinate scales that
//     move by ~20% (rms 0.2) change it little; the test is on the root mean square rather
//     than the extreme ratio because with d coordinates the extreme of d noisy estimates
//     keeps growing with d even for a chain that has converged.
//  2. The chain is stationary: the mean potential U of the newer window agrees with the
//     older one's within z_tol standard errors (pooled variance, inflated by `iat`, a
//     generous integrated autocorrelation time for U under NUTS). A chain still descending
//     from an overdispersed start, or still climbing out of the mode, fails it.
// Both are necessary conditions only: they make a short warmup unlikely to end before the
// chain has relaxed, while R-hat, ESS and divergences after sampling remain the checks of
// the result.
#include <cmath>

#include "../base/types.hpp"

namespace vhmc {

struct ConvergenceConfig {
  double rms_tol = 0.2;
  double z_tol = 3.0;
  double iat = 3.0;
};

// Running mean and variance of a scalar (Welford).
class RunningMoments {
 public:
  void add(double x) {
    ++n_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (x - mean_);
  }
  void reset() { *this = RunningMoments(); }
  long n() const { return n_; }
  double mean() const { return mean_; }
  double variance() const { return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : 0.0; }

 private:
  long n_ = 0;
  double mean_ = 0.0, m2_ = 0.0;
};

// Root-mean-square log ratio of two positive vectors (inverse-metric diagonals).
inline double rms_log_change(const Vec& a, const Vec& b) {
  return std::sqrt((b.array() / a.array()).log().square().mean());
}

inline bool energy_stationary(const RunningMoments& older, const RunningMoments& newer,
                              const ConvergenceConfig& c) {
  if (older.n() < 2 || newer.n() < 2) return false;
  const double pooled = 0.5 * (older.variance() + newer.variance());
  const double se = std::sqrt(c.iat * pooled * (1.0 / older.n() + 1.0 / newer.n()));
  return std::fabs(newer.mean() - older.mean()) <= c.z_tol * se;
}

inline bool warmup_converged(const Vec& w_before, const Vec& w_now, const RunningMoments& older,
                             const RunningMoments& newer, const ConvergenceConfig& c) {
  const double rms = rms_log_change(w_before, w_now);
  return std::isfinite(rms) && rms <= c.rms_tol && energy_stationary(older, newer, c);
}

}  // namespace vhmc
