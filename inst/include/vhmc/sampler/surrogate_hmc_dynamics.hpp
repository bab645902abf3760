#pragma once
// The dynamics of RNS-HMC and ARNS-HMC (Zhang, Shahbaba & Zhao 2017, Algorithms 1-3) for
// the surrogate sampler template (surrogate_sampler.hpp): after training, the leapfrog runs
// on the surrogate's gradient and the Metropolis step uses the true potential
// (surrogate_hmc.hpp). Before training, whether training can pay at all
// (training_check.hpp). Their phases: trajectory tuning (trajectory_tuning.hpp), which ends
// with the decision whether the surrogate pays off; after a hand-over to NUTS, the rest of
// NUTS's warmup (FallbackWarmup); and while sampling, with `adaptive` (ARNS-HMC), every new
// state's potential updates the output weights by exact ridge recursion, the surrogate being
// refreshed with probability min(1, t^(-1/2)) (diminishing adaptation: the chain stays
// ergodic).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>

#include "../base/fields.hpp"
#include "hmc_family.hpp"
#include "surrogate_exploration.hpp"
#include "surrogate_hmc.hpp"
#include "trajectory_tuning.hpp"
#include "training_check.hpp"

namespace vhmc {

template <class P>
class SurrogateHmcMotion;
template <class Chain>
class SurrogateHmcPhases;

struct SurrogateHmcDynamics {
  struct Config {
    std::optional<int> steps;  // the user's maximal leapfrog steps; nullopt: tuned
    int max_steps = 1024;
    // Continue with NUTS when the surrogate will not pay off (surrogate_payoff.hpp): off in
    // the core (the papers' sampler); R's surrogate_hmc() turns it on for its automatic sampler.
    bool fallback = false;
    double fallback_ratio = 2.0;  // ... when its efficiency relative to NUTS is below this
    // ... also before training, when even the surrogate's predicted efficiency is below it
    // (training_payoff.hpp); false leaves the decision to the end of tuning.
    bool decide_before_training = true;
    bool adaptive = false;        // ARNS-HMC
    static auto fields() {
      return std::make_tuple(field("steps", &Config::steps), field("max_steps", &Config::max_steps),
                             field("fallback", &Config::fallback), field("fallback_ratio", &Config::fallback_ratio),
                             field("decide_before_training", &Config::decide_before_training),
                             field("adaptive", &Config::adaptive));
    }
  };
  static bool online(const Config& c) { return c.adaptive; }
  // Its surrogate may keep likelihood rows exact (surrogate/exact_rows.hpp).
  static constexpr bool kExactRows = true;
  template <class P>
  using Motion = SurrogateHmcMotion<P>;
  template <class Chain>
  using Phases = SurrogateHmcPhases<Chain>;
};

// Surrogate HMC's kernel on the trained network and its state (the phase point carries the
// surrogate's gradient, U_true the true potential), built when it takes over from NUTS.
template <class P>
class SurrogateHmcMotion {
 public:
  using Field = SurrogateField<RandomBasisNetwork>;
  using Kernel = SurrogateHmc<Target<P>, RandomBasisNetwork, DenseMetric>;

  SurrogateHmcMotion(P& potential, RandomBasisNetwork& net, const SurrogateConfig& sc,
                     const SurrogateHmcDynamics::Config&)
      : truth_(potential), field_(net), max_delta_H_(sc.nuts.max_delta_H) {}

  // Takes over at z (whose U is true) with inverse metric A. When the surrogate keeps
  // likelihood rows exact, its walls are as stiff as the true potential's: the exploring
  // NUTS's stiff rows (split: its split leapfrog, or null) then split its steps as well.
  Kernel& enter(const PhasePoint& z, const Mat& A, const SplitLeapfrog* split) {
    ham_ = std::make_unique<Hamiltonian<Field, DenseMetric>>(field_, DenseMetric(A));
    if (split && field_.network().has_exact_rows()) ham_->set_stiff_rows(split->rows(), split->resolution());
    SurrogateHmcConfig hc;
    hc.max_delta_H = max_delta_H_;
    kernel_ = std::make_unique<Kernel>(truth_, *ham_, hc);
    state_.z = PhasePoint(static_cast<int>(z.theta.size()));
    state_.z.theta = z.theta;
    state_.U_true = z.U;
    if (!kernel_->refresh(state_))
      throw std::runtime_error("the trained surrogate is not finite at the chain's position");
    return *kernel_;
  }
  void leave() { kernel_.reset(); }
  bool active() const { return kernel_ != nullptr; }
  TransitionInfo transition(Rng& rng) { return kernel_->transition(state_, rng); }
  const Vec& position() const { return state_.z.theta; }
  EvalCounts counts() const {
    EvalCounts c = truth_.counts();
    c.surrogate_grad = field_.n_grad();
    return c;
  }
  // Its step size, and the exploration's adapted metric (the one R names by coordinates).
  template <class M>
  void adaptation(Report& r, const M& explore_metric) const {
    r.add("step_size", kernel_->step_size());
    report_inverse_metric(explore_metric, r);
  }
  // The surrogate's gradient at the state again, after the surrogate changed (ARNS-HMC).
  bool refresh() { return kernel_->refresh(state_); }
  const SurrogateState& state() const { return state_; }

 private:
  Target<P> truth_;
  Field field_;
  double max_delta_H_;
  std::unique_ptr<Hamiltonian<Field, DenseMetric>> ham_;
  std::unique_ptr<Kernel> kernel_;
  SurrogateState state_;
};

// After a hand-over to NUTS (surrogate_payoff.hpp, training_payoff.hpp) the chain samples
// with NUTS, whose warmup adaptation the exploration began and ended as soon as the training
// set sufficed: on liver's bank subset (d = 43) after 43 iterations, after which NUTS
// sampled at acceptance 0.94 (target 0.8) and took twice the sampling seconds of nuts()
// alone. So that same adaptation goes on (adapt/warmup_adaptation.hpp) with its metric
// estimates, windows and step-size state, as nuts()'s warmup would have gone on: over the
// warmup's iterations the exploration and the tuning left, ending when it converges
// (automatic warmup) or they run out; without a hand-over the phase takes no iterations.
// The chain then warms up for as many NUTS iterations as nuts() alone would, plus the
// tuning's surrogate iterations. A fresh warmup from the exploration's metric did not:
// without its early phase it ended sooner or later than nuts()'s by chance (full a9a,
// d = 118: 295-820 iterations after 30-45 explored, against nuts()'s 385), and with it
// twice as late (liver's adult, d = 95: 390 against nuts()'s 196).
template <class Chain>
class FallbackWarmup : public Phase {
 public:
  FallbackWarmup(Chain& chain, SurrogateExploration<Chain>& explore, const TrajectoryTuning<Chain>& tuning,
                 const ChainConfig& cfg)
      : chain_(chain), explore_(explore), tuning_(tuning), cfg_(cfg) {}

  const char* label() const override { return "warmup: NUTS"; }
  void start(Rng&) override {
    if (!chain_.fell_back()) return;
    explored_ = explore_.iterations();
    budget_ = cfg_.warmup - explored_ - tuning_.iterations();
    if (budget_ <= 0) return;
    adapter_ = &explore_.adaptation();
    adapter_->extend(explored_ + budget_, cfg_.warmup_auto);
  }
  bool done() const override { return !adapter_ || t_done_ >= budget_ || adapter_->done(); }
  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    adapter_->observe(explored_ + t, info, rng);
    t_done_ = t + 1;
  }
  void finish(Rng& rng) override {
    if (adapter_) adapter_->finish(rng);
  }
  void report(Report& r) const override { r.add("fallback_warmup", static_cast<long>(t_done_)); }

 private:
  Chain& chain_;
  SurrogateExploration<Chain>& explore_;
  const TrajectoryTuning<Chain>& tuning_;
  const ChainConfig& cfg_;
  WarmupAdaptation* adapter_ = nullptr;
  int explored_ = 0, budget_ = 0, t_done_ = 0;
};

// ARNS-HMC while sampling: every new state's true potential (known from the Metropolis
// step) updates the output weights by exact recursive ridge regression (the chain's online
// ridge state); the surrogate the trajectories use is replaced with probability
// min(1, t^(-1/2)) at sampling iteration t.
template <class Chain>
class OnlineSurrogate : public Phase {
 public:
  explicit OnlineSurrogate(Chain& chain) : chain_(chain) {}
  const char* label() const override { return "sampling"; }
  void observe(int, const TransitionInfo&, Rng&) override {
    OnlineRidge* online = chain_.online();
    if (!online || chain_.fell_back()) return;
    RandomBasisNetwork& net = chain_.network();
    const SurrogateState& s = chain_.motion().state();
    online->add_value(s.z.theta, s.U_true - net.offset() - net.base_value(s.z.theta));
    const double a = std::min(1.0, 1.0 / std::sqrt(static_cast<double>(++t_)));
    if (chain_.surrogate_rng().uniform() < a) {
      net.weights() = online->weights();
      ++n_refresh_;
      if (!chain_.motion().refresh())
        throw std::runtime_error("the refreshed surrogate is not finite at the chain's position");
    }
  }
  void report(Report& r) const override { r.add("n_refresh", n_refresh_); }

 private:
  Chain& chain_;
  long t_ = 0, n_refresh_ = 0;
};

// The phases after the exploration: trajectory tuning and, after a hand-over, NUTS's warmup
// (both within the warmup), and the sampling phase; and the decision before training,
// which the exploration asks (training_check.hpp).
template <class Chain>
class SurrogateHmcPhases {
 public:
  SurrogateHmcPhases(Chain& chain, SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                     const SurrogateHmcDynamics::Config& dc, const HmcWarmupConfig& wc, const ChainConfig& cfg)
      : tuning_({chain, explore, sc, dc, cfg, wc.adapt.step_size}), rewarm_(chain, explore, tuning_, cfg),
        online_(chain), check_({chain, explore, sc, dc, cfg, wc.adapt.step_size}) {
    explore.ask_before_training(&check_);
  }
  void schedule(Schedule& s, const ChainConfig& cfg) {
    s.warmup.push_back({&tuning_, cfg.warmup});
    s.warmup.push_back({&rewarm_, cfg.warmup});
    s.sampling = &online_;
  }

 private:
  TrajectoryTuning<Chain> tuning_;
  FallbackWarmup<Chain> rewarm_;
  OnlineSurrogate<Chain> online_;
  TrainingCheck<Chain> check_;
};

}  // namespace vhmc
