#pragma once
// RNS-HMC transition (Zhang, Shahbaba & Zhao 2017, Algorithm 1): leapfrog driven by the surrogate's gradient, Metropolis
// acceptance with the TRUE Hamiltonian. Any fixed force field gives a volume-preserving,
// reversible map, so the chain stays exact; the surrogate's quality only affects acceptance.
// One true potential evaluation per transition and no true gradient.
#include <algorithm>
#include <cmath>

#include "../integrator/hamiltonian.hpp"
#include "transition.hpp"

namespace vhmc {

// The surrogate seen as a target by the integrator, with its own evaluation counter.
template <class Net>
class SurrogateField {
 public:
  explicit SurrogateField(Net& net) : net_(net) {}
  int dim() const { return net_.dim(); }
  double U(const Vec& theta) {
    ++n_value_;
    const double z = net_.value(theta);
    return std::isfinite(z) ? z : kInf;
  }
  // Only the gradient is formed: the surrogate's value enters neither the trajectory nor
  // the Metropolis step (which uses the true U), so the integrator is handed 0 as the
  // "potential" of a finite gradient and +inf (a divergence) otherwise.
  double U_grad(const Vec& theta, Vec& g) {
    ++n_grad_;
    net_.grad(theta, g);
    return g.allFinite() ? 0.0 : kInf;
  }
  long n_grad() const { return n_grad_; }
  Net& network() { return net_; }

 private:
  Net& net_;
  long n_grad_ = 0, n_value_ = 0;
};

struct SurrogateHmcConfig {
  int steps = 1;           // maximum leapfrog steps L; each transition uses L_t ~ U{lo..L}
  int min_steps = 1;       // lo (clamped to [1, L])
  bool jitter = true;
  double max_delta_H = 1000.0;
};

// State of a surrogate chain: the phase point carries the surrogate's value and gradient
// (what the integrator needs); U_true is the true potential at the same position.
struct SurrogateState {
  PhasePoint z;
  double U_true = kInf;
};

template <class T, class Net, class M>
class SurrogateHmc {
 public:
  using Field = SurrogateField<Net>;
  SurrogateHmc(T& target, Hamiltonian<Field, M>& ham, const SurrogateHmcConfig& cfg)
      : target_(target), ham_(ham), cfg_(cfg), prop_(ham.dim()) {}

  double& step_size() { return eps_; }
  int& steps() { return cfg_.steps; }
  int& min_steps() { return cfg_.min_steps; }
  Hamiltonian<Field, M>& hamiltonian() { return ham_; }

  // Refresh the surrogate's value and gradient at the current position (after the
  // surrogate changed); the true potential is unchanged.
  bool refresh(SurrogateState& s) { return ham_.init_point(s.z); }

  TransitionInfo transition(SurrogateState& s, Rng& rng) {
    TransitionInfo info;
    info.step_size = eps_;
    ham_.sample_momentum(s.z, rng);
    const double H0 = s.U_true + s.z.K();
    const int L = std::max(1, cfg_.steps);
    const int lo = std::clamp(cfg_.min_steps, 1, L);
    const int Lt = cfg_.jitter ? lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(L - lo + 1))) : L;
    prop_ = s.z;
    bool ok = true;
    for (int i = 0; i < Lt && ok; ++i) ok = ham_.leapfrog(prop_, eps_);
    double U1 = ok ? target_.U(prop_.theta) : kInf;
    double dH = U1 + prop_.K() - H0;
    if (std::isnan(dH)) dH = kInf;
    info.n_leapfrog = Lt;
    info.accept_stat = dH <= 0 ? 1.0 : std::exp(-dH);
    info.divergent = dH > cfg_.max_delta_H;
    if (std::log(rng.uniform()) < -dH) {
      s.z = prop_;
      s.U_true = U1;
    }
    info.energy = s.U_true + s.z.K();
    return info;
  }

 private:
  T& target_;
  Hamiltonian<Field, M>& ham_;
  SurrogateHmcConfig cfg_;
  double eps_ = 1.0;
  PhasePoint prop_;
};

}  // namespace vhmc
