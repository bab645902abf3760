#pragma once
// A point of phase space with its cached potential, gradient and sharp momentum
// (v = W p, the velocity), so that every leapfrog step costs one gradient (Neal 2011, eqs. 5.18-5.20).
#include "../base/types.hpp"

namespace vhmc {

struct PhasePoint {
  Vec theta;  // position (unconstrained scale)
  Vec p;      // momentum
  Vec v;      // sharp momentum W p
  Vec g;      // grad U(theta)
  double U = kInf;

  PhasePoint() = default;
  explicit PhasePoint(int d) : theta(Vec::Zero(d)), p(Vec::Zero(d)), v(Vec::Zero(d)), g(Vec::Zero(d)) {}

  double K() const { return 0.5 * p.dot(v); }
  // NaN energies are mapped to +inf: a state we cannot evaluate has zero weight.
  double H() const {
    const double h = U + K();
    return std::isnan(h) ? kInf : h;
  }
};

}  // namespace vhmc
