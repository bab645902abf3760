#pragma once
// GlmPotential's validation, Newton Hessian, Fisher weights and minibatch gradients
// (glm/glm_potential.hpp declares them).
#include <cmath>
#include <stdexcept>

#include "glm_potential.hpp"

namespace vhmc {

inline void GlmPotential::validate(const Prior& prior_intercept, const Prior& prior, const Prior& prior_aux) const {
  if (!(noise_precision_ >= 0.0) || !std::isfinite(noise_precision_))
    throw std::invalid_argument("noise_precision must be finite and >= 0 (0: sigma estimated)");
  if (noise_precision_ > 0.0 && family_ != GlmFamily::GaussianIdentity)
    throw std::invalid_argument("a fixed noise precision needs the gaussian family");
  if (design_.intercept()) validate_coef_prior(prior_intercept, 1, "prior_intercept");
  validate_coef_prior(prior, data_->k(), "prior");
  if (has_aux()) validate_aux_prior(prior_aux, "prior_aux");
  if (data_->has_center() && !design_.intercept()) throw std::invalid_argument("centred predictors need an intercept");
  if (data_->has_scale() && !((data_->scale.array() > 0).all() && data_->scale.allFinite()))
    throw std::invalid_argument("predictor scales must be positive and finite");
}

// Gaussian: from the sufficient statistics, with the log sigma row. Other families:
// Z' diag(h) Z with h_i = -w_i d^2 log lik_i / d eta^2 (one pass over X by blocks of rows),
// and for a family's auxiliary parameter t the cross terms Z' h_et and sum h_tt. Both in the
// sampler's coordinates; then the priors' Hessian.
inline void GlmPotential::hessian(const Vec& theta, Mat& H) {
  require_no_terms("the analytic Hessian");
  H.setZero(dim(), dim());
  if (prior_only_) {
    priors_.add_hessian(theta, H);
    return;
  }
  design_.set_beta(theta);
  if (gauss_) {
    gauss_->hessian(theta, aux_of<family::GaussianIdentity>(theta).inv_s2, aux_, H);
  } else {
    with_family(family_, [&](auto f) { family_hessian<decltype(f)>(theta, H); });
  }
  priors_.add_hessian(theta, H);
}

template <class F>
void GlmPotential::family_hessian(const Vec& theta, Mat& H) {
  const GlmData& d = *data_;
  const Eigen::Index n = d.n(), p = design_.size();
  linear_predictor(theta);
  const auto a = aux_of<F>(theta);
  Vec het(aux_ >= 0 ? n : 0);
  double htt = 0.0;
  if constexpr (std::is_same_v<F, family::PoissonLog>) {
    z_.array() = eta_.array().exp();  // Eigen's packet exp, as the value's pass
  } else {
    for (Eigen::Index i = 0; i < n; ++i) {
      double he = 0.0, hx = 0.0, ht = 0.0;
      F::curvature(d.y[i], eta_[i], a, he, hx, ht);
      z_[i] = he;
      if (aux_ >= 0) {
        het[i] = d.has_weights() ? d.weights[i] * hx : hx;
        htt += d.has_weights() ? d.weights[i] * ht : ht;
      }
    }
  }
  if (d.has_weights()) z_.array() *= d.weights.array();
  Mat Z;
  design_.gram<Vec>(z_, nullptr, Z, nullptr);
  H.topLeftCorner(p, p) = Z;
  if (aux_ >= 0) {
    Vec cross;
    design_.transpose_times(het, cross);
    H.block(0, aux_, p, 1) = cross;
    H.block(aux_, 0, 1, p) = cross.transpose();
    H(aux_, aux_) = htt;
  }
}

inline void GlmPotential::fisher_weights(const Vec& theta, Vec& lam, Vec& dlam) {
  require_no_terms("the Fisher metric");
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
  require_no_terms("minibatch gradients");
  if (g.size() != dim()) g.resize(dim());
  batch_.gather(design_, idx, m);
  batch_terms(theta, false);
  batch_.gradient(design_, aux_, g);
  priors_.eval(theta, &g);
  if (noise_var) {
    noise_var->setZero(dim());
    batch_.variance(design_, aux_, *noise_var);
  }
}

inline void GlmPotential::minibatch_grad_diff(const Vec& theta, const Vec& theta_hat, const int* idx, Eigen::Index m,
                                              Vec& g, Vec* noise_var) {
  require_no_terms("minibatch gradients");
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

}  // namespace vhmc
