#pragma once
// Euclidean Hamiltonian system H = U(theta) + 1/2 p' W p with the leapfrog integrator
// (Neal 2011; Murphy 2023, eqs. 12.76-12.78) and Stan's initial step-size heuristic
// (Hoffman & Gelman 2014, Algorithm 4, with Stan's threshold 0.8 and fresh momenta).
// With stiff rows (set_stiff_rows()) every step is the split leapfrog of split_leapfrog.hpp.
#include <memory>
#include <stdexcept>

#include "../base/rng.hpp"
#include "../model/target.hpp"
#include "phase_point.hpp"
#include "split_leapfrog.hpp"

namespace vhmc {

template <class T, class M>
class Hamiltonian {
 public:
  Hamiltonian(T& target, M metric) : target_(target), metric_(std::move(metric)) {}

  T& target() { return target_; }
  M& metric() { return metric_; }
  const M& metric() const { return metric_; }
  int dim() const { return target_.dim(); }

  // Evaluate U and grad U at z.theta; false if not finite.
  bool init_point(PhasePoint& z) {
    z.U = target_.U_grad(z.theta, z.g);
    return std::isfinite(z.U);
  }

  // Integrate the stiff rows' part of U by smaller inner steps from now on.
  void set_stiff_rows(StiffRows rows, double resolution) {
    split_ = std::make_unique<SplitLeapfrog>(std::move(rows), resolution);
    split_->refresh(metric_);
  }
  const SplitLeapfrog* split() const { return split_.get(); }
  // The gradient the metric adaptation learns from: grad U, or without a split's stiff rows
  // (the inner steps, not the metric, resolve their walls).
  const Vec& adaptation_gradient(const PhasePoint& z) {
    if (!split_ || !split_->bulk_gradient(z, g_bulk_)) return z.g;
    return g_bulk_;
  }

  // A fresh momentum, at the start of each transition (when the split's view of the metric,
  // which warmup may have changed, is refreshed too).
  void sample_momentum(PhasePoint& z, Rng& rng) {
    if (split_) split_->refresh(metric_);
    metric_.sample_momentum(rng, z.p);
    metric_.sharp(z.p, z.v);
  }

  // One leapfrog step of signed size h. Returns false (and leaves U = +inf) if the new
  // position has a non-finite potential or gradient; the caller treats that as divergent.
  bool leapfrog(PhasePoint& z, double h) {
    if (split_) return split_->step(z, h, target_, metric_);
    z.p.noalias() -= (0.5 * h) * z.g;
    metric_.sharp(z.p, z.v);
    z.theta.noalias() += h * z.v;
    z.U = target_.U_grad(z.theta, z.g);
    if (!std::isfinite(z.U)) return false;
    z.p.noalias() -= (0.5 * h) * z.g;
    metric_.sharp(z.p, z.v);
    return true;
  }

  // Stan's base_hmc::init_stepsize: double or halve eps until the one-step acceptance
  // exp(H0 - H1) crosses init_accept; a fresh momentum for every trial from the same theta.
  // The position z is left unchanged. Throws for improper or discontinuous targets.
  double find_initial_step_size(const PhasePoint& z, double eps, Rng& rng,
                                double init_accept = 0.8) {
    if (eps == 0 || eps > 1e7 || std::isnan(eps)) return eps;
    const double log_thr = std::log(init_accept);
    PhasePoint& w = scratch(z);
    auto trial = [&]() {
      w.theta = z.theta;
      w.g = z.g;
      w.U = z.U;
      sample_momentum(w, rng);
      const double H0 = w.H();
      leapfrog(w, eps);
      const double h = w.H();
      return H0 - h;  // log acceptance; -inf when the step failed
    };
    const int direction = trial() > log_thr ? 1 : -1;
    while (true) {
      const double dH = trial();
      if (direction == 1 && !(dH > log_thr)) break;
      if (direction == -1 && !(dH < log_thr)) break;
      eps = direction == 1 ? 2.0 * eps : 0.5 * eps;
      if (eps > 1e7)
        throw std::runtime_error(
            "the step size grew beyond 1e7 while searching for an initial value: the posterior "
            "is improper (check the log density and its priors)");
      if (eps == 0)
        throw std::runtime_error(
            "no acceptably small step size could be found: the log density may be "
            "discontinuous or its gradient wrong");
    }
    return eps;
  }

 private:
  PhasePoint& scratch(const PhasePoint& like) {
    if (scratch_.theta.size() != like.theta.size()) scratch_ = PhasePoint(like.theta.size());
    return scratch_;
  }

  T& target_;
  M metric_;
  PhasePoint scratch_;
  std::unique_ptr<SplitLeapfrog> split_;
  Vec g_bulk_;
};

}  // namespace vhmc
