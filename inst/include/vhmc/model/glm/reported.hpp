#pragma once
// The map between the sampler's coordinates of a GLM and the reported parameters, and back
// (for user initial values): the intercept on the data's scale (the centring undone), the
// slopes divided by their predictors' scales, exp of the auxiliary parameter, and for the
// gaussian family the response's standardisation undone. The arithmetic is that of the R
// code it replaced, operation for operation (the centring's sum in the order of the BLAS
// matrix-vector product R used), so that reported draws kept their last bits.
#include <cmath>

#include "glm_potential.hpp"

namespace vhmc {

// A group-level term's effects b (level by level) and its covariance matrix Sigma = D L L' D,
// lower triangle by columns (rstanarm's Sigma[g:a,b]), in the response's units.
inline void group_term_to_reported(const GroupTerm& t, const Vec& theta, double y_scale, Vec& out) {
  Vec tau;
  Mat L, b;
  t.effects_at(theta, tau, L, b);
  const Eigen::Index p = t.data().p;
  if (!t.data().marginal) out.segment(t.effects_offset(), b.size()) = Eigen::Map<const Vec>(b.data(), b.size()) * y_scale;
  const Mat DL = tau.asDiagonal() * L;
  const Mat Sigma = DL * DL.transpose();
  Eigen::Index pos = t.sd_offset();
  for (Eigen::Index c = 0; c < p; ++c)
    for (Eigen::Index r = c; r < p; ++r) out[pos++] = Sigma(r, c) * y_scale * y_scale;
}

inline void to_reported(const GlmPotential& pot, const Vec& theta, Vec& out) {
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes(), k = d.k();
  const Eigen::Index aux = pot.layout().offset("aux");
  out = theta;
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) out[sl + j] = out[sl + j] / d.scale[j];
  if (d.has_center()) {
    double acc = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) acc = acc + d.center[j] * out[sl + j];
    out[0] = out[0] - acc;
  }
  if (aux >= 0) out[aux] = std::exp(out[aux]);
  if (d.y_scale != 1.0) out *= d.y_scale;
  if (pot.has_intercept()) out[0] = out[0] + d.y_center;
  for (const GroupTerm& t : pot.group_terms()) group_term_to_reported(t, theta, d.y_scale, out);
}

// Reported values of a model whose terms are marginal: each term's effects b (from
// marginal_effects(), on the reported scale) inserted where a sampled term's effects block
// would be, before the term's Sigma, so that the parameters are those of the model with the
// effects sampled.
inline void to_reported_marginal(GlmPotential& pot, const Vec& theta, Rng* rng, Vec& out) {
  Vec mapped;
  to_reported(pot, theta, mapped);
  std::vector<Mat> b;
  pot.marginal_effects(theta, rng, b);
  Eigen::Index total = mapped.size();
  for (const Mat& bt : b) total += bt.size();
  out.resize(total);
  Eigen::Index from = 0, to = 0;
  for (size_t t = 0; t < b.size(); ++t) {
    const Eigen::Index at = pot.group_terms()[t].sd_offset(), nb = b[t].size();
    out.segment(to, at - from) = mapped.segment(from, at - from);
    to += at - from;
    from = at;
    out.segment(to, nb) = Eigen::Map<const Vec>(b[t].data(), nb) * pot.data().y_scale;
    to += nb;
  }
  out.tail(mapped.size() - from) = mapped.tail(mapped.size() - from);
}

inline void from_reported(const GlmPotential& pot, const Vec& reported, Vec& theta) {
  if (!pot.group_terms().empty()) throw std::invalid_argument("initial values on the reported scale need a model without group-level terms");
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes(), k = d.k();
  const Eigen::Index aux = pot.layout().offset("aux");
  theta = reported;
  if (pot.has_intercept()) theta[0] = theta[0] - d.y_center;
  if (d.y_scale != 1.0) theta /= d.y_scale;
  if (d.has_center()) {
    double acc = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) acc = acc + d.center[j] * theta[sl + j];
    theta[0] = theta[0] + acc;
  }
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) theta[sl + j] = theta[sl + j] * d.scale[j];
  if (aux >= 0) theta[aux] = std::log(theta[aux]);
}

}  // namespace vhmc
