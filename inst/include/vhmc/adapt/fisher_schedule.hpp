#pragma once
// When the draw/gradient metric adaptation (adapt/fisher_adaptation.hpp) switches estimator
// windows and when its final step-size window begins, after nuts-rs's schedule
// (src/adapt_strategy.rs; Seyboldt, Carlson & Carpenter 2026, arXiv:2603.18845):
//  * early phase, t < E = min(early_end_max, early_fraction W): switch every early_switch
//    pairs, so that the metric soon forgets the first, far-from-typical draws;
//  * main phase: windows of first_window pairs growing by `growth` after every switch;
//  * final window: the metric is frozen and only the step size adapts (dual averaging
//    restarted around the current step size, so that its average sees only this metric).
// A switch is skipped when the next window would run into the final one ("late").
// early_end_max = 0 starts the main phase at once.
// With a fixed warmup of W iterations the final window is its last floor(final_fraction W)
// iterations. With an automatic warmup W is only the most it may take: the caller reports
// convergence at a main-phase switch (converge_at), and the final window then starts at
// once and lasts max(final_min, final_fraction t) iterations.
#include <algorithm>
#include <cmath>

#include "../base/fields.hpp"

namespace vhmc {

struct FisherScheduleConfig {
  int early_switch = 10;
  int early_end_max = 100;
  double early_fraction = 0.3;
  int first_window = 50;
  double growth = 1.5;
  double final_fraction = 0.15;
  int final_min = 50;
};

class FisherSchedule {
 public:
  enum class Stage { Early, Main, Final };

  FisherSchedule(int max_warmup, bool automatic, const FisherScheduleConfig& cfg = {})
      : cfg_(cfg), window_(cfg.first_window) {
    early_end_ = std::min(cfg.early_end_max, static_cast<int>(cfg.early_fraction * max_warmup));
    extend(max_warmup, automatic);
  }

  Stage stage(int t) const {
    if (t >= final_start_) return Stage::Final;
    return t < early_end_ ? Stage::Early : Stage::Main;
  }

  // After the pair of metric-stage iteration t was offered: does the estimator switch now,
  // with `background` pairs in its background window? Advances the window plan if so.
  bool switch_at(int t, long background) {
    const bool early = stage(t) == Stage::Early;
    if (!early && t == early_end_) window_ = std::max<long>(window_, background);
    const long freq = early ? cfg_.early_switch : window_;
    const long next = early ? cfg_.early_switch
                            : std::max<long>(window_ + 1, std::lround(window_ * cfg_.growth));
    const bool late = next + t > final_start_;
    if (background < freq || late) return false;
    if (!early) window_ = next;
    ++switches_;
    return true;
  }

  // A warmup that goes on past the end it was planned for (adapt/warmup_adaptation.hpp):
  // from the iteration reached, the plan of one of max_warmup iterations. The early phase
  // keeps its end; the final window moves.
  void extend(int max_warmup, bool automatic) {
    automatic_ = automatic;
    max_ = end_ = max_warmup;
    final_start_ = max_warmup - static_cast<int>(cfg_.final_fraction * max_warmup);
  }

  // Automatic warmup only: adaptation converged at iteration t (a main-phase switch).
  void converge_at(int t) {
    if (!automatic_ || converged_) return;
    converged_ = true;
    final_start_ = std::min(final_start_, t + 1);
    const int len = std::max(cfg_.final_min, static_cast<int>(std::lround(cfg_.final_fraction * (t + 1))));
    end_ = std::min(max_, final_start_ + len);
  }

  bool automatic() const { return automatic_; }
  bool converged() const { return converged_; }
  int final_start() const { return final_start_; }
  int end() const { return end_; }  // warmup iterations this schedule takes
  int switches() const { return switches_; }
  int early_end() const { return early_end_; }

 private:
  FisherScheduleConfig cfg_;
  bool automatic_ = false;
  int max_ = 0, end_ = 0;
  int early_end_ = 0, final_start_ = 0;
  long window_;
  int switches_ = 0;
  bool converged_ = false;
};

}  // namespace vhmc
