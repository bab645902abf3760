#pragma once
// Whether surrogate HMC will pay off, decided at the end of its warmup from what the warmup
// measured on both kernels: NUTS on the true gradient (the exploration) and surrogate HMC
// (the second half of trajectory tuning). Per kernel, the mean squared jump between
// successive states (the expected squared jumping distance of Pasarica and Gelman 2010,
// eq. 1) in units of each coordinate's variance (the exploration's), averaged over
// coordinates, gives a pooled lag-1 autocorrelation rho = 1 - ESJD / 2 and the effective
// samples per iteration of an AR(1) chain with it, (1 - rho) / (1 + rho). The ratio of
// ESJDs alone overstated the surrogate: on a census logistic regression (d = 95) NUTS's
// draws were antithetic (rho < 0) and the surrogate's correlated. The surrogate's
// efficiency relative to NUTS is
//   (ESS ratio) x (cost ratio),
// the cost ratio the seconds of a NUTS iteration over those of a surrogate one. The ESS
// ratio pools the coordinates: NUTS's side rests on the 30-40 iterations of an automatic
// exploration, and per coordinate such an estimate is noise. An earlier version took the
// 10% quantile over coordinates of the per-coordinate ratios (for the worst-mixing
// coordinates); measured against the sampling phase's per-chain min bulk ESS (fallback =
// FALSE, 2 seeds x 2 chains each), that quantile put the surrogate's ESS ratio at 0.21-0.46
// on census and 0.16-0.62 on the projected a9a, where it was 0.9-1.3 and 1.1-1.3, and handed
// over chains that ran 3-4x NUTS's efficiency; the pooled ratio read 0.9-2.6 and 1.1-2.3
// there, and 0.06-0.57 on liver's bank subset (0.02-0.27 measured), which still hands over.
// Below `ratio` (2 by default: the estimates rest on tens of iterations) the chain
// continues with NUTS: the surrogate would not repay itself over the sampling iterations
// (the warmup's cost is spent either way). An acceptance rate below half its target also
// decides for NUTS: the surrogate is then too inaccurate for trajectories of any length.
// Whatever the costs, a surrogate whose held-out gradient error (surrogate/train_surrogate.hpp:
// ||grad z - grad U|| / ||grad U|| on the tenth of the training points held out) is above
// kMaxDrivingError cannot drive trajectories and the chain continues with NUTS: on
// BayesianTools' VSEM (two curved ridges cut by the prior box) every surrogate trained had
// errors of 0.96-0.998, accepted a few of its shortened trajectories (ESS ratio
// 0.005-0.009), and was kept because a finite-difference NUTS iteration cost 300-2,900 of
// its own (efficiency 2.9-14.7, above the ratio); the surrogates that paid off had errors of
// 0.001-0.11 (inst/bench results: a9a, census, the elliptic PDE, a custom target).
// Because the cost ratio is measured in seconds, a fit near the threshold can decide
// differently on a machine under another load; the decision is reported, and
// `fallback = FALSE` keeps the surrogate regardless.
#include <algorithm>
#include <cmath>

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

// The mean over coordinates of a's squared jump per iteration in units of each coordinate's
// variance var (coordinates with var <= 0 left out; NaN when a is empty or none is left).
inline double standardized_jump(const JumpMeter& a, const Vec& var) {
  if (a.n() == 0 || var.size() != a.sum().size()) return NAN;
  double sum = 0.0;
  int k = 0;
  for (Eigen::Index j = 0; j < var.size(); ++j) {
    if (!(var[j] > 0)) continue;
    sum += a.sum()[j] / (static_cast<double>(a.n()) * var[j]);
    ++k;
  }
  return k > 0 ? sum / k : NAN;
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

// The AR(1) effective samples per iteration at a's standardized jump (the pooled lag-1
// autocorrelation over coordinates).
inline double pooled_ess(const JumpMeter& a, const Vec& var) { return ar1_ess(standardized_jump(a, var), 1.0); }

// a's standardized jump over b's (NaN when either is).
inline double jump_ratio(const JumpMeter& a, const JumpMeter& b, const Vec& var) {
  return standardized_jump(a, var) / standardized_jump(b, var);
}

// a's pooled AR(1) effective samples per iteration over b's, each at most 1: antithetic draws
// (above 1) serve the means of near-Gaussian coordinates, never the worst-mixing coordinate
// that sets a fit's min ESS. Uncapped, NUTS's antithetic jumps outweighed the surrogate's
// trajectories shortened for walls (trajectory_length.hpp) on the full a9a design (d = 118):
// ratio 0.61, a hand-over, where the surrogate's min bulk ESS was 1.05x NUTS's.
inline double ess_ratio(const JumpMeter& a, const JumpMeter& b, const Vec& var) {
  return std::min(1.0, pooled_ess(a, var)) / std::min(1.0, pooled_ess(b, var));
}

// ess over NUTS's pooled AR(1) effective samples per iteration, for a chain whose effective
// samples per iteration would be `ess` (the surrogate's prediction before training,
// training_payoff.hpp).
inline double ess_ratio_to(double ess, const JumpMeter& b, const Vec& var) { return ess / pooled_ess(b, var); }

constexpr double kMaxDrivingError = 0.5;

struct SurrogatePayoff {
  double jump_ratio = NAN, ess_ratio = NAN, cost_ratio = NAN, efficiency = NAN, accept = NAN;
  double held_out_error = NAN;
  bool fallback = false, unfit = false;  // unfit: the held-out error was above kMaxDrivingError
  void report(Report& r) const {
    r.add("jump_ratio", jump_ratio);
    r.add("ess_ratio", ess_ratio);
    r.add("payoff_cost_ratio", cost_ratio);
    r.add("efficiency_ratio", efficiency);
    r.add("tuning_accept", accept);
    r.add("fallback", fallback);
    r.add("fallback_unfit", unfit);
    r.add("held_out_error_threshold", kMaxDrivingError);
  }
};

// The decision; `enabled` false (fallback = FALSE) measures but never falls back. var: the
// posterior variance of each coordinate (the exploration's); held_out_error: the trained
// surrogate's (NaN when training held none out).
inline SurrogatePayoff decide_payoff(const JumpMeter& surrogate, double sec_surrogate, const JumpMeter& nuts,
                                     double sec_nuts, const Vec& var, double accept, double target, double ratio,
                                     bool enabled, double held_out_error = NAN) {
  SurrogatePayoff p;
  p.jump_ratio = jump_ratio(surrogate, nuts, var);
  p.ess_ratio = ess_ratio(surrogate, nuts, var);
  p.cost_ratio = sec_surrogate > 0 ? sec_nuts / sec_surrogate : NAN;
  p.efficiency = p.ess_ratio * p.cost_ratio;
  p.accept = accept;
  p.held_out_error = held_out_error;
  const bool inaccurate = std::isfinite(accept) && accept < 0.5 * target;
  p.unfit = enabled && held_out_error > kMaxDrivingError;
  p.fallback = enabled && (p.unfit || inaccurate || (std::isfinite(p.efficiency) && p.efficiency < ratio));
  return p;
}

}  // namespace vhmc
