#pragma once
// The stiff rows of a GLM for the split leapfrog (integrator/split_leapfrog.hpp): rows whose
// likelihood can curve far more sharply than the posterior does where the chain starts.
// With the Laplace approximation at the mode, N(theta*, H^-1), row i's curvature in the
// whitened coordinates is at most
//   c_i = w_i kMaxCurvature z_i' H^-1 z_i
// (z_i: the row in the sampler's coordinates). At the mode itself w_i h_i z_i' H^-1 z_i <= 1
// (a leverage), so c_i is large only where the row's curvature there, h_i, is far below its
// bound: a row on the flat side of a wall it can reach, such as every row of a rare category
// that separates the responses (on a9a's full design c_i reaches about 1e5; ordinary rows
// stay near d / N). Families with a bounded curvature only (binomial logit and probit), no
// group-level terms; the rows above `threshold`, the stiffest first, at most `max_rows`.
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include <Eigen/Cholesky>

#include "../../integrator/split_leapfrog.hpp"
#include "glm_potential.hpp"

namespace vhmc {

// c_i of every row (none for a family without a curvature bound).
inline Vec glm_row_stiffness(const GlmPotential& pot, const Mat& hessian) {
  const double bound = with_family(pot.family(), [](auto f) { return decltype(f)::kMaxCurvature; });
  const GlmData& d = pot.data();
  Vec c = Vec::Zero(d.n());
  Eigen::LLT<Mat> llt(hessian);
  if (bound <= 0.0 || llt.info() != Eigen::Success) return c;
  Mat zb;
  for (Eigen::Index r0 = 0; r0 < d.n(); r0 += DenseDesign::kRowBlock) {
    const Eigen::Index m = std::min(DenseDesign::kRowBlock, d.n() - r0);
    pot.design_rows(r0, m, zb);
    const Mat x = llt.matrixL().solve(zb.transpose());  // L^-1 z_i, one column per row
    c.segment(r0, m) = bound * x.colwise().squaredNorm().transpose();
  }
  if (d.has_weights()) c.array() *= d.weights.array();
  return c;
}

// Rows idx of a GLM as the split leapfrog's U1: their design rows in the sampler's
// coordinates, offsets, curvature bounds, and U1 = -sum w_i ll_i from the family's pass
// (their responses and weights copied: a few numbers per row).
inline StiffRows glm_stiff_rows(const GlmPotential& pot, const std::vector<int>& idx) {
  const GlmData& d = pot.data();
  const auto n = static_cast<Eigen::Index>(idx.size());
  StiffRows rows;
  pot.design().rows_at(idx.data(), n, rows.Z);
  Vec y(n), w(d.has_weights() ? n : 0);
  rows.offset = Vec::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    y[i] = d.y[idx[i]];
    if (d.has_weights()) w[i] = d.weights[idx[i]];
    if (d.has_offset()) rows.offset[i] = d.offset[idx[i]];
  }
  const double bound = with_family(pot.family(), [](auto f) { return decltype(f)::kMaxCurvature; });
  rows.curvature_bound = d.has_weights() ? Vec(bound * w) : Vec::Constant(n, bound);
  rows.loss = [family = pot.family(), y, w, z = Vec(n)](const Vec& eta, Vec& r) mutable {
    return with_family(family, [&](auto f) {
      using F = decltype(f);
      if constexpr (family::aux_count<F>() == 0) {  // the families with a curvature bound
        const double ll = F::pass(y, eta, w, F::aux(nullptr, 0), &r, nullptr, z);
        r = -r;
        return -ll;
      } else {
        return kInf;
      }
    });
  };
  return rows;
}

// The GLM's overload of likelihood_rows().
inline long likelihood_rows(const GlmPotential& pot) { return static_cast<long>(pot.data().n()); }

// The GLM's overload of find_stiff_rows() (found by argument-dependent lookup).
inline std::optional<StiffRows> find_stiff_rows(GlmPotential& pot, const Mat& hessian, const SplitConfig& cfg) {
  if (!cfg.enabled || pot.hierarchical() || pot.prior_only() || hessian.rows() != pot.dim())
    return std::nullopt;
  const Vec c = glm_row_stiffness(pot, hessian);
  std::vector<int> idx;
  for (Eigen::Index i = 0; i < c.size(); ++i)
    if (c[i] > cfg.threshold) idx.push_back(static_cast<int>(i));
  if (idx.empty()) return std::nullopt;
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return c[a] > c[b]; });
  if (static_cast<int>(idx.size()) > cfg.max_rows) idx.resize(cfg.max_rows);
  std::sort(idx.begin(), idx.end());
  StiffRows rows = glm_stiff_rows(pot, idx);
  rows.stiffness.resize(rows.size());
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.stiffness[i] = c[idx[static_cast<std::size_t>(i)]];
  return rows;
}

}  // namespace vhmc
