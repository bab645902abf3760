#pragma once
// Whether surrogate HMC will pay off, decided at the end of its warmup from what the warmup
// measured on both kernels: NUTS on the true gradient (the exploration) and surrogate HMC
// (the second half of trajectory tuning). Per kernel and coordinate j, the mean squared jump
// between successive states (the expected squared jumping distance of Pasarica and Gelman
// 2010, eq. 1) gives the lag-1 autocorrelation rho_j = 1 - ESJD_j / (2 var_j), var_j the
// exploration's variance, and the effective samples per iteration of an AR(1) chain with
// it, (1 - rho_j) / (1 + rho_j). The ratio of ESJDs alone overstated the surrogate: on a
// census logistic regression (d = 95) NUTS's draws were antithetic (rho < 0) and the
// surrogate's correlated, a jump ratio that predicted efficiency above 2 where the measured
// min bulk ESS per second was 0.85 of NUTS's. The surrogate's efficiency relative to NUTS is
//   (ESS ratio) x (cost ratio),
// the ESS ratio a low quantile (10%) over coordinates (the worst-mixing coordinates set the
// minimum effective sample size), the cost ratio the seconds of a NUTS iteration over those
// of a surrogate one. Below `ratio` (2 by default: the estimates rest on tens of iterations)
// the chain continues with NUTS: the surrogate would not repay itself over the sampling
// iterations (the warmup's cost is spent either way). An acceptance rate below half its
// target also decides for NUTS: the surrogate is then too inaccurate for trajectories of
// any length. Because the cost ratio is measured in seconds, a fit near the threshold can
// decide differently on a machine under another load; the decision is reported, and
// `fallback = FALSE` keeps the surrogate regardless.
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

// The q-quantile of r (the element of rank floor(q (n - 1)); r is reordered; NaN when empty).
inline double lower_quantile(std::vector<double>& r, double q) {
  if (r.empty()) return NAN;
  const size_t k = static_cast<size_t>(std::floor(q * static_cast<double>(r.size() - 1)));
  std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(k), r.end());
  return r[k];
}

// The q-quantile over coordinates of the ratio of mean squared jumps a / b (NaN when either
// meter is empty); coordinates where b never moved count as ratio 1.
inline double jump_ratio(const JumpMeter& a, const JumpMeter& b, double q = 0.1) {
  if (a.n() == 0 || b.n() == 0 || a.sum().size() == 0) return NAN;
  std::vector<double> r(static_cast<size_t>(a.sum().size()));
  for (Eigen::Index j = 0; j < a.sum().size(); ++j) {
    const double ja = a.sum()[j] / static_cast<double>(a.n()), jb = b.sum()[j] / static_cast<double>(b.n());
    r[static_cast<size_t>(j)] = jb > 0 ? ja / jb : 1.0;
  }
  return lower_quantile(r, q);
}

// Effective samples per iteration of an AR(1) chain whose mean squared jump is esjd and
// variance var; rho is kept in [-0.5, 0.999] (NUTS's antithetic draws rarely exceed 3
// effective samples per iteration; a chain that never moved is not infinitely slow).
constexpr double kAr1RhoMin = -0.5;
inline double ar1_ess(double esjd, double var) {
  if (!(var > 0)) return NAN;
  const double rho = std::clamp(1.0 - esjd / (2.0 * var), kAr1RhoMin, 0.999);
  return (1.0 - rho) / (1.0 + rho);
}
// The most effective samples per iteration ar1_ess() credits (3).
constexpr double kAr1EssMax = (1.0 - kAr1RhoMin) / (1.0 + kAr1RhoMin);

// The AR(1) effective samples per iteration of a chain whose accepted proposals alone would
// give `ess`, when it accepts a fraction `accept` of them: a rejection is a jump of 0, so the
// mean squared jump scales by accept and rho = accept rho_1 + (1 - accept) (as ar1_ess()
// reads jumps). At 0.65, 3 becomes 0.95.
inline double ess_at_acceptance(double ess, double accept) {
  const double rho1 = (1.0 - ess) / (1.0 + ess);
  const double rho = accept * rho1 + (1.0 - accept);
  return (1.0 - rho) / (1.0 + rho);
}

// The q-quantile over coordinates of the AR(1) effective samples per iteration of a over
// those of b (NaN when a meter is empty or no coordinate has a positive variance).
inline double ess_ratio(const JumpMeter& a, const JumpMeter& b, const Vec& var, double q = 0.1) {
  if (a.n() == 0 || b.n() == 0 || var.size() != a.sum().size()) return NAN;
  std::vector<double> r;
  for (Eigen::Index j = 0; j < var.size(); ++j) {
    const double ea = ar1_ess(a.sum()[j] / static_cast<double>(a.n()), var[j]);
    const double eb = ar1_ess(b.sum()[j] / static_cast<double>(b.n()), var[j]);
    if (std::isfinite(ea) && std::isfinite(eb)) r.push_back(ea / eb);
  }
  return lower_quantile(r, q);
}

// The q-quantile over coordinates of ess / (NUTS's AR(1) effective samples per iteration),
// for a chain whose effective samples per iteration would be `ess` in every coordinate
// (the surrogate's prediction before training, training_payoff.hpp).
inline double ess_ratio_to(double ess, const JumpMeter& b, const Vec& var, double q = 0.1) {
  if (b.n() == 0 || var.size() != b.sum().size()) return NAN;
  std::vector<double> r;
  for (Eigen::Index j = 0; j < var.size(); ++j) {
    const double eb = ar1_ess(b.sum()[j] / static_cast<double>(b.n()), var[j]);
    if (std::isfinite(eb)) r.push_back(ess / eb);
  }
  return lower_quantile(r, q);
}

struct SurrogatePayoff {
  double jump_ratio = NAN, ess_ratio = NAN, cost_ratio = NAN, efficiency = NAN, accept = NAN;
  bool fallback = false;
  void report(Report& r) const {
    r.add("jump_ratio", jump_ratio);
    r.add("ess_ratio", ess_ratio);
    r.add("payoff_cost_ratio", cost_ratio);
    r.add("efficiency_ratio", efficiency);
    r.add("tuning_accept", accept);
    r.add("fallback", fallback);
  }
};

// The decision; `enabled` false (fallback = FALSE) measures but never falls back. var: the
// posterior variance of each coordinate (the exploration's).
inline SurrogatePayoff decide_payoff(const JumpMeter& surrogate, double sec_surrogate, const JumpMeter& nuts,
                                     double sec_nuts, const Vec& var, double accept, double target, double ratio,
                                     bool enabled) {
  SurrogatePayoff p;
  p.jump_ratio = jump_ratio(surrogate, nuts);
  p.ess_ratio = ess_ratio(surrogate, nuts, var);
  p.cost_ratio = sec_surrogate > 0 ? sec_nuts / sec_surrogate : NAN;
  p.efficiency = p.ess_ratio * p.cost_ratio;
  p.accept = accept;
  const bool inaccurate = std::isfinite(accept) && accept < 0.5 * target;
  p.fallback = enabled && (inaccurate || (std::isfinite(p.efficiency) && p.efficiency < ratio));
  return p;
}

}  // namespace vhmc
