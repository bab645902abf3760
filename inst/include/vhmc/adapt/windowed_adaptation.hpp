#pragma once
// Stan's warmup for Euclidean HMC (Hoffman & Gelman 2014, Algorithm 5; Stan Reference
// Manual, "HMC algorithm parameters"), as a warmup phase: dual averaging of the step size on
// every warmup iteration, and windowed estimation of the metric; at each window end the
// metric is replaced, the step-size heuristic is rerun and dual averaging restarts around
// it. The phase observes transitions; it never changes how a transition is made.
#include "../base/rng.hpp"
#include "../integrator/phase_point.hpp"
#include "adapt_config.hpp"
#include "warmup_adaptation.hpp"
#include "windows.hpp"

namespace vhmc {

// Kernel: a kernel with step_size() and hamiltonian() (NUTS, static HMC); z: the chain's
// state, which the phase reads (and the step-size heuristic starts from).
template <class Kernel>
class WindowedAdaptation : public WarmupAdaptation {
  using M = typename Kernel::Metric;

 public:
  WindowedAdaptation(Kernel& kernel, const PhasePoint& z, int num_warmup, const AdaptConfig& cfg,
                     const char* label = "warmup")
      : kernel_(kernel), z_(z), cfg_(cfg), num_warmup_(num_warmup), da_(cfg.dual),
        windows_(num_warmup, cfg.windows), est_(kernel.hamiltonian().dim()), label_(label) {}

  const char* label() const override { return label_; }

  // Before the first warmup iteration: mu = log(10 eps_user), then Stan's heuristic.
  void start(Rng& rng) override {
    if (!cfg_.step_size || num_warmup_ == 0) return;
    da_.restart(kernel_.step_size());
    kernel_.step_size() = kernel_.hamiltonian().find_initial_step_size(z_, kernel_.step_size(), rng,
                                                                      cfg_.init_accept);
  }

  // After warmup iteration t (0-based) moved the state to z.
  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    last_t_ = t;
    if (cfg_.step_size) kernel_.step_size() = da_.learn(info.accept_stat);
    if (cfg_.metric && M::adapts) {
      if (windows_.in_window(t)) est_.add(z_.theta);
      if (windows_.end_of_window(t)) {
        kernel_.hamiltonian().metric().set(est_);
        est_.reset();
        if (cfg_.step_size) {
          kernel_.step_size() = kernel_.hamiltonian().find_initial_step_size(
              z_, kernel_.step_size(), rng, cfg_.init_accept);
          da_.restart(kernel_.step_size());
        }
      }
    }
    if (cfg_.step_size && t == num_warmup_ - 1) kernel_.step_size() = da_.final_step_size();
  }

  // Stan's windows as planned for max_warmup iterations, from the iteration reached (they
  // have no automatic end).
  void extend(int max_warmup, bool) override {
    num_warmup_ = max_warmup;
    windows_ = WindowSchedule::after(max_warmup, last_t_, cfg_.windows);
  }

 private:
  Kernel& kernel_;
  const PhasePoint& z_;
  AdaptConfig cfg_;
  int num_warmup_, last_t_ = -1;
  DualAveraging da_;
  WindowSchedule windows_;
  typename M::Estimator est_;
  const char* label_;
};

}  // namespace vhmc
