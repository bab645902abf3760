#pragma once
// Minimisation of a potential U by limited-memory BFGS (Liu & Nocedal 1989; Nocedal &
// Wright 2006, Algorithm 7.5) with a strong Wolfe line search (model/line_search.hpp). Needs
// only U_grad(theta, g) -> U, so it serves any target, including those without the
// analytic Hessian that newton_mode (model/mode.hpp) requires; it returns the stored pairs,
// from which the inverse-Hessian estimate (dense or diagonal) is available as a cheap
// initial metric. Convergence (any of):
//   * max_i |g_i| <= grad_tol;
//   * the predicted decrease g' H g / 2 <= decrement_tol nats (H the L-BFGS inverse Hessian;
//     the analogue of newton_mode's Newton decrement, invariant to the parameters' units);
//   * the relative decrease of U over an iteration <= rel_obj_tol = 10 machine epsilons:
//     U no longer changes beyond rounding. (Stan's tol_rel_obj = 1e4 epsilons stops
//     earlier: on an ill-conditioned quadratic ~1e-6 posterior sd from the mode.)
// A failed line search from a quasi-Newton direction is retried once along -g with the
// history cleared; if that fails too and the predicted decrease is within the rounding of U,
// the point is reported as converged, otherwise as a failure with the reason.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../base/types.hpp"
#include "lbfgs_history.hpp"
#include "line_search.hpp"

namespace vhmc {

struct LbfgsOptions {
  int history = 6;  // pairs kept (m)
  int max_iterations = 1000;
  double grad_tol = 1e-8;
  double decrement_tol = 1e-14;  // nats, as newton_mode
  double rel_obj_tol = 10.0 * std::numeric_limits<double>::epsilon();
  LineSearchOptions line_search{};
};

struct LbfgsResult {
  Vec theta;  // the last accepted point (the optimum when converged)
  double value = 0.0;
  Vec gradient;
  int iterations = 0;
  int n_evals = 0;  // U_grad calls
  bool converged = false;
  std::string message;
  LbfgsHistory history;  // pairs at the end: history.inverse_hessian(d), ..._diag(d)
};

// Called after every accepted iterate with (theta, U, grad U, history); Pathfinder uses it.
struct NoLbfgsHook {
  void operator()(const Vec&, double, const Vec&, const LbfgsHistory&) {}
};

namespace detail {

// Stops on gradient, decrement or relative decrease; writes the message.
inline bool lbfgs_converged(const LbfgsOptions& opt, LbfgsResult& r, double u_prev,
                            double decrement) {
  if (r.gradient.lpNorm<Eigen::Infinity>() <= opt.grad_tol) {
    r.message = "the gradient is below grad_tol";
  } else if (decrement <= opt.decrement_tol) {
    r.message = "the predicted decrease is below decrement_tol";
  } else if (u_prev - r.value <= opt.rel_obj_tol * std::max(1.0, std::fabs(r.value))) {
    r.message = "the relative decrease of U is below rel_obj_tol";
  } else {
    return false;
  }
  r.converged = true;
  return true;
}

}  // namespace detail

template <class Potential, class Hook = NoLbfgsHook>
LbfgsResult lbfgs_minimize(Potential& pot, Vec theta, const LbfgsOptions& opt = LbfgsOptions(),
                           Hook hook = Hook()) {
  LbfgsResult r;
  r.history = LbfgsHistory(opt.history);
  r.gradient.resize(theta.size());
  r.value = pot.U_grad(theta, r.gradient);
  r.theta = theta;
  r.n_evals = 1;
  if (!std::isfinite(r.value) || !r.gradient.allFinite()) {
    r.message = "the potential or its gradient is not finite at the initial values";
    return r;
  }
  hook(r.theta, r.value, r.gradient, r.history);
  for (r.iterations = 0; r.iterations < opt.max_iterations; ++r.iterations) {
    Vec p = -r.history.apply(r.gradient);
    const double decrement = -0.5 * r.gradient.dot(p);
    if (r.gradient.lpNorm<Eigen::Infinity>() <= opt.grad_tol || decrement <= opt.decrement_tol)
      break;
    // First step along -g: try a unit-length move; later steps: the quasi-Newton step.
    double alpha0 = r.history.size() == 0 ? std::min(1.0, 1.0 / r.gradient.norm()) : 1.0;
    LineSearchResult ls =
        wolfe_line_search(pot, r.theta, r.value, r.gradient, p, alpha0, opt.line_search);
    r.n_evals += ls.evals;
    if (!ls.ok && r.history.size() > 0) {  // restart from steepest descent
      r.history.clear();
      p = -r.gradient;
      alpha0 = std::min(1.0, 1.0 / r.gradient.norm());
      ls = wolfe_line_search(pot, r.theta, r.value, r.gradient, p, alpha0, opt.line_search);
      r.n_evals += ls.evals;
    }
    if (!ls.ok) {
      r.converged = decrement <= 1e3 * std::numeric_limits<double>::epsilon() *
                                     std::max(1.0, std::fabs(r.value));
      r.message = r.converged ? "no further decrease: U is flat to rounding"
                              : "the line search failed: " + ls.message;
      return r;
    }
    const Vec s = ls.theta - r.theta, y = ls.gradient - r.gradient;
    // Keep the pair only with clearly positive curvature (cosine of s and y > 1e-8).
    if (s.dot(y) > 1e-8 * s.norm() * y.norm()) r.history.push(s, y);
    const double u_prev = r.value;
    r.theta = ls.theta;
    r.gradient = ls.gradient;
    r.value = ls.value;
    hook(r.theta, r.value, r.gradient, r.history);
    const double dec_new = 0.5 * r.gradient.dot(r.history.apply(r.gradient));
    if (detail::lbfgs_converged(opt, r, u_prev, dec_new)) {
      ++r.iterations;
      return r;
    }
  }
  if (r.iterations >= opt.max_iterations) {
    r.message = "the iteration limit was reached";
    return r;
  }
  detail::lbfgs_converged(opt, r, kInf, 0.5 * r.gradient.dot(r.history.apply(r.gradient)));
  return r;
}

}  // namespace vhmc
