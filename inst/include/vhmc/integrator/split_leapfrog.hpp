#pragma once
// The leapfrog split for a potential with a few stiff terms, U = U0 + U1 (Strang splitting,
// as in the split HMC of Shahbaba, Lan, Johnson and Neal 2014, Statistics and Computing 24,
// eq. 5 and their splitting of the data; Leimkuhler and Reich 2004 on multiple time steps):
//   p -= h/2 grad U0;   m leapfrog steps of size h/m on U1;   p -= h/2 grad U0.
// Each part is symplectic and time-reversible, so is the composition, and NUTS and static
// HMC stay exact with the full Hamiltonian in their weights. grad U0 = grad U - grad U1, so a
// step costs one full gradient, as the plain leapfrog does.
// U1 here is the likelihood of a few rows whose curvature can be far above the posterior's
// scale: a rare category that (nearly) separates the responses puts a wall of slope about
// its standardised value on one side of its coefficient, and the plain leapfrog must then
// shrink every step to cross that wall (a9a's full design: step size 0.016, trees of 255
// steps). U1 depends on theta only through the rows' predictors eta = Z theta + o (Z: the
// rows in the sampler's coordinates, n x d) and grad U1 = Z' r lies in the span of Z's rows,
// so an inner step moves the momentum by Z' a and eta by h/m (Z W p0 + Q a), Q = Z W Z':
// O(n^2) per inner step, no d-vector. theta and p are assembled once after the inner steps.
// m = ceil(|h| sqrt(kappa) / resolution), kappa the largest curvature U1 can reach in the
// metric's coordinates (the rows' curvature bounds through Q): resolution 1 keeps every
// inner step at half the leapfrog's stability limit (h sqrt(kappa) < 2) at the stiffest
// wall; on a9a's full design 0.5 doubled the inner steps (736 against 296 per step, 6.1
// against 3.3 ms a step) for no better acceptance (0.85 against 0.89).
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>

#include "../base/fields.hpp"
#include "../base/types.hpp"
#include "phase_point.hpp"

namespace vhmc {

// Whether and where the HMC family splits its steps (the rows are chosen by the potential:
// model/glm/stiff_rows.hpp): rows stiffer than `threshold` times the posterior's curvature
// at the mode, at most max_rows of them (an inner step costs O(rows^2)), and inner steps
// small enough that |h| sqrt(kappa) / m <= resolution.
struct SplitConfig {
  bool enabled = true;
  double threshold = 10.0;
  int max_rows = 256;
  double resolution = 1.0;
  static auto fields() {
    return std::make_tuple(field("split_stiff", &SplitConfig::enabled),
                           field("stiff_threshold", &SplitConfig::threshold),
                           field("stiff_max_rows", &SplitConfig::max_rows),
                           field("stiff_resolution", &SplitConfig::resolution));
  }
};

// The stiff rows of a potential: U1(theta) = loss(Z theta + offset).
struct StiffRows {
  Mat Z;                    // n x d, the rows in the sampler's coordinates
  Vec offset;               // n
  Vec curvature_bound;      // n: the most d2 loss / d eta_i^2 can be (weights included)
  std::function<double(const Vec& eta, Vec& r)> loss;  // U1 and r = d U1 / d eta
  Vec stiffness;            // n: each row's stiffness (how it was chosen; may be empty)
  Eigen::Index size() const { return Z.rows(); }
};

class SplitLeapfrog {
 public:
  SplitLeapfrog(StiffRows rows, double resolution)
      : rows_(std::move(rows)), resolution_(resolution) {
    const Eigen::Index n = rows_.size();
    if (n == 0 || rows_.offset.size() != n || rows_.curvature_bound.size() != n || !rows_.loss)
      throw std::invalid_argument("SplitLeapfrog: stiff rows need Z, offsets, curvature bounds and a loss");
    eta_.resize(n);
    r_.resize(n);
    a_.resize(n);
    sum_a_.resize(n);
    vs_.resize(n);
  }

  // W Z', Q = Z W Z' and kappa for the metric in force (asked at every transition; computed
  // again only when the metric changed, metric/metric_revision.hpp).
  template <class M>
  void refresh(const M& metric) {
    if (metric_revision_ == metric.revision()) return;
    metric_revision_ = metric.revision();
    const Eigen::Index n = rows_.size(), d = rows_.Z.cols();
    WZt_.resize(d, n);
    Vec col(d);
    for (Eigen::Index i = 0; i < n; ++i) {
      metric.sharp(rows_.Z.row(i).transpose(), col);
      WZt_.col(i) = col;
    }
    Q_.noalias() = rows_.Z * WZt_;
    kappa_ = largest_curvature();
  }

  int inner_steps(double h) const {
    const double m = std::ceil(std::fabs(h) * std::sqrt(kappa_) / resolution_);
    return static_cast<int>(std::min(1e6, std::max(1.0, m)));
  }
  double kappa() const { return kappa_; }
  double resolution() const { return resolution_; }
  const StiffRows& rows() const { return rows_; }
  long row_evaluations() const { return row_evaluations_; }

  // grad U0 = grad U - grad U1 at z (the gradient without the stiff rows).
  bool bulk_gradient(const PhasePoint& z, Vec& g0) {
    if (!stiff_at(z.theta)) return false;
    zr_.noalias() = rows_.Z.transpose() * r_;
    g0.noalias() = z.g - zr_;
    return true;
  }

  // One split step of signed size h from z (U, g: the full potential's); false, with
  // U = +inf as the plain leapfrog leaves it, when a potential along the way is not finite
  // (a divergence for the caller).
  template <class T, class M>
  bool step(PhasePoint& z, double h, T& target, const M& metric) {
    if (advance(z, h, target, metric)) return true;
    z.U = kInf;
    return false;
  }

 private:
  template <class T, class M>
  bool advance(PhasePoint& z, double h, T& target, const M& metric) {
    if (!stiff_at(z.theta)) return false;
    half_kick(z, h, metric);
    if (!inner(z.v, h)) return false;
    const double dl = h / inner_steps(h);
    z.theta.noalias() += h * z.v;
    z.theta.noalias() += dl * (WZt_ * sum_a_);
    z.p.noalias() += rows_.Z.transpose() * a_;
    z.U = target.U_grad(z.theta, z.g);
    if (!std::isfinite(z.U) || !stiff_at(z.theta)) return false;
    half_kick(z, h, metric);
    return true;
  }

  // Half a step of the bulk's force, grad U - Z' r (r at z.theta), and the new velocity.
  template <class M>
  void half_kick(PhasePoint& z, double h, const M& metric) {
    zr_.noalias() = rows_.Z.transpose() * r_;
    z.p.noalias() -= (0.5 * h) * (z.g - zr_);
    metric.sharp(z.p, z.v);
  }

  // eta and r at theta; false when U1 is not finite there. A step starts where the last one
  // ended (its rows already evaluated there, unless the inner steps moved eta since): the
  // point is remembered, and the rows are evaluated again only at another one.
  bool stiff_at(const Vec& theta) {
    if (at_valid_ && theta.size() == at_.size() && theta == at_) return true;
    at_valid_ = false;  // eta_ and r_ change below
    eta_.noalias() = rows_.Z * theta;
    eta_ += rows_.offset;
    row_evaluations_ += rows_.size();
    at_valid_ = std::isfinite(rows_.loss(eta_, r_)) && r_.allFinite();
    if (at_valid_) at_ = theta;
    return at_valid_;
  }

  // The m leapfrog steps on U1 from eta_ (momentum p0 + Z' a with a = 0, velocity v0 = W p0):
  // leaves a_ and sum_a_ (the sum of a over the position updates).
  bool inner(const Vec& v0, double h) {
    at_valid_ = false;  // eta_ and r_ leave the remembered point
    const int m = inner_steps(h);
    const double dl = h / m;
    vs_.noalias() = rows_.Z * v0;
    a_.setZero();
    sum_a_.setZero();
    for (int k = 0; k < m; ++k) {
      a_.noalias() -= (0.5 * dl) * r_;
      eta_.noalias() += dl * vs_;
      eta_.noalias() += dl * (Q_ * a_);
      sum_a_ += a_;
      row_evaluations_ += rows_.size();
      if (!std::isfinite(rows_.loss(eta_, r_)) || !r_.allFinite()) return false;
      a_.noalias() -= (0.5 * dl) * r_;
    }
    return true;
  }

  // The largest eigenvalue of C^1/2 Q C^1/2 (C: the curvature bounds), by power iteration
  // (30 steps, then 5% added: it approaches from below).
  double largest_curvature() const {
    const Vec c = rows_.curvature_bound.cwiseMax(0.0).cwiseSqrt();
    const Mat B = c.asDiagonal() * Q_ * c.asDiagonal();
    Vec x = Vec::Ones(B.rows());
    double lambda = 0.0;
    for (int it = 0; it < 30; ++it) {
      const Vec y = B * x;
      const double norm = y.norm();
      if (!(norm > 0.0)) return 0.0;
      lambda = x.dot(y) / x.squaredNorm();
      x = y / norm;
    }
    return 1.05 * lambda;
  }

  StiffRows rows_;
  double resolution_;
  Mat WZt_, Q_;
  double kappa_ = 0.0;
  std::uint64_t metric_revision_ = 0;  // the metric W Z', Q and kappa are for (0: none yet)
  Vec eta_, r_, a_, sum_a_, vs_, zr_;
  Vec at_;  // where eta_ and r_ were last evaluated (when at_valid_)
  bool at_valid_ = false;
  long row_evaluations_ = 0;
};

// The stiff rows of a potential at its Laplace Hessian, for potentials that have them (the
// GLM's overload, model/glm/stiff_rows.hpp, found by argument-dependent lookup); none here.
template <class P>
std::optional<StiffRows> find_stiff_rows(P&, const Mat&, const SplitConfig&) {
  return std::nullopt;
}
// How many likelihood rows the potential has (0: none it can name; the GLM's overload counts them).
template <class P>
long likelihood_rows(const P&) {
  return 0;
}

}  // namespace vhmc
