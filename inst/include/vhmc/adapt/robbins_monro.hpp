#pragma once
// Stochastic approximation of a positive tuning parameter toward a target statistic, in log
// scale (Robbins & Monro 1951): x <- clamp(x + a_t g_t, lo, hi), x the parameter's log, g_t
// the statistic's error at iteration t (e.g. acceptance minus its target) and a_t the
// caller's decreasing gain; the value kept after warmup is the average of x over the last
// iterations (Polyak & Juditsky 1992), a geometric mean of the parameter. Shared by rwm()'s
// proposal scale (sampler/rwm.hpp: Andrieu & Thoms 2008, Algorithm 4) and surrogate HMC's
// integration time (sampler/trajectory_tuning.hpp). Each caller keeps its own gain sequence.
#include <algorithm>
#include <cmath>

#include "../base/types.hpp"

namespace vhmc {

// The geometric mean of values given by their logs.
class LogAverage {
 public:
  void add(double log_value) {
    sum_ += log_value;
    ++n_;
  }
  long n() const { return n_; }
  double value() const { return std::exp(sum_ / static_cast<double>(n_)); }  // n() > 0

 private:
  double sum_ = 0.0;
  long n_ = 0;
};

class LogRobbinsMonro {
 public:
  // Starts at log value x, kept in [lo, hi] (unbounded by default); clears the average.
  void restart(double x, double lo = -kInf, double hi = kInf) {
    x_ = x;
    lo_ = lo;
    hi_ = hi;
    average_ = LogAverage();
  }
  // One step of gain a along the error g; returns the new value exp(x).
  double learn(double a, double g) {
    x_ = std::clamp(x_ + a * g, lo_, hi_);
    return std::exp(x_);
  }
  // Moves the lower bound to lo and x onto it (the caller changed what bounds x).
  double lower_to(double lo) {
    lo_ = lo;
    x_ = lo;
    return std::exp(x_);
  }
  bool at_lower() const { return x_ <= lo_; }
  void average() { average_.add(x_); }  // counts the current x in the value kept
  long averaged() const { return average_.n(); }
  double averaged_value() const { return average_.value(); }  // averaged() > 0

 private:
  double x_ = 0.0, lo_ = -kInf, hi_ = kInf;
  LogAverage average_;
};

}  // namespace vhmc
