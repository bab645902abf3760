#pragma once
// Two copies of a draw/gradient estimator, as in nuts-rs's warmup
// (src/transform/adapt/diagonal.rs, low_rank.rs; schedule in src/adapt_strategy.rs): every
// accepted (draw, gradient) pair goes into both; the metric is always computed from the
// FOREGROUND; at a window switch the background (the pairs since the previous switch)
// becomes the foreground and a fresh background starts. So the metric never rests on pairs
// older than two windows (early, far-from-typical-set draws are forgotten), yet never on
// fewer than one full window. E needs E(int d), add(theta, grad), reset(), n().
#include <utility>

#include "../base/types.hpp"

namespace vhmc {

template <class E>
class SwitchingEstimator {
 public:
  explicit SwitchingEstimator(int d = 0) : d_(d), fg_(d), bg_(d) {}
  void add(const Vec& theta, const Vec& grad_u) {
    fg_.add(theta, grad_u);
    bg_.add(theta, grad_u);
  }
  void switch_window() {
    std::swap(fg_, bg_);
    bg_.reset();
  }
  void reset() {
    fg_.reset();
    bg_.reset();
  }
  // Both windows replaced by empty ones (their storage freed), still of dimension d.
  void release() {
    fg_ = E(d_);
    bg_ = E(d_);
  }
  const E& foreground() const { return fg_; }
  const E& background() const { return bg_; }
  long foreground_count() const { return fg_.n(); }
  long background_count() const { return bg_.n(); }

 private:
  int d_;
  E fg_, bg_;
};

}  // namespace vhmc
