#pragma once
// Whether training surrogate HMC's network can pay off, decided before it is trained, at the
// end of the exploration (surrogate_exploration.hpp), from what the exploration measured and
// what the drawn network costs. The decision at the end of trajectory tuning
// (surrogate_payoff.hpp) judges a trained surrogate; training is then spent, and on a target
// whose gradient is cheap it is most of the surrogate's cost: on liver's bank subset
// (N = 4,521, d = 43) training took 0.3 s per chain for 1,720 bases drawn, where nuts()'s whole
// call took 1.1 s, and the surrogate handed over after it anyway.
//
// Before training, the surrogate's efficiency relative to NUTS over the n iterations left
// (tuning and sampling) is at most
//   E = (ESS ratio, predicted) x n s_nuts / (s_train + n (s_U + m s_grad)),
// the same efficiency as at the end of tuning (effective samples per iteration times
// iterations per second, relative to NUTS's) with the training's seconds s_train added to
// the surrogate's side: s_nuts the seconds of a NUTS iteration (exploration), s_U those of a
// true log density (one per surrogate iteration), s_grad those of a gradient of the network
// as drawn (all its bases; its weights do not change its cost), m the surrogate gradients of
// an iteration. The prediction, generous to the surrogate: its trajectory (m steps) is the
// one the tuning would choose on the Gaussian that standardises it (trajectory_length.hpp),
// whose accepted proposals have the most effective samples per iteration the AR(1) measure
// credits (3) or that trajectory's, if fewer, and it accepts the fraction the tuning aims at
// (trajectory_accept: the tuning shortens trajectories until it does; a better surrogate
// only runs the full length), which ess_at_acceptance() turns into effective samples per
// iteration (3 at full acceptance, 0.95 at 0.65); training costs no more than its leading
// flops (surrogate/trainer.hpp) at the rate of a timed Cholesky factor. With every proposal
// accepted (the bound an earlier version used) liver's bank subset predicted 2.1-2.4, just
// above the hand-over ratio, and trained, where the realised effective-sample ratio was 0.31
// against the 1.5 predicted, and the chains handed over after training anyway (whole call
// 1.46x nuts()'s). NUTS's side is its exploration: its gradients per iteration at its
// fastest seconds per gradient (over chunks of 5 iterations), and its AR(1) effective
// samples per iteration pooled over coordinates as at the end of tuning (Pasarica and
// Gelman 2010's squared jumps, surrogate_payoff.hpp). Both sides are timed at their
// fastest (FastestRate, fastest_seconds_per_call()): on a machine others load, a mean of a
// few milliseconds of a cheap target varied 4-fold between runs. When even
// E is below the hand-over ratio (2, the one at the end of tuning), the chain continues with
// NUTS without training, unless a trial is cheap (kTrialShare below). Training's choice of
// fewer bases (s/2, s/4, s/16 or none) is not assumed: it depends on held-out errors of the fit,
// which is what would not be paid for.
#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>

#include "../base/report.hpp"
#include "../base/types.hpp"
#include "../driver/chain_clock.hpp"

namespace vhmc {

// The target is a floor, not what an accurate surrogate accepts: it keeps the longest
// trajectory, and accepts more. Those that paid off in inst/bench/surrogate_high_d.R
// accepted 0.85-0.90 in sampling (projected a9a, a simulated logistic regression), and
// 0.82-0.86 on census (d = 95, fallback = FALSE), where the prediction at the target
// (1.2-1.9 in the chains that handed over) was 2-4 times below what the trained surrogates
// realised after tuning (4-13). On liver's bank subset it is the other way round: the
// trained surrogates accepted 0.63-0.79 on shortened trajectories and realised 0.3-2.1
// against 1.6-3.2 predicted. Which of the two a posterior is, training tells. So a chain
// also trains when the prediction at the acceptance of accurate surrogates (0.85,
// kAccurateAccept) passes the ratio and the trial is cheap: training and the tuning's
// iterations, predicted, at most a tenth of what NUTS's remaining iterations cost
// (kTrialShare). A trial that fails hands over at the end of tuning to the same warmup a
// hand-over before training gets (FallbackWarmup), so it costs the call that tenth; on
// census the trial is about 3% of NUTS's remaining seconds, on the bank subset about 30%.
constexpr double kAccurateAccept = 0.85;
constexpr double kTrialShare = 0.1;

// What the decision uses (seconds; n the iterations after training).
struct TrainingCosts {
  double sec_nuts = NAN;       // a NUTS iteration (its fastest gradients, FastestRate)
  double sec_potential = NAN;  // a true log density
  double sec_grad = NAN;       // a gradient of the network as drawn
  double sec_train = NAN;      // training, predicted
  double steps = NAN;          // surrogate gradients per iteration, predicted
  double ess_ratio = NAN;      // effective samples per iteration relative to NUTS's, predicted
  double ess_ratio_accurate = NAN;  // ... at kAccurateAccept
  double n = 0.0;              // tuning and sampling iterations
  double n_tune = 0.0;         // tuning iterations
};

struct TrainingPayoff {
  TrainingCosts costs;
  double efficiency = NAN, efficiency_accurate = NAN, cost_ratio = NAN, trial_share = NAN;
  bool fallback = false;
  void report(Report& r) const {
    r.add("predicted_efficiency_ratio", efficiency);
    r.add("predicted_efficiency_if_accurate", efficiency_accurate);
    r.add("trial_share", trial_share);
    r.add("predicted_cost_ratio", cost_ratio);
    r.add("predicted_ess_ratio", costs.ess_ratio);
    r.add("predicted_steps", costs.steps);
    r.add("predicted_train_seconds", costs.sec_train);
    r.add("drawn_seconds_per_surrogate_gradient", costs.sec_grad);
    r.add("seconds_per_potential", costs.sec_potential);
    r.add("fallback_before_training", fallback);
  }
};

// The decision (the formula above): fallback when E is finite and below `ratio`, unless
// the trial is cheap (trial_share at most kTrialShare) and E at kAccurateAccept reaches
// `ratio`.
inline TrainingPayoff decide_training(const TrainingCosts& c, double ratio) {
  TrainingPayoff p;
  p.costs = c;
  const double iteration = c.sec_potential + c.steps * c.sec_grad;
  const double surrogate = c.sec_train + c.n * iteration;
  const double nuts = c.n * c.sec_nuts;
  p.cost_ratio = surrogate > 0 ? nuts / surrogate : NAN;
  p.efficiency = c.ess_ratio * p.cost_ratio;
  p.efficiency_accurate = c.ess_ratio_accurate * p.cost_ratio;
  p.trial_share = nuts > 0 ? (c.sec_train + c.n_tune * iteration) / nuts : NAN;
  const bool worth_a_trial = p.efficiency_accurate >= ratio && p.trial_share <= kTrialShare;
  p.fallback = std::isfinite(p.efficiency) && p.efficiency < ratio && !worth_a_trial;
  return p;
}

// Seconds per call of f() by the chain's clock, the fastest of 3 to 5 batches, each of
// calls until min_seconds have passed (at most max_calls): a batch that the machine's other
// work interrupted is slower, never faster, so the fastest is the cost without that load
// (and the surrogate's most favourable cost). One call of a microsecond is below the
// clock's noise.
// At least 3 batches: when a first batch of 0.2 ms that lost a time slice of several ms
// already passed 5 min_seconds, it was all there was (measured at load 3.4 on 2 cores, a
// 150-row logistic regression: in 7 of 60 chains a log density or a network gradient timed
// 40 to 600 times its cost, the predicted efficiency up to 350 times too low); an f whose
// call takes 5 min_seconds is timed 3 times.
template <class F>
double fastest_seconds_per_call(const ChainClock& clock, F&& f, double min_seconds, int max_calls = 1000) {
  double best = kInf, total = 0.0;
  for (int b = 0; b < 5 && (b < 3 || total < 5.0 * min_seconds); ++b) {
    const double t0 = clock.seconds();
    int calls = 0;
    double t = 0.0;
    while (calls < max_calls && (calls == 0 || t < min_seconds)) {
      f();
      ++calls;
      t = clock.seconds() - t0;
    }
    best = std::min(best, t / static_cast<double>(calls));
    total += t;
  }
  return best;
}

// The fastest rate of work done over chunks of `chunk` successive calls of add() (e.g. a
// chain's iterations and their gradients): seconds per unit of work, the least over complete
// chunks (NaN before one is complete or without work). As fastest_seconds_per_call(): a
// chunk the machine's other work interrupted is slower, never faster.
class FastestRate {
 public:
  explicit FastestRate(int chunk = 5) : chunk_(chunk) {}
  // now: the clock after the call; work: the call's work.
  void add(double now, double work) {
    if (!started_) {
      started_ = true;
      t0_ = now;
      return;  // the first call only starts the clock
    }
    work_ += work;
    if (++calls_ < chunk_) return;
    if (work_ > 0) best_ = std::min(best_, (now - t0_) / work_);
    t0_ = now;
    work_ = 0.0;
    calls_ = 0;
  }
  double fastest() const { return std::isfinite(best_) ? best_ : NAN; }

 private:
  int chunk_, calls_ = 0;
  bool started_ = false;
  double t0_ = 0.0, work_ = 0.0, best_ = kInf;
};

// Seconds per floating-point operation of a dense Cholesky factor of order m (what a ridge
// fit's Gram matrix and solve run at) on a well-conditioned matrix built before the clock
// starts, the fastest of a few.
inline double seconds_per_flop(const ChainClock& clock, int m) {
  const Eigen::Index k = std::max(1, m);
  const Mat A = Mat::Constant(k, k, 1.0) + static_cast<double>(k) * Mat::Identity(k, k);
  Eigen::LLT<Mat> llt(k);
  const double t = fastest_seconds_per_call(clock, [&] { llt.compute(A); }, 2e-3);
  const double kd = static_cast<double>(k);
  return llt.info() == Eigen::Success ? t / (kd * kd * kd / 3.0) : NAN;
}

}  // namespace vhmc
