#pragma once
// Stan's windowed warmup schedule (Stan Reference Manual, HMC adaptation): an initial fast buffer, slow windows doubling
// in size from base_window (the last one stretched to the terminal buffer), and a terminal
// fast buffer. Short warmups shrink the buffers to 15% / 10%; below 20 iterations the
// metric is not adapted at all.
#include <vector>

#include "../base/fields.hpp"

namespace vhmc {

struct WindowConfig {
  int init_buffer = 75;
  int term_buffer = 50;
  int base_window = 25;
  static auto fields() {
    return std::make_tuple(field("init_buffer", &WindowConfig::init_buffer),
                           field("term_buffer", &WindowConfig::term_buffer),
                           field("base_window", &WindowConfig::base_window));
  }
};

class WindowSchedule {
 public:
  WindowSchedule(int num_warmup, WindowConfig cfg = {}) : n_w_(num_warmup) {
    if (num_warmup < 20) {
      active_ = false;
      return;
    }
    if (cfg.init_buffer + cfg.base_window + cfg.term_buffer > num_warmup) {
      cfg.init_buffer = static_cast<int>(0.15 * num_warmup);
      cfg.term_buffer = static_cast<int>(0.1 * num_warmup);
      cfg.base_window = num_warmup - cfg.init_buffer - cfg.term_buffer;
    }
    cfg_ = cfg;
    size_ = cfg.base_window;
    next_end_ = cfg.init_buffer + cfg.base_window - 1;
  }

  bool active() const { return active_; }
  // Is the state after warmup iteration i accumulated into the metric estimate?
  bool in_window(int i) const {
    return active_ && i >= cfg_.init_buffer && i < n_w_ - cfg_.term_buffer;
  }
  // Does a slow window end at iteration i? If so, the schedule moves to the next window.
  bool end_of_window(int i) {
    if (!active_ || i != next_end_) return false;
    const int last_end = n_w_ - cfg_.term_buffer - 1;
    if (next_end_ != last_end) {
      size_ *= 2;
      next_end_ = i + size_;
      if (next_end_ + 2 * size_ >= n_w_ - cfg_.term_buffer) next_end_ = last_end;
    }
    return true;
  }

  const WindowConfig& config() const { return cfg_; }

  // The plan of a warmup of num_warmup iterations once iteration t has passed (a warmup
  // that goes on past the end it was first planned for, adapt/warmup_adaptation.hpp).
  static WindowSchedule after(int num_warmup, int t, WindowConfig cfg = {}) {
    WindowSchedule s(num_warmup, cfg);
    for (int i = 0; i <= t; ++i) s.end_of_window(i);
    return s;
  }

  // The closed windows [start, end] of a whole warmup, for reporting and tests.
  static std::vector<std::pair<int, int>> windows(int num_warmup, WindowConfig cfg = {}) {
    WindowSchedule s(num_warmup, cfg);
    std::vector<std::pair<int, int>> out;
    int start = s.cfg_.init_buffer;
    for (int i = 0; i < num_warmup; ++i) {
      if (s.end_of_window(i)) {
        out.emplace_back(start, i);
        start = i + 1;
      }
    }
    return out;
  }

 private:
  int n_w_;
  bool active_ = true;
  WindowConfig cfg_{};
  int size_ = 0;
  int next_end_ = -1;
};

}  // namespace vhmc
