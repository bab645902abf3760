#pragma once
// How a GlmPotential (glm/glm_potential.hpp) is built: its layout's blocks (the coefficients,
// the family's auxiliary parameters), their priors, the gaussian family's statistics, a
// horseshoe prior, and group-level terms appended after construction (sampled, from cells, or
// integrated out). Construction only: nothing here runs inside a chain but
// marginal_effects(), which draws the integrated-out effects for the reported values.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "glm_potential.hpp"

namespace vhmc {

inline bool GlmPotential::has_fisher() const {
  const bool fam = with_family(family_, [](auto f) { return decltype(f)::kHasFisher; });
  return fam && !has_aux() && !hierarchical() && !censored() && !dp_;
}

inline void GlmPotential::use_sparse_columns(double max_fraction) {
  if (!gauss_ || (!terms_.empty() && !has_marginal_term())) design_.use_sparse_columns(max_fraction);
}

inline void GlmPotential::set_prior_only(bool prior_only) {
  if (prior_only && has_marginal_term()) throw std::invalid_argument("a prior-only model has no effects to integrate out");
  prior_only_ = prior_only;
}

inline GlmPotential::GlmPotential(const GlmData& data, GlmFamily family, bool has_intercept,
                                  const Prior& prior_intercept, const Prior& prior,
                                  const std::vector<Prior>& prior_aux, double noise_precision,
                                  Eigen::Index n_cutpoints, const SmoothSpec& smooths, const DparSpec& dpars)
    : data_(&data), family_(family), noise_precision_(noise_precision),
      design_(data, has_intercept, 0), eta_(data.n()), r_(data.n()), z_(data.n()) {
  const Eigen::Index k_smooth = smooths.columns(), k = data.k() - k_smooth;
  if (k < 0) throw std::invalid_argument("smooths: more smooth columns than the design has");
  if (k_smooth > 0 && prior.kind == PriorKind::Horseshoe)
    throw std::invalid_argument("a horseshoe prior with smooth terms is not available");
  layout_.add("intercept", "(Intercept)", has_intercept ? 1 : 0);
  layout_.add("coef", prior.kind == PriorKind::Horseshoe ? "noncentred" : "", k);
  const bool any_centred = std::find(smooths.centred.begin(), smooths.centred.end(), true) != smooths.centred.end();
  layout_.add("smooth", any_centred ? "partly centred" : "noncentred", k_smooth);
  add_aux_blocks(n_cutpoints, dpars);
  if (k_smooth > 0) add_smooths(smooths);
  add_dpar_smooths(dpars);
  validate(prior_intercept, prior, prior_aux);
  if (has_intercept) priors_.add_location(prior_intercept, 0, 1, nullptr);
  const Eigen::Ref<const Vec> scale(data.scale.head(data.has_scale() ? k : 0));
  if (prior.kind == PriorKind::Horseshoe) {
    add_horseshoe(prior.hs);
  } else {
    priors_.add_location(prior, design_.slopes(), k, data.has_scale() ? &scale : nullptr);
  }
  for (std::size_t b = 0; b < aux_blocks_.size(); ++b) {
    const ParamBlock& blk = layout_.blocks()[aux_blocks_[b]];
    priors_.add_aux(prior_aux[aux_block_spec_[b]], blk.offset, blk.size, blk.transform, blk.lower);
  }
  add_dpar_priors(dpars);
  setup_censoring();
  if (gaussian_stats() && !censored() && !dp_) {
    const double sum_w = data.has_weights() ? data.weights.sum() : static_cast<double>(data.n());
    gauss_ = std::make_unique<GaussianLikelihood>(design_, sum_w);
  } else {
    design_.use_sparse_columns();  // the row pass of every gradient
  }
}

inline void GlmPotential::setup_censoring() {
  const GlmData& d = *data_;
  if (!d.has_censoring()) return;
  if (d.cens.size() != d.n() || (d.y2.size() != 0 && d.y2.size() != d.n()))
    throw std::invalid_argument("censoring: one code (and upper bound) per row");
  const bool can = with_family(family_, [](auto f) { return decltype(f)::kCensored; });
  obs_w_ = d.has_weights() ? Vec(d.weights) : Vec::Ones(d.n());
  for (Eigen::Index i = 0; i < d.n(); ++i) {
    const int c = d.cens[i];
    if (c < family::kCensLeft || c > family::kCensInterval) throw std::invalid_argument("censoring: codes are -1, 0, 1, 2");
    if (c == family::kCensNone) continue;
    if (!can) throw std::invalid_argument("censoring: the family has no censored likelihood");
    if (c == family::kCensInterval && !(d.y2.size() && d.y2[i] > d.y[i]))
      throw std::invalid_argument("censoring: an interval needs an upper bound above y");
    cens_rows_.push_back(i);
    obs_w_[i] = 0.0;
  }
  if (cens_rows_.empty()) obs_w_.resize(0);
  if (fixed_noise() && censored()) throw std::invalid_argument("censoring: not with a fixed noise precision");
}

inline void GlmPotential::add_group_term(const GroupTermData& d) {
  if (hs_) throw std::invalid_argument("a horseshoe prior with group-level terms is not available");
  const bool sampled = !terms_.empty() && !has_marginal_term();
  if (d.marginal && (!gauss_ || aux_ < 0 || sampled))
    throw std::invalid_argument("only the gaussian family's group-level terms can be integrated out, all of them");
  if (!d.marginal && has_marginal_term()) throw std::invalid_argument("marginal group-level terms exclude sampled ones");
  if (d.dpar >= 0 && (!dp_ || d.dpar >= dp_->n_aux() || !dp_->design_of(d.dpar) || d.marginal))
    throw std::invalid_argument("a group-level term of an aux parameter needs its formula, and its effects sampled");
  // The family's first aux parameter is the scale the covariance is relative to (rstanarm's
  // decov for the gaussian family; R decides which families). With distributional
  // predictors there is no single one (aux_ < 0).
  const bool rel = d.prior.relative_to_sigma && aux_ >= 0;
  terms_.emplace_back(d, layout_, rel ? aux_ : -1);
  if (d.n != data_->n()) throw std::invalid_argument("a group-level term needs one level per row");
  if (gauss_) gauss_->drop_cells();
  if (d.marginal) {
    gauss_->integrate_out(design_, terms_);
  } else if (gauss_ && terms_.size() == 1) {
    design_.use_sparse_columns();  // the gaussian family's row pass, unless cells replace it
  }
}

inline Eigen::Index GlmPotential::use_cells() {
  if (!gauss_ || terms_.empty() || has_marginal_term())
    throw std::invalid_argument("cell statistics need the gaussian family and sampled group-level terms");
  return gauss_->use_cells(design_, terms_);
}

inline void GlmPotential::marginal_effects(const Vec& theta, Rng* rng, std::vector<Mat>& b) {
  for (GroupTerm& t : terms_) t.prepare(theta, false);
  gauss_->marginal_effects(theta, aux_, terms_, rng, b);
}

inline void GlmPotential::add_horseshoe(const HorseshoeSpec& s) {
  const GlmData& d = *data_;
  if (s.relative_to_sigma && aux_ < 0) throw std::invalid_argument("a horseshoe relative to sigma needs sigma");
  Vec unit = d.has_scale() ? Vec(d.scale / d.y_scale) : Vec::Constant(d.k(), 1.0 / d.y_scale);
  hs_.emplace(s, layout_, design_.slopes(), std::move(unit), d.y_scale, s.relative_to_sigma ? aux_ : -1);
  eff_.resize(layout_.dim());
}

inline void GlmPotential::add_smooths(const SmoothSpec& s) {
  const GlmData& d = *data_;
  const Eigen::Index k = s.columns(), first = d.k() - k;
  Vec unit = d.has_scale() ? Vec(d.scale.tail(k) / d.y_scale) : Vec::Constant(k, 1.0 / d.y_scale);
  sm_.emplace(s, layout_, design_.slopes() + first, std::move(unit));
  eff_.resize(layout_.dim());
}

inline void GlmPotential::add_aux_blocks(Eigen::Index n_cutpoints, const DparSpec& dpars) {
  aux_end_ = layout_.dim();
  if (fixed_noise() && !dpars.empty()) throw std::invalid_argument("distributional predictors need sigma estimated");
  if (fixed_noise()) return;
  if (!dpars.empty()) return add_dpar_blocks(dpars);
  const auto specs = aux_specs(family_);
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const family::AuxSpec& a = specs[k];
    const Eigen::Index size = a.sized_by_data ? n_cutpoints : 1;
    if (size <= 0) throw std::invalid_argument(std::string("the family's ") + a.name + " need a positive size");
    aux_blocks_.push_back(layout_.blocks().size());
    aux_block_spec_.push_back(static_cast<int>(k));
    const Eigen::Index at = layout_.add(std::string("aux:") + a.name, a.name, size, a.transform, a.lower);
    if (aux_ < 0) aux_ = at;
    n_aux_ += size;
  }
  aux_end_ = layout_.dim();
  dt_.resize(n_aux_);
}

// Each aux parameter in the family's order: a block "dpar:NAME" (intercept and slopes on
// its columns) when a predictor models it, else its one-value block "aux:NAME".
inline void GlmPotential::add_dpar_blocks(const DparSpec& dpars) {
  const auto specs = aux_specs(family_);
  if (thresholds()) throw std::invalid_argument("distributional predictors: not for a family's cutpoints");
  dp_.emplace(data_->n(), static_cast<int>(specs.size()));
  std::vector<const DparData*> of(specs.size(), nullptr);
  for (const DparData& p : dpars.dpars) {
    if (p.aux < 0 || p.aux >= static_cast<int>(specs.size()) || of[p.aux] || !p.data || p.data->n() != data_->n())
      throw std::invalid_argument("distributional predictors: one per auxiliary parameter, one row per observation");
    of[p.aux] = &p;
  }
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const family::AuxSpec& a = specs[k];
    if (of[k]) {
      const Eigen::Index at = layout_.add(std::string("dpar:") + a.name, a.name, 1 + of[k]->data->k());
      dp_->add_block(static_cast<int>(k), *of[k]->data, at);
      continue;
    }
    aux_blocks_.push_back(layout_.blocks().size());
    aux_block_spec_.push_back(static_cast<int>(k));
    dp_->set_scalar(static_cast<int>(k), layout_.add(std::string("aux:") + a.name, a.name, 1, a.transform, a.lower));
  }
  aux_end_ = layout_.dim();
}

// Each predictor's smooths: its design's trailing columns, their sds a block "sm:sd:NAME"
// after the others; the columns' unit is their scale (the link scale has no response units).
inline void GlmPotential::add_dpar_smooths(const DparSpec& dpars) {
  const auto specs = aux_specs(family_);
  for (const DparData& p : dpars.dpars) {
    if (p.smooths.empty()) continue;
    const Eigen::Index k = p.smooths.columns(), first = p.data->k() - k;
    if (first < 0) throw std::invalid_argument("distributional predictors: more smooth columns than columns");
    const DenseDesign& b = *dp_->design_of(p.aux);
    Vec unit = p.data->has_scale() ? Vec(p.data->scale.tail(k)) : Vec::Ones(k);
    dsm_.emplace_back(p.smooths, layout_, b.slopes() + first, std::move(unit), std::string("sm:sd:") + specs[p.aux].name);
  }
  if (!dsm_.empty()) eff_.resize(layout_.dim());
}

// The predictors' intercepts (at their predictors' means) and slopes (in the sampler's
// coordinates, times their scales) take their priors on the link scale.
inline void GlmPotential::add_dpar_priors(const DparSpec& dpars) {
  for (const DparData& p : dpars.dpars) {
    const DenseDesign& b = *dp_->design_of(p.aux);
    validate_coef_prior(p.prior_intercept, 1, "prior_dpar (intercept)");
    const Eigen::Index k = p.data->k() - p.smooths.columns();  // the smooths' columns: their sds
    validate_coef_prior(p.prior, k, "prior_dpar");
    priors_.add_location(p.prior_intercept, b.first(), 1, nullptr);
    const Eigen::Ref<const Vec> scale(p.data->scale.head(p.data->has_scale() ? k : 0));
    priors_.add_location(p.prior, b.slopes(), k, p.data->has_scale() ? &scale : nullptr);
  }
}

}  // namespace vhmc
