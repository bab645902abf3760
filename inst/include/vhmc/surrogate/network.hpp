#pragma once
// The random-basis network surrogate (Zhang, Shahbaba & Zhao 2017, eq. 10; 2018, eq. 3.1):
//   z(theta) = sum_i v_i sigma(w_hat_i . u + d_hat_i) + b,   u = L^{-1}(theta - m),
// over bases drawn once in standardized coordinates u and frozen (RandomBases,
// random_bases.hpp, which holds their law); only v (and the output offset b) are trained
// (trainer.hpp). This is the papers' network in theta with theta-space weights
// w_i = L^{-T} w_hat_i and biases d_i = d_hat_i - w_i . m (RandomBases::theta_space_bases());
// `basis_coords = "raw"` is the identity Standardizer. Value/gradient cost O(sd + d^2),
// Hessian O(sd^2 + d^3).
#include <cmath>
#include <stdexcept>
#include <string>

#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "activation.hpp"
#include "exact_rows.hpp"
#include "random_bases.hpp"
#include "standardizer.hpp"

namespace vhmc {

class RandomBasisNetwork {
 public:
  RandomBasisNetwork() = default;

  // Draw s bases in the u-space of st (RandomBases::draw). v = 0, b = 0, no quadratic base
  // afterwards; the exact rows are kept (they are chosen before the bases are drawn).
  void draw(int s, Activation act, const Standardizer& st, Rng& rng) {
    st.check();
    bases_.draw(s, act, st.dim(), rng);
    reset(st);
  }

  // Install given bases (e.g. restored from R; RandomBases::set_bases). As after draw().
  void set_bases(Activation act, const Standardizer& st, const Mat& W, const Vec& aux) {
    st.check();
    bases_.set_bases(act, st.dim(), W, aux);
    reset(st);
  }

  // Keeps the first s bases (0 <= s <= hidden()) with their weights; with s = 0 the
  // surrogate is its quadratic base alone. Used after choosing the number of bases by
  // held-out error (train_surrogate.hpp): any prefix of the bases is itself a random-basis
  // network (RandomBases::truncate), and its ridge fit is the top-left block of the full
  // Gram matrix.
  void truncate(int s) {
    bases_.truncate(s);
    v_.conservativeResize(s);
    a_.resize(s);
    r_.resize(s);
  }

  // The bases, read-only: new ones come through draw() or set_bases(), which reset what was
  // fitted to the old ones. hidden(), dim() and activation() are the network's shape.
  const RandomBases& bases() const { return bases_; }
  int hidden() const { return bases_.hidden(); }
  int dim() const { return bases_.dim(); }
  int dim_for_target() const { return dim(); }
  Activation activation() const { return bases_.activation(); }
  const Standardizer& standardizer() const { return st_; }
  // Never drawn (a truncated network with zero bases is not empty: its quadratic base remains).
  bool empty() const { return bases_.empty(); }

  // Quadratic base q(u) = u'Qu/2 + b'u added to the network (Q symmetric, d x d; in
  // u-space). Why: a posterior near a Gaussian has a potential near a quadratic, which sums
  // of ridge functions represent only coarsely; with the quadratic fitted first
  // (fit_quadratic_gradients, trainer.hpp) the bases only fit the non-Gaussian remainder.
  void set_quadratic(const Mat& Q, const Vec& b) {
    if (Q.rows() != dim() || Q.cols() != dim() || b.size() != dim() || !Q.allFinite() || !b.allFinite())
      throw std::invalid_argument("RandomBasisNetwork::set_quadratic: Q must be d x d and b of size d, finite");
    Q_ = 0.5 * (Q + Q.transpose());
    qb_ = b;
  }
  bool has_quadratic() const { return Q_.rows() > 0; }
  const Mat& quadratic_Q() const { return Q_; }
  // q(u(theta)) and grad_theta q (zero without a quadratic base).
  // The base is the quadratic plus the exact rows (when set).
  double base_value(const Vec& theta) {
    const double rows = rows_value(theta, nullptr);
    if (!has_quadratic()) return rows;
    st_.to_u(theta, u_);
    return quad_u(nullptr) + rows;
  }
  void base_grad(const Vec& theta, Vec& g) {
    g.setZero(dim());
    if (has_quadratic()) {
      st_.to_u(theta, u_);
      gu_.setZero();
      quad_u(&gu_);
      st_.grad_to_theta(gu_, g);
    }
    rows_value(theta, &g);
  }

  // Rows of the likelihood the surrogate computes exactly (exact_rows.hpp), added to the
  // quadratic base and the bases; none by default.
  void set_exact_rows(ExactRows rows) { rows_ = std::move(rows); }
  bool has_exact_rows() const { return rows_.size() > 0; }
  ExactRows& exact_rows() { return rows_; }

  Vec& weights() { return v_; }
  const Vec& weights() const { return v_; }
  double& offset() { return b_; }
  double offset() const { return b_; }

  // z = h(u)'v + b. No heap allocation.
  double value(const Vec& theta) {
    st_.to_u(theta, u_);
    return value_u(nullptr) + rows_value(theta, nullptr);
  }

  // Returns z; g = grad_theta z = L^{-T} A_u(u) v (resized to d if needed). No heap
  // allocation once g has size d.
  double value_grad(const Vec& theta, Vec& g) {
    st_.to_u(theta, u_);
    const double z = value_u(&gu_);
    if (g.size() != gu_.size()) g.resize(gu_.size());
    st_.grad_to_theta(gu_, g);
    return z + rows_value(theta, &g);
  }

  // g = grad_theta z only (the value is not formed): what surrogate trajectories need. For
  // additive nodes sigma'(a) comes from array expressions with one exp per node, which
  // Eigen vectorises (act::d1_array); this is the inner loop of surrogate HMC.
  void grad(const Vec& theta, Vec& g) {
    if (empty()) throw std::logic_error("RandomBasisNetwork: no bases drawn");
    st_.to_u(theta, u_);
    const Activation act = activation();
    if (is_additive(act)) {
      bases_.preact(u_, a_);
      act::d1_array(act, a_, r_);
      r_.array() *= v_.array();
      gu_.noalias() = bases_.w_hat().transpose() * r_;
      if (has_quadratic()) quad_u(&gu_);
    } else {
      value_u(&gu_);
    }
    if (g.size() != gu_.size()) g.resize(gu_.size());
    st_.grad_to_theta(gu_, g);
    rows_value(theta, &g);
  }

  // theta-space Hessian L^{-T} H_u L^{-1}: the weighted bases' (RandomBases::hessian_u)
  // plus the quadratic base's and the exact rows'. Allocates.
  Mat hessian(const Vec& theta) {
    st_.to_u(theta, u_);
    Mat Hu = bases_.hessian_u(u_, v_, a_, r_);
    if (has_quadratic()) Hu += Q_;
    return theta_hessian(Hu, theta);
  }
  // The base's theta-space Hessian at theta: L^{-T} Q L^{-1} plus the exact rows' Hessian
  // (the surrogate dynamics' metric, sampler/surrogate_dynamics.hpp). Allocates.
  Mat base_hessian(const Vec& theta) { return theta_hessian(Q_, theta); }

  // Hidden outputs h_i = sigma(a_i) (additive) or phi_i (RBF), size s.
  void features(const Vec& theta, Eigen::Ref<Vec> h) {
    st_.to_u(theta, u_);
    const Activation act = activation();
    if (is_additive(act)) {
      bases_.preact(u_, h);
      for (Eigen::Index i = 0; i < h.size(); ++i) h[i] = act::value(act, h[i]);
    } else {
      bases_.rbf_phi(u_, h);
    }
  }

  // A_u(u) (d x s; A must already have that size): column i = sigma'(a_i) w_hat_i, or -phi_i (u - c_i)/ell_i^2; grad_u z = A v.
  void jacobian_u(const Vec& theta, Eigen::Ref<Mat> A) {
    st_.to_u(theta, u_);
    const Activation act = activation();
    if (is_additive(act)) {
      bases_.preact(u_, a_);
      for (Eigen::Index i = 0; i < a_.size(); ++i) r_[i] = act::d1(act, a_[i]);
      A = bases_.w_hat().transpose();
      A *= r_.asDiagonal();
    } else {
      bases_.rbf_phi(u_, a_);
      A = bases_.w_hat().transpose();  // columns c_i
      A.colwise() -= u_;               // c_i - u
      r_ = a_.cwiseProduct(bases_.inv_ell2());
      A *= r_.asDiagonal();
    }
  }

 private:
  // After new bases: st_ their standardizer, no weights, no quadratic base, buffers sized.
  void reset(const Standardizer& st) {
    st_ = st;
    const int s = hidden(), d = dim();
    v_ = Vec::Zero(s);
    b_ = 0.0;
    Q_.resize(0, 0);
    qb_.resize(0);
    u_.resize(d);
    gu_.resize(d);
    a_.resize(s);
    r_.resize(s);
  }

  // L^{-T} Hu L^{-1} (Hu a u-space Hessian) plus the exact rows' Hessian at theta,
  // symmetrised.
  Mat theta_hessian(const Mat& Hu, const Vec& theta) {
    const auto Lt = st_.L.triangularView<Eigen::Lower>().transpose();
    const Mat X = Lt.solve(Hu);            // L^{-T} H_u
    Mat H = Lt.solve(Mat(X.transpose()));  // L^{-T} H_u L^{-1}
    if (has_exact_rows()) rows_.add_hessian(theta, H);
    return 0.5 * (H + H.transpose());
  }

  // The exact rows' value (0 without rows), their gradient added to *g when g != nullptr.
  double rows_value(const Vec& theta, Vec* g) {
    return has_exact_rows() ? rows_.add_value_grad(theta, g) : 0.0;
  }

  // z at u_; if gu != nullptr also grad_u z into *gu.
  double value_u(Vec* gu) {
    if (empty()) throw std::logic_error("RandomBasisNetwork: no bases drawn");
    const Activation act = activation();
    double z = 0.0;
    if (is_additive(act)) {
      bases_.preact(u_, a_);
      if (gu == nullptr) {
        for (Eigen::Index i = 0; i < a_.size(); ++i) z += v_[i] * act::value(act, a_[i]);
      } else {
        for (Eigen::Index i = 0; i < a_.size(); ++i) {
          double f, f1;
          act::value_d1(act, a_[i], f, f1);
          z += v_[i] * f;
          r_[i] = v_[i] * f1;
        }
        gu->noalias() = bases_.w_hat().transpose() * r_;
      }
    } else {
      bases_.rbf_phi(u_, a_);
      z = a_.dot(v_);
      if (gu != nullptr) {
        // grad_u z = sum_i v_i phi_i (c_i - u)/ell_i^2 = C' r - (sum r) u.
        r_ = v_.cwiseProduct(a_).cwiseProduct(bases_.inv_ell2());
        gu->noalias() = bases_.w_hat().transpose() * r_;
        *gu -= r_.sum() * u_;
      }
    }
    if (has_quadratic()) z += quad_u(gu);
    return z + b_;
  }

  // q(u_) = u'Qu/2 + b'u; adds Qu + b to *gu when gu != nullptr.
  double quad_u(Vec* gu) {
    qg_.noalias() = Q_ * u_;
    const double q = u_.dot(0.5 * qg_ + qb_);
    if (gu != nullptr) *gu += qg_ + qb_;
    return q;
  }

  RandomBases bases_;
  Standardizer st_;  // the u-space the bases were drawn in
  Vec v_;            // output weights
  double b_ = 0.0;   // output offset
  Mat Q_;            // quadratic base (empty: none)
  Vec qb_;
  ExactRows rows_;   // exact likelihood rows (size 0: none)
  // evaluation buffers (one chain per network)
  Vec u_, gu_, a_, r_, qg_;
};

}  // namespace vhmc
