#pragma once
// Nested grouping factors as a forest, with the gaussian statistics of each of its nodes.
// Terms form a chain of nesting when, ordered by their number of levels (most first), each
// level of a term lies within one level of the next (lme4's (1 | g1/g2/g3) is (1 | g3:g2:g1)
// + (1 | g2:g1) + (1 | g1); the two terms of (x || g) share their factor). The levels are
// then the nodes of a forest, innermost first: node n's parent is the level of the next
// term that holds its rows (none for the outermost term, or for a level without rows), and
// its ancestors are its parent's parent and so on. The cells of glm/group_cells.hpp are the
// innermost levels with rows.
// Each node keeps a column of blocks, its own and one per ancestor a (rows of a's effects
// stacked below its own): the statistics A_nn = sum w z_n z_n' and A_an = sum w z_a z_n' over
// the node's rows (z_n its term's columns left of the bar), and u's data c_n and B_n. Every
// row of node n is a row of each of its ancestors, so these are all the cross-products: the
// joint Z'WZ of the nested terms has no block outside a node's column, and its block
// elimination from the leaves makes no fill (glm/marginal_gaussian.hpp).
#include <algorithm>
#include <numeric>
#include <vector>

#include "../../base/types.hpp"
#include "cell_stats.hpp"
#include "group_cells.hpp"
#include "group_term.hpp"

namespace vhmc {

struct NestedTree {
  std::vector<int> order;                  // the terms (the potential's indices), innermost first
  std::vector<Eigen::Index> base;          // first node of each depth (+ the total at the end)
  std::vector<int> parent, depth;          // per node; parent -1 for a root
  std::vector<Eigen::Index> p, height, col, at;  // effects, column rows, column and vector offsets
  Vec A;                                   // the columns, node n's at col[n] (height x p, column-major)
  Mat Bt;                                  // B_n' = Bt.middleCols(at[n], p[n]) (k x p)
  Vec c;                                   // c_n = c.segment(at[n], p[n])
  Eigen::Index nodes() const { return base.back(); }
  Eigen::Index effects() const { return c.size(); }  // sum of p over the nodes
};

// The chain order of the terms, and each node's parent; false when the terms do not nest.
inline bool nested_structure(const GroupCells& cells, const std::vector<const GroupTermData*>& terms, NestedTree& f) {
  const Eigen::Index T = static_cast<Eigen::Index>(terms.size()), C = cells.count();
  std::vector<Eigen::Index> used(T, 0);
  for (Eigen::Index t = 0; t < T; ++t) {
    std::vector<char> seen(terms[t]->levels, 0);
    for (Eigen::Index c = 0; c < C; ++c) seen[cells.level[c * T + t]] = 1;
    used[t] = std::count(seen.begin(), seen.end(), 1);
  }
  f.order.resize(T);
  std::iota(f.order.begin(), f.order.end(), 0);
  std::stable_sort(f.order.begin(), f.order.end(), [&](int a, int b) { return used[a] > used[b]; });
  f.base.assign(1, 0);
  for (int t : f.order) f.base.push_back(f.base.back() + terms[t]->levels);
  f.parent.assign(f.base.back(), -1);
  f.depth.assign(f.base.back(), 0);
  for (Eigen::Index d = 0; d < T; ++d)
    for (Eigen::Index n = f.base[d]; n < f.base[d + 1]; ++n) f.depth[n] = static_cast<int>(d);
  for (Eigen::Index c = 0; c < C; ++c) {
    for (Eigen::Index d = 0; d + 1 < T; ++d) {
      const Eigen::Index n = f.base[d] + cells.level[c * T + f.order[d]];
      const int up = static_cast<int>(f.base[d + 1] + cells.level[c * T + f.order[d + 1]]);
      if (f.parent[n] >= 0 && f.parent[n] != up) return false;
      f.parent[n] = up;
    }
  }
  return true;
}

// Offsets of each node's column (its own p rows, then each ancestor's) and effects.
inline void nested_layout(const std::vector<const GroupTermData*>& terms, NestedTree& f) {
  const Eigen::Index N = f.nodes();
  f.p.resize(N);
  f.height.resize(N);
  f.col.resize(N + 1);
  f.at.resize(N + 1);
  for (Eigen::Index n = 0; n < N; ++n) f.p[n] = terms[f.order[f.depth[n]]]->p;
  f.col[0] = f.at[0] = 0;
  for (Eigen::Index n = 0; n < N; ++n) {
    f.height[n] = f.p[n];
    for (int a = f.parent[n]; a >= 0; a = f.parent[a]) f.height[n] += f.p[a];
    f.col[n + 1] = f.col[n] + f.height[n] * f.p[n];
    f.at[n + 1] = f.at[n] + f.p[n];
  }
}

// The nodes' statistics, summed from the cells' (glm/cell_stats.hpp): each cell is an
// innermost node, and its blocks of A_c, B_c and c_c go to that node and its ancestors.
inline void nested_statistics(const GroupCells& cells, const CellStats& s, const std::vector<Eigen::Index>& term_at,
                              NestedTree& f) {
  const Eigen::Index T = static_cast<Eigen::Index>(f.order.size()), P = s.P;
  f.A.setZero(f.col.back(), 1);
  f.Bt.setZero(s.Bt.rows(), f.at.back());
  f.c.setZero(f.at.back());
  std::vector<int> chain(T);
  for (Eigen::Index c = 0; c < s.cells; ++c) {
    chain[0] = static_cast<int>(f.base[0] + cells.level[c * T + f.order[0]]);
    for (Eigen::Index d = 1; d < T; ++d) chain[d] = f.parent[chain[d - 1]];
    for (Eigen::Index d = 0; d < T; ++d) {
      const int n = chain[d];
      const Eigen::Index pn = f.p[n], zn = term_at[f.order[d]];
      Eigen::Map<Mat> col(f.A.data() + f.col[n], f.height[n], pn);
      Eigen::Index row = 0;
      for (Eigen::Index e = d; e < T; ++e) {
        const Eigen::Index pe = f.p[chain[e]], ze = term_at[f.order[e]];
        col.middleRows(row, pe) += s.A.block(ze, c * P + zn, pe, pn);
        row += pe;
      }
      f.Bt.middleCols(f.at[n], pn) += s.Bt.middleCols(c * P + zn, pn);
      f.c.segment(f.at[n], pn) += s.c.segment(c * P + zn, pn);
    }
  }
}

}  // namespace vhmc
