#pragma once
// Tuning a kernel's step size over a stretch of warmup, for kernels whose implicit steps can
// go unsolved (the generalized leapfrog of rmhmc() and of RNS-RMHMC): dual averaging under
// the failure cap of implicit_step_size.hpp, restarted from the kernel's step size, its cap
// forgotten at the middle of the stretch, and the average step size kept at its end. Shared
// by rmhmc()'s warmup (StepSizeWarmup) and RNS-RMHMC's tuning after training
// (sampler/surrogate_rmhmc.hpp).
#include "../driver/phase.hpp"
#include "implicit_step_size.hpp"

namespace vhmc {

// Kernel: step_size() as a reference to the kernel's step size.
template <class Kernel>
class ImplicitStepSizeTuning {
 public:
  explicit ImplicitStepSizeTuning(double target_accept) : tuner_(target_accept) {}
  void start(Kernel& kernel, int iterations) {
    kernel_ = &kernel;
    half_ = iterations / 2;
    tuner_.restart(kernel.step_size());
  }
  void observe(int t, const TransitionInfo& info) {
    if (t == half_) tuner_.forget();
    kernel_->step_size() = tuner_.learn(info.accept_stat, info.unsolved, info.step_size);
  }
  void finish() {
    if (kernel_ && tuner_.counter() > 0) kernel_->step_size() = tuner_.final_step_size();
  }
  void report(Report& r) const {
    if (tuner_.counter() > 0) r.add("step_size_capped", tuner_.cap() <= tuner_.final_step_size());
  }

 private:
  ImplicitStepSize tuner_;
  int half_ = 0;
  Kernel* kernel_ = nullptr;
};

// Warmup: the step size alone (rmhmc(): the metric needs no adaptation).
template <class Kernel>
class StepSizeWarmup : public Phase {
 public:
  StepSizeWarmup(Kernel& kernel, double target_accept, int iterations)
      : kernel_(kernel), tuning_(target_accept), iterations_(iterations) {}
  void start(Rng&) override { tuning_.start(kernel_, iterations_); }
  void observe(int t, const TransitionInfo& info, Rng&) override { tuning_.observe(t, info); }
  void finish(Rng&) override { tuning_.finish(); }
  void report(Report& r) const override { tuning_.report(r); }

 private:
  Kernel& kernel_;
  ImplicitStepSizeTuning<Kernel> tuning_;
  int iterations_;
};

}  // namespace vhmc
