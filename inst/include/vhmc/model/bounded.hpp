#pragma once
// Declared bounds and priors of a target written by its user (vhmc_sample(lower, upper,
// prior)): each parameter x is sampled on an unconstrained coordinate t, as Stan does for
// <lower, upper> (Stan Reference Manual, "Constraint transforms"):
//   no bound        x = t
//   lower a         x = a + exp(t)                 log |dx/dt| = t
//   upper b         x = b - exp(t)                 log |dx/dt| = t
//   both (a, b)     x = a + (b - a) logistic(t)    log |dx/dt| = log(b - a) - softplus(-t) - softplus(t)
// and its prior is a density on x (the natural scale) truncated to the bounds, whose
// normalising constant is dropped. bounded_eval() returns the part of U = -log p(t) that the
// bounds and the prior add: -log prior(x) - log |dx/dt|, the user's log density of x coming
// on top through the chain rule (dU/dt = dU/dx dx/dt).
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../base/math.hpp"
#include "../base/types.hpp"
#include "priors.hpp"

namespace vhmc {

struct BoundedParameter {
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  Prior prior;  // on the natural scale; Flat: uniform on the bounds
};

// x from t, with dx/dt, log |dx/dt| and its derivative d log|dx/dt| / dt.
struct NaturalPoint {
  double x, dx_dt, log_jac, dlog_jac;
};

inline NaturalPoint bounded_to_natural(const BoundedParameter& p, double t) {
  const bool lo = std::isfinite(p.lower), hi = std::isfinite(p.upper);
  if (lo && hi) {
    double l, lc;
    logistic_pair(t, l, lc);
    const double w = p.upper - p.lower;
    return {p.lower + w * l, w * l * lc, std::log(w) - softplus(-t) - softplus(t), lc - l};
  }
  if (lo) return {p.lower + std::exp(t), std::exp(t), t, 1.0};
  if (hi) return {p.upper - std::exp(t), -std::exp(t), t, 1.0};
  return {t, 1.0, 0.0, 0.0};
}

// ... and back, for initial values given on the natural scale (strictly inside the bounds).
inline double bounded_from_natural(const BoundedParameter& p, double x) {
  const bool lo = std::isfinite(p.lower), hi = std::isfinite(p.upper);
  if (lo && hi) return std::log(x - p.lower) - std::log(p.upper - x);
  if (lo) return std::log(x - p.lower);
  if (hi) return std::log(p.upper - x);
  return x;
}

// -log p(x) of a prior on the natural scale, constants dropped, and d/dx into *dU. The
// location-scale priors are those of the coefficients (priors.hpp); exponential, gamma and
// beta are the densities on x itself (Exponential(rate), Gamma(shape, rate), Beta(a, b)).
// Outside a prior's support the value is +inf (the bounds keep x inside).
inline double natural_prior_eval(const Prior& p, double x, double* dU) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (p.kind) {
    case PriorKind::Exponential:
      if (dU) *dU = p.rate;
      return x < 0 ? inf : p.rate * x;
    case PriorKind::Gamma:
      if (dU) *dU = -(p.shape1 - 1.0) / x + p.rate;
      return x <= 0 ? inf : -(p.shape1 - 1.0) * std::log(x) + p.rate * x;
    case PriorKind::Beta:
      if (dU) *dU = -(p.shape1 - 1.0) / x + (p.shape2 - 1.0) / (1.0 - x);
      return x <= 0 || x >= 1 ? inf : -(p.shape1 - 1.0) * std::log(x) - (p.shape2 - 1.0) * std::log1p(-x);
    default: {
      Vec v = Vec::Constant(1, x), g = Vec::Zero(1);
      const double u = prior_value_add_grad(p, v, g);
      if (dU) *dU = g[0];
      return u;
    }
  }
}

// U_extra = sum_j [-log prior_j(x_j) - log |dx_j/dt_j|], x written into *x (d values), and
// dU_extra/dt into *grad and dx/dt into *dx_dt when non-null. A flat prior adds nothing.
inline double bounded_eval(const std::vector<BoundedParameter>& ps, const double* t, double* x,
                           double* dx_dt, double* grad) {
  double u = 0.0;
  for (std::size_t j = 0; j < ps.size(); ++j) {
    const NaturalPoint n = bounded_to_natural(ps[j], t[j]);
    double du_dx = 0.0;
    const double up = ps[j].prior.kind == PriorKind::Flat ? 0.0 : natural_prior_eval(ps[j].prior, n.x, &du_dx);
    u += up - n.log_jac;
    x[j] = n.x;
    if (dx_dt) dx_dt[j] = n.dx_dt;
    if (grad) grad[j] = du_dx * n.dx_dt - n.dlog_jac;
  }
  return u;
}

}  // namespace vhmc
