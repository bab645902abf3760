#pragma once
// Exact surrogate-accelerated HMC (RNS-HMC and ARNS-HMC; Zhang, Shahbaba & Zhao 2017,
// Algorithms 1-3) as a sampler: its kernel, surrogate_hmc.hpp, drives the leapfrog by a
// random-basis network and accepts with the true potential. Its warmup phases:
//   1. exploration: NUTS with its warmup adaptation on the true potential; every gradient
//      it computes after a burn-in is a training point (they are free); then the surrogate
//      is trained (surrogate/train_surrogate.hpp), standardised by the Laplace covariance
//      when the chain started from the mode (else by the exploration's covariance), whose
//      highest visited potential also bounds the points. With explore_auto the exploration
//      lasts only as long as the training set needs (SurrogateExploration::done());
//   2. trajectory tuning: surrogate HMC with a metric, step size and longest trajectory from
//      the surrogate's frequencies (trajectory_length.hpp), the integration time adapted
//      below that toward an acceptance rate;
// and while sampling, with `adaptive` (ARNS-HMC), every new state's potential updates the
// output weights by exact ridge recursion, the surrogate being refreshed with probability
// min(1, t^(-1/2)) (diminishing adaptation). eps and L are frozen for sampling and never
// depend on the state, as exactness requires.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "../adapt/welford.hpp"
#include "../riemann/generalized_leapfrog.hpp"
#include "hmc_family.hpp"
#include "surrogate_dynamics.hpp"
#include "surrogate_hmc.hpp"
#include "surrogate_payoff.hpp"
#include "trajectory_length.hpp"
#include "../surrogate/train_surrogate.hpp"

namespace vhmc {

struct SurrogateConfig {
  int explore = 500;              // exploration (NUTS) iterations, part of warmup (the most, with explore_auto)
  bool explore_auto = false;      // end the exploration when the training set suffices
  int tune = 150;                 // trajectory-tuning iterations of an automatic warmup
  SurrogateTrainConfig train{};
  std::optional<int> steps;       // the user's maximal leapfrog steps; nullopt: tuned
  int max_steps = 1024;
  // Acceptance the integration time is tuned to. Longer trajectories at a lower acceptance
  // pay here, because an iteration costs its one true log density, not its surrogate steps.
  double trajectory_accept = 0.65;
  // Continue with NUTS when the surrogate will not pay off (surrogate_payoff.hpp): off in the
  // core (the papers' sampler); R's surrogate_hmc() turns it on for its automatic sampler.
  bool fallback = false;
  double fallback_ratio = 2.0;    // ... when its efficiency relative to NUTS is below this
  bool adaptive = false;          // ARNS-HMC
  long max_train = 50000;         // training points kept (a uniform sample beyond)
  NutsConfig nuts{};
  bool riemann = false;           // RNS-RMHMC (surrogate_rmhmc.hpp) instead of surrogate HMC
  std::optional<double> riemann_step_size;  // its step size (nullopt: tuned); the exploration's is apart
  bool riemann_dense = true;      // its metric: the base's dense Hessian plus a diagonal, or diagonal only
  FixedPointConfig fixed_point{};  // its implicit steps
  static auto fields() {
    return std::make_tuple(field("explore", &SurrogateConfig::explore), field("train", &SurrogateConfig::train),
                           field("tune", &SurrogateConfig::tune), field("steps", &SurrogateConfig::steps),
                           field("max_steps", &SurrogateConfig::max_steps),
                           field("trajectory_accept", &SurrogateConfig::trajectory_accept),
                           field("fallback", &SurrogateConfig::fallback),
                           field("fallback_ratio", &SurrogateConfig::fallback_ratio),
                           field("adaptive", &SurrogateConfig::adaptive),
                           field("max_train", &SurrogateConfig::max_train), field("nuts", &SurrogateConfig::nuts),
                           field("explore_auto", &SurrogateConfig::explore_auto),
                           field("riemann", &SurrogateConfig::riemann),
                           field("riemann_step_size", &SurrogateConfig::riemann_step_size),
                           field("riemann_dense", &SurrogateConfig::riemann_dense),
                           field("fixed_point", &SurrogateConfig::fixed_point));
  }
};

namespace detail {
constexpr std::uint64_t kSurrogateStream = 0x5a17ULL << 32;  // separate stream family
}

// State and kernels of one surrogate HMC chain: NUTS on the recorded true potential until
// the surrogate exists, surrogate HMC afterwards.
template <class P, class M>
class SurrogateChain {
 public:
  using Explore = Target<RecordingPotential<P>>;
  using Kernel = SurrogateHmc<Target<P>, RandomBasisNetwork, DenseMetric>;
  using NutsKernel = Nuts<Explore, M>;

  SurrogateChain(P& potential, M metric, const SurrogateConfig& sc, const HmcWarmupConfig& wc,
                 const ChainConfig& cfg, const Vec& init)
      : init_(init), step_size_(wc.initial_step_size()), max_delta_H_(sc.nuts.max_delta_H),
        set_(potential.dim(), sc.max_train,
             Rng(cfg.seed, detail::kSurrogateStream + 1000003ULL + static_cast<std::uint64_t>(cfg.chain))),
        recorder_(potential, set_), explore_(recorder_), truth_(potential),
        ham_(explore_, std::move(metric)), nuts_(ham_, sc.nuts), z_(potential.dim()), field_(net_),
        srng_(cfg.seed, detail::kSurrogateStream + static_cast<std::uint64_t>(cfg.chain)) {}

  int dim() const { return static_cast<int>(init_.size()); }
  void start(Rng&) {
    z_.theta = init_;
    if (!ham_.init_point(z_))
      throw std::runtime_error("the log density or its gradient is not finite at the initial values");
    nuts_.step_size() = step_size_;
  }
  TransitionInfo transition(Rng& rng) {
    return kernel_ ? kernel_->transition(state_, rng) : nuts_.transition(z_, rng);
  }
  const Vec& position() const { return kernel_ ? state_.z.theta : z_.theta; }
  EvalCounts counts() const {
    EvalCounts c;
    c.grad = explore_.counts().grad + truth_.counts().grad;
    c.potential = explore_.counts().potential + truth_.counts().potential;
    c.surrogate_grad = field_.n_grad();
    return c;
  }
  unsigned columns() const { return kHmcColumns; }
  void adaptation(Report& r) const {
    r.add("step_size", kernel_ ? kernel_->step_size() : fell_back() ? nuts_.step_size() : 0.0);
    report_inverse_metric(ham_.metric(), r);
  }

  // The surrogate dynamics with inverse metric A take over from NUTS at its state.
  Kernel& enter_surrogate(const Mat& A) {
    sham_.reset(new Hamiltonian<SurrogateField<RandomBasisNetwork>, DenseMetric>(field_, DenseMetric(A)));
    SurrogateHmcConfig hc;
    hc.max_delta_H = max_delta_H_;
    kernel_.reset(new Kernel(truth_, *sham_, hc));
    state_.z = PhasePoint(dim());
    state_.z.theta = z_.theta;
    state_.U_true = z_.U;
    if (!kernel_->refresh(state_))
      throw std::runtime_error("the trained surrogate is not finite at the chain's position");
    return *kernel_;
  }
  bool refresh() { return kernel_->refresh(state_); }
  // Back to NUTS on the true gradient, from the surrogate chain's state, with the
  // exploration's adapted metric and step size (surrogate_payoff.hpp decides).
  void fall_back() {
    z_.theta = state_.z.theta;
    if (!ham_.init_point(z_))
      throw std::runtime_error("the log density or its gradient is not finite at the chain's position");
    kernel_.reset();
  }
  bool fell_back() const { return sham_ && !kernel_; }

  Nuts<Explore, M>& nuts() { return nuts_; }
  const PhasePoint& explore_state() const { return z_; }
  const SurrogateState& state() const { return state_; }
  Hamiltonian<Explore, M>& explore_hamiltonian() { return ham_; }
  RecordingPotential<P>& recorder() { return recorder_; }
  TrainingSet& training_set() { return set_; }
  RandomBasisNetwork& network() { return net_; }
  Rng& surrogate_rng() { return srng_; }

 private:
  Vec init_;
  double step_size_, max_delta_H_;
  TrainingSet set_;
  RecordingPotential<P> recorder_;
  Explore explore_;
  Target<P> truth_;
  Hamiltonian<Explore, M> ham_;
  Nuts<Explore, M> nuts_;
  PhasePoint z_;
  RandomBasisNetwork net_;
  SurrogateField<RandomBasisNetwork> field_;
  Rng srng_;
  std::unique_ptr<Hamiltonian<SurrogateField<RandomBasisNetwork>, DenseMetric>> sham_;
  std::unique_ptr<Kernel> kernel_;
  SurrogateState state_;
};

// Training gradients an automatic exploration collects: 10 numbers (d per gradient) per
// output weight of the most bases training may use, and at least 4 (d + 1) gradients for
// the quadratic base's d (d + 1) least-squares coefficients.
inline long quadratic_points_needed(int d) { return 4L * (d + 1); }
inline long training_points_needed(const SurrogateTrainConfig& tc, int d) {
  const long s = surrogate_hidden(tc, d, std::numeric_limits<long>::max() / (4L * d));
  return std::max<long>(quadratic_points_needed(d), (10L * s + d - 1) / d);
}

// Phase 1: NUTS with its warmup adaptation over `explore` iterations (at most, with
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
                       const FitExtras& x, std::unique_ptr<OnlineRidge>* online)
      : chain_(chain), sc_(sc), x_(x), explore_(explore),
        min_explore_(x.inv_metric ? 30 : 150), burn_(sc.explore_auto ? min_explore_ / 5 : explore / 5),
        need_(training_points_needed(sc.train, chain.dim())), quadratic_need_(quadratic_points_needed(chain.dim())),
        adapter_(make_hmc_warmup(chain.nuts(), chain.explore_state(), explore, wc, false, x.inv_metric.has_value())),
        moments_(chain.dim()), jumps_(chain.dim()), online_(online) {}

  const char* label() const override { return "warmup: exploration"; }
  void start(Rng& rng) override {
    t0_ = std::chrono::steady_clock::now();
    adapter_->start(rng);
  }
  void before(int t, Rng&) override { chain_.recorder().record(t >= burn_); }
  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    adapter_->observe(t, info, rng);
    done_ = t + 1;
    if (t >= burn_) {
      if (jumps_.n() == 0 && t == burn_) t_burn_ = std::chrono::steady_clock::now();
      jumps_.add(chain_.explore_state().theta);
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
  }

  double step_size() const { return step_size_; }
  int iterations() const { return done_; }
  const Vec& mean() const { return moments_.mean(); }
  // The exploration's variance of each coordinate (after its burn-in; empty before 2 states).
  Vec variance() const { return moments_.n() > 1 ? Vec(moments_.covariance().diagonal()) : Vec(); }
  // Seconds per true gradient during the exploration (NUTS's own bookkeeping included).
  double seconds_per_gradient() const { return grads_ > 0 ? seconds_ / grads_ : NAN; }
  // NUTS after the burn-in: squared jumps per coordinate and seconds per iteration.
  const JumpMeter& jumps() const { return jumps_; }
  double seconds_per_iteration() const { return jumps_.n() > 0 ? jump_seconds_ / jumps_.n() : NAN; }
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
  std::unique_ptr<Phase> adapter_;
  WelfordDense moments_;
  JumpMeter jumps_;
  double jump_seconds_ = 0.0;
  std::chrono::steady_clock::time_point t_burn_;
  double U_state_max_ = -kInf, traj_sum_ = 0.0, step_size_ = 0.0, seconds_ = 0.0;
  long traj_n_ = 0, grads_ = 0;
  int done_ = 0;
  std::chrono::steady_clock::time_point t0_;
  std::unique_ptr<OnlineRidge>* online_;
  Report train_report_;
};

// The Laplace covariance (a chain started from the mode) is the exact scale of a
// near-Gaussian posterior; a short exploration's covariance is not.
template <class Chain>
Standardizer SurrogateExploration<Chain>::standardizer() const {
  if (x_.inv_metric) return Standardizer::from_covariance(moments_.mean(), *x_.inv_metric);
  return Standardizer::from_covariance(moments_.mean(), moments_.regularized());
}

template <class Chain>
void SurrogateExploration<Chain>::finish(Rng&) {
  if (jumps_.n() > 0) jump_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_burn_).count();
  chain_.recorder().record(false);
  step_size_ = chain_.nuts().step_size();
  grads_ = chain_.counts().grad;
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (chain_.training_set().size() < 10 || moments_.n() < 2)
    throw std::runtime_error("too few exploration iterations to train a surrogate; increase `explore`");
  train_surrogate(chain_.network(), chain_.training_set(), standardizer(), U_cut(), sc_.train,
                  chain_.surrogate_rng(), train_report_, sc_.adaptive ? online_ : nullptr, laplace_base());
}

// Phase 2: metric, step size and longest trajectory of the surrogate dynamics, then the
// integration time adapted below it. With automatic trajectories (no `steps`, no
// `step_size`) and a quadratic base, the metric becomes dense: the inverse of the base's
// Hessian, the least-squares slope of all the training gradients, far better determined than
// a covariance of a few hundred draws; on a near-Gaussian posterior it makes every frequency
// ~1, so that one trajectory length is antithetic in every direction. The step size keeps
// the exploration's stability margin in the fastest direction (w_max eps), halved: surrogate
// steps cost a small fraction of the one true evaluation, and a smaller discretisation error
// raises acceptance. The longest trajectory T_max maximises the predicted effective samples
// per iteration (trajectory_length.hpp); without usable frequencies it is the exploration's
// mean NUTS trajectory (at least pi). What the surrogate's error costs grows with the
// trajectory's length, so T is then adapted toward the acceptance rate trajectory_accept,
// between one step and T_max (shrinking eps instead would buy acceptance only by hitting
// max_steps): Robbins-Monro in log T, kept inside [log eps, log T_max] (a target one step
// cannot reach must not drive it off to -inf), the final value the average over the second
// half. Steps are drawn uniformly in {ceil(L/2)..L}; with user-fixed steps in {1..L}, with
// the exploration's metric and step size, as in the papers.
// Its length: what the warmup leaves after the exploration, or with an automatic warmup
// sc.tune iterations.
template <class Chain>
class TrajectoryTuning : public Phase {
 public:
  TrajectoryTuning(Chain& chain, const SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                   bool auto_step_size, const ChainConfig& cfg)
      : chain_(chain), explore_(explore), sc_(sc), auto_eps_(auto_step_size), warmup_(cfg.warmup),
        auto_(cfg.warmup_auto) {}

  const char* label() const override { return "warmup: surrogate"; }
  bool done() const override { return t_done_ >= n_tune_; }
  int iterations() const { return t_done_; }
  void start(Rng&) override {
    t0_ = std::chrono::steady_clock::now();
    grads0_ = chain_.counts().surrogate_grad;
    n_tune_ = warmup_ - explore_.iterations();
    if (auto_) n_tune_ = std::min(n_tune_, sc_.tune);
    tune_ = !sc_.steps && n_tune_ > 0;
    const Mat A = sampling_metric();
    kernel_ = &chain_.enter_surrogate(A);
    const TrajectoryChoice choice = sc_.steps ? TrajectoryChoice{} : choose_trajectory(omega2_, eps_, sc_.max_steps);
    T_max_ = choice.steps > 0 ? choice.steps * eps_ : std::max(kPi, explore_.trajectory_cap());
    ess_mean_ = choice.ess_mean;
    ess_square_ = choice.ess_square;
    x_lo_ = std::log(eps_);
    x_hi_ = std::log(std::max(T_max_, eps_));
    x_ = x_hi_;
    T_ = T_max_;
  }
  void before(int, Rng&) override { set_kernel(); }
  void observe(int t, const TransitionInfo& info, Rng&) override {
    t_done_ = t + 1;
    if (2 * t >= n_tune_) measure(info);
    if (!tune_) return;
    adapt(t, std::min(1.0, info.accept_stat) - sc_.trajectory_accept);
    if (2 * t >= n_tune_) {
      x_sum_ += x_;
      log_eps_sum_ += std::log(eps_);
      ++x_n_;
    }
  }
  void finish(Rng&) override {
    if (tune_ && x_n_ > 0) {
      T_ = std::exp(x_sum_ / static_cast<double>(x_n_));
      if (eps_shrunk_) eps_ = std::exp(log_eps_sum_ / static_cast<double>(x_n_));
    }
    set_kernel();
    const auto now = std::chrono::steady_clock::now();
    seconds_ = std::chrono::duration<double>(now - t0_).count();
    surrogate_grads_ = chain_.counts().surrogate_grad - grads0_;
    if (jumps_.n() == 0) return;  // no surrogate iterations to judge by
    const double sec = std::chrono::duration<double>(now - t_half_).count() / static_cast<double>(jumps_.n());
    payoff_ = decide_payoff(jumps_, sec, explore_.jumps(), explore_.seconds_per_iteration(), explore_.variance(),
                            accept_sum_ / static_cast<double>(accept_n_), sc_.trajectory_accept,
                            sc_.fallback_ratio, sc_.fallback);
    if (payoff_.fallback) chain_.fall_back();
  }
  void report(Report& r) const override {
    payoff_.report(r);
    r.add("tuning", t_done_);
    r.add("tuning_seconds", seconds_);
    r.add("seconds_per_gradient", explore_.seconds_per_gradient());
    r.add("seconds_per_surrogate_gradient", surrogate_grads_ > 0 ? seconds_ / surrogate_grads_ : NAN);
    r.add("steps", steps_for(T_));
    r.add("integration_time", steps_for(T_) * eps_);
    r.add("max_integration_time", T_max_);
    r.add("predicted_ess_mean", ess_mean_);
    r.add("predicted_ess_square", ess_square_);
    r.add("metric_from_base", metric_from_base_);
  }

 private:
  // The inverse metric of the surrogate dynamics; sets eps_ and the frequencies omega2_.
  Mat sampling_metric() {
    const int d = chain_.dim();
    RandomBasisNetwork& net = chain_.network();
    const bool auto_traj = !sc_.steps;
    const Mat A_explore = inverse_metric_matrix(chain_.explore_hamiltonian().metric(), d);
    Mat A = A_explore;
    if (auto_traj && auto_eps_ && net.has_quadratic()) {
      Mat A_q;
      if (inverse_of_base(net, A_q)) {
        A = A_q;
        metric_from_base_ = true;
      }
    }
    eps_ = explore_.step_size();
    if (auto_traj) {
      omega2_ = surrogate_frequencies(net, explore_.mean(), DenseMetric(A));
      if (auto_eps_) {
        const Vec w_old = surrogate_frequencies(net, explore_.mean(), DenseMetric(A_explore));
        const double r_old = w_old.size() ? w_old.maxCoeff() : 0.0;
        const double r_new = omega2_.size() ? omega2_.maxCoeff() : 0.0;
        if (r_old > 0 && r_new > 0) eps_ *= std::sqrt(r_old / r_new);
        eps_ *= 0.5;
      }
    }
    return A;
  }
  // Robbins-Monro in log T toward the acceptance target; where one step of eps_ already
  // misses it, eps_ itself shrinks (with T = eps_), so that the target is always reachable.
  void adapt(int t, double g) {
    const double gain = 2.0 / std::pow(static_cast<double>(t) + 10.0, 0.6);
    if (g < 0 && x_ <= x_lo_) {
      eps_ *= std::exp(gain * g);
      eps_shrunk_ = true;
      x_lo_ = std::log(eps_);
      x_ = x_lo_;
    } else {
      x_ = std::clamp(x_ + gain * g, x_lo_, x_hi_);
    }
    T_ = std::exp(x_);
  }
  // The second half's acceptance, squared jumps and clock (surrogate_payoff.hpp).
  void measure(const TransitionInfo& info) {
    if (accept_n_ == 0) t_half_ = std::chrono::steady_clock::now();
    jumps_.add(chain_.position());
    accept_sum_ += std::min(1.0, info.accept_stat);
    ++accept_n_;
  }
  int steps_for(double T) const {
    if (sc_.steps) return *sc_.steps;
    return static_cast<int>(std::clamp(std::ceil(T / eps_ - 1e-9), 1.0, static_cast<double>(sc_.max_steps)));
  }
  void set_kernel() {
    kernel_->step_size() = eps_;
    kernel_->steps() = steps_for(T_);
    kernel_->min_steps() = sc_.steps ? 1 : jitter_low(kernel_->steps());
  }

  Chain& chain_;
  const SurrogateExploration<Chain>& explore_;
  const SurrogateConfig& sc_;
  bool auto_eps_;
  int warmup_;
  bool auto_;
  int n_tune_ = 0, t_done_ = 0;
  bool tune_ = false;
  std::chrono::steady_clock::time_point t0_;
  long grads0_ = 0, surrogate_grads_ = 0;
  double seconds_ = 0.0;
  typename Chain::Kernel* kernel_ = nullptr;
  Vec omega2_;
  double eps_ = 0.0, T_max_ = 0.0, T_ = 0.0, ess_mean_ = 0.0, ess_square_ = 0.0;
  double x_lo_ = 0.0, x_hi_ = 0.0, x_ = 0.0, x_sum_ = 0.0, log_eps_sum_ = 0.0;
  long x_n_ = 0;
  JumpMeter jumps_{chain_.dim()};
  std::chrono::steady_clock::time_point t_half_;
  double accept_sum_ = 0.0;
  long accept_n_ = 0;
  SurrogatePayoff payoff_;
  bool eps_shrunk_ = false;
  bool metric_from_base_ = false;
};

// After a hand-over to NUTS (surrogate_payoff.hpp) the chain samples with NUTS, whose
// metric and step size the exploration adapted only for as long as the training set needed:
// on liver's bank subset (d = 43) 43 iterations, after which NUTS sampled at acceptance 0.94
// (target 0.8) and took twice the sampling seconds of nuts() alone. So NUTS's warmup
// adaptation runs once more from the chain's state, with the exploration's metric as its
// start (as a mode start's Laplace metric), until it converges (automatic warmup) or the
// warmup's iterations run out; without a hand-over the phase takes no iterations.
template <class Chain>
class FallbackWarmup : public Phase {
 public:
  FallbackWarmup(Chain& chain, const SurrogateExploration<Chain>& explore, const TrajectoryTuning<Chain>& tuning,
                 const HmcWarmupConfig& wc, const ChainConfig& cfg)
      : chain_(chain), explore_(explore), tuning_(tuning), wc_(wc), cfg_(cfg) {}

  const char* label() const override { return "warmup: NUTS"; }
  void start(Rng& rng) override {
    if (!chain_.fell_back()) return;
    budget_ = cfg_.warmup - explore_.iterations() - tuning_.iterations();
    if (budget_ <= 0) return;
    adapter_ = make_hmc_warmup(chain_.nuts(), chain_.explore_state(), budget_, wc_, cfg_.warmup_auto, true);
    adapter_->start(rng);
  }
  bool done() const override { return !adapter_ || t_done_ >= budget_ || adapter_->done(); }
  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    adapter_->observe(t, info, rng);
    t_done_ = t + 1;
  }
  void finish(Rng& rng) override {
    if (adapter_) adapter_->finish(rng);
  }
  void report(Report& r) const override { r.add("fallback_warmup", static_cast<long>(t_done_)); }

 private:
  Chain& chain_;
  const SurrogateExploration<Chain>& explore_;
  const TrajectoryTuning<Chain>& tuning_;
  const HmcWarmupConfig& wc_;
  const ChainConfig& cfg_;
  std::unique_ptr<Phase> adapter_;
  int budget_ = 0, t_done_ = 0;
};

// ARNS-HMC while sampling: every new state's true potential (known from the Metropolis
// step) updates the output weights by exact recursive ridge regression; the surrogate the
// trajectories use is replaced with probability min(1, t^(-1/2)) at sampling iteration t.
template <class Chain>
class OnlineSurrogate : public Phase {
 public:
  OnlineSurrogate(Chain& chain, std::unique_ptr<OnlineRidge>& online) : chain_(chain), online_(online) {}
  const char* label() const override { return "sampling"; }
  void observe(int, const TransitionInfo&, Rng&) override {
    if (!online_ || chain_.fell_back()) return;
    RandomBasisNetwork& net = chain_.network();
    const SurrogateState& s = chain_.state();
    online_->add_value(s.z.theta, s.U_true - net.offset() - net.base_value(s.z.theta));
    const double a = std::min(1.0, 1.0 / std::sqrt(static_cast<double>(++t_)));
    if (chain_.surrogate_rng().uniform() < a) {
      net.weights() = online_->weights();
      ++n_refresh_;
      if (!chain_.refresh()) throw std::runtime_error("the refreshed surrogate is not finite at the chain's position");
    }
  }
  void report(Report& r) const override { r.add("n_refresh", n_refresh_); }

 private:
  Chain& chain_;
  std::unique_ptr<OnlineRidge>& online_;
  long t_ = 0, n_refresh_ = 0;
};

// What the surrogate was trained as (surrogate_info() in R), after either kernel's chain.
inline void report_training_kind(Report& r, const SurrogateConfig& sc) {
  r.add("activation", activation_name(sc.train.activation));
  r.add("train_on", sc.train.train_on_gradient ? "gradient" : "value");
}

// x: the fit's extras (the chain's Laplace metric and the mode's Hessian, when it started
// from the mode).
template <class P, class M>
ChainOutput run_surrogate_hmc(P& potential, M metric, const SurrogateConfig& sc, const HmcWarmupConfig& wc,
                              const ChainConfig& cfg, const Vec& init, const FitExtras& x, Callbacks& cb) {
  using Chain = SurrogateChain<P, M>;
  Chain chain(potential, std::move(metric), sc, wc, cfg, init);
  const int explore = std::min(sc.explore, cfg.warmup);
  std::unique_ptr<OnlineRidge> online;
  SurrogateExploration<Chain> exploration(chain, sc, wc, explore, x, &online);
  TrajectoryTuning<Chain> tuning(chain, exploration, sc, wc.adapt.step_size, cfg);
  FallbackWarmup<Chain> rewarm(chain, exploration, tuning, wc, cfg);
  OnlineSurrogate<Chain> arns(chain, online);
  Schedule schedule;
  schedule.warmup = {{&exploration, explore}, {&tuning, cfg.warmup}, {&rewarm, cfg.warmup}};
  schedule.sampling = &arns;
  ChainOutput out = run_chain(chain, schedule, cfg, cb);
  report_training_kind(out.report, sc);
  return out;
}

}  // namespace vhmc
