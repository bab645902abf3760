#pragma once
// The regularised horseshoe prior on a GLM's coefficients (Piironen and Vehtari 2017,
// "Sparsity information and regularization in the horseshoe and other shrinkage priors",
// EJS 11, eq. 2.8) and the horseshoe+ (Bhadra et al. 2017), in rstanarm's non-centred form
// (its hs_prior() and hsplus_prior()):
//   beta_j = z_j m_j,  m_j = tau lambda~_j = c tau L_j / sqrt(c^2 + tau^2 L_j^2),  z_j ~ N(0, 1),
//   L_j = lambda_j (horseshoe) or lambda_j eta_j (horseshoe+), lambda_j ~ half-t(df),
//   eta_j ~ half-t(df2), tau = global_scale [sigma] tau0, tau0 ~ half-t(global_df),
//   c^2 ~ InvGamma(slab_df / 2, slab_df slab_scale^2 / 2),
// beta on the data's scale (the coefficients of the model matrix's columns, as rstanarm: no
// autoscaling); sigma, the gaussian family's residual scale, when relative_to_sigma. In the
// centred form, beta_j ~ N(0, m_j^2), tau and the shrunk coefficients make a funnel whose
// neck the sampler cannot enter; in z the prior is a standard normal.
// Parameters (model/priors.hpp HorseshoeSpec; glm/layout.hpp): the "coef" block holds z
// (label "noncentred"), and the horseshoe adds, after the family's aux blocks,
//   "hs:lambda"  log lambda_j (k)            reported lambda_j        label "hs_lambda"
//   "hs:eta"     log eta_j (k, horseshoe+)   reported eta_j           label "hs_eta"
//   "hs:tau"     log tau0                     reported tau (data scale) label "hs_tau"
//   "hs:c"       log c                        reported c (data scale)   label "hs_c"
// each with its log Jacobian. rstanarm writes each half-t as a half-normal times the root
// of an inverse gamma (two parameters); one log-scale coordinate per scale, as brms samples
// them, has the same distribution.
// The potential evaluates its likelihood at the effective theta, whose coef block holds the
// coefficients in the sampler's coordinates (beta_j times its predictor's scale, over the
// response's: `unit`), and finish() carries that block's gradient G through the map and
// adds the prior. With w_j = tau L_j, d log m_j / d log w_j = kappa_j = c^2 / (c^2 + w_j^2)
// and d log m_j / d log c = 1 - kappa_j, so with q_j = G_j b_j (b_j the coefficient):
//   dU/dz_j = G_j unit_j m_j, dU/dlog lambda_j (and log eta_j) = q_j kappa_j,
//   dU/dlog tau0 = dU/dlog sigma = sum_j q_j kappa_j, dU/dlog c = sum_j q_j (1 - kappa_j).
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "../../base/math.hpp"
#include "../../base/types.hpp"
#include "../priors.hpp"
#include "layout.hpp"

namespace vhmc {

inline void validate_horseshoe(const HorseshoeSpec& s) {
  auto positive = [](double x, const char* what) {
    if (!(x > 0.0) || !std::isfinite(x)) throw std::invalid_argument(std::string("horseshoe: ") + what + " must be positive and finite");
  };
  positive(s.df, "df");
  positive(s.global_df, "global_df");
  positive(s.global_scale, "global_scale");
  positive(s.slab_df, "slab_df");
  positive(s.slab_scale, "slab_scale");
  if (!(s.df2 >= 0.0) || !std::isfinite(s.df2)) throw std::invalid_argument("horseshoe: df2 must be finite and >= 0");
}

class Horseshoe {
 public:
  // coef: offset of the k coefficients' block; unit: each coefficient's factor from the data
  // scale to the sampler's; sigma: offset of log sigma (in the response's standardised
  // units: times y_scale on the data's) when the global scale is relative to it, else -1.
  Horseshoe(const HorseshoeSpec& s, ParameterLayout& layout, Eigen::Index coef, Vec unit, double y_scale,
            Eigen::Index sigma)
      : s_(s), coef_(coef), k_(unit.size()), unit_(std::move(unit)), sigma_(sigma),
        log_scale_(std::log(s.global_scale) + (sigma >= 0 ? std::log(y_scale) : 0.0)),
        log_b_(std::log(0.5 * s.slab_df * s.slab_scale * s.slab_scale)), local_(Prior::student_t(s.df, 0.0, 1.0)),
        local2_(Prior::student_t(s.plus() ? s.df2 : 1.0, 0.0, 1.0)), global_(Prior::student_t(s.global_df, 0.0, 1.0)) {
    validate_horseshoe(s);
    if (k_ < 1) throw std::invalid_argument("horseshoe: the model has no coefficients");
    lambda_ = layout.add("hs:lambda", "hs_lambda", k_, Transform::Log);
    if (s.plus()) eta_ = layout.add("hs:eta", "hs_eta", k_, Transform::Log);
    tau_ = layout.add("hs:tau", "hs_tau", 1, Transform::Log);
    c_ = layout.add("hs:c", "hs_c", 1, Transform::Log);
    m_.resize(k_);
    kappa_.resize(k_);
    kappa_c_.resize(k_);
  }

  const HorseshoeSpec& spec() const { return s_; }

  // eff = theta with the coefficients in the sampler's coordinates, b_j = z_j m_j unit_j;
  // keeps m and kappa for finish().
  void prepare(const Vec& theta, Vec& eff) {
    scales(theta, m_, kappa_, kappa_c_);
    eff = theta;
    eff.segment(coef_, k_) = theta.segment(coef_, k_).cwiseProduct(m_).cwiseProduct(unit_);
  }
  // The same without keeping anything (the reported map).
  void effective(const Vec& theta, Vec& eff) const {
    Vec m, kappa, kappa_c;
    scales(theta, m, kappa, kappa_c);
    eff = theta;
    eff.segment(coef_, k_) = theta.segment(coef_, k_).cwiseProduct(m).cwiseProduct(unit_);
  }

  // U of the horseshoe's parameters (z, the scales with their log Jacobians). With g, whose
  // coef block holds dU/db at the effective coefficients on entry: the gradient in theta (its
  // own blocks set, log sigma's added to). Needs prepare(theta).
  double finish(const Vec& theta, Vec* g) const {
    const auto z = theta.segment(coef_, k_);
    double u = 0.5 * z.squaredNorm(), d = 0.0;
    double* dp = g ? &d : nullptr;
    for (Eigen::Index j = 0; j < k_; ++j) {
      u += aux_prior_eval(local_, theta[lambda_ + j], dp);
      if (g) (*g)[lambda_ + j] = d;
      if (eta_ < 0) continue;
      u += aux_prior_eval(local2_, theta[eta_ + j], dp);
      if (g) (*g)[eta_ + j] = d;
    }
    u += aux_prior_eval(global_, theta[tau_], dp);
    if (g) (*g)[tau_] = d;
    u += slab(theta[c_], dp);
    if (!g) return u;
    (*g)[c_] = d;
    double sum_k = 0.0, sum_kc = 0.0;
    for (Eigen::Index j = 0; j < k_; ++j) {
      const double G = (*g)[coef_ + j], a = m_[j] * unit_[j], q = G * z[j] * a;
      (*g)[coef_ + j] = G * a + z[j];
      (*g)[lambda_ + j] += q * kappa_[j];
      if (eta_ >= 0) (*g)[eta_ + j] += q * kappa_[j];
      sum_k += q * kappa_[j];
      sum_kc += q * kappa_c_[j];
    }
    (*g)[tau_] += sum_k;
    (*g)[c_] += sum_kc;
    if (sigma_ >= 0) (*g)[sigma_] += sum_k;
    return u;
  }

  // The horseshoe's blocks of out on the reported scale: lambda_j, eta_j, tau, c.
  void to_reported(const Vec& theta, Vec& out) const {
    for (Eigen::Index j = 0; j < k_; ++j) {
      out[lambda_ + j] = std::exp(theta[lambda_ + j]);
      if (eta_ >= 0) out[eta_ + j] = std::exp(theta[eta_ + j]);
    }
    out[tau_] = std::exp(log_tau(theta));
    out[c_] = std::exp(theta[c_]);
  }
  // ... and back: theta's horseshoe blocks from reported's, and z from the coefficients
  // theta holds in the sampler's coordinates (and log sigma, already unconstrained).
  void from_reported(const Vec& reported, Vec& theta) const {
    for (Eigen::Index j = 0; j < k_; ++j) {
      theta[lambda_ + j] = std::log(reported[lambda_ + j]);
      if (eta_ >= 0) theta[eta_ + j] = std::log(reported[eta_ + j]);
    }
    theta[c_] = std::log(reported[c_]);
    theta[tau_] = 0.0;
    theta[tau_] = std::log(reported[tau_]) - log_tau(theta);
    Vec m, kappa, kappa_c;
    scales(theta, m, kappa, kappa_c);
    theta.segment(coef_, k_) = theta.segment(coef_, k_).cwiseQuotient(m.cwiseProduct(unit_));
  }

 private:
  // log tau on the data's scale.
  double log_tau(const Vec& theta) const { return theta[tau_] + log_scale_ + (sigma_ >= 0 ? theta[sigma_] : 0.0); }

  // m_j, kappa_j and 1 - kappa_j at theta, from d_j = 2 log(w_j / c) without overflow:
  // kappa_j = logistic(-d_j), log m_j = log w_j - softplus(d_j) / 2.
  void scales(const Vec& theta, Vec& m, Vec& kappa, Vec& kappa_c) const {
    m.resize(k_);
    kappa.resize(k_);
    kappa_c.resize(k_);
    const double lt = log_tau(theta), lc = theta[c_];
    for (Eigen::Index j = 0; j < k_; ++j) {
      const double lw = lt + theta[lambda_ + j] + (eta_ >= 0 ? theta[eta_ + j] : 0.0), d = 2.0 * (lw - lc);
      logistic_pair(-d, kappa[j], kappa_c[j]);
      m[j] = std::exp(lw - 0.5 * softplus(d));
    }
  }

  // c^2 ~ InvGamma(a, b), a = slab_df / 2, in u = log c: U = 2 a u + b exp(-2 u) (the log
  // Jacobian of c^2 = exp(2 u) included).
  double slab(double u, double* dU) const {
    const double e = std::exp(log_b_ - 2.0 * u);
    if (dU) *dU = s_.slab_df - 2.0 * e;
    return s_.slab_df * u + e;
  }

  HorseshoeSpec s_;
  Eigen::Index coef_, k_;
  Vec unit_;
  Eigen::Index sigma_;
  double log_scale_, log_b_;  // log(global_scale [y_scale]); log b of the slab
  Prior local_, local2_, global_;
  Eigen::Index lambda_ = -1, eta_ = -1, tau_ = -1, c_ = -1;
  Vec m_, kappa_, kappa_c_;  // at the last prepare()
};

}  // namespace vhmc
