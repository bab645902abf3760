#pragma once
// Static HMC (Neal 2011; Zhang, Shahbaba & Zhao 2018, Algorithm 1; Murphy 2023, Algorithm 14): L leapfrog steps, L jittered
// uniformly in 1..L each iteration, Metropolis acceptance on the true Hamiltonian. Without
// steps the trajectory length is chosen from the step size so that the mean integration
// time is pi/2 (a quarter period of a unit-scale Gaussian in the adapted metric).
#include <algorithm>
#include <optional>

#include "../base/fields.hpp"
#include "../integrator/hamiltonian.hpp"
#include "transition.hpp"

namespace vhmc {

struct StaticHmcConfig {
  std::optional<int> steps;  // nullopt: from the step size (see above)
  bool jitter = true;
  double max_delta_H = 1000.0;
  int max_steps = 1024;
  static auto fields() {
    return std::make_tuple(field("steps", &StaticHmcConfig::steps), field("jitter", &StaticHmcConfig::jitter));
  }
};

template <class T, class M>
class StaticHmc {
 public:
  using Metric = M;
  static constexpr unsigned kColumns = kHmcColumns;
  StaticHmc(Hamiltonian<T, M>& ham, const StaticHmcConfig& cfg)
      : ham_(ham), cfg_(cfg), prop_(ham.dim()) {}

  double& step_size() { return eps_; }
  Hamiltonian<T, M>& hamiltonian() { return ham_; }

  int steps_for(double eps) const {
    if (cfg_.steps) return *cfg_.steps;
    const double L = std::ceil(kPi / eps);
    return static_cast<int>(std::clamp(L, 1.0, static_cast<double>(cfg_.max_steps)));
  }

  TransitionInfo transition(PhasePoint& z, Rng& rng) {
    TransitionInfo info;
    info.step_size = eps_;
    ham_.sample_momentum(z, rng);
    const double H0 = z.H();
    const int L = steps_for(eps_);
    const int Lt = cfg_.jitter ? 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(L))) : L;
    prop_ = z;
    bool ok = true;
    int taken = 0;
    while (taken < Lt && ok) {
      ok = ham_.leapfrog(prop_, eps_);
      ++taken;
    }
    double dH = ok ? prop_.H() - H0 : kInf;
    if (std::isnan(dH)) dH = kInf;
    // The statistics record the drawn L_t even when a non-finite step cut the trajectory short;
    // the gradient counter still reports only the steps actually taken.
    info.n_leapfrog = Lt;
    info.accept_stat = dH <= 0 ? 1.0 : std::exp(-dH);
    info.divergent = dH > cfg_.max_delta_H;
    if (std::log(rng.uniform()) < -dH) {
      z = prop_;
      info.energy = z.H();
    } else {
      info.energy = H0;
    }
    return info;
  }

 private:
  Hamiltonian<T, M>& ham_;
  StaticHmcConfig cfg_;
  double eps_ = 1.0;
  PhasePoint prop_;
};

}  // namespace vhmc
