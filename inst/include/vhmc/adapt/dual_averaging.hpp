#pragma once
// Step-size adaptation by Nesterov dual averaging, Hoffman & Gelman (2014) Algorithm 5,
// with Stan's constants: gamma = 0.05, t0 = 10, kappa = 0.75, mu = log(10 eps).
#include <algorithm>
#include <cmath>

#include "../base/fields.hpp"

namespace vhmc {

struct DualAveragingConfig {
  double delta = 0.8;  // target acceptance statistic
  double gamma = 0.05;
  double t0 = 10.0;
  double kappa = 0.75;
  static auto fields() {
    using C = DualAveragingConfig;
    return std::make_tuple(field("adapt_delta", &C::delta), field("adapt_gamma", &C::gamma),
                           field("adapt_t0", &C::t0), field("adapt_kappa", &C::kappa));
  }
};

class DualAveraging {
 public:
  explicit DualAveraging(const DualAveragingConfig& cfg = {}) : cfg_(cfg) {}

  // Restart around eps: mu = log(10 eps), counters cleared.
  void restart(double eps) {
    mu_ = std::log(10.0 * eps);
    t_ = 0;
    sbar_ = 0.0;
    xbar_ = 0.0;
  }

  // One update with the transition's acceptance statistic; returns the next step size.
  double learn(double accept_stat) { return average(update(accept_stat)); }

  // As learn(), with the step size held at most max_eps. While the limit binds, the
  // acceptance seen is that of the limited step: sbar is set back to what gives the limit
  // (back-calculation, the anti-windup of a saturated integrator), so that it does not grow
  // without bound, and the average is of the step sizes used.
  double learn(double accept_stat, double max_eps) {
    double x = update(accept_stat);
    if (x > std::log(max_eps)) {
      x = std::log(max_eps);
      sbar_ = (mu_ - x) * cfg_.gamma / std::sqrt(static_cast<double>(t_));
    }
    return average(x);
  }

  // The step size used after warmup: exp(xbar).
  double final_step_size() const { return std::exp(xbar_); }

  double mu() const { return mu_; }
  double sbar() const { return sbar_; }
  double xbar() const { return xbar_; }
  long counter() const { return t_; }

 private:
  // sbar after one more transition; returns the new x = log eps.
  double update(double accept_stat) {
    const double a = std::min(1.0, accept_stat);
    ++t_;
    const double t = static_cast<double>(t_);
    const double eta = 1.0 / (t + cfg_.t0);
    sbar_ = (1.0 - eta) * sbar_ + eta * (cfg_.delta - a);
    return mu_ - std::sqrt(t) / cfg_.gamma * sbar_;
  }
  // xbar after x; returns exp(x).
  double average(double x) {
    const double w = std::pow(static_cast<double>(t_), -cfg_.kappa);
    xbar_ = w * x + (1.0 - w) * xbar_;
    return std::exp(x);
  }

  DualAveragingConfig cfg_;
  double mu_ = std::log(10.0);
  long t_ = 0;
  double sbar_ = 0.0;
  double xbar_ = 0.0;
};

}  // namespace vhmc
