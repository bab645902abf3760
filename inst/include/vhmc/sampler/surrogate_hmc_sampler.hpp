#pragma once
// surrogate_hmc() as a plug-in of the host's registry: surrogate HMC
// (surrogate_sampler.hpp), or with riemann = TRUE RNS-RMHMC (surrogate_rmhmc.hpp), after the
// same exploration and training.
#include "surrogate_rmhmc.hpp"
#include "surrogate_sampler.hpp"

namespace vhmc {

struct SurrogateHmcSampler {
  struct Config {
    MetricKind metric = MetricKind::LowRank;  // R's default (metric = "low_rank")
    SurrogateConfig surrogate{};
    HmcWarmupConfig warmup{};
    static auto fields() {
      return std::make_tuple(field("metric", &Config::metric), field("surrogate", &Config::surrogate),
                             field("warmup", &Config::warmup));
    }
  };
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    return with_metric(c.metric, potential.dim(), x.inv_metric, c.warmup.max_rank, [&](auto m) {
      if (c.surrogate.riemann)
        return run_surrogate_rmhmc(potential, std::move(m), c.surrogate, c.warmup, cfg, init, x, cb);
      return run_surrogate_hmc(potential, std::move(m), c.surrogate, c.warmup, cfg, init, x, cb);
    });
  }
};

}  // namespace vhmc
