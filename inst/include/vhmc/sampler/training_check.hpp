#pragma once
// Surrogate HMC's decision before training (training_payoff.hpp) as the exploration's
// TrainingGate (surrogate_exploration.hpp): between drawing the bases and fitting them it
// measures what the decision needs -- seconds of a true log density and of a gradient of the
// drawn network, a Cholesky factor's seconds per flop for training's prediction, the best
// trajectory the tuning could choose -- and, when even that prediction does not pay, hands
// the chain over to NUTS (SurrogateChain::hand_over_untrained(); FallbackWarmup then adapts
// NUTS again, as after a hand-over at the end of tuning). Only with `fallback` and
// `decide_before_training`, and not when the exploration found the quadratic base alone
// good enough (then training forms no Gram matrix and the surrogate keeps no bases: nothing
// to save).
#include <algorithm>
#include <cmath>
#include <optional>

#include "surrogate_dynamics.hpp"
#include "surrogate_exploration.hpp"
#include "surrogate_payoff.hpp"
#include "trajectory_length.hpp"
#include "training_payoff.hpp"

namespace vhmc {

// Surrogate gradients per iteration and effective samples per iteration of an exact
// surrogate (NaN when no trajectory can be chosen).
struct BestTrajectory {
  double steps = NAN, ess = NAN;
};

template <class Chain>
class TrainingCheck : public TrainingGate {
 public:
  explicit TrainingCheck(const SurrogateStage<Chain>& stage) : s_(stage) {}

  bool train(const TrainingData& td, RandomBasisNetwork& drawn, const ChainClock* clock) override {
    const auto& dc = s_.dc;
    if (!dc.fallback || !dc.decide_before_training || !clock || s_.explore.quadratic_enough()) return true;
    payoff_ = decide_training(costs(td, drawn, *clock), dc.fallback_ratio);
    if (payoff_.fallback) s_.chain.hand_over_untrained();
    return !payoff_.fallback;
  }
  void report(Report& r) const override { payoff_.report(r); }

 private:
  TrainingCosts costs(const TrainingData& td, RandomBasisNetwork& drawn, const ChainClock& clock) {
    TrainingCosts c;
    const int d = s_.chain.dim(), s = drawn.hidden();
    c.sec_nuts = s_.explore.fastest_seconds_per_iteration();
    const Vec theta = s_.chain.explore_state().theta;
    auto& potential = s_.chain.potential();
    volatile double sink = 0.0;  // the value is used: no compiler may drop the evaluation
    c.sec_potential = fastest_seconds_per_call(clock, [&] { sink = potential.U(theta); }, 2e-4);
    Vec x(d), g(d);
    long k = 0;
    const long n_fit = td.fit_theta.rows();
    c.sec_grad = fastest_seconds_per_call(clock, [&] {
      x = td.fit_theta.row(k++ % n_fit).transpose();
      drawn.grad(x, g);
    }, 2e-4);
    // The rate of a factor of order s/4 (at least 64): 1/64 of the fit's own factor.
    const double flop = seconds_per_flop(clock, std::min(s, std::max(64, s / 4)));
    c.sec_train = flop * ridge_fit_flops(static_cast<double>(n_fit), s, d, s_.sc.train.train_on_gradient,
                                         drawn.activation());
    const BestTrajectory best = best_trajectory(drawn);
    c.steps = best.steps;
    // The tuning's acceptance target, and what accurate surrogates accept; with the user's
    // steps nothing is tuned toward a target, and both stay at full acceptance.
    const double target = s_.dc.steps ? 1.0 : s_.sc.trajectory_accept;
    const double accurate = s_.dc.steps ? 1.0 : std::max(target, kAccurateAccept);
    const auto& jumps = s_.explore.jumps();
    const Vec var = s_.explore.variance();
    c.ess_ratio = ess_ratio_to(ess_at_acceptance(best.ess, target), jumps, var);
    c.ess_ratio_accurate = ess_ratio_to(ess_at_acceptance(best.ess, accurate), jumps, var);
    c.n_tune = tuning_iterations(s_.sc, s_.cfg, s_.explore.iterations());
    c.n = c.n_tune + std::max(0, s_.cfg.iter - s_.cfg.warmup);
    return c;
  }

  // The trajectory trajectory_tuning.hpp would choose for a surrogate exact on the Gaussian
  // that standardises the drawn bases: with automatic trajectories and step size and a
  // quadratic base (gradient training), the base's metric makes every frequency 1 and the
  // step size keeps the exploration's margin in the fastest direction, halved
  // (surrogate_step_size()); with the user's steps, L in 1..steps; with the user's step
  // size, the exploration's metric and step size.
  BestTrajectory best_trajectory(const RandomBasisNetwork& drawn) const {
    if (s_.dc.steps) return {0.5 * (1.0 + *s_.dc.steps), kAr1EssMax};
    const int d = s_.chain.dim();
    const Mat A = inverse_metric_matrix(s_.chain.explore_hamiltonian().metric(), d);
    const Vec w_old = gaussian_frequencies(A, drawn.standardizer().L);
    if (w_old.size() == 0) return {};
    const bool base_metric = s_.auto_eps && s_.sc.train.train_on_gradient;
    const Vec w = base_metric ? Vec(Vec::Ones(d)) : w_old;
    const double eps_explore = s_.explore.step_size();
    const double eps =
        s_.auto_eps ? surrogate_step_size(eps_explore, w_old.maxCoeff(), w.maxCoeff(), d) : eps_explore;
    const TrajectoryChoice choice = choose_trajectory(w, eps, s_.dc.max_steps);
    if (choice.steps == 0) return {};
    return {0.5 * (jitter_low(choice.steps) + choice.steps), std::min(kAr1EssMax, choice.ess_mean)};
  }

  SurrogateStage<Chain> s_;
  TrainingPayoff payoff_;
};

}  // namespace vhmc
