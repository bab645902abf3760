#pragma once
// How much a metric update changes the geometry, as a signal that adaptation has converged
// (nuts-rs has no such signal: its warmup length is fixed). For inverse metrics W_a, W_b the
// relevant number is the condition number of W_a^{-1/2} W_b W_a^{-1/2}: HMC's stable step
// size and its cost per effective draw scale with the condition number of the target under
// the metric, so kappa(W_a, W_b) = 1.1 means the new metric can change them by at most ~5%
// (sqrt(1.1)). Returned as log kappa (0 for identical metrics; symmetric in a and b;
// unchanged when both metrics are scaled by the same factor, which the step size absorbs).
#include <cmath>

#include <Eigen/Eigenvalues>

#include "../base/types.hpp"

namespace vhmc {

// Diagonal inverse metrics: log max(w_b / w_a) - log min(w_b / w_a). O(d).
inline double log_condition_change(const Vec& wa, const Vec& wb) {
  const Eigen::ArrayXd r = (wb.array() / wa.array()).log();
  return r.maxCoeff() - r.minCoeff();
}

// Dense inverse metrics (for low-rank ones, their inv_metric_dense()): by the generalised
// eigenvalues of (W_b, W_a). O(d^3): for switch points and d up to a few hundred.
inline double log_condition_change(const Mat& Wa, const Mat& Wb) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Mat> es(Wb, Wa, Eigen::EigenvaluesOnly);
  const Vec ev = es.eigenvalues();
  return std::log(ev.maxCoeff() / ev.minCoeff());
}

}  // namespace vhmc
