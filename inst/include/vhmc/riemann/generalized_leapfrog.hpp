#pragma once
// The generalized leapfrog of Riemannian-manifold HMC (Girolami & Calderhead 2011, eqs.
// 16-18) for H(theta, p) = U + 1/2 log det G + 1/2 p' G^{-1} p:
//   p_h    = p - (eps/2) dH/dtheta(theta, p_h)                          (implicit in p_h)
//   theta' = theta + (eps/2) [G(theta)^{-1} + G(theta')^{-1}] p_h      (implicit in theta')
//   p'     = p_h - (eps/2) dH/dtheta(theta', p_h)                        (explicit)
// with dH/dtheta_i = dU_i + 1/2 t_i - 1/2 nu_i(G^{-1} p). It is reversible and volume
// preserving, so a Metropolis step on H makes the chain exact, provided the implicit
// equations are solved: both are fixed-point iterations to a relative tolerance (default
// 1e-10, at most 50 iterations). A step fails in one of two ways, and the transition rejects
// it either way: its fixed-point iteration does not converge (within the iterations, its
// momentum iterates overflow, or its position iterates leave the finite region after a finite
// explicit predictor) -- unsolved, a solver failure, counted here; or its explicit predictor
// or converged position has a potential or metric that is not finite, or its momentum is
// not -- diverged, as a trajectory whose energy blows up. A step may also converge to a far
// root (far_root()), which the transition counts as unsolved if its energy error is huge.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "../base/fields.hpp"
#include "riemann_point.hpp"

namespace vhmc {

struct FixedPointConfig {
  double tol = 1e-10;
  int max_iter = 50;
  static auto fields() {
    return std::make_tuple(field("fixed_point_tol", &FixedPointConfig::tol),
                           field("fixed_point_iter", &FixedPointConfig::max_iter));
  }
};

struct FixedPointCounts {
  long iterations = 0;  // fixed-point iterations of all steps
  long failures = 0;    // unsolved steps: no convergence, or a far root (see far_root())
};

enum class StepStatus { ok, unsolved, diverged };

inline bool fixed_point_close(const Vec& a, const Vec& b, double tol) {
  return (a - b).lpNorm<Eigen::Infinity>() <= tol * std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

// Whether a geometry computes G alone (metric_at) and the rest at the converged point
// (complete), as GlmGeometry does; otherwise every iterate of the position is a full at().
template <class Geo, class = void>
struct splits_metric : std::false_type {};
template <class Geo>
struct splits_metric<Geo, std::void_t<decltype(std::declval<Geo&>().metric_at(std::declval<const Vec&>(),
                                                                               std::declval<RiemannPoint&>()))>>
    : std::true_type {};

template <class Geo>
class GeneralizedLeapfrog {
 public:
  GeneralizedLeapfrog(Geo& geo, const FixedPointConfig& c)
      : geo_(geo), c_(c), nu_(geo.dim()), grad_(geo.dim()), v_(geo.dim()), p0_(geo.dim()), p_new_(geo.dim()),
        half_(geo.dim()), theta_(geo.dim()), theta_new_(geo.dim()) {}

  // One step of size eps from (cur, p) to (next, p), and whether it failed and how.
  StepStatus step(const RiemannPoint& cur, Vec& p, double eps, RiemannPoint& next) {
    if (!momentum_half(cur, p, eps)) return unsolved();
    const StepStatus s = position(cur, p, eps, next);
    if (s != StepStatus::ok) return s;
    dH(next, p, grad_);
    p -= 0.5 * eps * grad_;
    return p.allFinite() ? StepStatus::ok : StepStatus::diverged;
  }

  const FixedPointCounts& counts() const { return counts_; }
  // Whether the last step's position converged to a far root: more than kFarRoot times as
  // far from theta as its explicit predictor eps G(theta)^{-1} p_h. The equation can have a
  // second solution far out where G^{-1} is large (on a GLM, where the likelihood has
  // vanished and the prior's precision is left), which the iteration finds when eps |p| is
  // large: the step is then not the integrator's, and its energy error is the solver's
  // (measured on a logistic regression, 8,000 transitions: accepted steps went at most 1.8
  // times as far as their predictor; each of the 51 energy errors above 1000 followed a step
  // at least 170 times as far).
  bool far_root() const { return far_root_; }
  // Counts as unsolved a step that converged to a far root (the transition decides).
  void count_unsolved() { ++counts_.failures; }
  static constexpr double kFarRoot = 10.0;

 private:
  void dH(const RiemannPoint& pt, const Vec& p, Vec& out) {
    pt.solve(p, v_);
    geo_.nu(pt, v_, nu_);
    out = pt.grad + 0.5 * (pt.trace - nu_);
  }

  // p_h = p - (eps/2) dH(theta, p_h), from p_h = p; false when unsolved. The geometry at
  // theta is given and finite: iterates that overflow mean the iteration itself diverged
  // (dH is quadratic in p_h), not the dynamics.
  bool momentum_half(const RiemannPoint& cur, Vec& p, double eps) {
    p0_ = p;
    for (int k = 0; k < c_.max_iter; ++k) {
      ++counts_.iterations;
      dH(cur, p, grad_);
      p_new_ = p0_ - 0.5 * eps * grad_;
      if (!p_new_.allFinite()) return false;
      const bool done = fixed_point_close(p_new_, p, c_.tol);
      p = p_new_;
      if (done) return true;
    }
    return false;
  }

  // theta' = theta + (eps/2)(G(theta)^{-1} + G(theta')^{-1}) p_h, from theta' = theta +
  // eps G(theta)^{-1} p_h; next holds the geometry of the last iterate, which satisfies the
  // equation to the tolerance. A geometry that is not finite at the explicit predictor (the
  // first iterate) is a divergence; at a later iterate, the iteration wandered off (unsolved),
  // and at a converged far root (far_root()) so did the solve.
  StepStatus position(const RiemannPoint& cur, const Vec& p, double eps, RiemannPoint& next) {
    cur.solve(p, half_);
    half_ *= 0.5 * eps;
    theta_ = cur.theta + 2.0 * half_;
    far_root_ = false;
    for (int k = 0; k < c_.max_iter; ++k) {
      ++counts_.iterations;
      if (!iterate_at(theta_, next)) return k == 0 ? StepStatus::diverged : unsolved();
      next.solve(p, v_);
      theta_new_ = cur.theta + half_ + 0.5 * eps * v_;
      if (fixed_point_close(theta_new_, theta_, c_.tol)) {
        far_root_ = (theta_new_ - cur.theta).norm() > kFarRoot * 2.0 * half_.norm();
        return completed(next);
      }
      theta_.swap(theta_new_);
    }
    return unsolved();
  }

  // An iterate needs only G(theta') for the solve; the converged point needs everything.
  bool iterate_at(const Vec& theta, RiemannPoint& pt) {
    if constexpr (splits_metric<Geo>::value) return geo_.metric_at(theta, pt);
    return geo_.at(theta, pt);
  }
  StepStatus completed(RiemannPoint& pt) {
    if constexpr (splits_metric<Geo>::value) {
      if (!geo_.complete(pt)) return far_root_ ? unsolved() : StepStatus::diverged;
    }
    return StepStatus::ok;
  }

  StepStatus unsolved() {
    ++counts_.failures;
    return StepStatus::unsolved;
  }

  Geo& geo_;
  FixedPointConfig c_;
  Vec nu_, grad_, v_, p0_, p_new_, half_, theta_, theta_new_;  // per-step storage, allocated once
  FixedPointCounts counts_;
  bool far_root_ = false;
};

}  // namespace vhmc
