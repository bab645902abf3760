#pragma once
// What every warmup of an HMC-family kernel shares, whichever metric adaptation it runs
// (Stan's windows, adapt/windowed_adaptation.hpp, or the draw/gradient adaptation,
// adapt/fisher_adaptation.hpp): whether the step size and the metric adapt, the acceptance
// threshold of the initial step-size heuristic, and the dual-averaging settings.
#include "../base/fields.hpp"
#include "dual_averaging.hpp"
#include "windows.hpp"

namespace vhmc {

struct AdaptConfig {
  bool step_size = true;  // adapt the step size (false: the user fixed it)
  bool metric = true;     // adapt the metric (false: unit metric, or no warmup)
  double init_accept = 0.8;
  DualAveragingConfig dual{};
  WindowConfig windows{};
  static auto fields() {
    return std::make_tuple(field("adapt_step_size", &AdaptConfig::step_size),
                           field("adapt_metric", &AdaptConfig::metric),
                           field("init_accept", &AdaptConfig::init_accept), field("dual", &AdaptConfig::dual),
                           field("windows", &AdaptConfig::windows));
  }
};

}  // namespace vhmc
