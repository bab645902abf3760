#pragma once
// The geometry of RNS-RMHMC (Zhang, Shahbaba & Zhao 2017, eqs. 7-9): the dynamics follow a
// trained random-basis network z (surrogate/network.hpp) with a metric from its Hessian.
// The network is a quadratic base (constant theta-space Hessian C) plus ridge bases whose
// Hessian W' diag(r2) W varies; r2 = v o sigma''(a), r3 = v o sigma'''(a), a = W theta + b.
// Two metrics, both smooth and positive definite everywhere (the authors' code takes the
// Cholesky factor of the full Hessian, which fails where z is not convex):
//   diagonal:  G = diag(g),      g_j = sqrt(h_j^2 + delta_j^2),  h = diag(C + W' diag(r2) W)
//   dense:     G = C+ + diag(g), g_j = sqrt(h_j^2 + delta_j^2),  h = diag(W' diag(r2) W)
// with C+ the base's Hessian, its eigenvalues made at least delta in absolute value
// (standardized units; C+ = C for the usual positive definite base).
// The diagonal metric scales each coordinate by its conditional curvature only, so on a
// correlated posterior it moves like HMC with a diagonal mass matrix; the dense one keeps
// the base's correlations (the paper's full Hessian for its convex logistic regressions)
// and lets the bases' curvature vary along the diagonal. In both only diag(g) depends on
// theta, with dh_j/dtheta_i = sum_k r3_k W_ki W_kj^2 and dG_jj/dtheta_i = (h_j / g_j) dh_j/dtheta_i:
//    t_i = tr(G^{-1} dG/dtheta_i) = [W' (r3 o (W^2 (h / g o diag(G^{-1}))))]_i,
//   nu_i = v' dG/dtheta_i v       = [W' (r3 o (W^2 (h / g o v^2)))]_i,
// O(s d) per state plus, for the dense metric, O(d^3) for the Cholesky factor and
// diag(G^{-1}). delta_j = delta / Sigma_jj, the standardisation's variance. The true potential
// enters only the Metropolis step, at the ends of a trajectory (settle()), as exactness
// requires: exp(-U) N(p; 0, G(theta)) has theta-marginal pi for any smooth positive G.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "../model/target.hpp"
#include "../surrogate/network.hpp"
#include "riemann_point.hpp"

namespace vhmc {

enum class SurrogateMetric { diagonal, dense };

template <class P>
class SurrogateGeometry {
 public:
  SurrogateGeometry(P& potential, RandomBasisNetwork& net, double delta, SurrogateMetric kind)
      : truth_(potential), net_(net), d_(potential.dim()), dense_(kind == SurrogateMetric::dense) {
    if (!is_additive(net.activation()))
      throw std::invalid_argument("the Riemannian surrogate dynamics need additive nodes (softplus, sigmoid or tanh)");
    const Standardizer& st = net.standardizer();
    net.bases().theta_space_bases(st, W_, b_);
    W2_ = W_.array().square().matrix();
    const Mat Sigma = st.L * st.L.transpose();
    delta_ = delta * Sigma.diagonal().cwiseInverse();
    h_base_ = Vec::Zero(d_);
    C_ = Mat::Zero(d_, d_);
    if (net.has_quadratic()) {
      C_ = theta_space(st, dense_ ? floored(net.quadratic_Q(), delta) : net.quadratic_Q());
      if (!dense_) h_base_ = C_.diagonal();
    }
    const Eigen::Index s = W_.rows();
    a_.resize(s);
    r2_.resize(s);
    col_.resize(s);
    hg_.resize(d_);
    G_.resize(d_, d_);
    Linv_.resize(d_, d_);
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
    g_ = (hg_.array().square() + delta_.array().square()).sqrt().matrix();
    pt.scratch.tail(d_) = hg_.cwiseQuotient(g_);
    if (!set_metric(pt)) return false;
    contract(pt, hg_, pt.trace);  // hg_ = h / g o diag(G^{-1}), from set_metric()
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
  // G from g (and C+), its factor and log det; hg_ = h / g o diag(G^{-1}) for the trace.
  bool set_metric(RiemannPoint& pt) {
    if (!dense_) {
      pt.is_diag = true;
      pt.diag = g_;
      pt.log_det = g_.array().log().sum();
      hg_.array() = pt.scratch.tail(d_).array() / g_.array();
      return g_.allFinite();
    }
    G_ = C_;
    G_.diagonal() += g_;
    if (!G_.allFinite() || !pt.set_dense(G_)) return false;
    Linv_.setIdentity();
    pt.chol.matrixL().solveInPlace(Linv_);  // G^{-1} = L^{-T} L^{-1}
    hg_ = pt.scratch.tail(d_).cwiseProduct(Linv_.colwise().squaredNorm().transpose());
    return true;
  }

  // Q (u-space, symmetric) with its eigenvalues replaced by their absolute values floored at
  // delta: positive definite, and Q itself where Q is (the usual case).
  static Mat floored(const Mat& Q, double delta) {
    Eigen::SelfAdjointEigenSolver<Mat> es(Q);
    const Vec lam = es.eigenvalues().cwiseAbs().cwiseMax(delta);
    return es.eigenvectors() * lam.asDiagonal() * es.eigenvectors().transpose();
  }
  // The theta-space Hessian L^{-T} Q L^{-1} of a u-space quadratic form, u = L^{-1}(theta - m).
  static Mat theta_space(const Standardizer& st, const Mat& Q) {
    const auto Lt = st.L.triangularView<Eigen::Lower>().transpose();
    const Mat X = Lt.solve(Q);
    const Mat C = Lt.solve(Mat(X.transpose()));
    return 0.5 * (C + C.transpose());
  }

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
  bool dense_;
  long n_metric_ = 0;
  Mat W_, W2_, C_, G_, Linv_;  // C_: the base's theta-space Hessian (C+ for the dense metric)
  Vec b_, delta_, h_base_, a_, r2_, col_, hg_, g_;
};

}  // namespace vhmc
