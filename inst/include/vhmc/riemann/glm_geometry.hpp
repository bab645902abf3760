#pragma once
// The Fisher metric of a GLM for Riemannian-manifold HMC (Girolami & Calderhead 2011,
// eq. 35 for logistic regression): G(theta) = Z' diag(lam) Z + P, with Z the design in the
// sampler's coordinates, lam = w b''(eta) and P the priors' (constant) Fisher information
// (GlmPotential::fisher_weights, prior_fisher_diag). With dlam = w b'''(eta),
//   dG/dtheta_i = Z' diag(dlam .* Z_i) Z,
// so the two terms of the generalized leapfrog are sums over rows (Z_n the n-th row):
//   t_i  = tr(G^{-1} dG/dtheta_i) = sum_n dlam_n Z_ni (Z_n G^{-1} Z_n'),
//   nu_i = v' dG/dtheta_i v        = sum_n dlam_n Z_ni (Z_n v)^2.
// t costs O(N d^2) (like G), nu O(N d); both by blocks of rows, never a copy of X.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../model/glm.hpp"
#include "../model/target.hpp"
#include "riemann_point.hpp"

namespace vhmc {

class GlmGeometry {
 public:
  explicit GlmGeometry(GlmPotential& pot) : pot_(pot), target_(pot), prior_(pot.prior_fisher_diag()) {
    if (!pot.has_fisher())
      throw std::invalid_argument("the Fisher metric needs a binomial-logit or poisson-log GLM");
  }

  int dim() const { return pot_.dim(); }
  EvalCounts counts() const { return target_.counts(); }
  bool settle(const RiemannPoint&) const { return true; }  // at() computed U
  long metric_evaluations() const { return n_metric_; }

  bool at(const Vec& theta, RiemannPoint& pt) { return metric_at(theta, pt) && complete(pt); }

  // G at theta and its factor only: what an iterate of the position's fixed point needs
  // (riemann/generalized_leapfrog.hpp); complete() adds U, its gradient and the trace terms
  // at the converged point, so an iterate costs one O(N d^2) product instead of two.
  bool metric_at(const Vec& theta, RiemannPoint& pt) {
    pt.theta = theta;
    ++n_metric_;
    pot_.fisher_weights(theta, lam_, pt.scratch);
    fisher(G_);
    return pt.set_dense(G_) && std::isfinite(pt.log_det);  // a non-finite G fails here, not after 50 iterates
  }
  bool complete(RiemannPoint& pt) {
    pt.U = target_.U_grad(pt.theta, pt.grad);
    if (!std::isfinite(pt.U)) return false;
    traces(pt);
    return pt.trace.allFinite();
  }

  void nu(const RiemannPoint& pt, const Vec& v, Vec& out) {
    out.setZero(dim());
    for_blocks([&](Eigen::Index r0, Eigen::Index m) {
      s_.noalias() = zb_ * v;
      s_.array() = pt.scratch.segment(r0, m).array() * s_.array().square();
      out.noalias() += zb_.transpose() * s_;
    });
  }

 private:
  template <class F>
  void for_blocks(F&& f) {
    const Eigen::Index n = pot_.data().n(), B = 2048;
    for (Eigen::Index r0 = 0; r0 < n; r0 += B) {
      const Eigen::Index m = std::min(B, n - r0);
      pot_.design_rows(r0, m, zb_);
      f(r0, m);
    }
  }

  void fisher(Mat& G) {
    G = prior_.asDiagonal();
    for_blocks([&](Eigen::Index r0, Eigen::Index m) {
      wz_ = lam_.segment(r0, m).asDiagonal() * zb_;
      G.noalias() += zb_.transpose() * wz_;
    });
    G = 0.5 * (G + G.transpose());
  }

  // q_n = |L^{-1} Z_n'|^2 = Z_n G^{-1} Z_n', then t = Z' (dlam .* q).
  void traces(RiemannPoint& pt) {
    pt.trace.setZero(dim());
    for_blocks([&](Eigen::Index r0, Eigen::Index m) {
      y_ = zb_.transpose();
      pt.chol.matrixL().solveInPlace(y_);
      s_ = y_.colwise().squaredNorm().transpose();
      s_.array() *= pt.scratch.segment(r0, m).array();
      pt.trace.noalias() += zb_.transpose() * s_;
    });
  }

  GlmPotential& pot_;
  Target<GlmPotential> target_;
  long n_metric_ = 0;
  Vec prior_, lam_, s_;
  Mat zb_, wz_, G_, y_;  // per-evaluation storage, reused (a block of at most 2048 rows)
};

template <>
struct GeometryFor<GlmPotential> {
  using type = GlmGeometry;
};

}  // namespace vhmc
