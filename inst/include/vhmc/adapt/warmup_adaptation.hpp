#pragma once
// The warmup adaptation of an HMC-family kernel (adapt/fisher_adaptation.hpp, Stan's
// adapt/windowed_adaptation.hpp) as a phase that can go on past the end it was planned for.
// Surrogate HMC explores with NUTS and its warmup adaptation; when a chain hands over to
// NUTS (sampler/surrogate_hmc_dynamics.hpp), that same adaptation goes on, with its metric
// estimates, windows and step-size state, as nuts()'s own warmup would have gone on.
#include "../driver/phase.hpp"

namespace vhmc {

class WarmupAdaptation : public Phase {
 public:
  // From the iteration reached, plan as a warmup of max_warmup iterations in all
  // (automatic: it may end early); the next observe() continues the iteration count.
  virtual void extend(int max_warmup, bool automatic) = 0;
};

}  // namespace vhmc
