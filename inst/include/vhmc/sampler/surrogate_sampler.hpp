#pragma once
// Exact surrogate-accelerated HMC (Zhang, Shahbaba & Zhao 2017) as one sampler template over
// the dynamics that a trained random-basis network drives:
//   SurrogateSampler<SurrogateHmcDynamics>    RNS-HMC (Algorithms 1-2) and, adaptive, ARNS-HMC
//                                             (Algorithm 3): the leapfrog on the surrogate's
//                                             gradient (surrogate_hmc_dynamics.hpp);
//   SurrogateSampler<SurrogateRmhmcDynamics>  RNS-RMHMC (eqs. 7-9): the generalized leapfrog
//                                             on it, with a metric from its Hessian
//                                             (surrogate_rmhmc.hpp).
// Both accept with the true potential, so the draws are exact. A chain of either
//   1. explores with NUTS on the true potential, recording its gradients, and trains the
//      surrogate on them (surrogate_exploration.hpp); the chain owns what it trains
//      (surrogate_chain.hpp);
//   2. hands over to the dynamics, whose own phases (D::Phases) tune them over the rest of
//      the warmup and watch sampling. Step size and trajectory are frozen for sampling and
//      never depend on the state, as exactness requires.
// Each dynamics has its own config (D::Config) beside the shared one (SurrogateConfig) and
// is a class of its own in the host's registry (surrogate_hmc_sampler.hpp).
#include <algorithm>
#include <utility>

#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../metric/metrics.hpp"
#include "hmc_family.hpp"
#include "surrogate_chain.hpp"
#include "surrogate_exploration.hpp"

namespace vhmc {

// What the surrogate was trained as (surrogate_info() in R), after either dynamics' chain.
inline void report_training_kind(Report& r, const SurrogateConfig& sc) {
  r.add("activation", activation_name(sc.train.activation));
  r.add("train_on", sc.train.train_on_gradient ? "gradient" : "value");
}

// One chain with dynamics D: the exploration, then D's phases. x: the fit's extras (the
// chain's Laplace metric and the mode's Hessian, when it started from the mode); split: the
// exploring NUTS's split leapfrog.
template <class D, class P, class M>
ChainOutput run_surrogate(P& potential, M metric, const SurrogateConfig& sc, const typename D::Config& dc,
                          const HmcWarmupConfig& wc, const ChainConfig& cfg, const Vec& init, const FitExtras& x,
                          Callbacks& cb, const SplitConfig& split = {}) {
  using Chain = SurrogateChain<P, M, D>;
  Chain chain(potential, std::move(metric), sc, dc, wc, init);
  // NUTS on the true potential (the exploration, and after a hand-over the sampling) takes
  // the split leapfrog for stiff rows as nuts() does; its gradients, the training points, are
  // the full potential's.
  use_stiff_rows(chain.explore_hamiltonian(), potential, split, x.laplace ? &x.laplace->hessian : nullptr);
  // The likelihood rows the surrogate may keep exact: the stiffest, by the same measure.
  if (D::kExactRows && split.enabled && x.laplace && x.laplace->hessian.rows() == potential.dim()) {
    ExactRowSource source;
    source.n_rows = likelihood_rows(potential);
    source.find = [&potential, H = &x.laplace->hessian](double threshold, int max_rows) {
      return find_stiff_rows(potential, *H, SplitConfig{true, threshold, max_rows, 1.0});
    };
    chain.offer_exact_rows(std::move(source));
  }
  const int explore = std::min(sc.explore, cfg.warmup);
  SurrogateExploration<Chain> exploration(chain, sc, wc, explore, x);
  typename D::template Phases<Chain> after(chain, exploration, sc, dc, wc, cfg);
  Schedule schedule;
  schedule.warmup = {{&exploration, explore}};
  after.schedule(schedule, cfg);
  ChainOutput out = run_chain(chain, schedule, cfg, cb);
  report_training_kind(out.report, sc);
  return out;
}

// The sampler (a plug-in of the host's registry): its config names the exploration's
// metric, the shared settings, the dynamics' own and the exploration's warmup.
template <class D>
struct SurrogateSampler {
  struct Config {
    MetricKind metric = MetricKind::LowRank;  // R's default (metric = "low_rank")
    SurrogateConfig surrogate{};
    typename D::Config dynamics{};
    HmcWarmupConfig warmup{};
    SplitConfig split{};
    static auto fields() {
      return std::make_tuple(field("metric", &Config::metric), field("surrogate", &Config::surrogate),
                             field("dynamics", &Config::dynamics), field("warmup", &Config::warmup),
                             field("split", &Config::split));
    }
  };
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    return with_metric(c.metric, potential.dim(), x.inv_metric, c.warmup.max_rank, [&](auto m) {
      return run_surrogate<D>(potential, std::move(m), c.surrogate, c.dynamics, c.warmup, cfg, init, x, cb, c.split);
    });
  }
};

}  // namespace vhmc
