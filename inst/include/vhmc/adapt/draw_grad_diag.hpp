#pragma once
// Diagonal inverse metric from the variances of draws AND gradients (Seyboldt, Carlson &
// Carpenter 2026, "Preconditioning HMC by minimizing Fisher divergence", arXiv:2603.18845;
// the estimator nutpie calls "diag"). Over diagonal affine maps x = mu + sigma .* y, the
// sample Fisher divergence between the mapped target and N(0, I),
//   sum_n || sigma .* grad log p(x_n) + (x_n - mu) ./ sigma ||^2,
// is minimised coordinate-wise by
//   sigma_i^2 = sqrt(var(x_i) / var(g_i)),   mu_i = mean(x_i) - sigma_i^2 mean(g_i),
// with g = grad U = -grad log p, the gradient vhmc's potentials return. sigma^2 is the
// inverse metric W of a DiagMetric. On a Gaussian, var(grad_i) estimates the
// i-th diagonal entry of the precision and var(x_i) that of the covariance, so the estimate
// is the geometric mean of the draw-based (Stan's) and the gradient-based diagonal; both are
// exact on a diagonal Gaussian, and there this estimate is exact from any two distinct
// points, because grad_i = (x_i - mu_i) / s_i^2 is then an affine function of x_i alone:
// var(grad_i) = var(x_i) / s_i^4 holds for the sample variances of ANY set of points.
//
// Regularisation and clamping follow nuts-rs (src/transform/adapt/diagonal.rs and
// src/math/cpu_math.rs): the ratio is clamped to [1e-20, 1e20], a wide band that only stops
// 0, inf and overflow while leaving every plausible posterior scale (sd from 1e-10 to 1e10)
// untouched; a coordinate whose ratio is not finite or is exactly 0 (constant draws or
// constant gradients in the window) keeps its previous value instead. There is no Stan-style
// shrinkage toward 1e-3 I: the gradient variances already stabilise the small-sample estimate.
#include <algorithm>
#include <cmath>

#include "../base/types.hpp"
#include "welford.hpp"

namespace vhmc {

struct DrawGradClamp {
  double lower = 1e-20;  // smallest inverse-metric entry (variance) allowed
  double upper = 1e20;   // largest
};

// The inverse metric before any draw, from the gradient at the initial point alone
// (nuts-rs's initialisation): w_i = 1 / |g_i|, clamped as above. Why: with W = diag(1/|g|)
// the first velocity W g = sign(g) moves every coordinate by the same amount per unit time,
// a scale-free start comparable to the O(1) spread of the usual random initial values.
// A component that is exactly 0 or NaN says nothing about its coordinate's scale
// (an initial value at the mode, e.g. init = 0 on a centred Gaussian, has g = 0): nuts-rs
// clamps 1/0 to 1e20, a velocity of sd 1e10 that sends the first trajectories and Stan's
// step-size heuristic to |theta| ~ 1e10. Such a coordinate gets the geometric mean of the
// informative entries (the typical scale the others show), or 1 (the unit metric of a random
// start) when no component is informative.
inline Vec inv_metric_from_gradient(const Vec& grad, const DrawGradClamp& c = {}) {
  Vec w = Vec::Zero(grad.size());
  double log_sum = 0.0;
  int informative = 0;
  for (Eigen::Index i = 0; i < grad.size(); ++i) {
    const double a = std::fabs(grad[i]);
    if (!(a > 0.0)) continue;  // 0 or NaN: no scale information (inf: clamped below)
    w[i] = 1.0 / std::min(std::max(a, c.lower), c.upper);
    log_sum += std::log(w[i]);
    ++informative;
  }
  const double fill = informative > 0 ? std::exp(log_sum / informative) : 1.0;
  for (Eigen::Index i = 0; i < grad.size(); ++i)
    if (w[i] == 0.0) w[i] = fill;
  return w;
}

// Running means and variances of draws and of gradients (Welford's algorithm: one pass,
// no cancellation of large means), and the inverse metric they imply.
class DrawGradDiag {
 public:
  explicit DrawGradDiag(int d = 0) : draws_(d), grads_(d) {}
  void add(const Vec& theta, const Vec& grad_u) {
    draws_.add(theta);
    grads_.add(grad_u);
  }
  void reset() {
    draws_.reset();
    grads_.reset();
  }
  long n() const { return draws_.n(); }
  const Vec& draw_mean() const { return draws_.mean(); }
  const Vec& grad_mean() const { return grads_.mean(); }
  Vec draw_variance() const { return draws_.variance(); }
  Vec grad_variance() const { return grads_.variance(); }

  // sqrt(var(theta) / var(grad)) clamped; entries without a finite positive ratio (or all
  // entries when n < 2) are taken from fallback, the inverse metric in use.
  Vec inv_metric(const Vec& fallback, const DrawGradClamp& c = {}) const {
    Vec w = fallback;
    if (n() < 2) return w;
    const Vec vx = draw_variance(), vg = grad_variance();
    for (Eigen::Index i = 0; i < w.size(); ++i) {
      const double r = std::sqrt(vx[i] / vg[i]);
      if (std::isfinite(r) && r > 0.0) w[i] = std::min(std::max(r, c.lower), c.upper);
    }
    return w;
  }

  // Centre of the fitted Gaussian, mean(theta) - w .* mean(grad U): for reporting and as a
  // mode-free location estimate (exact on a Gaussian, like w).
  Vec location(const Vec& w) const { return draw_mean() - w.cwiseProduct(grad_mean()); }

 private:
  WelfordDiag draws_, grads_;
};

}  // namespace vhmc
