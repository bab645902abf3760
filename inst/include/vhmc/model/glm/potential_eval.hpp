#pragma once
// GlmPotential's evaluation paths, U and grad U (glm/glm_potential.hpp declares them): the
// dispatch, a family's pass over the rows, the priors alone, and the gaussian family's
// likelihood from statistics (glm/gaussian_likelihood.hpp), with or without group-level terms.
#include "glm_potential.hpp"

namespace vhmc {

template <class F>
typename F::Aux GlmPotential::aux_of(const Vec& theta) const {
  if constexpr (F::kGaussianStats) {
    return fixed_noise() ? F::fixed(noise_precision_) : F::aux(theta.data() + aux_, n_aux_);
  } else if constexpr (family::aux_count<F>() > 0) {
    return F::aux(theta.data() + aux_, n_aux_);
  } else {
    return F::aux(nullptr, 0);
  }
}

inline double GlmPotential::gaussian_precision(const Vec& theta) const {
  return with_family(family_, [&](auto f) {
    using F = decltype(f);
    if constexpr (F::kGaussianStats) {
      return aux_of<F>(theta).inv_s2;
    } else {
      return 0.0;
    }
  });
}

inline void GlmPotential::linear_predictor(const Vec& theta) {
  design_.predictor(theta, eta_);
  for (const GroupTerm& t : terms_)
    if (t.of_mean()) t.add_eta(eta_);
  if (data_->has_offset()) eta_ += data_->offset;
}

// With a horseshoe or smooths: the likelihood and the other priors at the coefficients they
// give, then their priors and the chain rule of their maps (glm/horseshoe.hpp,
// glm/smooths.hpp).
inline double GlmPotential::eval(const Vec& theta, Vec* g) {
  if (sm_ || !dsm_.empty()) return eval_smooths(theta, g);
  if (!hs_) return eval_paths(theta, g);
  hs_->prepare(theta, eff_);
  const double u = eval_paths(eff_, g);
  return u + hs_->finish(theta, g);
}

// With smooths (the linear predictor's, the distributional predictors'): every smooth's
// effective coefficients, the paths there, then each smooth's prior and chain rule.
inline double GlmPotential::eval_smooths(const Vec& theta, Vec* g) {
  if (sm_) sm_->prepare(theta, eff_); else eff_ = theta;
  for (SmoothScales& s : dsm_) s.prepare_into(theta, eff_);
  double u = eval_paths(eff_, g);
  if (sm_) u += sm_->finish(theta, g);
  for (const SmoothScales& s : dsm_) u += s.finish(theta, g);
  return u;
}

// Every path reads the group-level terms' covariances at theta (prepare()), once.
inline double GlmPotential::eval_paths(const Vec& theta, Vec* g) {
  for (GroupTerm& t : terms_) t.prepare(theta, g != nullptr);
  if (prior_only_) return eval_prior(theta, g);
  design_.set_beta(theta);
  if (has_marginal_term()) return eval_marginal(theta, g);
  if (uses_cells()) return eval_cells(theta, g);
  if (terms_.empty() && gauss_) return eval_gaussian(theta, g);
  return with_family(family_, [&](auto f) { return eval_family<decltype(f)>(theta, g); });
}

// The group-level terms' priors (and their share of the gradient from r_).
inline double GlmPotential::terms_finish(const Vec& theta, Vec* g) {
  double u = 0.0;
  for (GroupTerm& t : terms_) u += t.finish(theta, t.of_mean() || !g ? &r_ : &dp_->d_column(t.data().dpar), g);
  return u;
}

// A family's pass over the rows (with group-level terms, their predictors in eta and their
// priors).
template <class F>
inline double GlmPotential::eval_family(const Vec& theta, Vec* g) {
  if (dp_) return eval_dpars<F>(theta, g);
  linear_predictor(theta);
  double ll = F::pass(data_->y, eta_, pass_weights(), aux_of<F>(theta), g ? &r_ : nullptr,
                      g && aux_ >= 0 ? dt_.data() : nullptr, z_);
  if (!cens_rows_.empty()) ll += censored_pass<F>(theta, g != nullptr);
  const double u = -ll;
  if (!g) return u + priors_.eval(theta, nullptr) + (terms_.empty() ? 0.0 : terms_finish(theta, nullptr));
  design_.scatter(r_, *g);
  if (aux_ >= 0) g->segment(aux_, n_aux_) = -dt_;
  if (terms_.empty()) return u + priors_.eval(theta, g);
  g->tail(dim() - (aux_ >= 0 ? aux_ + n_aux_ : design_.size())).setZero();
  const double up = priors_.eval(theta, g);
  return u + up + terms_finish(theta, g);
}

// With distributional predictors: every row at its own aux values, the linear predictor's
// and the predictors' gradients, the priors and the group-level terms'.
template <class F>
inline double GlmPotential::eval_dpars(const Vec& theta, Vec* g) {
  linear_predictor(theta);
  dp_->predict(theta);
  for (const GroupTerm& t : terms_)
    if (!t.of_mean()) dp_->add_term(t.data().dpar, t);
  const double u = -dpar_pass<F>(g != nullptr);
  if (!g) return u + priors_.eval(theta, nullptr) + (terms_.empty() ? 0.0 : terms_finish(theta, nullptr));
  design_.scatter(r_, *g);
  dp_->scatter(*g);
  if (terms_.empty()) return u + priors_.eval(theta, g);
  g->tail(dim() - aux_end_).setZero();
  const double up = priors_.eval(theta, g);
  return u + up + terms_finish(theta, g);
}

template <class F>
inline double GlmPotential::dpar_pass(bool grad) {
  constexpr int A = static_cast<int>(family::aux_count<F>());
  const GlmData& d = *data_;
  auto& D = dp_->D();
  double ll = 0.0;
  for (Eigen::Index i = 0; i < d.n(); ++i) {
    family::Local o;
    dpar_row<F>(i, dp_->t_row(i), grad ? 1 : 0, o);
    const double w = d.has_weights() ? d.weights[i] : 1.0;
    ll += w * o.v;
    if (!grad) continue;
    r_[i] = w * o.g[0];
    for (int k = 0; k < A; ++k) D(i, k) = w * o.g[1 + k];
  }
  return ll;
}

// A row's censored probability or density, from the family's per-row terms.
template <class F>
inline void GlmPotential::dpar_row(Eigen::Index i, const double* t, int order, family::Local& o) const {
  if constexpr (F::kThresholds || family::aux_count<F>() == 0) {
    throw std::logic_error("distributional predictors need auxiliary parameters other than cutpoints");
  } else {
    constexpr std::size_t A = family::aux_count<F>();
    const GlmData& d = *data_;
    if constexpr (F::kCensored) {
      if (d.has_censoring() && d.cens[i] != family::kCensNone) {
        return F::censored(d.y[i], d.y2.size() ? d.y2[i] : d.y[i], d.cens[i], eta_[i], F::cens_aux(t), order, o);
      }
    }
    const auto a = F::aux(t, static_cast<Eigen::Index>(A));
    if (order < 2) {
      std::array<double, A ? A : 1> dt{};
      o.v = F::row(d.y[i], eta_[i], a, order ? &o.g[0] : nullptr, order ? dt.data() : nullptr);
      for (std::size_t k = 0; k < A; ++k) o.g[1 + k] = dt[k];
      return;
    }
    double he = 0.0, het[A ? A : 1] = {}, htt[A ? A * A : 1] = {};
    F::curvature(d.y[i], eta_[i], a, he, het, htt);
    o.h[0][0] = -he;
    for (std::size_t k = 0; k < A; ++k) {
      o.h[0][1 + k] = o.h[1 + k][0] = -het[k];
      for (std::size_t l = 0; l < A; ++l) o.h[1 + k][1 + l] = -htt[k * A + l];
    }
  }
}

// The censored rows' log likelihood; with grad, their r_ (set: the pass gave them weight 0)
// and their share of dt_ (added).
template <class F>
inline double GlmPotential::censored_pass(const Vec& theta, bool grad) {
  if constexpr (F::kCensored) {
    const GlmData& d = *data_;
    const auto g = F::cens_aux(aux_ >= 0 ? theta.data() + aux_ : nullptr);
    double ll = 0.0;
    for (const Eigen::Index i : cens_rows_) {
      family::Local o;
      F::censored(d.y[i], d.y2.size() ? d.y2[i] : d.y[i], d.cens[i], eta_[i], g, grad ? 1 : 0, o);
      const double w = d.has_weights() ? d.weights[i] : 1.0;
      ll += w * o.v;
      if (!grad) continue;
      r_[i] = w * o.g[0];
      for (Eigen::Index k = 0; k < n_aux_; ++k) dt_[k] += w * o.g[1 + k];
    }
    return ll;
  } else {
    throw std::logic_error("censored rows in a family without censoring");
  }
}

// The priors alone (prior_only).
inline double GlmPotential::eval_prior(const Vec& theta, Vec* g) {
  if (g) g->setZero();
  r_.setZero();
  if (dp_) dp_->D().setZero();
  return priors_.eval(theta, g) + terms_finish(theta, g);
}

// The gaussian family without terms: its sufficient statistics and the priors.
inline double GlmPotential::eval_gaussian(const Vec& theta, Vec* g) {
  const double inv_s2 = gaussian_precision(theta);
  const double u = gauss_->dense(theta, inv_s2, aux_, g);
  return u + priors_.eval(theta, g);
}

// The gaussian family with sampled terms from the cells: the dense block's sufficient
// statistics, the cells' part (which sets each term's dloglik/db), the priors and the
// terms' own.
inline double GlmPotential::eval_cells(const Vec& theta, Vec* g) {
  if (g) g->setZero();
  const double inv_s2 = gaussian_precision(theta);
  double u = gauss_->dense(theta, inv_s2, aux_, g);
  u += gauss_->cells_part(theta, inv_s2, aux_, terms_, g);
  u += priors_.eval(theta, g);
  for (GroupTerm& t : terms_) u += t.finish(theta, nullptr, g);
  return u;
}

// The gaussian family with its terms integrated out: the sufficient statistics' part, the
// priors, the terms' covariance priors and the integrated part.
inline double GlmPotential::eval_marginal(const Vec& theta, Vec* g) {
  if (g) g->setZero();
  const double inv_s2 = gaussian_precision(theta);
  double u = gauss_->dense(theta, inv_s2, aux_, g) + priors_.eval(theta, g);
  for (const GroupTerm& t : terms_) u += t.covariance_prior();
  return u + gauss_->marginal_part(theta, aux_, terms_, g);
}

}  // namespace vhmc
