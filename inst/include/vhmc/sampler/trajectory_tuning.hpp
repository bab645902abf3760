#pragma once
// Surrogate HMC's tuning after training (surrogate_hmc_dynamics.hpp): the metric, step size
// and trajectory length of the dynamics the trained surrogate drives, chosen from its
// frequencies (trajectory_length.hpp) and tuned toward an acceptance rate, and at its end
// the decision whether the surrogate pays off (surrogate_payoff.hpp).
#include <algorithm>
#include <cmath>

#include "../adapt/robbins_monro.hpp"
#include "../driver/phase.hpp"
#include "surrogate_dynamics.hpp"
#include "surrogate_exploration.hpp"
#include "surrogate_payoff.hpp"
#include "trajectory_length.hpp"

namespace vhmc {

// Surrogate HMC's warmup after training: metric, step size and longest trajectory of the
// surrogate dynamics, then the integration time adapted below it. With automatic
// trajectories (no `steps`, no `step_size`) and a quadratic base, the metric becomes dense:
// the inverse of the base's Hessian, the least-squares slope of all the training gradients,
// far better determined than a covariance of a few hundred draws; on a near-Gaussian
// posterior it makes every frequency ~1, so that one trajectory length is antithetic in every
// direction. The step size keeps the exploration's stability margin in the fastest direction
// (w_max eps), halved: surrogate steps cost a small fraction of the one true evaluation, and
// a smaller discretisation error raises acceptance. The longest trajectory T_max maximises
// the predicted effective samples per iteration (trajectory_length.hpp); without usable
// frequencies it is the exploration's mean NUTS trajectory (at least pi). What the
// surrogate's error costs grows with the trajectory's length, so T is then adapted toward
// the acceptance rate trajectory_accept, between one step and T_max (shrinking eps instead
// would buy acceptance only by hitting max_steps): Robbins-Monro in log T
// (adapt/robbins_monro.hpp, as rwm()'s scale), kept inside [log eps, log T_max] (a target one
// step cannot reach must not drive it off to -inf), the final value the average over the
// second half. Steps are drawn uniformly in {ceil(L/2)..L}; with user-fixed steps in {1..L},
// with the exploration's metric and step size, as in the papers.
// Its length: tuning_iterations() (surrogate_exploration.hpp). At its end,
// surrogate_payoff.hpp decides whether the chain hands over to NUTS.
template <class Chain>
class TrajectoryTuning : public Phase {
 public:
  using Config = typename Chain::Dynamics::Config;
  TrajectoryTuning(Chain& chain, const SurrogateExploration<Chain>& explore, const SurrogateConfig& sc,
                   const Config& dc, bool auto_step_size, const ChainConfig& cfg)
      : chain_(chain), explore_(explore), sc_(sc), dc_(dc), cfg_(cfg), auto_eps_(auto_step_size) {}

  const char* label() const override { return "warmup: surrogate"; }
  bool done() const override { return t_done_ >= n_tune_; }
  int iterations() const { return t_done_; }
  void start(Rng&) override {
    t0_ = seconds();
    grads0_ = chain_.counts().surrogate_grad;
    if (chain_.fell_back()) {  // handed over before training (training_check.hpp): nothing to tune
      payoff_.fallback = true;
      return;
    }
    n_tune_ = tuning_iterations(sc_, cfg_, explore_.iterations());
    tune_ = !dc_.steps && n_tune_ > 0;
    const Mat A = sampling_metric();
    kernel_ = &chain_.enter(A, chain_.explore_hamiltonian().split());
    const TrajectoryChoice choice = dc_.steps ? TrajectoryChoice{} : choose_trajectory(omega2_, eps_, dc_.max_steps);
    T_max_ = choice.steps > 0 ? choice.steps * eps_ : std::max(kPi, explore_.trajectory_cap());
    ess_mean_ = choice.ess_mean;
    ess_square_ = choice.ess_square;
    const double x_hi = std::log(std::max(T_max_, eps_));
    time_.restart(x_hi, std::log(eps_), x_hi);
    T_ = T_max_;
  }
  void before(int, Rng&) override { set_kernel(); }
  void observe(int t, const TransitionInfo& info, Rng&) override {
    t_done_ = t + 1;
    if (2 * t >= n_tune_) measure(info);
    if (!tune_) return;
    adapt(t, std::min(1.0, info.accept_stat) - sc_.trajectory_accept);
    if (2 * t >= n_tune_) {
      time_.average();
      log_eps_.add(std::log(eps_));
    }
  }
  void finish(Rng&) override {
    if (!kernel_) return;  // never entered
    if (tune_ && time_.averaged() > 0) {
      T_ = time_.averaged_value();
      if (eps_shrunk_) eps_ = log_eps_.value();
    }
    set_kernel();
    const double now = seconds();
    seconds_ = now - t0_;
    surrogate_grads_ = chain_.counts().surrogate_grad - grads0_;
    if (jumps_.n() == 0) return;  // no surrogate iterations to judge by
    const double sec = (now - t_half_) / static_cast<double>(jumps_.n());
    payoff_ = decide_payoff(jumps_, sec, explore_.jumps(), explore_.seconds_per_iteration(), explore_.variance(),
                            accept_sum_ / static_cast<double>(accept_n_), sc_.trajectory_accept,
                            dc_.fallback_ratio, dc_.fallback);
    if (payoff_.fallback) chain_.fall_back();
  }
  void report(Report& r) const override {
    payoff_.report(r);
    r.add("tuning", t_done_);
    r.add("tuning_seconds", seconds_);
    r.add("seconds_per_gradient", explore_.seconds_per_gradient());
    r.add("seconds_per_surrogate_gradient", surrogate_grads_ > 0 ? seconds_ / surrogate_grads_ : NAN);
    const int steps = kernel_ ? steps_for(T_) : 0;
    r.add("steps", steps);
    r.add("integration_time", steps * eps_);
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
    const bool auto_traj = !dc_.steps;
    const Mat A_explore = inverse_metric_matrix(chain_.explore_hamiltonian().metric(), d);
    Mat A = A_explore;
    if (auto_traj && auto_eps_ && net.has_quadratic()) {
      Mat A_q;
      if (inverse_of_base(net, explore_.mean(), A_q)) {
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
        eps_ = surrogate_step_size(eps_, r_old, r_new);
      }
    }
    return A;
  }
  // Robbins-Monro in log T toward the acceptance target; where one step of eps_ already
  // misses it, eps_ itself shrinks (with T = eps_), so that the target is always reachable.
  void adapt(int t, double g) {
    const double gain = 2.0 / std::pow(static_cast<double>(t) + 10.0, 0.6);
    if (g < 0 && time_.at_lower()) {
      eps_ *= std::exp(gain * g);
      eps_shrunk_ = true;
      T_ = time_.lower_to(std::log(eps_));
    } else {
      T_ = time_.learn(gain, g);
    }
  }
  // The second half's acceptance, squared jumps and clock (surrogate_payoff.hpp).
  void measure(const TransitionInfo& info) {
    if (accept_n_ == 0) t_half_ = seconds();
    jumps_.add(chain_.position());
    accept_sum_ += std::min(1.0, info.accept_stat);
    ++accept_n_;
  }
  int steps_for(double T) const {
    if (dc_.steps) return *dc_.steps;
    return static_cast<int>(std::clamp(std::ceil(T / eps_ - 1e-9), 1.0, static_cast<double>(dc_.max_steps)));
  }
  void set_kernel() {
    kernel_->step_size() = eps_;
    kernel_->steps() = steps_for(T_);
    kernel_->min_steps() = dc_.steps ? 1 : jitter_low(kernel_->steps());
  }

  Chain& chain_;
  const SurrogateExploration<Chain>& explore_;
  const SurrogateConfig& sc_;
  const Config& dc_;
  const ChainConfig& cfg_;
  bool auto_eps_;
  int n_tune_ = 0, t_done_ = 0;
  bool tune_ = false;
  double t0_ = 0.0, t_half_ = 0.0, seconds_ = 0.0;  // t_: the chain's clock (seconds())
  long grads0_ = 0, surrogate_grads_ = 0;
  typename Chain::Motion::Kernel* kernel_ = nullptr;
  Vec omega2_;
  double eps_ = 0.0, T_max_ = 0.0, T_ = 0.0, ess_mean_ = 0.0, ess_square_ = 0.0;
  LogRobbinsMonro time_;  // log T in [log eps, log T_max]
  LogAverage log_eps_;    // of the second half, for a step size that had to shrink
  JumpMeter jumps_{chain_.dim()};
  double accept_sum_ = 0.0;
  long accept_n_ = 0;
  SurrogatePayoff payoff_;
  bool eps_shrunk_ = false;
  bool metric_from_base_ = false;
};

}  // namespace vhmc
