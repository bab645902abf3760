#pragma once
// The map between the sampler's coordinates of a GLM and the reported parameters, and back
// (for user initial values): the intercept on the data's scale (the centring undone), the
// slopes divided by their predictors' scales, exp of the auxiliary parameter, and for the
// gaussian family the response's standardisation undone; with a horseshoe, the coefficients
// z_j m_j it gives and its scales (glm/horseshoe.hpp); with smooths, their coefficients and
// standard deviations (glm/smooths.hpp). The arithmetic is that of the R
// code it replaced, operation for operation (the centring's sum in the order of the BLAS
// matrix-vector product R used), so that reported draws kept their last bits.
#include <cmath>

#include "aux_transforms.hpp"
#include "glm_potential.hpp"

namespace vhmc {

// Calls f(block, spec) for each aux block of the potential's family.
template <class Fn>
void pot_aux_blocks(const GlmPotential& pot, Fn&& f) {
  const auto specs = GlmPotential::aux_specs(pot.family());
  for (std::size_t i = 0; i < pot.aux_blocks().size(); ++i)
    f(pot.layout().blocks()[pot.aux_blocks()[i]], specs[pot.aux_block_specs()[i]]);
}

// A distributional predictor's block on the reported scale (forward) or back: slopes over
// their predictors' scales, the intercept at 0 rather than at the predictors' means, and for
// a parameter in the response's units on the log link (sigma), log(y_scale) added (the core
// models sigma of the standardised response).
inline void dpar_block_reported(const DenseDesign& b, const family::AuxSpec& a, double y_scale, Vec& v, bool forward) {
  const GlmData& d = b.data();
  const Eigen::Index sl = b.slopes(), k = d.k(), at = b.first();
  const double shift = a.scales_with_y && a.transform == Transform::Log ? std::log(y_scale) : 0.0;
  if (!forward) {
    v[at] -= shift;
    if (d.has_center()) v[at] += d.center.dot(v.segment(sl, k));
    if (d.has_scale()) v.segment(sl, k).array() *= d.scale.array();
    return;
  }
  if (d.has_scale()) v.segment(sl, k).array() /= d.scale.array();
  if (d.has_center()) v[at] -= d.center.dot(v.segment(sl, k));
  v[at] += shift;
}

inline void dpars_reported(const GlmPotential& pot, Vec& v, bool forward) {
  const DparPredictors* dp = pot.dpars();
  if (!dp) return;
  const auto specs = GlmPotential::aux_specs(pot.family());
  for (int k = 0; k < dp->n_aux(); ++k)
    if (const DenseDesign* b = dp->design_of(k)) dpar_block_reported(*b, specs[k], pot.data().y_scale, v, forward);
}

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

// The sum c'beta of the centring (the data-scale slopes at out's slope block): the shift
// from the intercept at the predictor means to the intercept at 0, and from the cutpoints at
// the predictor means to the cutpoints of the uncentred predictors.
inline double centring_shift(const GlmPotential& pot, const Vec& out) {
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes();
  double acc = 0.0;
  for (Eigen::Index j = 0; j < d.k(); ++j) acc = acc + d.center[j] * out[sl + j];
  return acc;
}

// Multiplies (or divides) by s the parameters in the response's units: the intercept, the
// slopes and the aux parameters that scale with it (sigma).
inline void scale_to_response(const GlmPotential& pot, double s, Vec& out, bool divide = false) {
  auto apply = [&](Eigen::Index at, Eigen::Index n) {
    if (divide) out.segment(at, n) /= s; else out.segment(at, n) *= s;
  };
  apply(0, pot.design().size());
  pot_aux_blocks(pot, [&](const ParamBlock& b, const family::AuxSpec& a) {
    if (a.scales_with_y) apply(b.offset, b.size);
  });
}

// The blocks of every GLM: intercept, coefficients (in the sampler's coordinates in theta),
// aux parameters, group-level terms.
inline void blocks_to_reported(const GlmPotential& pot, const Vec& theta, Vec& out) {
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes(), k = d.k();
  out = theta;
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) out[sl + j] = out[sl + j] / d.scale[j];
  const double acc = d.has_center() ? centring_shift(pot, out) : 0.0;
  if (d.has_center() && pot.has_intercept()) out[0] = out[0] - acc;
  pot_aux_blocks(pot, [&](const ParamBlock& b, const family::AuxSpec&) {
    aux_to_natural(b.transform, b.lower, theta.data() + b.offset, b.size, out.data() + b.offset);
    if (b.transform == Transform::Ordered && d.has_center()) out.segment(b.offset, b.size).array() += acc;
  });
  if (d.y_scale != 1.0) scale_to_response(pot, d.y_scale, out);
  if (pot.has_intercept()) out[0] = out[0] + d.y_center;
  dpars_reported(pot, out, true);
  // A distributional parameter's terms are on its link scale, which the response's units
  // only shift (log sigma) or leave alone.
  for (const GroupTerm& t : pot.group_terms()) group_term_to_reported(t, theta, t.of_mean() ? d.y_scale : 1.0, out);
}

inline void to_reported(const GlmPotential& pot, const Vec& theta, Vec& out) {
  if (pot.smooths() || !pot.dpar_smooths().empty()) {
    Vec eff = theta;
    if (const SmoothScales* sm = pot.smooths()) sm->effective(theta, eff);
    for (const SmoothScales& s : pot.dpar_smooths()) s.effective_into(theta, eff);
    blocks_to_reported(pot, eff, out);
    if (const SmoothScales* sm = pot.smooths()) sm->to_reported(theta, out);
    for (const SmoothScales& s : pot.dpar_smooths()) s.to_reported(theta, out);
    return;
  }
  const Horseshoe* hs = pot.horseshoe();
  if (!hs) return blocks_to_reported(pot, theta, out);
  Vec eff;
  hs->effective(theta, eff);
  blocks_to_reported(pot, eff, out);
  hs->to_reported(theta, out);
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
  theta = reported;
  dpars_reported(pot, theta, false);
  if (pot.has_intercept()) theta[0] = theta[0] - d.y_center;
  if (d.y_scale != 1.0) scale_to_response(pot, d.y_scale, theta, true);
  const double acc = d.has_center() ? centring_shift(pot, theta) : 0.0;
  if (d.has_center() && pot.has_intercept()) theta[0] = theta[0] + acc;
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) theta[sl + j] = theta[sl + j] * d.scale[j];
  pot_aux_blocks(pot, [&](const ParamBlock& b, const family::AuxSpec&) {
    Vec x = theta.segment(b.offset, b.size);
    if (b.transform == Transform::Ordered && d.has_center()) x.array() -= acc;
    aux_from_natural(b.transform, b.lower, x.data(), b.size, theta.data() + b.offset);
  });
  if (const Horseshoe* hs = pot.horseshoe()) hs->from_reported(reported, theta);
  if (const SmoothScales* sm = pot.smooths()) sm->from_reported(reported, theta);
  for (const SmoothScales& s : pot.dpar_smooths()) s.from_reported(reported, theta);
}

}  // namespace vhmc
