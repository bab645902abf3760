#pragma once
// What every transition reports (DESIGN: Stan-style sampler columns).

namespace vhmc {

struct TransitionInfo {
  double accept_stat = 0.0;
  double step_size = 0.0;
  int n_leapfrog = 0;
  int treedepth = -1;  // NUTS only
  bool divergent = false;
  double energy = 0.0;
};

}  // namespace vhmc
