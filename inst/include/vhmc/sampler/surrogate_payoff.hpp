#pragma once
// Whether surrogate HMC will pay off, decided at the end of its warmup from what the warmup
// measured on both kernels: NUTS on the true gradient (the exploration) and surrogate HMC
// (the second half of trajectory tuning). Per kernel, the mean squared jump of each
// coordinate between successive states (the expected squared jumping distance of Pasarica
// and Gelman 2010, eq. 1, coordinate by coordinate: for a near-Gaussian target it orders
// kernels as their lag-1 autocorrelations, 1 - ESJD_j / (2 var_j), do) and the seconds per
// iteration. The surrogate's efficiency relative to NUTS is
//   (jump ratio) x (cost ratio),
// the jump ratio a low quantile (10%) over coordinates of ESJD_j(surrogate) / ESJD_j(NUTS)
// (the worst-mixing coordinates set the minimum effective sample size), the cost ratio the
// seconds of a NUTS iteration over those of a surrogate one. Below `ratio` (2 by default:
// the estimates rest on tens of iterations) the chain continues with NUTS: the surrogate
// would not repay itself over the sampling iterations (the warmup's cost is spent either
// way). An acceptance rate below half its target also decides for NUTS: the surrogate is
// then too inaccurate for trajectories of any length. Because the cost ratio is measured in
// seconds, a fit near the threshold can decide differently on a machine under another load;
// the decision is reported, and `fallback = FALSE` keeps the surrogate regardless.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../base/report.hpp"
#include "../base/types.hpp"

namespace vhmc {

// Sum of squared jumps per coordinate between successive added states.
class JumpMeter {
 public:
  explicit JumpMeter(int d) : sum_(Vec::Zero(d)) {}
  void add(const Vec& theta) {
    if (has_prev_) {
      sum_.array() += (theta - prev_).array().square();
      ++n_;
    }
    prev_ = theta;
    has_prev_ = true;
  }
  long n() const { return n_; }
  const Vec& sum() const { return sum_; }

 private:
  Vec sum_, prev_;
  bool has_prev_ = false;
  long n_ = 0;
};

// The q-quantile over coordinates of the ratio of mean squared jumps a / b (NaN when either
// meter is empty); coordinates where b never moved count as ratio 1.
inline double jump_ratio(const JumpMeter& a, const JumpMeter& b, double q = 0.1) {
  if (a.n() == 0 || b.n() == 0 || a.sum().size() == 0) return NAN;
  std::vector<double> r(static_cast<size_t>(a.sum().size()));
  for (Eigen::Index j = 0; j < a.sum().size(); ++j) {
    const double ja = a.sum()[j] / static_cast<double>(a.n()), jb = b.sum()[j] / static_cast<double>(b.n());
    r[static_cast<size_t>(j)] = jb > 0 ? ja / jb : 1.0;
  }
  const size_t k = static_cast<size_t>(std::floor(q * static_cast<double>(r.size() - 1)));
  std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(k), r.end());
  return r[k];
}

struct SurrogatePayoff {
  double jump_ratio = NAN, cost_ratio = NAN, efficiency = NAN, accept = NAN;
  bool fallback = false;
  void report(Report& r) const {
    r.add("jump_ratio", jump_ratio);
    r.add("payoff_cost_ratio", cost_ratio);
    r.add("efficiency_ratio", efficiency);
    r.add("tuning_accept", accept);
    r.add("fallback", fallback);
  }
};

// The decision; `enabled` false (fallback = FALSE) measures but never falls back.
inline SurrogatePayoff decide_payoff(const JumpMeter& surrogate, double sec_surrogate, const JumpMeter& nuts,
                                     double sec_nuts, double accept, double target, double ratio, bool enabled) {
  SurrogatePayoff p;
  p.jump_ratio = jump_ratio(surrogate, nuts);
  p.cost_ratio = sec_surrogate > 0 ? sec_nuts / sec_surrogate : NAN;
  p.efficiency = p.jump_ratio * p.cost_ratio;
  p.accept = accept;
  const bool inaccurate = std::isfinite(accept) && accept < 0.5 * target;
  p.fallback = enabled && (inaccurate || (std::isfinite(p.efficiency) && p.efficiency < ratio));
  return p;
}

}  // namespace vhmc
