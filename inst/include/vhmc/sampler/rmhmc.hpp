#pragma once
// Riemannian-manifold HMC (Girolami & Calderhead 2011): momentum p ~ N(0, G(theta)),
// `steps` generalized leapfrog steps (by default a number drawn uniformly in 1..steps each
// iteration: with the metric matched to the posterior's curvature, a fixed length near a
// multiple of the period returns the chain close to where it started) (riemann/generalized_leapfrog.hpp), a Metropolis step
// on H(theta, p) = U + 1/2 log det G + 1/2 p' G^{-1} p. The metric comes from a geometry
// (riemann/riemann_point.hpp), for example a GLM's Fisher information
// (riemann/glm_geometry.hpp). A step whose implicit equations go unsolved ends the trajectory
// as a rejection counted as a solver failure (TransitionInfo::unsolved); a step reaching a
// potential or metric that is not finite, or an energy error above max_delta_H, ends it as a
// divergence, also rejected -- unless a step of the trajectory converged to a far root of its
// implicit equation, which makes the energy error the solver's (a solver failure too).
// Warmup tunes only the step size, by dual averaging (Hoffman & Gelman 2014, Algorithm 5)
// toward target_accept under a cap that keeps solver failures rare
// (adapt/implicit_step_size.hpp, adapt/step_size_tuning.hpp): the metric needs no adaptation.
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "../adapt/step_size_tuning.hpp"
#include "../base/fields.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../riemann/generalized_leapfrog.hpp"
#include "transition.hpp"

namespace vhmc {

struct RmhmcConfig {
  int steps = 6;
  bool jitter = true;  // draw the number of steps uniformly in 1..steps each iteration
  std::optional<double> step_size;  // nullopt: tuned during warmup, from start_step_size
  double start_step_size = 0.5;
  double target_accept = 0.8;
  double max_delta_H = 1000.0;
  FixedPointConfig fixed_point{};
  static auto fields() {
    return std::make_tuple(field("steps", &RmhmcConfig::steps), field("jitter", &RmhmcConfig::jitter),
                           field("step_size", &RmhmcConfig::step_size),
                           field("target_accept", &RmhmcConfig::target_accept),
                           field("start_step_size", &RmhmcConfig::start_step_size),
                           field("fixed_point", &RmhmcConfig::fixed_point));
  }
};

template <class Geo>
class Rmhmc {
 public:
  Rmhmc(Geo& geo, const RmhmcConfig& c)
      : c_(c), geo_(geo), leapfrog_(geo, c.fixed_point), prop_(geo.dim()), buf_(geo.dim()), z_(geo.dim()), p_(geo.dim()) {}

  TransitionInfo transition(RiemannPoint& cur, Rng& rng) {
    for (Eigen::Index i = 0; i < z_.size(); ++i) z_[i] = rng.normal();
    cur.momentum(z_, p_);
    const double H0 = cur.hamiltonian(p_);
    TransitionInfo info;
    info.step_size = eps_;
    const int L = c_.jitter ? 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(c_.steps))) : c_.steps;
    RiemannPoint* at = &cur;
    bool far = false;  // a step converged to a far root (see the leapfrog's far_root())
    for (int l = 0; l < L; ++l) {
      RiemannPoint& next = (l % 2 == 0) ? prop_ : buf_;
      ++info.n_leapfrog;
      const StepStatus status = leapfrog_.step(*at, p_, eps_, next);
      if (status == StepStatus::unsolved) return unsolved(info, H0);
      if (status == StepStatus::diverged) return diverged(info, H0);
      far = far || leapfrog_.far_root();
      at = &next;
    }
    const bool settled = geo_.settle(*at);  // the true U, for a surrogate's dynamics
    const double H1 = settled ? at->hamiltonian(p_) : kInf;
    const double dH = std::isfinite(H1) ? H1 - H0 : kInf;
    if (dH > c_.max_delta_H) {
      if (!far) return diverged(info, H0);
      leapfrog_.count_unsolved();
      return unsolved(info, H0);
    }
    info.accept_stat = dH <= 0 ? 1.0 : std::exp(-dH);
    info.energy = H1;
    if (std::log(rng.uniform()) < -dH) {
      cur = *at;
    } else {
      info.energy = H0;
    }
    return info;
  }

  double& step_size() { return eps_; }
  const FixedPointCounts& fixed_point() const { return leapfrog_.counts(); }

 private:
  // A rejection that ended the trajectory: a divergence, or a step left unsolved.
  static TransitionInfo rejected(TransitionInfo& info, double H0) {
    info.accept_stat = 0.0;
    info.energy = H0;
    return info;
  }
  static TransitionInfo diverged(TransitionInfo& info, double H0) {
    info.divergent = true;
    return rejected(info, H0);
  }
  static TransitionInfo unsolved(TransitionInfo& info, double H0) {
    info.unsolved = true;
    return rejected(info, H0);
  }

  RmhmcConfig c_;
  Geo& geo_;
  GeneralizedLeapfrog<Geo> leapfrog_;
  RiemannPoint prop_, buf_;
  Vec z_, p_;
  double eps_ = 0.5;
};

// What a chain of the generalized leapfrog reports (fit$rmhmc, fit$surrogate); the failures
// are the unsolved steps (= transitions) of warmup and sampling.
inline void report_rmhmc(Report& r, long metric_evaluations, const FixedPointCounts& fp) {
  r.add("metric_evaluations", static_cast<double>(metric_evaluations));
  r.add("fixed_point_iterations", static_cast<double>(fp.iterations));
  r.add("fixed_point_failures", static_cast<double>(fp.failures));
}

template <class Geo>
class RmhmcChain {
 public:
  RmhmcChain(Geo& geo, const RmhmcConfig& c, const Vec& init) : geo_(geo), kernel_(geo, c), z_(geo.dim()), init_(init) {
    kernel_.step_size() = c.step_size.value_or(c.start_step_size);
  }
  int dim() const { return geo_.dim(); }
  void start(Rng&) {
    if (!geo_.at(init_, z_))
      throw std::runtime_error("the log density, its gradient or the metric is not finite (or the metric not "
                               "positive definite) at the initial values");
  }
  TransitionInfo transition(Rng& rng) { return kernel_.transition(z_, rng); }
  const Vec& position() const { return z_.theta; }
  EvalCounts counts() const { return geo_.counts(); }
  unsigned columns() const { return kHmcColumns; }
  // The step size, and as the "inverse metric" G^{-1} at the chain's last state.
  void adaptation(Report& r) const {
    r.add("step_size", const_cast<Rmhmc<Geo>&>(kernel_).step_size());
    r.add("inv_metric", z_.inverse_metric());
  }
  void report(Report& r) const { report_rmhmc(r, geo_.metric_evaluations(), kernel_.fixed_point()); }
  Rmhmc<Geo>& kernel() { return kernel_; }

 private:
  Geo& geo_;
  Rmhmc<Geo> kernel_;
  RiemannPoint z_;
  Vec init_;
};

// Sampling, watched to count its solver failures and to report the chain's fixed-point counts.
template <class Chain>
class RmhmcSampling : public SamplingPhase {
 public:
  explicit RmhmcSampling(const Chain& chain) : chain_(chain) {}
  void observe(int, const TransitionInfo& info, Rng&) override { unsolved_ += info.unsolved ? 1 : 0; }
  void report(Report& r) const override {
    chain_.report(r);
    r.add("fixed_point_failures_sampling", static_cast<double>(unsolved_));
  }

 private:
  const Chain& chain_;
  long unsolved_ = 0;
};

// One RMHMC chain on a geometry.
template <class Geo>
ChainOutput run_rmhmc(Geo& geo, const RmhmcConfig& c, const ChainConfig& cfg, const Vec& init, Callbacks& cb) {
  RmhmcChain<Geo> chain(geo, c, init);
  StepSizeWarmup<Rmhmc<Geo>> tuning(chain.kernel(), c.target_accept, cfg.warmup);
  Phase fixed;  // a given step size: warmup only moves the chain
  Schedule schedule;
  schedule.warmup = {{c.step_size ? &fixed : static_cast<Phase*>(&tuning), cfg.warmup}};
  RmhmcSampling<RmhmcChain<Geo>> sampling(chain);
  schedule.sampling = &sampling;
  return run_chain(chain, schedule, cfg, cb);
}

// The sampler (a plug-in of the host's registry) on the geometry of its potential.
struct RmhmcSampler {
  using Config = RmhmcConfig;
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras&, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    using Geo = typename GeometryFor<P>::type;
    if constexpr (std::is_void_v<Geo>) {
      throw std::invalid_argument("rmhmc() has no metric for this model");
    } else {
      Geo geo(potential);
      return run_rmhmc(geo, c, cfg, init, cb);
    }
  }
};

}  // namespace vhmc
