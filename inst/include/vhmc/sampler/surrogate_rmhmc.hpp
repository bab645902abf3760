#pragma once
// The dynamics of RNS-RMHMC (Zhang, Shahbaba & Zhao 2017, eqs. 7-9), surrogate_hmc(riemann =
// TRUE), for the surrogate sampler template (surrogate_sampler.hpp): after the same
// exploration and training as surrogate HMC, the generalized leapfrog of RMHMC
// (sampler/rmhmc.hpp) runs on the surrogate's gradient with a metric from its Hessian
// (riemann/surrogate_geometry.hpp: the quadratic base's dense Hessian plus the bases'
// diagonal, or the diagonal alone), and the Metropolis step uses the true potential at the
// trajectory's ends, so the draws are exact. The rest of the warmup tunes the step size as
// rmhmc() does (adapt/step_size_tuning.hpp: dual averaging toward the acceptance target under
// a cap that keeps solver failures rare; a given step size is kept). The surrogate stays
// fixed, and the chain never hands back to NUTS.
#include <memory>
#include <optional>
#include <stdexcept>

#include "../adapt/step_size_tuning.hpp"
#include "../base/fields.hpp"
#include "../riemann/surrogate_geometry.hpp"
#include "rmhmc.hpp"
#include "surrogate_exploration.hpp"

namespace vhmc {

template <class P>
class SurrogateRmhmcMotion;
template <class Chain>
class SurrogateRmhmcPhases;

struct SurrogateRmhmcDynamics {
  struct Config {
    int steps = RmhmcConfig{}.steps;  // the most generalized leapfrog steps (drawn in 1..steps)
    std::optional<double> step_size;  // nullopt: tuned (the exploration's is apart)
    bool dense = true;                // the metric: the base's dense Hessian plus a diagonal, or diagonal only
    FixedPointConfig fixed_point{};   // its implicit steps
    static auto fields() {
      return std::make_tuple(field("steps", &Config::steps), field("riemann_step_size", &Config::step_size),
                             field("riemann_dense", &Config::dense), field("fixed_point", &Config::fixed_point));
    }
  };
  static bool online(const Config&) { return false; }
  // Its metric is the quadratic base's (riemann/surrogate_geometry.hpp): no exact rows.
  static constexpr bool kExactRows = false;
  template <class P>
  using Motion = SurrogateRmhmcMotion<P>;
  template <class Chain>
  using Phases = SurrogateRmhmcPhases<Chain>;
};

// The generalized leapfrog on the trained network's geometry, and its state, built when it
// takes over from NUTS.
template <class P>
class SurrogateRmhmcMotion {
 public:
  using Geo = SurrogateGeometry<P>;
  using Kernel = Rmhmc<Geo>;

  SurrogateRmhmcMotion(P& potential, RandomBasisNetwork& net, const SurrogateConfig& sc,
                       const SurrogateRmhmcDynamics::Config& dc)
      : potential_(potential), net_(net), rc_(kernel_config(sc, dc)),
        metric_(dc.dense ? SurrogateMetric::dense : SurrogateMetric::diagonal), state_(potential.dim()) {}

  // Takes over at z (whose U is true).
  Kernel& enter(const PhasePoint& z) {
    geo_ = std::make_unique<Geo>(potential_, net_, 1e-3, metric_);
    kernel_ = std::make_unique<Kernel>(*geo_, rc_);
    kernel_->step_size() = rc_.step_size.value_or(rc_.start_step_size);
    if (!geo_->at(z.theta, state_))
      throw std::runtime_error("the trained surrogate's gradient or metric is not finite at the chain's position");
    state_.U = z.U;
    return *kernel_;
  }
  bool active() const { return kernel_ != nullptr; }
  TransitionInfo transition(Rng& rng) { return kernel_->transition(state_, rng); }
  const Vec& position() const { return state_.theta; }
  EvalCounts counts() const {
    EvalCounts c;
    if (geo_) {
      const EvalCounts g = geo_->counts();
      c.potential = g.potential;
      c.surrogate_grad = g.surrogate_grad;
    }
    return c;
  }
  // The step size, and G^{-1} at the chain's last state as the "inverse metric" (as rmhmc()).
  template <class M>
  void adaptation(Report& r, const M&) const {
    r.add("step_size", kernel_->step_size());
    r.add("inv_metric", state_.inverse_metric());
  }
  void report(Report& r) const {
    if (kernel_) report_rmhmc(r, geo_->metric_evaluations(), kernel_->fixed_point());
  }
  const RmhmcConfig& rmhmc_config() const { return rc_; }

 private:
  // rmhmc()'s kernel config (its defaults where this one has no setting), with the shared
  // acceptance target and the exploration's divergence threshold.
  static RmhmcConfig kernel_config(const SurrogateConfig& sc, const SurrogateRmhmcDynamics::Config& dc) {
    RmhmcConfig rc;
    rc.steps = dc.steps;
    rc.step_size = dc.step_size;
    rc.target_accept = sc.trajectory_accept;
    rc.max_delta_H = sc.nuts.max_delta_H;
    rc.fixed_point = dc.fixed_point;
    return rc;
  }

  P& potential_;
  RandomBasisNetwork& net_;
  RmhmcConfig rc_;
  SurrogateMetric metric_;
  std::unique_ptr<Geo> geo_;
  std::unique_ptr<Kernel> kernel_;
  RiemannPoint state_;
};

// The warmup after the exploration: the step size (ImplicitStepSizeTuning) unless it was given,
// over tuning_iterations() (surrogate_exploration.hpp), as surrogate HMC's trajectory tuning.
template <class Chain>
class RiemannTuning : public Phase {
 public:
  using Kernel = typename Chain::Motion::Kernel;
  RiemannTuning(Chain& chain, const SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                const ChainConfig& cfg)
      : chain_(chain), explore_(explore), sc_(sc), cfg_(cfg), step_size_(chain.motion().rmhmc_config().target_accept) {}
  const char* label() const override { return "warmup: surrogate"; }
  bool done() const override { return t_done_ >= n_tune_; }
  void start(Rng&) override {
    t0_ = seconds();
    n_tune_ = tuning_iterations(sc_, cfg_, explore_.iterations());
    kernel_ = &chain_.enter();
    tune_ = !chain_.motion().rmhmc_config().step_size.has_value();
    if (tune_) step_size_.start(*kernel_, n_tune_);
  }
  void observe(int t, const TransitionInfo& info, Rng&) override {
    t_done_ = t + 1;
    if (tune_) step_size_.observe(t, info);
  }
  void finish(Rng&) override {
    if (tune_) step_size_.finish();
    seconds_ = seconds() - t0_;
  }
  // As surrogate HMC's trajectory tuning reports (surrogate_info() in R); the integration
  // time is that of the most steps.
  void report(Report& r) const override {
    r.add("tuning", t_done_);
    if (!kernel_) return;
    const int L = chain_.motion().rmhmc_config().steps;
    r.add("tuning_seconds", seconds_);
    r.add("seconds_per_gradient", explore_.seconds_per_gradient());
    r.add("steps", L);
    r.add("integration_time", L * kernel_->step_size());
    r.add("max_integration_time", L * kernel_->step_size());
    step_size_.report(r);
  }

 private:
  Chain& chain_;
  const SurrogateExploration<Chain>& explore_;
  const SurrogateConfig& sc_;
  const ChainConfig& cfg_;
  int n_tune_ = 0, t_done_ = 0;
  bool tune_ = false;
  double t0_ = 0.0, seconds_ = 0.0;  // t0_: the chain's clock (seconds())
  Kernel* kernel_ = nullptr;
  ImplicitStepSizeTuning<Kernel> step_size_;
};

// The phases after the exploration: the step-size tuning, and sampling watched for its
// solver failures (rmhmc.hpp's RmhmcSampling, reporting the motion's counts).
template <class Chain>
class SurrogateRmhmcPhases {
 public:
  SurrogateRmhmcPhases(Chain& chain, const SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                       const SurrogateRmhmcDynamics::Config&, const HmcWarmupConfig&, const ChainConfig& cfg)
      : tuning_(chain, explore, sc, cfg), sampling_(chain.motion()) {}
  void schedule(Schedule& s, const ChainConfig& cfg) {
    s.warmup.push_back({&tuning_, cfg.warmup});
    s.sampling = &sampling_;
  }

 private:
  RiemannTuning<Chain> tuning_;
  RmhmcSampling<typename Chain::Motion> sampling_;
};

}  // namespace vhmc
