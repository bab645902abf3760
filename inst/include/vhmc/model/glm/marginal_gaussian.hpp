#pragma once
// The gaussian family with its group-level terms' effects integrated out exactly: one term,
// or nested terms (glm/nested_tree.hpp; lme4's (1 | g1/g2)). With the dense block's
// coefficients q = beta - beta_hat (beta_hat the weighted least-squares fit,
// glm/gaussian_stats.hpp), every level's effects b_n = T_t eta_n, eta ~ N(0, I), T_t = D_t L_t
// for its term t, and the stacked eta of all levels,
//   -log p(y | beta, sigma, T) = [GaussianStats' part] + 1/2 log|K| - 1/2 s'K^-1 s / sigma^4,
//   K = I + T'AT / sigma^2,  s = T'u,  u = c - B q,
// with A = Z'WZ, B = Z'WX and c = Z'W(y - offset - X beta_hat) summed per level from the
// cells' statistics (glm/cell_stats.hpp): the matrix determinant lemma and Woodbury's
// identity on the marginal covariance sigma^2 W^-1 + Z Sigma Z' (with frequency weights the
// integral of the weighted likelihood, as a duplicated row). K >= I, so no inverse of Sigma
// is formed and a standard deviation at 0 is harmless. For one term K is block diagonal, a
// p x p block per level. For nested factors K has a block only between a level and its
// ancestors, so its block Cholesky factor, from the innermost levels up, has the same blocks
// (no fill; a perfect elimination order of a chordal pattern, Rose 1970): log|K| and
// v = K^-1 s cost O(levels D^2 p^3) for D terms, not O(N). With Sigma = K^-1 on that pattern
// (its selected inverse, by the recursion of Takahashi, Fagan and Chen 1973, as Erisman and
// Tinney 1975 state it, from the outermost levels down: Sigma_an = -sum_b Sigma_ab L_bn
// L_nn^-1 over n's ancestors a and b, Sigma_nn = L_nn^-T L_nn^-1 - sum_b (L_bn L_nn^-1)'
// Sigma_bn) and Gamma = Sigma / sigma^2 + v v' / sigma^6, the derivatives are
//   d/dq     B' T v / sigma^4
//   d/dT_t   sum_{n in t} [ sum_m A_nm T_m Gamma_mn - u_n v_n' / sigma^4 ]   (m: n, its
//            ancestors and descendants, the blocks where A is not 0)
//   d/dlog s -(dim K - tr Sigma) + (s'v + v'v) / sigma^4   (T held fixed).
// Given the other parameters eta ~ N(v / sigma^2, K^-1): the effects are drawn after the
// chains from this conditional (Rao-Blackwellised marginal sampling; Gelfand and Smith 1990),
// once per draw, as L^-T xi with the same factor.
// All blocks are p x p for p <= 10 effects per level and mostly p = 1: glm/small_blocks.hpp's
// loops, not Eigen expressions: on one term with 1,000 levels a gradient of the potential
// took 4 (p = 2) to 6 (p = 1) times less than with Eigen's LLT per level.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../../base/rng.hpp"
#include "../../base/types.hpp"
#include "cell_stats.hpp"
#include "dense_design.hpp"
#include "gaussian_stats.hpp"
#include "group_cells.hpp"
#include "group_term.hpp"
#include "nested_tree.hpp"
#include "small_blocks.hpp"

namespace vhmc {

class MarginalGaussian {
 public:
  // Throws std::invalid_argument when several terms do not nest (nested_structure() says
  // beforehand).
  MarginalGaussian(const DenseDesign& design, const GaussianStats& stats, const std::vector<GroupTerm>& terms);
  Eigen::Index levels() const { return f_.nodes(); }

  // The integrated part of U at q with each term's tau and L (after its prepare()); with g,
  // adds its gradient in the dense block and log sigma (aux) and sets dU/dtau and dU/dL of
  // each term (in the potential's order) for the terms' chain rule.
  double eval(const Vec& q, double log_sigma, const std::vector<GroupTerm>& terms, Eigen::Index aux, Vec* g,
              std::vector<Vec>* dtau, std::vector<Mat>* dL);

  // Each term's effects (p x J, the response's standardised units): a draw from their
  // conditional with rng, its mean without.
  void effects(const Vec& q, double log_sigma, const std::vector<GroupTerm>& terms, Rng* rng, std::vector<Mat>& b);

 private:
  int term_of(Eigen::Index n) const { return f_.order[f_.depth[n]]; }
  void prepare(const Vec& q, double inv_s2, const std::vector<GroupTerm>& terms);
  bool factor(double& logdet);
  void back_substitute(Vec& x) const;
  void selected_inverse();
  double gradient(double inv_s2);
  void ancestors(Eigen::Index n);

  NestedTree f_;
  Eigen::Index first_, k_;
  std::vector<Mat> T_, dT_;        // per term: T = D L and dU/dT
  Vec W_, S_;                      // the factor's and Sigma's columns (the layout of f_.A)
  Vec u_, s_, v_, Tv_;             // stacked over the nodes
  Vec M_, Z_, X_, Y_;              // scratch blocks
  std::vector<int> anc_;           // ancestors of the current node
  std::vector<Eigen::Index> row_;  // and their rows in its column
};

inline MarginalGaussian::MarginalGaussian(const DenseDesign& design, const GaussianStats& stats,
                                      const std::vector<GroupTerm>& terms)
    : first_(design.first()), k_(design.size()) {
  std::vector<const GroupTermData*> data;
  std::vector<Eigen::Index> term_at;
  Eigen::Index P = 0, pmax = 0;
  for (const GroupTerm& t : terms) {
    data.push_back(&t.data());
    term_at.push_back(P);
    P += t.data().p;
    pmax = std::max(pmax, t.data().p);
    T_.emplace_back(t.data().p, t.data().p);
    dT_.emplace_back(t.data().p, t.data().p);
  }
  const GroupCells cells = group_cells(data);
  if (!nested_structure(cells, data, f_))
    throw std::invalid_argument("the group-level terms are not nested: their effects cannot be integrated out");
  nested_layout(data, f_);
  const CellStats s = cell_stats(design, stats.b_hat(), data, cells.cell.data(), cells.count());
  nested_statistics(cells, s, term_at, f_);
  W_.resize(f_.A.size());
  S_.resize(f_.A.size());
  u_.resize(f_.effects());
  s_.resize(f_.effects());
  v_.resize(f_.effects());
  Tv_.resize(f_.effects());
  M_.resize(P * pmax);
  Z_.resize(P * pmax);
  X_.resize(pmax * pmax);
  Y_.resize(pmax * pmax);
}

inline void MarginalGaussian::ancestors(Eigen::Index n) {
  anc_.clear();
  row_.clear();
  Eigen::Index row = f_.p[n];
  for (int a = f_.parent[n]; a >= 0; a = f_.parent[a]) {
    anc_.push_back(a);
    row_.push_back(row);
    row += f_.p[a];
  }
}


// T_t, u = c - B q, s = T'u and the columns of K: K_nn = I + T_n' A_nn T_n / sigma^2 and
// K_an = T_a' A_an T_n / sigma^2 for each ancestor a.
inline void MarginalGaussian::prepare(const Vec& q, double inv_s2, const std::vector<GroupTerm>& terms) {
  for (size_t t = 0; t < terms.size(); ++t) T_[t].noalias() = terms[t].tau().asDiagonal() * terms[t].L();
  u_ = f_.c;
  u_.noalias() -= f_.Bt.transpose() * q;
  s_.setZero();
  W_.setZero();
  for (Eigen::Index n = 0; n < f_.nodes(); ++n) {
    const int pn = static_cast<int>(f_.p[n]), h = static_cast<int>(f_.height[n]);
    const double* Tn = T_[term_of(n)].data();
    double* M = M_.data();
    std::fill(M, M + h * pn, 0.0);
    blocks::gemm(false, false, h, pn, pn, 1.0, f_.A.data() + f_.col[n], h, Tn, pn, M, h);  // A_col T_n
    double* W = W_.data() + f_.col[n];
    int row = 0;
    for (int a = static_cast<int>(n); a >= 0; a = f_.parent[a]) {
      const int pa = static_cast<int>(f_.p[a]);
      blocks::gemm(true, false, pa, pn, pa, inv_s2, T_[term_of(a)].data(), pa, M + row, h, W + row, h);
      row += pa;
    }
    for (int i = 0; i < pn; ++i) W[i + i * h] += 1.0;
    blocks::gemv(true, pn, pn, 1.0, Tn, pn, u_.data() + f_.at[n], s_.data() + f_.at[n]);
  }
}

// The block Cholesky factor of K in place of its columns, from the innermost levels up:
// L_nn L_nn' = K_nn, L_an = K_an L_nn^-T, and each ancestor's column loses L_{.n} L_an'
// (the Schur complement); with the forward solve L y = s into v_ and log|K|. False if a
// pivot block is not positive definite (K >= I, so only from overflow).
inline bool MarginalGaussian::factor(double& logdet) {
  v_ = s_;
  logdet = 0.0;
  for (Eigen::Index n = 0; n < f_.nodes(); ++n) {
    const int pn = static_cast<int>(f_.p[n]), h = static_cast<int>(f_.height[n]);
    double* L = W_.data() + f_.col[n];
    if (!blocks::cholesky(L, pn, h)) return false;
    for (int i = 0; i < pn; ++i) logdet += 2.0 * std::log(L[i + i * h]);
    blocks::right_solve_lower_t(L, pn, h, L + pn, h - pn, h);
    double* y = v_.data() + f_.at[n];
    blocks::solve_lower(L, pn, h, y);
    int row = pn;
    for (int a = f_.parent[n]; a >= 0; a = f_.parent[a]) {
      const int pa = static_cast<int>(f_.p[a]);
      blocks::gemm(false, true, h - row, pa, pn, -1.0, L + row, h, L + row, h, W_.data() + f_.col[a], h - row);
      blocks::gemv(false, pa, pn, -1.0, L + row, h, y, v_.data() + f_.at[a]);
      row += pa;
    }
  }
  return std::isfinite(logdet);
}

// x := L^-T x, from the outermost levels down.
inline void MarginalGaussian::back_substitute(Vec& x) const {
  for (Eigen::Index n = f_.nodes() - 1; n >= 0; --n) {
    const int pn = static_cast<int>(f_.p[n]), h = static_cast<int>(f_.height[n]);
    const double* L = W_.data() + f_.col[n];
    double* xn = x.data() + f_.at[n];
    int row = pn;
    for (int a = f_.parent[n]; a >= 0; a = f_.parent[a]) {
      const int pa = static_cast<int>(f_.p[a]);
      blocks::gemv(true, pn, pa, -1.0, L + row, h, x.data() + f_.at[a], xn);
      row += pa;
    }
    blocks::solve_lower_t(L, pn, h, xn);
  }
}

// Sigma = K^-1 on the factor's blocks into S_, from the outermost levels down (Takahashi et
// al. 1973): with Z = L_{an} L_nn^-1 stacked over n's ancestors, Sigma_{.n} = -Sigma_anc Z
// and Sigma_nn = L_nn^-T L_nn^-1 - Z' Sigma_{.n}; Sigma_anc's blocks are in the ancestors'
// columns, already done.
inline void MarginalGaussian::selected_inverse() {
  for (Eigen::Index n = f_.nodes() - 1; n >= 0; --n) {
    const int pn = static_cast<int>(f_.p[n]), h = static_cast<int>(f_.height[n]), hb = h - pn;
    const double* L = W_.data() + f_.col[n];
    double* Sg = S_.data() + f_.col[n];
    std::fill(Sg, Sg + h * pn, 0.0);
    double* Z = Z_.data();
    for (int c = 0; c < pn; ++c)
      for (int r = 0; r < hb; ++r) Z[r + c * hb] = L[pn + r + c * h];
    blocks::right_solve_lower(L, pn, h, Z, hb, hb);
    ancestors(n);
    for (size_t i = 0; i < anc_.size(); ++i) {
      const int ai = anc_[i], pi = static_cast<int>(f_.p[ai]);
      for (size_t j = 0; j < anc_.size(); ++j) {
        const int aj = anc_[j], pj = static_cast<int>(f_.p[aj]);
        const bool tr = i < j;  // Sigma_{ai aj} is stored in the column of the inner of the two
        const int inner = tr ? ai : aj;
        const double* src = S_.data() + f_.col[inner] + (tr ? row_[j] - row_[i] : row_[i] - row_[j]);
        blocks::gemm(tr, false, pi, pn, pj, -1.0, src, static_cast<int>(f_.height[inner]), Z + (row_[j] - pn), hb,
                     Sg + row_[i], h);
      }
    }
    double* X = X_.data();
    std::fill(X, X + pn * pn, 0.0);
    for (int c = 0; c < pn; ++c) {
      X[c + c * pn] = 1.0;
      blocks::solve_lower(L, pn, h, X + c * pn);  // X = L_nn^-1
    }
    blocks::gemm(true, false, pn, pn, pn, 1.0, X, pn, X, pn, Sg, h);
    blocks::gemm(true, false, pn, pn, hb, -1.0, Z, hb, Sg + pn, h, Sg, h);
  }
}

// dU/dT of every term into dT_ (and T v into Tv_), from Sigma and v: with Gamma's column of
// node n, Gamma_an = Sigma_an / sigma^2 + v_a v_n' / sigma^6 (a = n and its ancestors), n's
// term gains A_an' T_a Gamma_an - u_n v_n' / sigma^4 and each ancestor's term A_an T_n
// Gamma_an'. Returns tr Sigma.
inline double MarginalGaussian::gradient(double inv_s2) {
  const double inv_s4 = inv_s2 * inv_s2, inv_s6 = inv_s4 * inv_s2;
  for (Mat& d : dT_) d.setZero();
  double trace = 0.0;
  for (Eigen::Index n = 0; n < f_.nodes(); ++n) {
    const int pn = static_cast<int>(f_.p[n]), h = static_cast<int>(f_.height[n]), tn = term_of(n);
    const double* A = f_.A.data() + f_.col[n];
    const double* Sg = S_.data() + f_.col[n];
    const double* vn = v_.data() + f_.at[n];
    double* G = M_.data();  // Gamma's column
    int row = 0;
    for (int a = static_cast<int>(n); a >= 0; a = f_.parent[a]) {
      const int pa = static_cast<int>(f_.p[a]);
      const double* va = v_.data() + f_.at[a];
      for (int c = 0; c < pn; ++c)
        for (int r = 0; r < pa; ++r) G[row + r + c * h] = inv_s2 * Sg[row + r + c * h] + inv_s6 * va[r] * vn[c];
      const double* Ta = T_[term_of(a)].data();
      double* Y = Y_.data();
      std::fill(Y, Y + pa * pn, 0.0);
      blocks::gemm(false, false, pa, pn, pa, 1.0, Ta, pa, G + row, h, Y, pa);  // T_a Gamma_an
      blocks::gemm(true, false, pn, pn, pa, 1.0, A + row, h, Y, pa, dT_[tn].data(), pn);
      if (row > 0) {
        double* X = X_.data();
        std::fill(X, X + pn * pa, 0.0);
        blocks::gemm(false, true, pn, pa, pn, 1.0, T_[tn].data(), pn, G + row, h, X, pn);  // T_n Gamma_an'
        blocks::gemm(false, false, pa, pa, pn, 1.0, A + row, h, X, pn, dT_[term_of(a)].data(), pa);
      }
      row += pa;
    }
    blocks::gemm(false, true, pn, pn, 1, -inv_s4, u_.data() + f_.at[n], pn, vn, pn, dT_[tn].data(), pn);
    for (int i = 0; i < pn; ++i) trace += Sg[i + i * h];
    double* tv = Tv_.data() + f_.at[n];
    std::fill(tv, tv + pn, 0.0);
    blocks::gemv(false, pn, pn, 1.0, T_[tn].data(), pn, vn, tv);
  }
  return trace;
}

inline double MarginalGaussian::eval(const Vec& q, double log_sigma, const std::vector<GroupTerm>& terms,
                                   Eigen::Index aux, Vec* g, std::vector<Vec>* dtau, std::vector<Mat>* dL) {
  const double inv_s2 = std::exp(-2.0 * log_sigma), inv_s4 = inv_s2 * inv_s2;
  if (g) {
    dtau->resize(terms.size());
    dL->resize(terms.size());
    for (size_t t = 0; t < terms.size(); ++t) {
      (*dtau)[t].setZero(terms[t].data().p);
      (*dL)[t].setZero(terms[t].data().p, terms[t].data().p);
    }
  }
  prepare(q, inv_s2, terms);
  double logdet = 0.0;
  if (!factor(logdet)) return kInf;  // overflow far out in the tails: a divergence
  back_substitute(v_);
  const double sv = s_.dot(v_);
  const double u = 0.5 * logdet - 0.5 * sv * inv_s4;
  if (!g) return u;
  selected_inverse();
  const double trace = gradient(inv_s2);
  g->segment(first_, k_).noalias() += f_.Bt * Tv_ * inv_s4;
  (*g)[aux] -= static_cast<double>(f_.effects()) - trace - (sv + v_.squaredNorm()) * inv_s4;
  for (size_t t = 0; t < terms.size(); ++t) {
    (*dL)[t] = terms[t].tau().asDiagonal() * dT_[t];
    (*dL)[t].triangularView<Eigen::StrictlyUpper>().setZero();
    (*dtau)[t] = (dT_[t].cwiseProduct(terms[t].L())).rowwise().sum();
  }
  return u;
}

inline void MarginalGaussian::effects(const Vec& q, double log_sigma, const std::vector<GroupTerm>& terms, Rng* rng,
                                    std::vector<Mat>& b) {
  const double inv_s2 = std::exp(-2.0 * log_sigma);
  prepare(q, inv_s2, terms);
  double logdet = 0.0;
  if (!factor(logdet)) throw std::runtime_error("the group effects' conditional covariance is not finite");
  back_substitute(v_);
  Vec x = Vec::Zero(f_.effects());
  if (rng) {
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = rng->normal();
    back_substitute(x);  // L^-T xi ~ N(0, K^-1)
  }
  x += v_ * inv_s2;
  b.resize(terms.size());
  for (size_t t = 0; t < terms.size(); ++t) b[t].resize(terms[t].data().p, terms[t].data().levels);
  for (Eigen::Index n = 0; n < f_.nodes(); ++n) {
    const int t = term_of(n);
    const Eigen::Index level = n - f_.base[f_.depth[n]];
    b[t].col(level).noalias() = T_[t] * x.segment(f_.at[n], f_.p[n]);
  }
}

}  // namespace vhmc
