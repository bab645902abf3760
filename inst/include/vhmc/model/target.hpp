#pragma once
// The potential U(theta) = -log p~(theta | data) and its gradient, seen through a counter.
// A potential type P provides
//   int dim() const;
//   double U(const Vec& theta);               // U(theta)
//   double U_grad(const Vec& theta, Vec& g);  // U(theta), writes grad U into g
// Non-finite results are mapped to U = +inf so that samplers see a rejection or a divergence
// (a state of zero density is never accepted; Neal 2011) instead of
// propagating NaN.
#include "../base/types.hpp"

namespace vhmc {

// Evaluations that cost: of the true potential with its gradient and without, of a
// surrogate's gradient, and (stochastic-gradient samplers) per-observation gradient terms.
struct EvalCounts {
  long grad = 0;
  long potential = 0;
  long surrogate_grad = 0;
  long obs_grad = 0;
};

template <class P>
class Target {
 public:
  explicit Target(P& p) : p_(p) {}

  int dim() const { return p_.dim(); }

  double U(const Vec& theta) {
    ++counts_.potential;
    const double u = p_.U(theta);
    return std::isfinite(u) ? u : kInf;
  }

  double U_grad(const Vec& theta, Vec& g) {
    ++counts_.grad;
    const double u = p_.U_grad(theta, g);
    return (std::isfinite(u) && g.allFinite()) ? u : kInf;
  }

  const EvalCounts& counts() const { return counts_; }
  P& potential() { return p_; }

 private:
  P& p_;
  EvalCounts counts_;
};

}  // namespace vhmc
