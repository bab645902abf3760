#pragma once
// Stochastic gradient HMC: Chen, Fox & Guestrin (2014), "Stochastic Gradient Hamiltonian
// Monte Carlo", Algorithm 2, with W = M^{-1} = I, friction
// C = c I and noise estimate B_hat = b I (0 <= b <= c):
//     theta <- theta + eps r
//     r     <- r - eps g~(theta) - eps C r + N(0, 2 (C - B_hat) eps)
// The gradient is taken at the new theta, the friction uses r before the update. No
// Metropolis step: draws carry discretisation and gradient-noise bias. (The slides' variant
// without eps on the friction targets a tempered posterior and is not implemented.)
// Metric: the algorithm runs in coordinates u_j = theta_j / s_j (W = I, C = c I there), i.e.
// in theta: W = diag(s^2), C = c W^{-1}. s = 1 with the unit metric; with the diag metric
// s_j = 1 / sqrt(H_jj) from the driver's curvature estimate.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "../base/fields.hpp"
#include "../base/rng.hpp"
#include "../base/types.hpp"

namespace vhmc {

// Mirrors the R constructor sghmc(). Settings left empty are chosen from the curvature
// (sg_sampler.hpp).
struct SghmcConfig {
  std::optional<double> step_size;  // eps
  std::optional<double> friction;   // c of C = c I; default sqrt(lambda_max)
  double noise_estimate = 0.0;      // b of B_hat = b I
  bool estimate_noise = false;      // B_hat = (eps/2) V_hat per step from the batch (Chen et al. 2014)
  std::optional<int> updates;       // updates per saved iteration
  int resample = 0;                 // redraw r ~ N(0, I) every `resample` updates; 0 = never
  double noise_ratio = 0.1;         // target eps V / (2 C) in natural units for the default eps
  double time_per_iteration = 0.5;  // natural time per saved iteration for the default updates
  bool diag_metric = true;          // precondition by the Hessian diagonal (driver estimate)
  bool fresh_batches = false;       // independent batches instead of epochs (model/minibatch.hpp)
  static auto fields() {
    using C = SghmcConfig;
    return std::make_tuple(
        field("step_size", &C::step_size), field("friction", &C::friction),
        field("noise_estimate", &C::noise_estimate), field("estimate_noise", &C::estimate_noise),
        field("updates", &C::updates), field("resample", &C::resample), field("diag_metric", &C::diag_metric),
        field("fresh_batches", &C::fresh_batches));
  }
};

class Sghmc {
 public:
  Sghmc(const SghmcConfig& cfg, int d) : cfg_(cfg), r_(d), g_(d), s_(Vec::Ones(d)), v_(d) {
    eps_ = cfg.step_size.value_or(0.0);
    c_ = cfg.friction.value_or(0.0);
    updates_ = cfg.updates.value_or(0);
  }

  // True when a default has to come from the curvature.
  bool needs_scale() const {
    return cfg_.diag_metric || !cfg_.step_size || !cfg_.friction || !cfg_.updates;
  }
  bool diag_metric() const { return cfg_.diag_metric; }
  bool fresh_batches() const { return cfg_.fresh_batches; }

  // Defaults on the natural time scale 1/sqrt(lambda) of the stiffest direction (lambda the
  // largest Hessian eigenvalue of U), given b_over_n = B/N. In natural units the minibatch
  // gradient noise has variance about N/B per unit curvature, so the noise that B_hat = 0
  // leaves unaccounted for, eps V / 2, relative to C is eps_u (N/B) / (2 C_u); eps is chosen
  // to make it `noise_ratio` (0.1: posterior variances about 10% too large), and at most
  // 0.1 / sqrt(lambda) for the discretisation. The updates cover `time_per_iteration`.
  // lambda: largest eigenvalue of the Hessian in the u coordinates; scale: s.
  void set_scale(double lambda, double b_over_n, const Vec& scale) {
    s_ = scale;
    const double s = std::sqrt(lambda);
    if (!cfg_.friction) c_ = s;
    if (!cfg_.step_size) {
      const double c_u = c_ / s;
      eps_ = std::min(0.1, 2.0 * cfg_.noise_ratio * b_over_n * c_u) / s;
    }
    if (!cfg_.updates) {
      const double n = std::ceil(cfg_.time_per_iteration / (eps_ * s));
      updates_ = static_cast<int>(std::min(10000.0, std::max(1.0, n)));
    }
  }

  void start(Rng& rng) {
    if (eps_ <= 0 || c_ <= 0 || updates_ <= 0)
      throw std::logic_error("SGHMC: step size, friction and updates must be set before sampling");
    for (Eigen::Index j = 0; j < r_.size(); ++j) r_[j] = rng.normal();
    t_ = 0;
  }

  // One update of Algorithm 2; grad(theta, g) is the minibatch gradient. Returns false if
  // the state is no longer finite.
  template <class Grad>
  bool update(Vec& theta, Grad& grad, Rng& rng) {
    if (cfg_.resample > 0 && t_ > 0 && t_ % cfg_.resample == 0)
      for (Eigen::Index j = 0; j < r_.size(); ++j) r_[j] = rng.normal();
    const double b = cfg_.noise_estimate;
    if (b > c_) throw std::runtime_error("SGHMC: noise_estimate exceeds the friction (C - B_hat must be >= 0)");
    theta.array() += eps_ * s_.array() * r_.array();
    const double keep = 1.0 - eps_ * c_;
    if (cfg_.estimate_noise) {
      // B_hat_j = (eps/2) V_hat_j in the u coordinates (V_u = s^2 V), clamped to C.
      grad(theta, g_, &v_);
      bool clamped = false;
      for (Eigen::Index j = 0; j < r_.size(); ++j) {
        double bj = 0.5 * eps_ * s_[j] * s_[j] * v_[j];
        if (!(bj <= c_)) {
          bj = c_;
          clamped = true;
        }
        const double sd = std::sqrt(2.0 * (c_ - bj) * eps_);
        r_[j] = keep * r_[j] - eps_ * s_[j] * g_[j] + sd * rng.normal();
      }
      if (clamped) ++n_clamped_;
    } else {
      grad(theta, g_, nullptr);
      const double sd = std::sqrt(2.0 * (c_ - b) * eps_);
      for (Eigen::Index j = 0; j < r_.size(); ++j)
        r_[j] = keep * r_[j] - eps_ * s_[j] * g_[j] + sd * rng.normal();
    }
    ++t_;
    return theta.allFinite() && r_.allFinite();
  }

  double step_size() const { return eps_; }
  double friction() const { return c_; }
  int updates() const { return updates_; }
  const Vec& scale() const { return s_; }
  long n_clamped() const { return n_clamped_; }

 private:
  SghmcConfig cfg_;
  Vec r_, g_, s_, v_;
  long n_clamped_ = 0;
  double eps_ = 0.0, c_ = 0.0;
  int updates_ = 0;
  long t_ = 0;
};

}  // namespace vhmc
