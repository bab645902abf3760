#pragma once
// The cells of a model's grouping factors: the distinct combinations (level of term 1, ...,
// level of term T) among the rows. Every row of a cell has the same group-level effects, so
// for the gaussian family the rows of a cell enter the likelihood only through their sums
// (glm/cell_stats.hpp). Nested factors have as many cells as levels of the innermost one
// (lme4's (1 | g1/g2) is (1 | g2:g1) + (1 | g1): each g2:g1 level lies in one g1 level);
// crossed factors can have up to one cell per row (InstEval: 73,421 cells of 73,421 rows).
// One term: the cells are its levels, in their order.
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "group_term.hpp"

namespace vhmc {

struct GroupCells {
  Eigen::Index terms = 0;
  std::vector<int> cell;   // each row's cell, 0-based
  std::vector<int> level;  // the level of term t in cell c at c * terms + t
  Eigen::Index count() const { return terms ? static_cast<Eigen::Index>(level.size()) / terms : 0; }
};

// Cells numbered in the order of their first row (a single term's: its levels' order). One
// pass over the rows per term: the key of (cell so far, level of the next term) is a 64-bit
// integer, since both are below 2^31.
inline GroupCells group_cells(const std::vector<const GroupTermData*>& terms) {
  if (terms.empty()) throw std::invalid_argument("cells need at least one group-level term");
  const Eigen::Index n = terms.front()->n;
  for (const GroupTermData* t : terms)
    if (t->n != n) throw std::invalid_argument("the group-level terms must have the same rows");
  GroupCells c;
  c.cell.assign(terms.front()->group, terms.front()->group + n);
  std::vector<std::vector<int>> levels{std::vector<int>(terms.front()->levels)};
  for (Eigen::Index j = 0; j < terms.front()->levels; ++j) levels[0][j] = static_cast<int>(j);
  for (size_t t = 1; t < terms.size(); ++t) {
    std::unordered_map<std::uint64_t, int> id;
    std::vector<std::vector<int>> next(t + 1);
    const std::uint64_t J = static_cast<std::uint64_t>(terms[t]->levels);
    for (Eigen::Index i = 0; i < n; ++i) {
      const int g = terms[t]->group[i];
      const auto key = static_cast<std::uint64_t>(c.cell[i]) * J + static_cast<std::uint64_t>(g);
      const auto found = id.emplace(key, static_cast<int>(id.size()));
      if (found.second) {
        for (size_t s = 0; s < t; ++s) next[s].push_back(levels[s][c.cell[i]]);
        next[t].push_back(g);
      }
      c.cell[i] = found.first->second;
    }
    levels.swap(next);
  }
  c.terms = static_cast<Eigen::Index>(terms.size());
  const size_t count = levels.front().size();
  c.level.resize(count * terms.size());
  for (size_t k = 0; k < count; ++k)
    for (size_t t = 0; t < terms.size(); ++t) c.level[k * terms.size() + t] = levels[t][k];
  return c;
}

}  // namespace vhmc
