#pragma once
// Stochastic gradient Langevin dynamics: Welling & Teh (2011, eq. 4); Murphy (2023,
// eqs. 12.146-12.148):  theta <- theta - h_t g~(theta) + sqrt(2 h_t) xi,  xi ~ N(0, I),
// h_t = a (b + t)^(-delta), t = 0, 1, ... counting updates from the start of the chain
// (Welling & Teh's eps_t is 2 h_t). delta = 0 (default) is a constant step. No Metropolis
// step: draws carry discretisation and gradient-noise bias.
// Metric (a fixed preconditioner W, as in Li et al. 2016 without its adaptation): theta += -h W g~ + sqrt(2h) W^{1/2} xi with W = diag(s^2); s = 1
// with the unit metric, s_j = 1 / sqrt(H_jj) from the driver's estimate with the diag metric.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "../base/fields.hpp"
#include "../base/rng.hpp"
#include "../base/types.hpp"

namespace vhmc {

// Mirrors the R constructor sgld(). Settings left empty are chosen from the curvature
// (sg_sampler.hpp).
struct SgldConfig {
  std::optional<double> step_size;  // a
  double decay = 0.0;               // delta
  double decay_offset = 1.0;        // b
  std::optional<int> updates;       // updates per saved iteration
  double noise_ratio = 0.1;         // target h V / 2 in natural units for the default a
  double time_per_iteration = 0.5;
  bool diag_metric = true;
  bool fresh_batches = false;  // independent batches instead of epochs (model/minibatch.hpp)
  static auto fields() {
    using C = SgldConfig;
    return std::make_tuple(field("step_size", &C::step_size), field("decay", &C::decay),
                           field("decay_offset", &C::decay_offset), field("updates", &C::updates),
                           field("diag_metric", &C::diag_metric), field("fresh_batches", &C::fresh_batches));
  }
};

class Sgld {
 public:
  Sgld(const SgldConfig& cfg, int d) : cfg_(cfg), g_(d), s_(Vec::Ones(d)) {
    a_ = cfg.step_size.value_or(0.0);
    updates_ = cfg.updates.value_or(0);
  }

  bool needs_scale() const { return cfg_.diag_metric || !cfg_.step_size || !cfg_.updates; }
  bool diag_metric() const { return cfg_.diag_metric; }
  bool fresh_batches() const { return cfg_.fresh_batches; }

  // Defaults on the natural time scale 1/lambda of the stiffest direction: in natural units
  // the stationary variance of SGLD on a Gaussian is about (1 + h_u N / (2 B)) / (1 - h_u / 2)
  // times the posterior's, so h_u = min(0.1, 2 noise_ratio B / N).
  void set_scale(double lambda, double b_over_n, const Vec& scale) {
    s_ = scale;
    if (!cfg_.step_size) a_ = std::min(0.1, 2.0 * cfg_.noise_ratio * b_over_n) / lambda;
    if (!cfg_.updates) {
      const double n = std::ceil(cfg_.time_per_iteration / (a_ * lambda));
      updates_ = static_cast<int>(std::min(10000.0, std::max(1.0, n)));
    }
  }

  void start(Rng&) {
    if (a_ <= 0 || updates_ <= 0)
      throw std::logic_error("SGLD: step size and updates must be set before sampling");
    t_ = 0;
  }

  double current_step() const {
    return cfg_.decay == 0.0 ? a_ : a_ * std::pow(cfg_.decay_offset + static_cast<double>(t_), -cfg_.decay);
  }

  template <class Grad>
  bool update(Vec& theta, Grad& grad, Rng& rng) {
    h_ = current_step();
    grad(theta, g_, nullptr);
    const double sd = std::sqrt(2.0 * h_);
    for (Eigen::Index j = 0; j < theta.size(); ++j)
      theta[j] += s_[j] * (-h_ * s_[j] * g_[j] + sd * rng.normal());
    ++t_;
    return theta.allFinite();
  }

  double step_size() const { return h_ > 0 ? h_ : current_step(); }
  double friction() const { return 0.0; }
  int updates() const { return updates_; }
  const Vec& scale() const { return s_; }
  long n_clamped() const { return 0; }

 private:
  SgldConfig cfg_;
  Vec g_, s_;
  double a_ = 0.0, h_ = 0.0;
  int updates_ = 0;
  long t_ = 0;
};

}  // namespace vhmc
