#pragma once
// NUTS and static HMC as samplers: the kernel on the true potential, started at the
// initial values, and one warmup phase: the draw/gradient metric adaptation (the default,
// adapt/fisher_adaptation.hpp) or Stan's windowed adaptation (adapt/windowed_adaptation.hpp).
#include <memory>
#include <optional>
#include <type_traits>

#include "../adapt/fisher_adaptation.hpp"
#include "../adapt/windowed_adaptation.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../integrator/hamiltonian.hpp"
#include "../metric/metrics.hpp"
#include "nuts.hpp"
#include "static_hmc.hpp"

namespace vhmc {

// The warmup and step size of any kernel of the HMC family (also NUTS's exploration in
// surrogate_hmc()). step_size: the initial step size (1 without one); adapt.step_size says
// whether warmup adapts it (the R glue fixes a step size the user gave). fisher: the
// draw/gradient adaptation instead of Stan's windows; max_rank: the low_rank metric's most
// eigen-directions.
struct HmcWarmupConfig {
  std::optional<double> step_size;
  AdaptConfig adapt{};
  bool fisher = true;
  int max_rank = FisherConfig{}.max_rank;
  double start_step_size = 1.0;  // where the adaptation starts without a step_size
  double initial_step_size() const { return step_size.value_or(start_step_size); }
  FisherConfig fisher_config(bool automatic, bool initial_metric) const {
    FisherConfig fc;
    fc.automatic = automatic;
    fc.initial_metric = initial_metric;
    fc.max_rank = max_rank;
    return fc;
  }
  static auto fields() {
    return std::make_tuple(field("step_size", &HmcWarmupConfig::step_size), field("adapt", &HmcWarmupConfig::adapt),
                           field("fisher_adaptation", &HmcWarmupConfig::fisher),
                           field("max_rank", &HmcWarmupConfig::max_rank),
                           field("start_step_size", &HmcWarmupConfig::start_step_size));
  }
};

// The inverse metric as reported: a vector for unit and diagonal metrics, a matrix for dense.
inline void report_inverse_metric(const UnitMetric& m, Report& r) { r.add("inv_metric", m.inv_metric_diag()); }
inline void report_inverse_metric(const DiagMetric& m, Report& r) { r.add("inv_metric", m.w()); }
inline void report_inverse_metric(const DenseMetric& m, Report& r) { r.add("inv_metric", m.W()); }
inline void report_inverse_metric(const LowRankMetric& m, Report& r) {
  r.add("inv_metric", m.inv_metric_diag());
  r.add("metric_rank", m.rank());
}

// The split leapfrog (integrator/split_leapfrog.hpp) for the stiff rows of the potential
// (find_stiff_rows(): a GLM's overload, else none), given the Laplace Hessian at the mode.
template <class H, class P>
void use_stiff_rows(H& ham, P& potential, const SplitConfig& sc, const Mat* laplace_hessian) {
  if (!laplace_hessian || laplace_hessian->size() == 0) return;
  if (auto rows = find_stiff_rows(potential, *laplace_hessian, sc)) ham.set_stiff_rows(std::move(*rows), sc.resolution);
}
// A split leapfrog's row evaluations count as per-observation terms of a chain's gradients.
inline void count_split(const SplitLeapfrog* s, EvalCounts& c) {
  if (s) c.obs_grad += s->row_evaluations();
}
// Its stiff rows and inner steps per step (at the chain's step size) in the adaptation report.
inline void report_split(const SplitLeapfrog* s, double step_size, Report& r) {
  if (!s) return;
  r.add("stiff_rows", static_cast<double>(s->rows().size()));
  r.add("inner_steps", static_cast<double>(s->inner_steps(step_size)));
}

// State and kernel of one chain of an HMC-family sampler.
template <class Kernel>
class HmcChain {
 public:
  HmcChain(Kernel& kernel, const Vec& init, double step_size)
      : kernel_(kernel), z_(kernel.hamiltonian().dim()), init_(init), step_size_(step_size) {}

  int dim() const { return static_cast<int>(init_.size()); }
  void start(Rng&) {
    z_.theta = init_;
    kernel_.step_size() = step_size_;
    if (!kernel_.hamiltonian().init_point(z_))
      throw std::runtime_error("the log density or its gradient is not finite at the initial values");
  }
  TransitionInfo transition(Rng& rng) { return kernel_.transition(z_, rng); }
  const Vec& position() const { return z_.theta; }
  const PhasePoint& state() const { return z_; }
  EvalCounts counts() const {
    EvalCounts c = kernel_.hamiltonian().target().counts();
    count_split(kernel_.hamiltonian().split(), c);
    return c;
  }
  unsigned columns() const { return Kernel::kColumns; }
  void adaptation(Report& r) const {
    r.add("step_size", kernel_.step_size());
    report_inverse_metric(kernel_.hamiltonian().metric(), r);
    report_split(kernel_.hamiltonian().split(), kernel_.step_size(), r);
  }

 private:
  Kernel& kernel_;
  PhasePoint z_;
  Vec init_;
  double step_size_;
};

// The warmup phase of an HMC-family kernel over `iterations`: the draw/gradient adaptation
// (automatic: it may end early), or Stan's windows (which have no low-rank metric: the R
// layer refuses that combination).
template <class Kernel>
std::unique_ptr<WarmupAdaptation> make_hmc_warmup(Kernel& kernel, const PhasePoint& z, int iterations,
                                                  const HmcWarmupConfig& wc, bool automatic, bool initial_metric) {
  if (wc.fisher) {
    FisherConfig fc = wc.fisher_config(automatic, initial_metric);
    return std::make_unique<FisherAdaptation<Kernel>>(kernel, z, iterations, wc.adapt, fc);
  }
  if constexpr (std::is_same<typename Kernel::Metric, LowRankMetric>::value) {
    throw std::invalid_argument("the low_rank metric needs the draw/gradient adaptation");
  } else {
    return std::make_unique<WindowedAdaptation<Kernel>>(kernel, z, iterations, wc.adapt);
  }
}

// One chain of NUTS or static HMC (Kernel = Nuts<Target<P>, M> or StaticHmc<Target<P>, M>,
// KernelConfig its config) on the potential P with an initial metric (initial_metric: it
// came from the posterior's curvature rather than being the identity). With the Laplace
// Hessian at the mode, stiff rows of the potential are integrated by the split leapfrog.
template <template <class, class> class K, class KernelConfig, class P, class M>
ChainOutput run_hmc_family(P& potential, M metric, const KernelConfig& kc, const HmcWarmupConfig& wc,
                           const ChainConfig& cfg, const Vec& init, bool initial_metric, Callbacks& cb,
                           const SplitConfig& sc = {}, const Mat* laplace_hessian = nullptr) {
  using T = Target<P>;
  T target(potential);
  Hamiltonian<T, M> ham(target, std::move(metric));
  use_stiff_rows(ham, potential, sc, laplace_hessian);
  K<T, M> kernel(ham, kc);
  HmcChain<K<T, M>> chain(kernel, init, wc.initial_step_size());
  std::unique_ptr<WarmupAdaptation> warmup =
      make_hmc_warmup(kernel, chain.state(), cfg.warmup, wc, cfg.warmup_auto, initial_metric);
  Schedule schedule;
  schedule.warmup.push_back({warmup.get(), cfg.warmup});
  return run_chain(chain, schedule, cfg, cb);
}

// The samplers (plug-ins of the host's registry): a config named by fields() and a run().
template <template <class, class> class K, class KernelConfig>
struct HmcFamilySampler {
  struct Config {
    MetricKind metric = MetricKind::LowRank;  // R's default (metric = "low_rank")
    KernelConfig kernel{};
    HmcWarmupConfig warmup{};
    SplitConfig split{};
    static auto fields() {
      return std::make_tuple(field("metric", &Config::metric), field("kernel", &Config::kernel),
                             field("warmup", &Config::warmup), field("split", &Config::split));
    }
  };
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    const bool given = x.inv_metric.has_value();
    const Mat* hessian = x.laplace ? &x.laplace->hessian : nullptr;
    return with_metric(c.metric, potential.dim(), x.inv_metric, c.warmup.max_rank, [&](auto m) {
      return run_hmc_family<K>(potential, std::move(m), c.kernel, c.warmup, cfg, init, given, cb, c.split, hessian);
    });
  }
};
using NutsSampler = HmcFamilySampler<Nuts, NutsConfig>;
using StaticHmcSampler = HmcFamilySampler<StaticHmc, StaticHmcConfig>;

}  // namespace vhmc
