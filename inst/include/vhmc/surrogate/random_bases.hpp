#pragma once
// The random bases of the random-basis network (network.hpp; Zhang, Shahbaba & Zhao 2017,
// eq. 10; 2018, eq. 3.1), drawn once in standardized coordinates u = L^{-1}(theta - m) and
// frozen. vhmc's law: additive nodes sigma(w_hat_i . u + d_hat_i) with w_hat_i ~ N(0, I_d/d),
// d_hat_i ~ N(0, 1); RBF nodes phi_i = exp(-|u - c_i|^2/(2 ell_i^2)) with c_i ~ N(0, I_d),
// ell_i^2 = d/chi2_1. A unit of its own because nothing here is trained: the network adds
// what is (the output weights, the quadratic base), and the trainers (trainer.hpp) read the
// bases alone, a block of points at a time.
#include <cmath>
#include <stdexcept>

#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "activation.hpp"
#include "standardizer.hpp"

namespace vhmc {

class RandomBases {
 public:
  // Draw s bases in d-dimensional u-space from rng, row by row: additive nodes take d normals
  // (w_hat_i = z / sqrt(d)) then one normal (d_hat_i); RBF nodes take d normals (c_i) then
  // one normal z with ell_i^2 = d / z^2. The order of the normals is what makes a seed's
  // bases, hence its draws, reproducible: do not reorder.
  void draw(int s, Activation act, int d, Rng& rng) {
    if (s < 1) throw std::invalid_argument("RandomBases::draw: s (hidden) must be >= 1");
    if (d < 1) throw std::invalid_argument("RandomBases::draw: d must be >= 1");
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
    set_bases(act, d, W, aux);
  }

  // Install given bases (e.g. restored from R): W is s x d (w_hat rows, or RBF centres c_i
  // in u-space), aux has size s (d_hat, or RBF squared widths ell_i^2 > 0). Nothing changes
  // when the bases are rejected.
  void set_bases(Activation act, int d, const Mat& W, const Vec& aux) {
    if (W.cols() != d || W.rows() < 1 || aux.size() != W.rows())
      throw std::invalid_argument("RandomBases::set_bases: W must be s x d and aux of size s");
    if (!W.allFinite() || !aux.allFinite())
      throw std::invalid_argument("RandomBases::set_bases: non-finite bases");
    if (act == Activation::Rbf && !(aux.array() > 0).all())
      throw std::invalid_argument("RandomBases::set_bases: RBF squared widths must be > 0");
    act_ = act;
    W_ = W;
    aux_ = aux;
    if (act_ == Activation::Rbf) {
      inv_ell2_ = aux_.cwiseInverse();
      cnorm2_ = W_.rowwise().squaredNorm();
    } else {
      inv_ell2_.resize(0);
      cnorm2_.resize(0);
    }
  }

  // Keeps the first s bases (0 <= s <= hidden()). Bases are drawn i.i.d., so any prefix is
  // itself a draw of s bases (how train_surrogate.hpp chooses their number).
  void truncate(int s) {
    if (s < 0 || s > hidden()) throw std::invalid_argument("RandomBases::truncate: 0 <= s <= hidden() needed");
    W_.conservativeResize(s, Eigen::NoChange);
    aux_.conservativeResize(s);
    if (act_ == Activation::Rbf) {
      inv_ell2_.conservativeResize(s);
      cnorm2_.conservativeResize(s);
    }
  }

  int hidden() const { return static_cast<int>(W_.rows()); }
  int dim() const { return static_cast<int>(W_.cols()); }
  Activation activation() const { return act_; }
  // Never drawn (bases truncated to none keep their dimension).
  bool empty() const { return W_.cols() == 0; }

  // u-space bases: w_hat (s x d) and d_hat (s); for RBF the centres and squared widths.
  const Mat& w_hat() const { return W_; }
  const Vec& d_hat() const { return aux_; }
  // RBF: 1 / ell_i^2 (size s; empty for additive nodes).
  const Vec& inv_ell2() const { return inv_ell2_; }

  // Equivalent theta-space parameters of additive nodes under the standardizer st the bases
  // were drawn for: W = W_hat L^{-1} (rows w_i = L^{-T} w_hat_i), d = d_hat - W m.
  void theta_space_bases(const Standardizer& st, Mat& W, Vec& dvec) const {
    if (act_ == Activation::Rbf)
      throw std::logic_error("theta_space_bases: RBF nodes have no additive theta-space form");
    W = st.L.triangularView<Eigen::Lower>().transpose().solve(W_.transpose()).transpose();
    dvec = aux_ - W * st.m;
  }

  // ---- one point u (the network's evaluations; no heap allocation) ----
  // Pre-activations a = W_hat u + d_hat of additive nodes (a of size s).
  void preact(const Vec& u, Eigen::Ref<Vec> a) const {
    a.noalias() = W_ * u;
    a += aux_;
  }
  // RBF node values phi_i(u) (phi of size s). |u - c_i|^2 is expanded so that one
  // matrix-vector product serves all nodes; the clamp at 0 absorbs its cancellation.
  void rbf_phi(const Vec& u, Eigen::Ref<Vec> phi) const {
    phi.noalias() = W_ * u;
    const double un2 = u.squaredNorm();
    for (Eigen::Index i = 0; i < phi.size(); ++i) {
      const double dist2 = std::fmax(cnorm2_[i] - 2.0 * phi[i] + un2, 0.0);
      phi[i] = std::exp(-0.5 * dist2 * inv_ell2_[i]);
    }
  }

  // u-space Hessian of sum_i v_i h_i(u): W_hat' diag(v o sigma''(a)) W_hat (additive) or
  // sum_i v_i phi_i [(u-c_i)(u-c_i)'/ell_i^4 - I/ell_i^2] (RBF); a and r are buffers of size
  // s. Allocates (outside trajectories: the surrogate dynamics' metric).
  Mat hessian_u(const Vec& u, const Vec& v, Eigen::Ref<Vec> a, Eigen::Ref<Vec> r) const {
    Mat Hu(dim(), dim());
    if (is_additive(act_)) {
      preact(u, a);
      for (Eigen::Index i = 0; i < a.size(); ++i) r[i] = v[i] * act::d2(act_, a[i]);
      Hu.noalias() = W_.transpose() * (W_.array().colwise() * r.array()).matrix();
      return Hu;
    }
    rbf_phi(u, a);
    Mat D = (-W_).rowwise() + u.transpose();  // rows u - c_i
    double diag = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      const double q = v[i] * a[i] * inv_ell2_[i];
      diag += q;
      r[i] = q * inv_ell2_[i];
    }
    Hu.noalias() = D.transpose() * (D.array().colwise() * r.array()).matrix();
    Hu.diagonal().array() -= diag;
    return Hu;
  }

  // ---- blocks of points for the trainers (u-space points as the columns of Ut, d x n) ----
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
  // A = W_hat Ut + d_hat 1' (s x n).
  void block_preact(const Mat& Ut, Mat& A) const {
    A.noalias() = W_ * Ut;
    A.colwise() += aux_;
  }
  // E_in = -|u_n - c_i|^2 / (2 ell_i^2) (s x n), expanded as in rbf_phi().
  void block_rbf_exponent(const Mat& Ut, Mat& E) const {
    E.noalias() = W_ * Ut;  // c_i . u_n
    const Vec un2 = Ut.colwise().squaredNorm().transpose();
    for (Eigen::Index n = 0; n < E.cols(); ++n)
      for (Eigen::Index i = 0; i < E.rows(); ++i) {
        const double dist2 = std::fmax(cnorm2_[i] - 2.0 * E(i, n) + un2[n], 0.0);
        E(i, n) = -0.5 * dist2 * inv_ell2_[i];
      }
  }

  Activation act_ = Activation::Softplus;
  Mat W_;         // s x d: w_hat rows, or RBF centres
  Vec aux_;       // s: d_hat, or RBF ell^2
  Vec inv_ell2_;  // RBF: 1/ell^2
  Vec cnorm2_;    // RBF: |c_i|^2
};

}  // namespace vhmc
