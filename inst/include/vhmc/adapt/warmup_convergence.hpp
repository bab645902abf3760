#pragma once
// When an automatic warmup may end: at a window switch of the draw/gradient adaptation,
// two tests on the two most recent (disjoint) windows of the chain.
//  1. The metric has settled: the inverse metric estimated from the newer window differs
//     from the one estimated at the previous switch by at most rms_tol in root-mean-square
//     log ratio -- of the diagonals (diagonal and low-rank metrics), or of the eigenvalues
//     of W_before^{-1} W_now for a dense metric, whose every entry is adapted (the
//     affine-invariant distance between the two, Pennec, Fillard & Ayache 2006, over
//     sqrt(d); for diagonal matrices the same number). HMC's cost per effective draw grows
//     with the square root of the condition number of the target under the metric, so
//     scales that move by ~20% (rms 0.2) change it little; the test is on the root mean
//     square rather than the extreme ratio because with d coordinates the extreme of d
//     noisy estimates keeps growing with d even for a chain that has converged. Measured on
//     a9a's full design (d = 118, dense metric from the mode): with the diagonals alone half
//     the chains ended warmup at about 385 iterations with a metric that needed step size
//     0.25-0.33 and 15 leapfrog steps per draw, against 0.42-0.46 and 7-12 after the full
//     warmup; the off-diagonal part had not settled.
//  2. The chain is stationary: the mean potential U of the newer window agrees with the
//     older one's within z_tol standard errors (pooled variance, inflated by `iat`, a
//     generous integrated autocorrelation time for U under NUTS). A chain still descending
//     from an overdispersed start, or still climbing out of the mode, fails it.
// Both are necessary conditions only: they make a short warmup unlikely to end before the
// chain has relaxed, while R-hat, ESS and divergences after sampling remain the checks of
// the result.
#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

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

// Root-mean-square log of the eigenvalues of A^{-1} B, for symmetric positive definite A and
// B (dense inverse metrics): those of L^{-1} B L^{-T} with A = L L'. NaN if A is not
// positive definite; O(d^3), once per window switch.
inline double rms_log_change(const Mat& a, const Mat& b) {
  const Eigen::LLT<Mat> llt(a);
  if (llt.info() != Eigen::Success) return NAN;
  const Mat lb = llt.matrixL().solve(b);
  const Mat c = llt.matrixL().solve(lb.transpose());
  const Eigen::SelfAdjointEigenSolver<Mat> es(0.5 * (c + c.transpose()), Eigen::EigenvaluesOnly);
  return std::sqrt(es.eigenvalues().array().log().square().mean());
}

inline bool energy_stationary(const RunningMoments& older, const RunningMoments& newer,
                              const ConvergenceConfig& c) {
  if (older.n() < 2 || newer.n() < 2) return false;
  const double pooled = 0.5 * (older.variance() + newer.variance());
  const double se = std::sqrt(c.iat * pooled * (1.0 / older.n() + 1.0 / newer.n()));
  return std::fabs(newer.mean() - older.mean()) <= c.z_tol * se;
}

// S: an inverse-metric snapshot (adapt/fisher_estimators.hpp), a diagonal or a dense matrix.
template <class S>
bool warmup_converged(const S& w_before, const S& w_now, const RunningMoments& older, const RunningMoments& newer,
                      const ConvergenceConfig& c) {
  if (!energy_stationary(older, newer, c)) return false;  // first: it costs O(1), a dense metric's test O(d^3)
  const double rms = rms_log_change(w_before, w_now);
  return std::isfinite(rms) && rms <= c.rms_tol;
}

}  // namespace vhmc
