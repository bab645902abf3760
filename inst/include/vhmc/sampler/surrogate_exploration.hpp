#pragma once
// The exploration every surrogate sampler starts with (surrogate_sampler.hpp; Zhang,
// Shahbaba & Zhao 2017, Algorithm 1): NUTS with its warmup adaptation on the true potential,
// every gradient it computes after a burn-in a training point (they are free), and at its
// end the surrogate trained by the chain (surrogate/train_surrogate.hpp), standardised by
// the Laplace covariance when the chain started from the mode (else by the exploration's
// covariance), whose highest visited potential also bounds the points. With explore_auto
// the exploration lasts only as long as the training set needs (done()). What it measured
// of NUTS (squared jumps, seconds, trajectory lengths) serves the dynamics' tuning after it,
// and surrogate HMC's decision, between drawing the bases and fitting them, whether training
// will pay at all (TrainingGate below; training_payoff.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "../adapt/welford.hpp"
#include "../driver/fit_extras.hpp"
#include "hmc_family.hpp"
#include "surrogate_payoff.hpp"
#include "training_payoff.hpp"
#include "../surrogate/train_surrogate.hpp"

namespace vhmc {

// What every surrogate sampler shares: the exploration, the training, and the length and
// acceptance target of the warmup that tunes the trained surrogate's dynamics.
struct SurrogateConfig {
  int explore = 500;              // exploration (NUTS) iterations, part of warmup (the most, with explore_auto)
  bool explore_auto = false;      // end the exploration when the training set suffices
  int tune = 150;                 // tuning iterations after training in an automatic warmup
  // Acceptance the tuning after training aims at (surrogate HMC's integration time, RNS-RMHMC's
  // step size). Longer trajectories at a lower acceptance pay here, because an iteration
  // costs its one true log density, not its surrogate steps.
  double trajectory_accept = 0.65;
  SurrogateTrainConfig train{};
  long max_train = 50000;         // training points kept (a uniform sample beyond)
  NutsConfig nuts{};              // the exploration's NUTS (its max_delta_H also the dynamics')
  static auto fields() {
    return std::make_tuple(field("explore", &SurrogateConfig::explore), field("train", &SurrogateConfig::train),
                           field("tune", &SurrogateConfig::tune),
                           field("trajectory_accept", &SurrogateConfig::trajectory_accept),
                           field("max_train", &SurrogateConfig::max_train), field("nuts", &SurrogateConfig::nuts),
                           field("explore_auto", &SurrogateConfig::explore_auto));
  }
};

// Training gradients an automatic exploration collects: 10 numbers (d per gradient) per
// output weight of the most bases training may use, and at least 4 (d + 1) gradients for
// the quadratic base's d (d + 1) least-squares coefficients.
inline long quadratic_points_needed(int d) { return 4L * (d + 1); }
inline long training_points_needed(const SurrogateTrainConfig& tc, int d) {
  const long s = surrogate_hidden(tc, d, std::numeric_limits<long>::max() / (4L * d));
  return std::max<long>(quadratic_points_needed(d), (10L * s + d - 1) / d);
}

// The tuning after the exploration (either dynamics'): what the warmup leaves, or with an
// automatic warmup at most sc.tune iterations.
inline int tuning_iterations(const SurrogateConfig& sc, const ChainConfig& cfg, int explored) {
  const int n = cfg.warmup - explored;
  return cfg.warmup_auto ? std::min(n, sc.tune) : n;
}

// Asked by the exploration between drawing the surrogate's bases and fitting them whether to
// fit them at all (surrogate HMC's decision before training, training_payoff.hpp); false:
// the chain has handed over to NUTS and nothing is trained. `clock`: the chain's (null
// outside a chain), to time what the decision needs.
class TrainingGate {
 public:
  virtual ~TrainingGate() = default;
  virtual bool train(const TrainingData& td, RandomBasisNetwork& drawn, const ChainClock* clock) = 0;
  virtual void report(Report& r) const = 0;
};

// The exploration: NUTS with its warmup adaptation over `explore` iterations (at most, with
// explore_auto), recording gradients after a burn-in; at its end the surrogate is trained.
// Fixed length: the burn-in is the first 20%, and the standardisation and the potential cut
// come from the second half only: a chain still in its transient at 20% (measured: log
// sigma of a gaussian GLM at N = 1e5) would otherwise stretch the standardisation and keep
// the transient's huge gradients in the fit (held-out gradient error 45%, acceptance 0).
// Automatic length: a chain started from the mode's Laplace approximation is in the typical
// set from its first iteration, so the burn-in is 6 iterations and the exploration ends at
// iteration 30 or later once the training set holds training_points_needed() gradients, or
// already at 4 (d + 1) of them if the quadratic base alone then predicts held-out gradients
// within the selection tolerance (a GLM with many observations: measured at N = 1e5, d = 50,
// held-out error < 1%, where the most bases would need 400 points); from random starts it
// waits for 150 iterations (burn-in 30).
template <class Chain>
class SurrogateExploration : public Phase {
 public:
  SurrogateExploration(Chain& chain, const SurrogateConfig& sc, const HmcWarmupConfig& wc, int explore,
                       const FitExtras& x)
      : chain_(chain), sc_(sc), x_(x), explore_(explore),
        min_explore_(x.inv_metric ? 30 : 150), burn_(sc.explore_auto ? min_explore_ / 5 : explore / 5),
        need_(training_points_needed(sc.train, chain.dim())), quadratic_need_(quadratic_points_needed(chain.dim())),
        adapter_(make_hmc_warmup(chain.nuts(), chain.explore_state(), explore, wc, false, x.inv_metric.has_value())),
        moments_(chain.dim()), jumps_(chain.dim()) {}

  const char* label() const override { return "warmup: exploration"; }
  void start(Rng& rng) override {
    t0_ = seconds();
    if (clock()) adapter_->use_clock(*clock());
    adapter_->start(rng);
  }
  void before(int t, Rng&) override { chain_.recorder().record(t >= burn_); }
  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    adapter_->observe(t, info, rng);
    done_ = t + 1;
    if (t >= burn_) {
      const double now = seconds();
      if (jumps_.n() == 0 && t == burn_) t_burn_ = now;
      jumps_.add(chain_.explore_state().theta);
      rate_.add(now, info.n_leapfrog);
      leapfrogs_ += info.n_leapfrog;
    }
    if (sc_.explore_auto ? t >= burn_ : 2 * t >= explore_) {
      moments_.add(chain_.explore_state().theta);
      U_state_max_ = std::max(U_state_max_, chain_.explore_state().U);
      traj_sum_ += info.n_leapfrog * info.step_size;
      ++traj_n_;
    }
    if (sc_.explore_auto && !quadratic_checked_ && done_ >= min_explore_ &&
        chain_.training_set().seen() >= quadratic_need_) {
      quadratic_checked_ = true;  // once: a held-out check per iteration would cost a fit each
      quadratic_ok_ = quadratic_suffices(chain_.training_set(), standardizer(), U_cut(), sc_.train, laplace_base());
    }
  }
  bool done() const override {
    return sc_.explore_auto && done_ >= min_explore_ && (quadratic_ok_ || chain_.training_set().seen() >= need_);
  }
  void finish(Rng&) override;
  void report(Report& r) const override {
    adapter_->report(r);
    r.add("explore", done_);
    r.add("explore_step_size", step_size_);
    r.add("explore_seconds", seconds_);
    r.add("explore_grads", grads_);
    r.merge(train_report_);
    if (gate_) gate_->report(r);
  }
  // The dynamics that may decide against training register here (before the chain runs).
  void ask_before_training(TrainingGate* gate) { gate_ = gate; }
  // Whether the quadratic base alone was found to predict held-out gradients well enough:
  // training then forms no Gram matrix and keeps no bases.
  bool quadratic_enough() const { return quadratic_ok_; }

  double step_size() const { return step_size_; }
  int iterations() const { return done_; }
  // NUTS's warmup adaptation, which goes on after a hand-over to NUTS (FallbackWarmup).
  WarmupAdaptation& adaptation() { return *adapter_; }
  const Vec& mean() const { return moments_.mean(); }
  // The exploration's variance of each coordinate (after its burn-in; empty before 2 states).
  Vec variance() const { return moments_.n() > 1 ? Vec(moments_.covariance().diagonal()) : Vec(); }
  // Seconds per true gradient during the exploration (NUTS's own bookkeeping included).
  double seconds_per_gradient() const { return grads_ > 0 ? seconds_ / grads_ : NAN; }
  // NUTS after the burn-in: squared jumps per coordinate and seconds per iteration.
  const JumpMeter& jumps() const { return jumps_; }
  // The trained surrogate's held-out relative gradient error (NaN before training or without
  // a hold-out set).
  double held_out_error() const { return held_out_error_; }
  double seconds_per_iteration() const { return jumps_.n() > 0 ? jump_seconds_ / jumps_.n() : NAN; }
  // The same at NUTS's fastest seconds per gradient over chunks of iterations (training_payoff.hpp):
  // the cost of its iterations without the machine's other load.
  double fastest_seconds_per_iteration() const {
    return jumps_.n() > 0 ? rate_.fastest() * static_cast<double>(leapfrogs_) / static_cast<double>(jumps_.n() + 1)
                          : NAN;
  }
  // 4/3 of the exploration's mean NUTS integration time (second half), 0 without
  // iterations: the longest surrogate trajectory when the frequencies give none.
  double trajectory_cap() const { return traj_n_ > 0 ? 4.0 / 3.0 * traj_sum_ / traj_n_ : 0.0; }

 private:
  Standardizer standardizer() const;
  // Leapfrog states this far above every visited state are left out of training.
  double U_cut() const { return U_state_max_ + std::max(10.0, static_cast<double>(chain_.dim())); }
  LaplaceBase laplace_base() const {
    LaplaceBase lb;
    if (x_.laplace && x_.laplace->hessian.size() > 0) {
      lb.mode = &x_.laplace->mode;
      lb.hessian = &x_.laplace->hessian;
    }
    return lb;
  }

  Chain& chain_;
  const SurrogateConfig& sc_;
  const FitExtras& x_;
  int explore_, min_explore_, burn_;
  long need_, quadratic_need_;
  bool quadratic_checked_ = false, quadratic_ok_ = false;
  std::unique_ptr<WarmupAdaptation> adapter_;
  WelfordDense moments_;
  JumpMeter jumps_;
  FastestRate rate_;  // NUTS's seconds per gradient after the burn-in
  long leapfrogs_ = 0;
  double held_out_error_ = NAN;
  double jump_seconds_ = 0.0, t_burn_ = 0.0, t0_ = 0.0;  // t_: the chain's clock (seconds())
  double U_state_max_ = -kInf, traj_sum_ = 0.0, step_size_ = 0.0, seconds_ = 0.0;
  long traj_n_ = 0, grads_ = 0;
  int done_ = 0;
  Report train_report_;
  TrainingGate* gate_ = nullptr;
};

// The Laplace covariance (a chain started from the mode) is the exact scale of a
// near-Gaussian posterior; a short exploration's covariance is not. A start's diagonal
// (a multilevel model's, at the mode of its marginal posterior) gives the scales alone.
template <class Chain>
Standardizer SurrogateExploration<Chain>::standardizer() const {
  if (x_.inv_metric && x_.inv_metric->cols() == 1)
    return Standardizer::from_diagonal(moments_.mean(), x_.inv_metric->col(0));
  if (x_.inv_metric) return Standardizer::from_covariance(moments_.mean(), *x_.inv_metric);
  return Standardizer::from_covariance(moments_.mean(), moments_.regularized());
}

// The chain trains its surrogate (and keeps what it trained); the phase reports it. Between
// drawing the bases and fitting them, a registered gate may decide against training.
template <class Chain>
void SurrogateExploration<Chain>::finish(Rng&) {
  if (jumps_.n() > 0) jump_seconds_ = seconds() - t_burn_;
  chain_.recorder().record(false);
  step_size_ = chain_.nuts().step_size();
  grads_ = chain_.counts().grad;
  seconds_ = seconds() - t0_;
  if (chain_.training_set().size() < 10 || moments_.n() < 2)
    throw std::runtime_error("too few exploration iterations to train a surrogate; increase `explore`");
  const double t_draw = seconds();
  const TrainingData td = chain_.draw(standardizer(), U_cut(), sc_.train, train_report_);
  const double t_drawn = seconds();
  if (gate_ && !gate_->train(td, chain_.network(), clock())) return;
  const double t_fit = seconds();  // training's seconds leave out the gate's
  const SurrogateFit fit = chain_.fit(td, sc_.train, laplace_base(), train_report_);
  fit.report(train_report_, (t_drawn - t_draw) + (seconds() - t_fit));
  held_out_error_ = fit.grad_rel_error;
}

// What the surrogate's steps after the exploration read (the decision before training,
// training_check.hpp, and the tuning after it, trajectory_tuning.hpp): the chain, its
// exploration, the configs, and whether the step size is automatic.
template <class Chain>
struct SurrogateStage {
  using Config = typename Chain::Dynamics::Config;
  Chain& chain;
  const SurrogateExploration<Chain>& explore;
  const SurrogateConfig& sc;
  const Config& dc;
  const ChainConfig& cfg;
  bool auto_eps;
};

}  // namespace vhmc
