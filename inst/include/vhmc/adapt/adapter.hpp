#pragma once
// Stan's warmup for Euclidean HMC (SPEC A4): dual averaging of the step size on every warmup
// iteration, and windowed estimation of the metric; at each window end the metric is
// replaced, the step-size heuristic is rerun and dual averaging restarts around it. The
// adapter observes transitions; it never changes how a transition is made.
#include "../base/rng.hpp"
#include "../integrator/phase_point.hpp"
#include "dual_averaging.hpp"
#include "windows.hpp"

namespace vhmc {

struct AdaptConfig {
  bool step_size = true;
  bool metric = true;
  double init_accept = 0.8;
  DualAveragingConfig dual{};
  WindowConfig windows{};
};

template <class Sampler, class M>
class Adapter {
 public:
  Adapter(int num_warmup, int d, const AdaptConfig& cfg)
      : cfg_(cfg), num_warmup_(num_warmup), da_(cfg.dual), windows_(num_warmup, cfg.windows),
        est_(d) {}

  // Before the first warmup iteration: mu = log(10 eps_user), then Stan's heuristic.
  void start(Sampler& s, const PhasePoint& z, Rng& rng) {
    if (!cfg_.step_size || num_warmup_ == 0) return;
    da_.restart(s.step_size());
    s.step_size() = s.hamiltonian().find_initial_step_size(z, s.step_size(), rng, cfg_.init_accept);
  }

  // After warmup iteration i (0-based) produced state z with statistics info.
  void learn(int i, double accept_stat, const PhasePoint& z, Sampler& s, Rng& rng) {
    if (cfg_.step_size) s.step_size() = da_.learn(accept_stat);
    if (cfg_.metric && M::adapts) {
      if (windows_.in_window(i)) est_.add(z.theta);
      if (windows_.end_of_window(i)) {
        s.hamiltonian().metric().set(est_);
        est_.reset();
        if (cfg_.step_size) {
          s.step_size() =
              s.hamiltonian().find_initial_step_size(z, s.step_size(), rng, cfg_.init_accept);
          da_.restart(s.step_size());
        }
      }
    }
    if (cfg_.step_size && i == num_warmup_ - 1) s.step_size() = da_.final_step_size();
  }

 private:
  AdaptConfig cfg_;
  int num_warmup_;
  DualAveraging da_;
  WindowSchedule windows_;
  typename M::Estimator est_;
};

}  // namespace vhmc
