#pragma once
// GlmPotential's validation, Newton Hessian, Fisher weights and minibatch gradients
// (glm/glm_potential.hpp declares them).
#include <cmath>
#include <stdexcept>

#include "glm_potential.hpp"

namespace vhmc {

inline void GlmPotential::require_no_hierarchy(const char* what) const {
  if (!terms_.empty()) throw std::logic_error(std::string(what) + " is not available for models with group-level terms");
  if (hs_) throw std::logic_error(std::string(what) + " is not available with a horseshoe prior");
  if (sm_) throw std::logic_error(std::string(what) + " is not available for models with smooth terms");
}

// Terms whose effects are integrated out leave a posterior with a mode (the covariance's
// proper prior vanishes as a standard deviation shrinks; no effects shrink with it).
inline const char* GlmPotential::modeless_by() const {
  if (!terms_.empty() && !has_marginal_term()) return "group";
  if (hs_) return "horseshoe";
  if (sm_ || !dsm_.empty()) return "smooth";
  return "";
}

inline const char* GlmPotential::anchorless_by() const {
  if (hs_) return "horseshoe";
  if (sm_ || !dsm_.empty()) return "smooth";
  return "";
}

// Group-level terms take minibatches (their likelihood factorises over rows given the
// effects, which are parameters); effects integrated out do not (the marginal likelihood
// couples a level's rows).
inline const char* GlmPotential::no_minibatch_by() const {
  if (hs_) return "horseshoe";
  if (sm_ || !dsm_.empty()) return "smooth";
  if (has_marginal_term()) return "marginal";
  if (censored()) return "censored";
  if (dp_) return "dpars";
  return "";
}

inline const char* GlmPotential::no_minibatch_noise_by() const {
  if (*no_minibatch_by()) return no_minibatch_by();
  return terms_.empty() ? "" : "group";
}

inline void GlmPotential::require_minibatch() const {
  if (*no_minibatch_by())
    throw std::logic_error(std::string("minibatch gradients are not available (") + no_minibatch_by() + ")");
}

inline bool GlmPotential::valid_categories() const {
  return with_family(family_, [&](auto f) {
    using F = decltype(f);
    if constexpr (F::kThresholds) {
      return F::valid_response(data_->y, n_aux_);
    } else {
      return true;
    }
  });
}

inline void GlmPotential::batch_terms(const Vec& theta, bool at_hat) {
  design_.set_beta(theta);
  for (GroupTerm& t : terms_) t.prepare(theta, true);
  with_family(family_, [&](auto f) {
    using F = decltype(f);
    batch_.terms<F>(design_, theta, aux_of<F>(theta), at_hat, n_aux_, terms_);
  });
}

// The minibatch estimate with group-level terms, from the gathered rows (their terms at
// theta, batch_terms()): the design's and aux coordinates from the rows, the priors, and
// each term's prior with its likelihood share from the rows' scaled per-level sums.
inline void GlmPotential::batch_gradient_with_terms(const Vec& theta, Vec& g) {
  batch_.gradient(design_, aux_, g);
  g.tail(dim() - (aux_ >= 0 ? aux_ + n_aux_ : design_.size())).setZero();
  priors_.eval(theta, &g);
  for (GroupTerm& t : terms_) {
    t.scatter_rows(batch_.rows(), batch_.size(), batch_.r(), batch_.scale(design_));
    t.finish(theta, nullptr, &g);
  }
}

inline void GlmPotential::validate(const Prior& prior_intercept, const Prior& prior,
                                   const std::vector<Prior>& prior_aux) const {
  if (!(noise_precision_ >= 0.0) || !std::isfinite(noise_precision_))
    throw std::invalid_argument("noise_precision must be finite and >= 0 (0: sigma estimated)");
  if (noise_precision_ > 0.0 && !gaussian_stats())
    throw std::invalid_argument("a fixed noise precision needs the gaussian family");
  if (design_.intercept()) validate_coef_prior(prior_intercept, 1, "prior_intercept");
  if (prior.kind == PriorKind::Horseshoe) {
    validate_horseshoe(prior.hs);
  } else {
    validate_coef_prior(prior, fixed_columns(), "prior");
  }
  for (const int k : aux_block_spec_)
    if (prior_aux.size() <= static_cast<std::size_t>(k)) throw std::invalid_argument("prior_aux: one prior per auxiliary parameter");
  for (std::size_t b = 0; b < aux_blocks_.size(); ++b) {
    const ParamBlock& blk = layout_.blocks()[aux_blocks_[b]];
    const std::string what = "prior_aux (" + blk.label + ")";
    const Prior& p = prior_aux[aux_block_spec_[b]];
    if (blk.transform == Transform::Logit) validate_probability_prior(p, what);
    else if (blk.transform == Transform::Ordered) validate_coef_prior(p, blk.size, what);
    else validate_aux_prior(p, what);
  }
  if (data_->has_center() && !design_.intercept() && !thresholds())
    throw std::invalid_argument("centred predictors need an intercept (or cutpoints)");
  if (thresholds() && design_.intercept()) throw std::invalid_argument("cutpoints take the intercept's place");
  if (thresholds() && !valid_categories()) throw std::invalid_argument("the responses must be categories 1..(cutpoints + 1)");
  if (data_->has_scale() && !((data_->scale.array() > 0).all() && data_->scale.allFinite()))
    throw std::invalid_argument("predictor scales must be positive and finite");
}

// Gaussian: from the sufficient statistics, with the log sigma row. Other families:
// Z' diag(h) Z with h_i = -w_i d^2 log lik_i / d eta^2 (one pass over X by blocks of rows),
// and for a family's auxiliary parameter t the cross terms Z' h_et and sum h_tt. Both in the
// sampler's coordinates; then the priors' Hessian.
inline void GlmPotential::hessian(const Vec& theta, Mat& H) {
  require_no_hierarchy("the analytic Hessian");
  H.setZero(dim(), dim());
  if (prior_only_) {
    priors_.add_hessian(theta, H);
    return;
  }
  design_.set_beta(theta);
  if (gauss_) {
    gauss_->hessian(theta, gaussian_precision(theta), aux_, H);
  } else {
    with_family(family_, [&](auto f) { family_hessian<decltype(f)>(theta, H); });
  }
  priors_.add_hessian(theta, H);
}

template <class F>
void GlmPotential::family_hessian(const Vec& theta, Mat& H) {
  if (dp_) return dpar_hessian<F>(theta, H);
  const GlmData& d = *data_;
  const Eigen::Index n = d.n(), p = design_.size();
  linear_predictor(theta);
  const auto a = aux_of<F>(theta);
  Mat het(aux_ >= 0 ? n : 0, n_aux_), htt = Mat::Zero(n_aux_, n_aux_);
  F::hessian(d.y, eta_, pass_weights(), a, z_, het, htt);
  if (!cens_rows_.empty()) censored_hessian<F>(theta, z_, het, htt);
  Mat Z;
  design_.gram<Vec>(z_, nullptr, Z, nullptr);
  H.topLeftCorner(p, p) = Z;
  for (Eigen::Index k = 0; k < n_aux_; ++k) {
    Vec cross;
    design_.transpose_times(het.col(k), cross);
    H.block(0, aux_ + k, p, 1) = cross;
    H.block(aux_ + k, 0, 1, p) = cross.transpose();
  }
  if (aux_ >= 0) H.block(aux_, aux_, n_aux_, n_aux_) = htt;
}

// The Newton Hessian with distributional predictors: each row's -d2 ll in (eta, t_1..t_A)
// at its own aux values, h_i, and the blocks' rows in the sampler's coordinates J_0 (the
// linear predictor's) and J_k (t_k's: a block's rows, or ones at a scalar's offset):
// H[a, b] += J_a' diag(h_ab) J_b, by blocks of rows.
template <class F>
void GlmPotential::dpar_hessian(const Vec& theta, Mat& H) {
  constexpr int A = static_cast<int>(family::aux_count<F>());
  const Eigen::Index n = data_->n();
  linear_predictor(theta);
  dp_->predict(theta);
  Mat h(n, (1 + A) * (1 + A));
  for (Eigen::Index i = 0; i < n; ++i) {
    family::Local o;
    dpar_row<F>(i, dp_->t_row(i), 2, o);
    const double w = data_->has_weights() ? data_->weights[i] : 1.0;
    for (int a = 0; a <= A; ++a)
      for (int b = 0; b <= A; ++b) h(i, a * (1 + A) + b) = -w * o.h[a][b];
  }
  std::array<Mat, 1 + A> J;
  std::array<Eigen::Index, 1 + A> at{};
  for (Eigen::Index r0 = 0; r0 < n; r0 += DenseDesign::kRowBlock) {
    const Eigen::Index m = std::min(DenseDesign::kRowBlock, n - r0);
    design_.rows(r0, m, J[0]);
    at[0] = design_.first();
    for (int k = 0; k < A; ++k) dp_->rows(k, r0, m, J[1 + k], at[1 + k]);
    for (int a = 0; a <= A; ++a)
      for (int b = 0; b <= A; ++b)
        H.block(at[a], at[b], J[a].cols(), J[b].cols()).noalias() +=
            J[a].transpose() * h.col(a * (1 + A) + b).segment(r0, m).asDiagonal() * J[b];
  }
}

// The censored rows' Newton terms in place of those their zero weight gave.
template <class F>
void GlmPotential::censored_hessian(const Vec& theta, Vec& he, Mat& het, Mat& htt) {
  if constexpr (F::kCensored) {
    const GlmData& d = *data_;
    const auto g = F::cens_aux(aux_ >= 0 ? theta.data() + aux_ : nullptr);
    for (const Eigen::Index i : cens_rows_) {
      family::Local o;
      F::censored(d.y[i], d.y2.size() ? d.y2[i] : d.y[i], d.cens[i], eta_[i], g, 2, o);
      const double w = d.has_weights() ? d.weights[i] : 1.0;
      he[i] = -w * o.h[0][0];
      for (Eigen::Index k = 0; k < n_aux_; ++k) {
        het(i, k) = -w * o.h[0][1 + k];
        for (Eigen::Index l = 0; l < n_aux_; ++l) htt(k, l) -= w * o.h[1 + k][1 + l];
      }
    }
  }
}

inline void GlmPotential::fisher_weights(const Vec& theta, Vec& lam, Vec& dlam) {
  require_no_hierarchy("the Fisher metric");
  const Eigen::Index n = data_->n();
  design_.set_beta(theta);
  linear_predictor(theta);
  lam.resize(n);
  dlam.resize(n);
  with_family(family_, [&](auto f) {
    using F = decltype(f);
    const auto a = aux_of<F>(theta);
    for (Eigen::Index i = 0; i < n; ++i) F::fisher(eta_[i], a, lam[i], dlam[i]);
  });
  if (data_->has_weights()) {
    lam.array() *= data_->weights.array();
    dlam.array() *= data_->weights.array();
  }
}

inline void GlmPotential::minibatch_grad(const Vec& theta, const int* idx, Eigen::Index m, Vec& g, Vec* noise_var) {
  require_minibatch();
  if (noise_var && *no_minibatch_noise_by())
    throw std::logic_error("the minibatch noise variance is not available with group-level terms");
  if (g.size() != dim()) g.resize(dim());
  batch_.gather(design_, idx, m);
  batch_terms(theta, false);
  if (!terms_.empty()) return batch_gradient_with_terms(theta, g);
  batch_.gradient(design_, aux_, g);
  priors_.eval(theta, &g);
  if (noise_var) {
    noise_var->setZero(dim());
    batch_.variance(design_, aux_, *noise_var);
  }
}

inline void GlmPotential::minibatch_grad_diff(const Vec& theta, const Vec& theta_hat, const int* idx, Eigen::Index m,
                                              Vec& g, Vec* noise_var) {
  require_minibatch();
  if (!terms_.empty()) return minibatch_diff_with_terms(theta, theta_hat, idx, m, g, noise_var);
  if (g.size() != dim()) g.resize(dim());
  batch_.gather(design_, idx, m);
  prior_hat_.setZero(dim());
  priors_.eval(theta_hat, &prior_hat_);
  batch_terms(theta_hat, true);
  batch_terms(theta, false);
  batch_.subtract_hat(aux_);
  batch_.gradient(design_, aux_, g);
  priors_.eval(theta, &g);
  g -= prior_hat_;
  if (noise_var) {
    noise_var->setZero(dim());
    batch_.variance(design_, aux_, *noise_var);
  }
}

// With group-level terms the estimate at theta less that at theta_hat, from the same rows:
// a term's likelihood share reaches its parameters through the effects' map at each point
// (b = D L z), so the two are not one difference of the rows' terms.
inline void GlmPotential::minibatch_diff_with_terms(const Vec& theta, const Vec& theta_hat, const int* idx,
                                                    Eigen::Index m, Vec& g, Vec* noise_var) {
  if (noise_var) throw std::logic_error("the minibatch noise variance is not available with group-level terms");
  if (g.size() != dim()) g.resize(dim());
  prior_hat_.resize(dim());
  batch_.gather(design_, idx, m);
  batch_terms(theta_hat, false);
  batch_gradient_with_terms(theta_hat, prior_hat_);
  batch_terms(theta, false);
  batch_gradient_with_terms(theta, g);
  g -= prior_hat_;
}

}  // namespace vhmc
