#pragma once
// Surrogate HMC's tuning after training (surrogate_hmc_dynamics.hpp): the metric, step size
// and trajectory length of the dynamics the trained surrogate drives, chosen from its
// frequencies (trajectory_length.hpp) and tuned toward an acceptance rate, and at its end
// the decision whether the surrogate pays off (surrogate_payoff.hpp).
#include <algorithm>
#include <cmath>

#include "../adapt/robbins_monro.hpp"
#include "../driver/phase.hpp"
#include "../integrator/split_leapfrog.hpp"
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
  explicit TrajectoryTuning(const SurrogateStage<Chain>& stage) : s_(stage) {}

  const char* label() const override { return "warmup: surrogate"; }
  bool done() const override { return t_done_ >= n_tune_; }
  int iterations() const { return t_done_; }
  void start(Rng&) override {
    t0_ = seconds();
    grads0_ = s_.chain.counts().surrogate_grad;
    if (s_.chain.fell_back()) {  // handed over before training (training_check.hpp): nothing to tune
      payoff_.fallback = true;
      return;
    }
    n_tune_ = tuning_iterations(s_.sc, s_.cfg, s_.explore.iterations());
    tune_ = !s_.dc.steps && n_tune_ > 0;
    const Mat A = sampling_metric();
    kernel_ = &s_.chain.enter(A, s_.chain.explore_hamiltonian().split());
    const TrajectoryChoice choice =
        s_.dc.steps ? TrajectoryChoice{} : choose_trajectory(omega2_, eps_, s_.dc.max_steps, wall_omega2_);
    T_max_ = choice.steps > 0 ? choice.steps * eps_ : std::max(kPi, s_.explore.trajectory_cap());
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
    adapt(t, std::min(1.0, info.accept_stat) - s_.sc.trajectory_accept);
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
    surrogate_grads_ = s_.chain.counts().surrogate_grad - grads0_;
    if (jumps_.n() == 0) return;  // no surrogate iterations to judge by
    const double sec = (now - t_half_) / static_cast<double>(jumps_.n());
    const auto& ex = s_.explore;
    payoff_ = decide_payoff(jumps_, sec, ex.jumps(), ex.seconds_per_iteration(), ex.variance(),
                            accept_sum_ / static_cast<double>(accept_n_), s_.sc.trajectory_accept,
                            s_.dc.fallback_ratio, s_.dc.fallback, ex.held_out_error());
    if (payoff_.fallback) s_.chain.fall_back();
  }
  void report(Report& r) const override {
    payoff_.report(r);
    r.add("tuning", t_done_);
    r.add("tuning_seconds", seconds_);
    r.add("seconds_per_gradient", s_.explore.seconds_per_gradient());
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
    const int d = s_.chain.dim();
    RandomBasisNetwork& net = s_.chain.network();
    const bool auto_traj = !s_.dc.steps;
    const Mat A_explore = inverse_metric_matrix(s_.chain.explore_hamiltonian().metric(), d);
    Mat A = A_explore;
    if (auto_traj && s_.auto_eps && net.has_quadratic()) {
      Mat A_q;
      if (inverse_of_base(net, s_.explore.mean(), A_q)) {
        A = A_q;
        metric_from_base_ = true;
      }
    }
    eps_ = s_.explore.step_size();
    if (auto_traj) {
      const Mat H = net.hessian(s_.explore.mean());
      set_frequencies(H, A);
      if (s_.auto_eps) {
        const Vec w_old = surrogate_frequencies(H, DenseMetric(A_explore));
        const double r_old = w_old.size() ? w_old.maxCoeff() : 0.0;
        const double r_new = omega2_.size() ? omega2_.maxCoeff() : 0.0;
        eps_ = surrogate_step_size(eps_, r_old, r_new, d);
      }
    }
    return A;
  }
  // omega2_ of the surrogate dynamics with inverse metric A where the surrogate's Hessian is H
  // (at the exploration's mean) and, when the exploration split stiff rows off (its walls),
  // wall_omega2_ along them.
  void set_frequencies(const Mat& H, const Mat& A) {
    omega2_ = surrogate_frequencies(H, DenseMetric(A));
    if (const SplitLeapfrog* split = s_.chain.explore_hamiltonian().split())
      wall_omega2_ = wall_frequencies(H, A, split->rows().Z);
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
    jumps_.add(s_.chain.position());
    accept_sum_ += std::min(1.0, info.accept_stat);
    ++accept_n_;
  }
  int steps_for(double T) const {
    if (s_.dc.steps) return *s_.dc.steps;
    const double most = static_cast<double>(s_.dc.max_steps);
    return static_cast<int>(std::clamp(std::ceil(T / eps_ - 1e-9), 1.0, most));
  }
  void set_kernel() {
    kernel_->step_size() = eps_;
    kernel_->steps() = steps_for(T_);
    kernel_->min_steps() = s_.dc.steps ? 1 : jitter_low(kernel_->steps());
  }

  SurrogateStage<Chain> s_;
  int n_tune_ = 0, t_done_ = 0;
  bool tune_ = false;
  double t0_ = 0.0, t_half_ = 0.0, seconds_ = 0.0;  // t_: the chain's clock (seconds())
  long grads0_ = 0, surrogate_grads_ = 0;
  typename Chain::Motion::Kernel* kernel_ = nullptr;
  Vec omega2_, wall_omega2_;  // squared frequencies: of A H, and along the walls
  double eps_ = 0.0, T_max_ = 0.0, T_ = 0.0, ess_mean_ = 0.0, ess_square_ = 0.0;
  LogRobbinsMonro time_;  // log T in [log eps, log T_max]
  LogAverage log_eps_;    // of the second half, for a step size that had to shrink
  JumpMeter jumps_{s_.chain.dim()};
  double accept_sum_ = 0.0;
  long accept_n_ = 0;
  SurrogatePayoff payoff_;
  bool eps_shrunk_ = false;
  bool metric_from_base_ = false;
};

}  // namespace vhmc
