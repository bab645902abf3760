#pragma once
// Weighted sufficient statistics of the gaussian family per cell of the grouping factors
// (glm/group_cells.hpp): with z_i = (Z_1i, ..., Z_Ti) the columns left of the bars of row i
// stacked (P = p_1 + ... + p_T), x_i its row of the dense design in the sampler's
// coordinates and e_i = y_i - offset_i - x_i' beta_hat its residual at the dense block's
// least-squares fit (glm/gaussian_stats.hpp),
//   A_c = sum_{i in c} w_i z_i z_i',  B_c' = sum w_i x_i z_i',  c_c = sum w_i e_i z_i.
// These and GaussianStats' (G, beta_hat, SSR) are all the data a gaussian likelihood with
// group effects needs: the marginal term's (glm/marginal_gaussian.hpp; one term, cells =
// levels) and the sampled terms' (glm/gaussian_cells.hpp). Residuals at beta_hat rather
// than y keep the statistics free of the cancellation of raw cross-products.
#include <algorithm>
#include <vector>

#include "../../base/types.hpp"
#include "dense_design.hpp"
#include "group_term.hpp"

namespace vhmc {

struct CellStats {
  Eigen::Index P = 0, cells = 0;
  Mat A;   // A_c = A.middleCols(c P, P)
  Mat Bt;  // B_c' = Bt.middleCols(c P, P), k x P
  Vec c;   // c_c = c.segment(c P, P)
};

// One pass over the rows, by blocks, for rows in cells cell[i] < cells.
inline CellStats cell_stats(const DenseDesign& design, const Vec& b_hat, const std::vector<const GroupTermData*>& terms,
                            const int* cell, Eigen::Index cells) {
  const GlmData& d = design.data();
  CellStats s;
  for (const GroupTermData* t : terms) s.P += t->p;
  const Eigen::Index P = s.P;
  s.cells = cells;
  s.A.setZero(P, P * cells);
  s.Bt.setZero(design.size(), P * cells);
  s.c.setZero(P * cells);
  constexpr Eigen::Index kBlock = DenseDesign::kRowBlock;
  Mat zb;
  Vec z(P);
  for (Eigen::Index r0 = 0; r0 < d.n(); r0 += kBlock) {
    const Eigen::Index m = std::min(kBlock, d.n() - r0);
    design.rows(r0, m, zb);
    const Vec fit = zb * b_hat;
    for (Eigen::Index i = 0; i < m; ++i) {
      const Eigen::Index row = r0 + i, j = cell[row];
      const double w = d.has_weights() ? d.weights[row] : 1.0;
      const double res = d.y[row] - (d.has_offset() ? d.offset[row] : 0.0) - fit[i];
      Eigen::Index at = 0;
      for (const GroupTermData* t : terms)
        for (Eigen::Index c = 0; c < t->p; ++c) z[at++] = t->Z ? t->Z[row + c * t->n] : 1.0;
      s.A.middleCols(j * P, P).noalias() += w * z * z.transpose();
      s.Bt.middleCols(j * P, P).noalias() += w * zb.row(i).transpose() * z.transpose();
      s.c.segment(j * P, P) += (w * res) * z;
    }
  }
  return s;
}

}  // namespace vhmc
