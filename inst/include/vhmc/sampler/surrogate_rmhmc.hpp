#pragma once
// RNS-RMHMC (Zhang, Shahbaba & Zhao 2017, eqs. 7-9): surrogate_hmc(riemann = TRUE). The
// warmup explores with NUTS and trains the network as surrogate HMC does
// (surrogate_sampler.hpp); then the generalized leapfrog of RMHMC (sampler/rmhmc.hpp) runs
// on the surrogate's gradient with a metric from its Hessian (riemann/surrogate_geometry.hpp:
// the quadratic base's dense Hessian plus the bases' diagonal, or the diagonal alone), and the Metropolis step uses the true potential at the
// trajectory's ends, so the draws are exact. The rest of the warmup tunes the step size as
// rmhmc() does (dual averaging toward the surrogate's acceptance target under a cap that keeps
// solver failures rare; a given step_size is kept).
#include <chrono>
#include <memory>

#include "../riemann/surrogate_geometry.hpp"
#include "rmhmc.hpp"
#include "surrogate_sampler.hpp"

namespace vhmc {

// The surrogate chain with the Riemannian kernel in place of surrogate HMC after training.
template <class P, class M>
class SurrogateRiemannChain : public SurrogateChain<P, M> {
  using Base = SurrogateChain<P, M>;

 public:
  using Geo = SurrogateGeometry<P>;
  using Kernel = Rmhmc<Geo>;

  SurrogateRiemannChain(P& potential, M metric, const SurrogateConfig& sc, const HmcWarmupConfig& wc,
                        const ChainConfig& cfg, const Vec& init)
      : Base(potential, std::move(metric), sc, wc, cfg, init), potential_(potential), state_(potential.dim()) {
    if (sc.steps) rc_.steps = *sc.steps;  // else RmhmcConfig's default
    rc_.step_size = sc.riemann_step_size;
    rc_.target_accept = sc.trajectory_accept;
    rc_.max_delta_H = sc.nuts.max_delta_H;
    rc_.fixed_point = sc.fixed_point;
    metric_ = sc.riemann_dense ? SurrogateMetric::dense : SurrogateMetric::diagonal;
  }

  TransitionInfo transition(Rng& rng) { return kernel_ ? kernel_->transition(state_, rng) : Base::transition(rng); }
  const Vec& position() const { return kernel_ ? state_.theta : Base::position(); }
  EvalCounts counts() const {
    EvalCounts c = Base::counts();
    if (geo_) {
      const EvalCounts g = geo_->counts();
      c.potential += g.potential;
      c.surrogate_grad += g.surrogate_grad;
    }
    return c;
  }
  // The step size, and G^{-1} at the chain's last state as the "inverse metric".
  void adaptation(Report& r) const {
    if (!kernel_) return Base::adaptation(r);
    r.add("step_size", const_cast<Kernel&>(*kernel_).step_size());
    r.add("inv_metric", state_.inverse_metric());
  }
  void report(Report& r) const {
    if (kernel_) report_rmhmc(r, geo_->metric_evaluations(), kernel_->fixed_point());
  }

  // The Riemannian surrogate dynamics take over from NUTS at its state (whose U is true).
  Kernel& enter_riemann() {
    geo_ = std::make_unique<Geo>(potential_, this->network(), 1e-3, metric_);
    kernel_ = std::make_unique<Kernel>(*geo_, rc_);
    kernel_->step_size() = rc_.step_size.value_or(rc_.start_step_size);
    if (!geo_->at(this->explore_state().theta, state_))
      throw std::runtime_error("the trained surrogate's gradient or metric is not finite at the chain's position");
    state_.U = this->explore_state().U;
    return *kernel_;
  }
  const RmhmcConfig& rmhmc_config() const { return rc_; }

 private:
  P& potential_;
  RmhmcConfig rc_;
  SurrogateMetric metric_;
  std::unique_ptr<Geo> geo_;
  std::unique_ptr<Kernel> kernel_;
  RiemannPoint state_;
};

// The warmup after the exploration: the step size (ImplicitStepSizeTuning) unless it was given.
// Its length as for surrogate HMC's trajectory tuning: what the warmup leaves, or with an
// automatic warmup at most sc.tune iterations.
template <class Chain>
class RiemannTuning : public Phase {
 public:
  RiemannTuning(Chain& chain, const SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                const ChainConfig& cfg)
      : chain_(chain), explore_(explore), sc_(sc), warmup_(cfg.warmup), auto_(cfg.warmup_auto),
        step_size_(chain.rmhmc_config().target_accept) {}
  const char* label() const override { return "warmup: surrogate"; }
  bool done() const override { return t_done_ >= n_tune_; }
  void start(Rng&) override {
    t0_ = std::chrono::steady_clock::now();
    n_tune_ = warmup_ - explore_.iterations();
    if (auto_) n_tune_ = std::min(n_tune_, sc_.tune);
    kernel_ = &chain_.enter_riemann();
    tune_ = !chain_.rmhmc_config().step_size.has_value();
    if (tune_) step_size_.start(*kernel_, n_tune_);
  }
  void observe(int t, const TransitionInfo& info, Rng&) override {
    t_done_ = t + 1;
    if (tune_) step_size_.observe(t, info);
  }
  void finish(Rng&) override {
    if (tune_) step_size_.finish();
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  // As surrogate HMC's trajectory tuning reports (surrogate_info() in R); the integration
  // time is that of the most steps.
  void report(Report& r) const override {
    r.add("tuning", t_done_);
    if (!kernel_) return;
    const int L = chain_.rmhmc_config().steps;
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
  int warmup_;
  bool auto_;
  int n_tune_ = 0, t_done_ = 0;
  bool tune_ = false;
  double seconds_ = 0.0;
  std::chrono::steady_clock::time_point t0_;
  typename Chain::Kernel* kernel_ = nullptr;
  ImplicitStepSizeTuning<typename Chain::Kernel> step_size_;
};

template <class P, class M>
ChainOutput run_surrogate_rmhmc(P& potential, M metric, const SurrogateConfig& sc, const HmcWarmupConfig& wc,
                                const ChainConfig& cfg, const Vec& init, const FitExtras& x, Callbacks& cb) {
  using Chain = SurrogateRiemannChain<P, M>;
  Chain chain(potential, std::move(metric), sc, wc, cfg, init);
  const int explore = std::min(sc.explore, cfg.warmup);
  SurrogateExploration<Chain> exploration(chain, sc, wc, explore, x, nullptr);
  RiemannTuning<Chain> tuning(chain, exploration, sc, cfg);
  RmhmcSampling<Chain> sampling(chain);
  Schedule schedule;
  schedule.warmup = {{&exploration, explore}, {&tuning, cfg.warmup}};
  schedule.sampling = &sampling;
  ChainOutput out = run_chain(chain, schedule, cfg, cb);
  report_training_kind(out.report, sc);
  return out;
}

}  // namespace vhmc
