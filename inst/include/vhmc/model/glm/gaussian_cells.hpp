#pragma once
// The gaussian likelihood with sampled group-level effects, from per-cell statistics instead
// of a pass over the rows. Row i lies in cell c of the grouping factors (glm/group_cells.hpp),
// where every term's level is fixed, so its group-level part of the linear predictor is
// z_i' b_c with b_c = (b_1[l_1(c)], ..., b_T[l_T(c)]) the cell's stacked effects. With
// q = beta - beta_hat and e_i the residual at beta_hat,
//   SSE = sum_i w_i (e_i - x_i'q - z_i'b_c)^2 = SSE_dense(q) + Delta,
//   Delta = sum_c [ b_c' A_c b_c - 2 b_c' u_c ],  u_c = c_c - B_c q,
// since sum_i w_i (e_i - x_i'q)^2 is GaussianStats' SSR + q'Gq (glm/gaussian_stats.hpp) and
// A_c, B_c, c_c are the cell statistics of glm/cell_stats.hpp: the cross-products Z'WZ,
// Z'WX, Z'Wy of the mixed-model equations (Henderson 1950; lme4's, Bates, Maechler, Bolker
// and Walker 2015), summed by cell. Exact, so the posterior is the row pass's. The terms' cross-products
// sum w z_t z_s' sit in A_c's off-diagonal blocks, one per cell: nested factors have as many
// cells as inner levels, so a gradient costs O(cells (P^2 + P k)), not O(N).
// Derivatives (U = Delta / (2 sigma^2) beyond GaussianStats' part):
//   dU/dq = B' b / sigma^2 (summed over cells),  dU/dlog sigma = -Delta / sigma^2,
//   dloglik/db_c = (u_c - A_c b_c) / sigma^2, scattered to each term's levels.
#include <vector>

#include "../../base/types.hpp"
#include "cell_stats.hpp"
#include "dense_design.hpp"
#include "gaussian_stats.hpp"
#include "group_cells.hpp"
#include "group_term.hpp"

namespace vhmc {

class GaussianCells {
 public:
  GaussianCells(const DenseDesign& design, const GaussianStats& stats, const std::vector<GroupTerm>& terms)
      : first_(design.first()), k_(design.size()) {
    std::vector<const GroupTermData*> data;
    for (const GroupTerm& t : terms) {
      data.push_back(&t.data());
      at_.push_back(P_);
      P_ += t.data().p;
    }
    cells_ = group_cells(data);
    s_ = cell_stats(design, stats.b_hat(), data, cells_.cell.data(), cells_.count());
    b_.resize(P_ * cells_.count());
    u_.resize(P_ * cells_.count());
    std::vector<int>().swap(cells_.cell);  // each row's cell is not needed after the statistics
  }

  Eigen::Index cells() const { return s_.cells; }

  // U's part beyond GaussianStats' at q with 1/sigma^2 = inv_s2 and the terms' effects (after
  // their prepare()); with g, adds dU/dq to g's dense block and dU/dlog sigma to g[aux]
  // (aux >= 0), and sets each term's effects_gradient() to dloglik/db.
  double eval(const Vec& q, double inv_s2, Eigen::Index aux, std::vector<GroupTerm>& terms, Vec* g);

 private:
  Eigen::Index first_, k_, P_ = 0;
  std::vector<Eigen::Index> at_;  // term t's rows in the stacked z: at_[t] .. at_[t] + p_t
  GroupCells cells_;
  CellStats s_;
  Vec b_, u_;  // the cells' stacked effects, and c - B q (then u - A b)
};

inline double GaussianCells::eval(const Vec& q, double inv_s2, Eigen::Index aux, std::vector<GroupTerm>& terms,
                                  Vec* g) {
  const Eigen::Index C = s_.cells, P = P_, T = static_cast<Eigen::Index>(terms.size());
  const int* level = cells_.level.data();
  for (Eigen::Index t = 0; t < T; ++t) {
    const Mat& b = terms[t].effects();
    const Eigen::Index p = b.rows();
    for (Eigen::Index c = 0; c < C; ++c)
      for (Eigen::Index a = 0; a < p; ++a) b_[c * P + at_[t] + a] = b(a, level[c * T + t]);
  }
  u_ = s_.c;
  u_.noalias() -= s_.Bt.transpose() * q;
  double delta = 0.0;
  const double* A = s_.A.data();
  for (Eigen::Index c = 0; c < C; ++c) {
    const double* bc = b_.data() + c * P;
    double* uc = u_.data() + c * P;
    for (Eigen::Index a = 0; a < P; ++a) {
      const double* col = A + (c * P + a) * P;  // A_c's column a (A_c is symmetric)
      double Ab = 0.0;
      for (Eigen::Index e = 0; e < P; ++e) Ab += col[e] * bc[e];
      delta += bc[a] * (Ab - 2.0 * uc[a]);
      uc[a] -= Ab;  // (u - A b)_c: sigma^2 dloglik/db_c
    }
  }
  if (!g) return 0.5 * inv_s2 * delta;
  for (Eigen::Index t = 0; t < T; ++t) {
    Mat& G = terms[t].effects_gradient();
    const Eigen::Index p = terms[t].data().p;
    G.setZero(p, terms[t].data().levels);
    for (Eigen::Index c = 0; c < C; ++c)
      for (Eigen::Index a = 0; a < p; ++a) G(a, level[c * T + t]) += inv_s2 * u_[c * P + at_[t] + a];
  }
  g->segment(first_, k_).noalias() += inv_s2 * (s_.Bt * b_);
  if (aux >= 0) (*g)[aux] -= inv_s2 * delta;
  return 0.5 * inv_s2 * delta;
}

}  // namespace vhmc
