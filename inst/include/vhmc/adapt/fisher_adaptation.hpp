#pragma once
// Warmup of an HMC-family kernel with the draw/gradient ("Fisher") metric adaptation of
// nutpie (Seyboldt, Carlson & Carpenter 2026, arXiv:2603.18845; nuts-rs), as a warmup phase:
//  * the metric is estimated from the draws AND the gradients of the chain's recent window
//    (adapt/fisher_estimators.hpp) and re-estimated during the windows, not only at their
//    ends; windows switch on the plan of adapt/fisher_schedule.hpp;
//  * the step size is tuned by dual averaging on every iteration; Stan's heuristic reruns
//    and dual averaging restarts when the metric first changes, and dual averaging restarts
//    once more when the metric is frozen for the final window;
//  * with an automatic warmup the phase ends early once adapt/warmup_convergence.hpp says
//    the metric has settled and the chain is stationary (done()).
// Without an initial metric the diagonal starts from the gradient at the initial point
// (w_i = 1 / |g_i|, nuts-rs's start) and the first estimate needs 3 pairs; with one (from
// the posterior mode and its curvature) it is kept until a window holds min_pairs_given
// pairs, since a few pairs estimate it worse than the curvature did.
// Only pairs of transitions that moved the chain are used (a rejected transition repeats a
// pair and would shrink the variances).
#include <utility>

#include "../integrator/phase_point.hpp"
#include "adapt_config.hpp"
#include "fisher_estimators.hpp"
#include "fisher_schedule.hpp"
#include "warmup_adaptation.hpp"
#include "warmup_convergence.hpp"

namespace vhmc {

struct FisherConfig {
  FisherScheduleConfig schedule{};
  ConvergenceConfig convergence{};
  int max_rank = LowRankConfig{}.max_rank;  // low_rank metric: most eigen-directions kept
  int min_pairs_given = 50;   // pairs before an initial metric is replaced
  bool automatic = false;     // warmup may end early (ChainConfig::warmup is then a maximum)
  bool initial_metric = false;  // the metric starts from the mode's curvature
};

template <class Kernel>
class FisherAdaptation : public WarmupAdaptation {
  using M = typename Kernel::Metric;
  using Estimator = typename FisherFor<M>::type;

 public:
  FisherAdaptation(Kernel& kernel, const PhasePoint& z, int max_warmup, const AdaptConfig& adapt,
                   const FisherConfig& cfg)
      : kernel_(kernel), z_(z), adapt_(adapt), cfg_(cfg), plan_(max_warmup, cfg.automatic, cfg.schedule),
        est_(kernel.hamiltonian().dim(), cfg.max_rank), da_(adapt.dual), last_theta_(z.theta) {}

  void start(Rng& rng) override {
    if (plan_.end() == 0) return;
    M& m = kernel_.hamiltonian().metric();
    if (Estimator::adapts && adapt_.metric && !cfg_.initial_metric)
      set_metric_diagonal(m, inv_metric_from_gradient(z_.g));
    if (Estimator::adapts && adapt_.metric && cfg_.initial_metric) est_.set_base(m);
    w_switch_ = metric_snapshot(m);
    last_theta_ = z_.theta;
    est_.add(z_.theta, kernel_.hamiltonian().adaptation_gradient(z_));
    restart_step_size(rng, true);
  }

  void observe(int t, const TransitionInfo& info, Rng& rng) override {
    last_t_ = t;
    if (adapt_.step_size) kernel_.step_size() = da_.learn(info.accept_stat);
    if (plan_.stage(t) != FisherSchedule::Stage::Final && Estimator::adapts && adapt_.metric)
      adapt_metric(t, rng);
    if (t + 1 == plan_.final_start() && adapt_.step_size) da_.restart(kernel_.step_size());
    if (t + 1 == plan_.end() && adapt_.step_size) kernel_.step_size() = da_.final_step_size();
  }

  bool done() const override { return plan_.automatic() && last_t_ + 1 >= plan_.end(); }
  void extend(int max_warmup, bool automatic) override { plan_.extend(max_warmup, automatic); }

  // The estimator's windows are the warmup's largest memory (at a hundred thousand
  // parameters about 100 MB per chain); sampling does not need them.
  void release() override { est_.release(); }

  void report(Report& r) const override {
    r.add("warmup_converged", plan_.converged());
    r.add("metric_switches", plan_.switches());
    r.add("metric_updates", updates_);
  }

 private:
  void adapt_metric(int t, Rng& rng) {
    const bool moved = z_.theta != last_theta_;
    if (moved) {
      est_.add(z_.theta, kernel_.hamiltonian().adaptation_gradient(z_));
      last_theta_ = z_.theta;
    }
    energy_new_.add(z_.U);
    const bool switched = plan_.switch_at(t, est_.background());
    if (switched) est_.switch_window();
    const long need = cfg_.initial_metric ? cfg_.min_pairs_given : 3;
    // An estimate that came due while the window held too few pairs is made as soon as it
    // holds enough: the low-rank estimates of a model of thousands of coordinates come due
    // at window switches only, where a mode-started chain's new window has 10 pairs against
    // the 50 it needs, and at iter = 400 its metric was never estimated at all.
    pending_ = pending_ || switched || (t + 1) % est_.update_every() == 0;
    if (moved && est_.foreground() >= need) {
      if (pending_) {
        update_metric(rng);
        pending_ = false;
      } else if (updates_ > 0) {
        est_.refresh(kernel_.hamiltonian().metric());  // between estimates (BufferFisher)
      }
    }
    if (switched) check_convergence(t);
  }

  void update_metric(Rng& rng) {
    est_.update(kernel_.hamiltonian().metric());
    ++updates_;
    if (updates_ == 1) restart_step_size(rng, true);
  }

  // At a switch: compare the metric now with the one at the previous switch, and the
  // energy of the window just closed with the one before it.
  void check_convergence(int t) {
    const auto w_now = metric_snapshot(kernel_.hamiltonian().metric());
    if (plan_.stage(t) == FisherSchedule::Stage::Main && updates_ > 0 &&
        warmup_converged(w_switch_, w_now, energy_old_, energy_new_, cfg_.convergence)) {
      plan_.converge_at(t);
    }
    w_switch_ = w_now;
    energy_old_ = energy_new_;
    energy_new_.reset();
  }

  // Stan's heuristic from the current state (when asked) and dual averaging around it.
  void restart_step_size(Rng& rng, bool heuristic) {
    if (!adapt_.step_size) return;
    if (heuristic)
      kernel_.step_size() = kernel_.hamiltonian().find_initial_step_size(z_, kernel_.step_size(), rng,
                                                                        adapt_.init_accept);
    da_.restart(kernel_.step_size());
  }

  Kernel& kernel_;
  const PhasePoint& z_;
  AdaptConfig adapt_;
  FisherConfig cfg_;
  FisherSchedule plan_;
  Estimator est_;
  DualAveraging da_;
  Vec last_theta_;
  bool pending_ = false;  // an estimate is due
  decltype(metric_snapshot(std::declval<const M&>())) w_switch_;  // at the last switch
  RunningMoments energy_old_, energy_new_;
  int last_t_ = -1;
  int updates_ = 0;
};

}  // namespace vhmc
