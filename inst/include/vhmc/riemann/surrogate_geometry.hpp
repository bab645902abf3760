#pragma once
// The geometry of RNS-RMHMC (Zhang, Shahbaba & Zhao 2017, eqs. 7-9): the dynamics follow a
// trained random-basis network z (surrogate/network.hpp) with the diagonal metric
//   G_jj(theta) = sqrt(h_j^2 + delta_j^2),   h = diag of the Hessian of z,
// a smooth positive map of the Hessian diagonal (h may be negative where z is not convex;
// the authors' code takes the Cholesky factor of the full Hessian, which then fails). With
// theta-space weights W (s x d), r2 = v o sigma''(a), r3 = v o sigma'''(a), a = W theta + b,
//   h_j          = sum_k r2_k W_kj^2 + (L^{-T} Q L^{-1})_jj     (the quadratic base's part is constant)
//   dh_j/dtheta_i = sum_k r3_k W_ki W_kj^2,   dG_jj/dtheta_i = (h_j / G_jj) dh_j/dtheta_i,
// so t_i = sum_j dG_jj/dtheta_i / G_jj = [W' (r3 o (W^2 (h / G^2)))]_i and
//    nu_i = sum_j dG_jj/dtheta_i v_j^2 = [W' (r3 o (W^2 (h / G o v^2)))]_i:
// O(s d) per state, the cost of a surrogate gradient. delta_j = delta / Sigma_jj, the
// standardisation's variance, i.e. delta in standardized units. The true potential enters
// only the Metropolis step, at the ends of a trajectory (settle()), as exactness requires:
// exp(-U) N(p; 0, G(theta)) has theta-marginal pi for any smooth positive G.
#include <cmath>
#include <stdexcept>

#include "../model/target.hpp"
#include "../surrogate/network.hpp"
#include "riemann_point.hpp"

namespace vhmc {

template <class P>
class SurrogateDiagGeometry {
 public:
  SurrogateDiagGeometry(P& potential, RandomBasisNetwork& net, double delta)
      : truth_(potential), net_(net), d_(potential.dim()) {
    if (!is_additive(net.activation()))
      throw std::invalid_argument("the Riemannian surrogate dynamics need additive nodes (softplus, sigmoid or tanh)");
    net.theta_space_bases(W_, b_);
    W2_ = W_.array().square().matrix();
    const Standardizer& st = net.standardizer();
    const Mat Sigma = st.L * st.L.transpose();
    delta_ = delta * Sigma.diagonal().cwiseInverse();
    h_base_ = Vec::Zero(d_);
    if (net.has_quadratic()) {
      const auto Lt = st.L.triangularView<Eigen::Lower>().transpose();
      const Mat X = Lt.solve(net.quadratic_Q());
      h_base_ = Lt.solve(Mat(X.transpose())).diagonal();
    }
    const Eigen::Index s = W_.rows();
    a_.resize(s);
    r2_.resize(s);
    col_.resize(s);
    hg_.resize(d_);
  }

  int dim() const { return d_; }
  EvalCounts counts() const {
    EvalCounts c = truth_.counts();
    c.surrogate_grad = n_metric_;
    return c;
  }
  long metric_evaluations() const { return n_metric_; }

  // The surrogate's gradient and metric at theta; U is left unknown (settle()).
  bool at(const Vec& theta, RiemannPoint& pt) {
    ++n_metric_;
    pt.theta = theta;
    pt.U = NAN;
    net_.grad(theta, pt.grad);
    const Eigen::Index s = W_.rows();
    a_.noalias() = W_ * theta;
    a_ += b_;
    pt.scratch.resize(s + d_);  // r3, then h / G
    const Vec& v = net_.weights();
    const Activation act = net_.activation();
    for (Eigen::Index k = 0; k < s; ++k) {
      r2_[k] = v[k] * act::d2(act, a_[k]);
      pt.scratch[k] = v[k] * act::d3(act, a_[k]);
    }
    hg_.noalias() = W2_.transpose() * r2_;
    hg_ += h_base_;  // h
    pt.is_diag = true;
    pt.diag = (hg_.array().square() + delta_.array().square()).sqrt().matrix();
    pt.log_det = pt.diag.array().log().sum();
    pt.scratch.tail(d_) = hg_.cwiseQuotient(pt.diag);
    hg_.array() = pt.scratch.tail(d_).array() / pt.diag.array();  // h / G^2
    contract(pt, hg_, pt.trace);
    return pt.grad.allFinite() && pt.trace.allFinite() && std::isfinite(pt.log_det);
  }

  void nu(const RiemannPoint& pt, const Vec& v, Vec& out) {
    hg_.array() = pt.scratch.tail(d_).array() * v.array().square();
    contract(pt, hg_, out);
  }

  // The true potential at a trajectory's end, for the Metropolis step.
  bool settle(RiemannPoint& pt) {
    pt.U = truth_.U(pt.theta);
    return std::isfinite(pt.U);
  }

 private:
  // out = W' (r3 o (W^2 x)).
  void contract(const RiemannPoint& pt, const Vec& x, Vec& out) {
    const Eigen::Index s = W_.rows();
    col_.noalias() = W2_ * x;
    col_.array() *= pt.scratch.head(s).array();
    out.resize(d_);
    out.noalias() = W_.transpose() * col_;
  }

  Target<P> truth_;
  RandomBasisNetwork& net_;
  int d_;
  long n_metric_ = 0;
  Mat W_, W2_;
  Vec b_, delta_, h_base_, a_, r2_, col_, hg_;
};

}  // namespace vhmc
