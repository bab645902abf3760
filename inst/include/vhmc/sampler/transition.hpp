#pragma once
// What every transition reports: the Stan-style sampler statistics (accept_stat__,
// stepsize__, n_leapfrog__, treedepth__, divergent__, energy__), and which of them a kind of
// kernel fills (the others are left out of the fit).

namespace vhmc {

struct TransitionInfo {
  double accept_stat = 0.0;
  double step_size = 0.0;
  int n_leapfrog = 0;     // leapfrog steps, or updates for stochastic-gradient kernels
  int treedepth = -1;     // -1: the kernel builds no tree
  bool divergent = false;
  bool unsolved = false;  // an implicit step's fixed-point iteration did not converge (rejected;
                          // a solver failure, not a divergence); not a column of the fit
  double energy = 0.0;
};

// The diagnostic columns a kernel's transitions fill (bit flags).
enum Column : unsigned {
  kAcceptStat = 1u, kStepSize = 2u, kLeapfrog = 4u, kDivergent = 8u, kEnergy = 16u, kTreedepth = 32u
};
constexpr unsigned kHmcColumns = kAcceptStat | kStepSize | kLeapfrog | kDivergent | kEnergy;

}  // namespace vhmc
