#pragma once
// The gaussian family with one group-level term, its effects integrated out exactly. With
// the dense block's coefficients q = beta - beta_hat (beta_hat the weighted least-squares
// fit, glm/gaussian_stats.hpp), residuals r = y - offset - X beta_hat - X q, and for level j
// the term's columns Z_j, weights W_j and effects b_j = T eta_j, T = D L, eta_j ~ N(0, I):
//   log p(y | beta, sigma, T) = -sum(w) log sigma - r'Wr / (2 sigma^2)
//       + sum_j [ -1/2 log|K_j| + 1/2 s_j' K_j^-1 s_j / sigma^4 ],
//   K_j = I + T' A_j T / sigma^2,  s_j = T' u_j,  u_j = Z_j' W_j r_j = c_j - B_j q,
// with A_j = Z_j' W_j Z_j, B_j = Z_j' W_j X_j and c_j = Z_j' W_j (y - offset - X beta_hat)_j
// computed once (glm/cell_stats.hpp, the levels being the cells) (the matrix determinant lemma and Woodbury's identity on the marginal
// covariance sigma^2 W^-1 + Z Sigma Z'; with frequency weights this is the integral of the
// weighted likelihood, as a duplicated row). K_j >= I, so no inverse of Sigma is formed and
// a standard deviation at 0 is harmless. A gradient costs O(J (p k + p^3)) for J levels, k
// coefficients and p effects per level, not O(N): the first term is the gaussian sufficient
// statistics' (GaussianStats). Derivatives, with v_j = K_j^-1 s_j:
//   d/dq      -sum_j B_j' T v_j / sigma^4
//   d/dT      sum_j [ -A_j T K_j^-1 / sigma^2 + (u_j - A_j T v_j / sigma^2) v_j' / sigma^4 ]
//   d/dlog s  sum_j [ p - tr K_j^-1 - (s_j'v_j + v_j'v_j) / sigma^4 ]  (T held fixed)
// Given the other parameters, eta_j ~ N(v_j / sigma^2, K_j^-1): the effects are drawn after
// the chains from this conditional (Rao-Blackwellised marginal sampling; Gelfand and Smith
// 1990), once per draw.
#include <algorithm>

#include <Eigen/Cholesky>

#include "../../base/rng.hpp"
#include "../../base/types.hpp"
#include "dense_design.hpp"
#include "cell_stats.hpp"
#include "gaussian_stats.hpp"
#include "group_term.hpp"

namespace vhmc {

class MarginalGaussian {
 public:
  MarginalGaussian(const DenseDesign& design, const GaussianStats& stats, const GroupTermData& t)
      : p_(t.p), J_(t.levels), k_(design.size()), first_(design.first()),
        s_(cell_stats(design, stats.b_hat(), {&t}, t.group, t.levels)) {
    K_.resize(p_, p_);
    llt_ = Eigen::LLT<Mat>(p_);
    w_.resize(p_ * J_);
    u_.resize(p_ * J_);
  }

  Eigen::Index levels() const { return J_; }
  Eigen::Index p() const { return p_; }

  // The integrated part of U (the -log lik beyond GaussianStats' terms) at q, with T =
  // diag(tau) L from the term's prepare(); with g, adds its gradient in the dense block and
  // log sigma (aux) and returns dU/dtau and dU/dL for the term's chain rule.
  double eval(const Vec& q, double log_sigma, const Vec& tau, const Mat& L, Eigen::Index aux,
              Vec* g, Vec* dtau, Mat* dL);

  // The effects (p x J, in the response's standardised units) at theta: drawn from their
  // conditional given the other parameters with rng, or its mean without.
  void effects(const Vec& q, double log_sigma, const Vec& tau, const Mat& L, Rng* rng, Mat& b);

 private:
  // K_j for T at level j, factorised; v = K_j^-1 s.
  void level(Eigen::Index j, const Mat& T, double inv_s2, Vec& s, Vec& v) {
    const auto A = s_.A.middleCols(j * p_, p_);
    K_.noalias() = T.transpose() * A * T * inv_s2;
    K_.diagonal().array() += 1.0;
    llt_.compute(K_);
    s.noalias() = T.transpose() * u_.segment(j * p_, p_);
    v = llt_.solve(s);
  }

  Eigen::Index p_, J_, k_, first_;
  CellStats s_;  // the levels' statistics: the cells of one term
  Vec w_, u_;
  Mat K_;
  Eigen::LLT<Mat> llt_;
};

inline double MarginalGaussian::eval(const Vec& q, double log_sigma, const Vec& tau, const Mat& L, Eigen::Index aux,
                                     Vec* g, Vec* dtau, Mat* dL) {
  const double inv_s2 = std::exp(-2.0 * log_sigma), inv_s4 = inv_s2 * inv_s2;
  const Mat T = tau.asDiagonal() * L;
  u_ = s_.c;
  u_.noalias() -= s_.Bt.transpose() * q;
  Vec s(p_), v(p_);
  Mat dT = Mat::Zero(p_, p_);
  double u = 0.0, dt = 0.0;
  for (Eigen::Index j = 0; j < J_; ++j) {
    level(j, T, inv_s2, s, v);
    const double sv = s.dot(v);
    u += llt_.matrixLLT().diagonal().array().log().sum() - 0.5 * sv * inv_s4;  // 1/2 log|K_j|
    if (!g) continue;
    const auto A = s_.A.middleCols(j * p_, p_);
    const Vec Tv = T * v;
    w_.segment(j * p_, p_) = Tv;
    const Mat Kinv = llt_.solve(Mat::Identity(p_, p_));
    const Vec ATv = A * Tv;
    dT.noalias() += A * T * Kinv * inv_s2;
    dT.noalias() -= (u_.segment(j * p_, p_) - ATv * inv_s2) * v.transpose() * inv_s4;
    dt -= static_cast<double>(p_) - Kinv.trace() - (sv + v.squaredNorm()) * inv_s4;
  }
  if (!g) return u;
  g->segment(first_, k_).noalias() += s_.Bt * w_ * inv_s4;
  (*g)[aux] += dt;
  *dL = tau.asDiagonal() * dT;
  dL->triangularView<Eigen::StrictlyUpper>().setZero();
  *dtau = (dT.cwiseProduct(L)).rowwise().sum();
  return u;
}

inline void MarginalGaussian::effects(const Vec& q, double log_sigma, const Vec& tau, const Mat& L, Rng* rng,
                                      Mat& b) {
  const double inv_s2 = std::exp(-2.0 * log_sigma);
  const Mat T = tau.asDiagonal() * L;
  u_ = s_.c;
  u_.noalias() -= s_.Bt.transpose() * q;
  b.resize(p_, J_);
  Vec s(p_), v(p_), xi(p_);
  for (Eigen::Index j = 0; j < J_; ++j) {
    level(j, T, inv_s2, s, v);
    Vec eta = v * inv_s2;
    if (rng) {
      for (Eigen::Index c = 0; c < p_; ++c) xi[c] = rng->normal();
      eta += llt_.matrixU().solve(xi);  // K = U'U: U^-1 xi ~ N(0, K^-1)
    }
    b.col(j) = T * eta;
  }
}

}  // namespace vhmc
