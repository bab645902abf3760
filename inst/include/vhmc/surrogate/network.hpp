#pragma once
// The random-basis network surrogate (Zhang, Shahbaba & Zhao 2017, eq. 10; 2018, eq. 3.1):
//   z(theta) = sum_i v_i sigma(w_hat_i . u + d_hat_i) + b,   u = L^{-1}(theta - m),
// with the bases drawn once in standardized coordinates u (vhmc's law: w_hat_i ~ N(0, I_d/d),
// d_hat_i ~ N(0, 1); RBF nodes phi_i = exp(-|u - c_i|^2/(2 ell_i^2)), c_i ~ N(0, I_d),
// ell_i^2 = d/chi2_1) and frozen; only v (and the output offset b) are trained (trainer.hpp).
// This is the papers' network in theta with theta-space weights w_i = L^{-T} w_hat_i and
// biases d_i = d_hat_i - w_i . m (theta_space_bases()); `basis_coords = "raw"` is the identity
// Standardizer. Value/gradient cost O(sd + d^2), Hessian O(sd^2 + d^3).
#include <cmath>
#include <stdexcept>
#include <string>

#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "activation.hpp"
#include "exact_rows.hpp"
#include "standardizer.hpp"

namespace vhmc {

class RandomBasisNetwork {
 public:
  RandomBasisNetwork() = default;

  // Draw s bases in u-space from rng, row by row: additive nodes take d normals
  // (w_hat_i = z / sqrt(d)) then one normal (d_hat_i); RBF nodes take d normals (c_i) then
  // one normal z with ell_i^2 = d / z^2. v = 0, b = 0 afterwards.
  void draw(int s, Activation act, const Standardizer& st, Rng& rng) {
    const int d = st.dim();
    if (s < 1) throw std::invalid_argument("RandomBasisNetwork::draw: s (hidden) must be >= 1");
    check_standardizer(st);
    Mat W(s, d);
    Vec aux(s);
    const double wsd = 1.0 / std::sqrt(static_cast<double>(d));
    for (int i = 0; i < s; ++i) {
      if (act == Activation::Rbf) {
        for (int j = 0; j < d; ++j) W(i, j) = rng.normal();
        double z2 = 0.0;
        while (!(z2 > 1e-300)) {
          const double z = rng.normal();
          z2 = z * z;
        }
        aux[i] = static_cast<double>(d) / z2;
      } else {
        for (int j = 0; j < d; ++j) W(i, j) = wsd * rng.normal();
        aux[i] = rng.normal();
      }
    }
    set_bases(act, st, W, aux);
  }

  // Install given bases (e.g. restored from R): W is s x d (w_hat rows, or RBF centres c_i
  // in u-space), aux has size s (d_hat, or RBF squared widths ell_i^2 > 0). v = 0, b = 0.
  void set_bases(Activation act, const Standardizer& st, const Mat& W, const Vec& aux) {
    check_standardizer(st);
    const int d = st.dim();
    if (W.cols() != d || W.rows() < 1 || aux.size() != W.rows())
      throw std::invalid_argument("RandomBasisNetwork::set_bases: W must be s x d and aux of size s");
    if (!W.allFinite() || !aux.allFinite())
      throw std::invalid_argument("RandomBasisNetwork::set_bases: non-finite bases");
    if (act == Activation::Rbf && !(aux.array() > 0).all())
      throw std::invalid_argument("RandomBasisNetwork::set_bases: RBF squared widths must be > 0");
    act_ = act;
    st_ = st;
    W_ = W;
    aux_ = aux;
    const Eigen::Index s = W.rows();
    if (act_ == Activation::Rbf) {
      inv_ell2_ = aux_.cwiseInverse();
      cnorm2_ = W_.rowwise().squaredNorm();
    } else {
      inv_ell2_.resize(0);
      cnorm2_.resize(0);
    }
    v_ = Vec::Zero(s);
    b_ = 0.0;
    Q_.resize(0, 0);
    qb_.resize(0);
    u_.resize(d);
    gu_.resize(d);
    a_.resize(s);
    r_.resize(s);
  }

  // Keeps the first s bases (0 <= s <= hidden()) with their weights; with s = 0 the
  // surrogate is its quadratic base alone. Used after choosing the number of bases by
  // held-out error (train_surrogate.hpp): bases are drawn i.i.d., so any prefix is itself a
  // random-basis network, and its ridge fit is the top-left block of the full Gram matrix.
  void truncate(int s) {
    if (s < 0 || s > hidden()) throw std::invalid_argument("RandomBasisNetwork::truncate: 0 <= s <= hidden() needed");
    W_.conservativeResize(s, Eigen::NoChange);
    aux_.conservativeResize(s);
    v_.conservativeResize(s);
    a_.resize(s);
    r_.resize(s);
    if (act_ == Activation::Rbf) {
      inv_ell2_.conservativeResize(s);
      cnorm2_.conservativeResize(s);
    }
  }

  int hidden() const { return static_cast<int>(W_.rows()); }
  int dim() const { return static_cast<int>(W_.cols()); }
  int dim_for_target() const { return dim(); }
  Activation activation() const { return act_; }
  const Standardizer& standardizer() const { return st_; }
  // Never drawn (a truncated network with zero bases is not empty: its quadratic base remains).
  bool empty() const { return W_.cols() == 0; }

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

  // u-space bases: w_hat (s x d) and d_hat (s); for RBF the centres and squared widths.
  const Mat& w_hat() const { return W_; }
  const Vec& d_hat() const { return aux_; }

  // Equivalent theta-space parameters of additive nodes:
  // W = W_hat L^{-1} (rows w_i = L^{-T} w_hat_i), d = d_hat - W m.
  void theta_space_bases(Mat& W, Vec& dvec) const {
    if (act_ == Activation::Rbf)
      throw std::logic_error("theta_space_bases: RBF nodes have no additive theta-space form");
    W = st_.L.triangularView<Eigen::Lower>().transpose().solve(W_.transpose()).transpose();
    dvec = aux_ - W * st_.m;
  }

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
    if (is_additive(act_)) {
      a_.noalias() = W_ * u_;
      a_ += aux_;
      act::d1_array(act_, a_, r_);
      r_.array() *= v_.array();
      gu_.noalias() = W_.transpose() * r_;
      if (has_quadratic()) quad_u(&gu_);
    } else {
      value_u(&gu_);
    }
    if (g.size() != gu_.size()) g.resize(gu_.size());
    st_.grad_to_theta(gu_, g);
    rows_value(theta, &g);
  }

  // theta-space Hessian L^{-T} H_u L^{-1}, H_u = W_hat' diag(v o sigma''(a)) W_hat (additive)
  // or sum_i v_i phi_i [(u-c_i)(u-c_i)'/ell_i^4 - I/ell_i^2] (RBF). Allocates.
  Mat hessian(const Vec& theta) {
    st_.to_u(theta, u_);
    const int d = dim();
    Mat Hu(d, d);
    if (is_additive(act_)) {
      a_.noalias() = W_ * u_;
      a_ += aux_;
      for (Eigen::Index i = 0; i < a_.size(); ++i) r_[i] = v_[i] * act::d2(act_, a_[i]);
      Hu.noalias() = W_.transpose() * (W_.array().colwise() * r_.array()).matrix();
    } else {
      rbf_phi();  // a_ = phi
      Mat D = (-W_).rowwise() + u_.transpose();  // rows u - c_i
      double diag = 0.0;
      for (Eigen::Index i = 0; i < a_.size(); ++i) {
        const double q = v_[i] * a_[i] * inv_ell2_[i];
        diag += q;
        r_[i] = q * inv_ell2_[i];
      }
      Hu.noalias() = D.transpose() * (D.array().colwise() * r_.array()).matrix();
      Hu.diagonal().array() -= diag;
    }
    if (has_quadratic()) Hu += Q_;
    return theta_hessian(Hu, theta);
  }
  // The base's theta-space Hessian at theta: L^{-T} Q L^{-1} plus the exact rows' Hessian
  // (the surrogate dynamics' metric, sampler/surrogate_dynamics.hpp). Allocates.
  Mat base_hessian(const Vec& theta) { return theta_hessian(Q_, theta); }

  // Hidden outputs h_i = sigma(a_i) (additive) or phi_i (RBF), size s.
  void features(const Vec& theta, Eigen::Ref<Vec> h) {
    st_.to_u(theta, u_);
    if (is_additive(act_)) {
      h.noalias() = W_ * u_;
      h += aux_;
      for (Eigen::Index i = 0; i < h.size(); ++i) h[i] = act::value(act_, h[i]);
    } else {
      rbf_phi();
      h = a_;
    }
  }

  // A_u(u) (d x s; A must already have that size): column i = sigma'(a_i) w_hat_i, or -phi_i (u - c_i)/ell_i^2; grad_u z = A v.
  void jacobian_u(const Vec& theta, Eigen::Ref<Mat> A) {
    st_.to_u(theta, u_);
    if (is_additive(act_)) {
      a_.noalias() = W_ * u_;
      a_ += aux_;
      for (Eigen::Index i = 0; i < a_.size(); ++i) r_[i] = act::d1(act_, a_[i]);
      A = W_.transpose();
      A *= r_.asDiagonal();
    } else {
      rbf_phi();
      A = W_.transpose();  // columns c_i
      A.colwise() -= u_;   // c_i - u
      r_ = a_.cwiseProduct(inv_ell2_);
      A *= r_.asDiagonal();
    }
  }

  // ---- block helpers for the trainers (u-space points as the columns of Ut, d x n) ----
  // Hidden outputs H (s x n).
  void block_hidden(const Mat& Ut, Mat& H) const {
    if (is_additive(act_)) {
      block_preact(Ut, H);
      H = H.unaryExpr([a = act_](double x) { return act::value(a, x); });
    } else {
      block_rbf_exponent(Ut, H);
      H = H.array().exp();
    }
  }
  // Slopes S = sigma'(a) (s x n); additive nodes only (the Hadamard Gram path).
  void block_slopes(const Mat& Ut, Mat& S) const {
    if (!is_additive(act_)) throw std::logic_error("block_slopes: additive nodes only");
    block_preact(Ut, S);
    S = S.unaryExpr([a = act_](double x) { return act::d1(a, x); });
  }

 private:
  // L^{-T} Hu L^{-1} (Hu a u-space Hessian) plus the exact rows' Hessian at theta,
  // symmetrised.
  Mat theta_hessian(const Mat& Hu, const Vec& theta) {
    const auto Lt = st_.L.triangularView<Eigen::Lower>().transpose();
    const Mat X = Lt.solve(Hu);            // L^{-T} H_u
    Mat H = Lt.solve(Mat(X.transpose()));  // L^{-T} H_u L^{-1}
    if (has_exact_rows()) rows_.add_hessian(theta, H);
    return 0.5 * (H + H.transpose());
  }
  static void check_standardizer(const Standardizer& st) {
    const int d = st.dim();
    if (d < 1 || st.L.rows() != d || st.L.cols() != d)
      throw std::invalid_argument("Standardizer: m of size d >= 1 and d x d L needed");
    if (!st.m.allFinite() || !st.L.allFinite() || !(st.L.diagonal().array() != 0).all())
      throw std::invalid_argument("Standardizer: L must be finite, lower triangular, nonsingular");
  }

  // a_ = W_hat Ut + d_hat 1' into A (s x n).
  void block_preact(const Mat& Ut, Mat& A) const {
    A.noalias() = W_ * Ut;
    A.colwise() += aux_;
  }
  // E_in = -|u_n - c_i|^2 / (2 ell_i^2) (s x n).
  void block_rbf_exponent(const Mat& Ut, Mat& E) const {
    E.noalias() = W_ * Ut;  // c_i . u_n
    const Vec un2 = Ut.colwise().squaredNorm().transpose();
    for (Eigen::Index n = 0; n < E.cols(); ++n)
      for (Eigen::Index i = 0; i < E.rows(); ++i) {
        const double dist2 = std::fmax(cnorm2_[i] - 2.0 * E(i, n) + un2[n], 0.0);
        E(i, n) = -0.5 * dist2 * inv_ell2_[i];
      }
  }

  // The exact rows' value (0 without rows), their gradient added to *g when g != nullptr.
  double rows_value(const Vec& theta, Vec* g) {
    return has_exact_rows() ? rows_.add_value_grad(theta, g) : 0.0;
  }

  // a_ = phi(u_) for RBF nodes.
  void rbf_phi() {
    a_.noalias() = W_ * u_;
    const double un2 = u_.squaredNorm();
    for (Eigen::Index i = 0; i < a_.size(); ++i) {
      const double dist2 = std::fmax(cnorm2_[i] - 2.0 * a_[i] + un2, 0.0);
      a_[i] = std::exp(-0.5 * dist2 * inv_ell2_[i]);
    }
  }

  // z at u_; if gu != nullptr also grad_u z into *gu.
  double value_u(Vec* gu) {
    if (empty()) throw std::logic_error("RandomBasisNetwork: no bases drawn");
    double z = 0.0;
    if (is_additive(act_)) {
      a_.noalias() = W_ * u_;
      a_ += aux_;
      if (gu == nullptr) {
        for (Eigen::Index i = 0; i < a_.size(); ++i) z += v_[i] * act::value(act_, a_[i]);
      } else {
        for (Eigen::Index i = 0; i < a_.size(); ++i) {
          double f, f1;
          act::value_d1(act_, a_[i], f, f1);
          z += v_[i] * f;
          r_[i] = v_[i] * f1;
        }
        gu->noalias() = W_.transpose() * r_;
      }
    } else {
      rbf_phi();
      z = a_.dot(v_);
      if (gu != nullptr) {
        // grad_u z = sum_i v_i phi_i (c_i - u)/ell_i^2 = C' r - (sum r) u.
        r_ = v_.cwiseProduct(a_).cwiseProduct(inv_ell2_);
        gu->noalias() = W_.transpose() * r_;
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

  Activation act_ = Activation::Softplus;
  Standardizer st_;
  Mat W_;          // s x d: w_hat rows, or RBF centres
  Vec aux_;        // s: d_hat, or RBF ell^2
  Vec inv_ell2_;   // RBF: 1/ell^2
  Vec cnorm2_;     // RBF: |c_i|^2
  Vec v_;
  double b_ = 0.0;
  Mat Q_;          // quadratic base (empty: none)
  Vec qb_;
  ExactRows rows_; // exact likelihood rows (size 0: none)
  // evaluation buffers (one chain per network)
  Vec u_, gu_, a_, r_, qg_;
};

}  // namespace vhmc
