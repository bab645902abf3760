#pragma once
// Priors of the GLM potentials (DESIGN "Priors"): -log density and its derivative.
// Coefficients: normal, student_t, cauchy (= student_t with df 1), laplace, flat, each with a
// location / scale / df per coefficient (an Eigen vector of the coefficients' length, or of
// length 1, recycled). Auxiliary (gaussian sigma) is sampled on the log scale,
// theta_aux = log sigma, with U_aux = -log p(sigma) - log sigma (the Jacobian); there the
// location-scale families are half-distributions on (0, inf) (location must be 0), flat() is
// improper on (0, inf) (U_aux = -log sigma), and exponential(rate) and gamma(shape, rate) are
// allowed. Other auxiliary transforms (glm/aux_transforms.hpp) have their own evaluations
// below: a positive parameter with a lower bound, a probability (beta, or flat = beta(1, 1))
// and ordered cutpoints (a location prior on each).
// The coefficients may instead take the regularised horseshoe (Horseshoe: its parameters in
// HorseshoeSpec), which is no per-coefficient density but a hierarchy with parameters of its
// own; the GLM potential builds it (glm/horseshoe.hpp), and the functions below ignore it.
// Terms that do not depend on theta (normalising constants) are dropped throughout.
#include <cmath>
#include <stdexcept>
#include <string>

#include "../base/math.hpp"
#include "../base/types.hpp"

namespace vhmc {

enum class PriorKind { Flat, Normal, StudentT, Cauchy, Laplace, Exponential, Gamma, Beta, Horseshoe };

inline const char* prior_kind_name(PriorKind k) {
  switch (k) {
    case PriorKind::Flat: return "flat";
    case PriorKind::Normal: return "normal";
    case PriorKind::StudentT: return "student_t";
    case PriorKind::Cauchy: return "cauchy";
    case PriorKind::Laplace: return "laplace";
    case PriorKind::Exponential: return "exponential";
    case PriorKind::Gamma: return "gamma";
    case PriorKind::Beta: return "beta";
    case PriorKind::Horseshoe: return "horseshoe";
  }
  return "unknown";
}

// The regularised horseshoe (Piironen and Vehtari 2017) and the horseshoe+ (Bhadra et al.
// 2017) on the coefficients, with rstanarm's hs() and hs_plus() arguments: local scales
// half-t(df) (horseshoe+: times a second local scale half-t(df2); df2 = 0 for the plain
// horseshoe), global scale tau = global_scale * tau0 with tau0 ~ half-t(global_df) (times
// sigma when relative_to_sigma: rstanarm's gaussian rule), slab c^2 ~ InvGamma(slab_df / 2,
// slab_df slab_scale^2 / 2). All on the coefficients' data scale.
struct HorseshoeSpec {
  double df = 1.0, df2 = 0.0, global_df = 1.0, global_scale = 0.01, slab_df = 4.0, slab_scale = 2.5;
  bool relative_to_sigma = false;
  bool plus() const { return df2 > 0.0; }
};

// Description of the prior of one family of parameters. location, scale and df hold one value
// per coefficient or a single value that applies to all. rate is used by Exponential and
// Gamma (with shape1, its shape), shape1 and shape2 by Beta.
struct Prior {
  PriorKind kind = PriorKind::Flat;
  Vec location = Vec::Zero(1);
  Vec scale = Vec::Ones(1);
  Vec df = Vec::Ones(1);
  double rate = 1.0;
  double shape1 = 1.0, shape2 = 1.0;
  HorseshoeSpec hs;  // Horseshoe only

  static Prior flat() { return Prior{}; }
  static Prior normal(const Vec& location, const Vec& scale) {
    return make(PriorKind::Normal, location, scale, Vec::Ones(1));
  }
  static Prior normal(double location, double scale) {
    return normal(Vec::Constant(1, location), Vec::Constant(1, scale));
  }
  static Prior student_t(const Vec& df, const Vec& location, const Vec& scale) {
    return make(PriorKind::StudentT, location, scale, df);
  }
  static Prior student_t(double df, double location, double scale) {
    return student_t(Vec::Constant(1, df), Vec::Constant(1, location), Vec::Constant(1, scale));
  }
  static Prior cauchy(const Vec& location, const Vec& scale) {
    return make(PriorKind::Cauchy, location, scale, Vec::Ones(1));
  }
  static Prior cauchy(double location, double scale) {
    return cauchy(Vec::Constant(1, location), Vec::Constant(1, scale));
  }
  static Prior laplace(const Vec& location, const Vec& scale) {
    return make(PriorKind::Laplace, location, scale, Vec::Ones(1));
  }
  static Prior laplace(double location, double scale) {
    return laplace(Vec::Constant(1, location), Vec::Constant(1, scale));
  }
  static Prior exponential(double rate) {
    Prior p;
    p.kind = PriorKind::Exponential;
    p.rate = rate;
    return p;
  }
  static Prior gamma(double shape, double rate) {
    Prior p;
    p.kind = PriorKind::Gamma;
    p.shape1 = shape;
    p.rate = rate;
    return p;
  }
  static Prior beta(double shape1, double shape2) {
    Prior p;
    p.kind = PriorKind::Beta;
    p.shape1 = shape1;
    p.shape2 = shape2;
    return p;
  }
  static Prior horseshoe(const HorseshoeSpec& hs) {
    Prior p;
    p.kind = PriorKind::Horseshoe;
    p.hs = hs;
    return p;
  }

 private:
  static Prior make(PriorKind k, const Vec& location, const Vec& scale, const Vec& df) {
    Prior p;
    p.kind = k;
    p.location = location;
    p.scale = scale;
    p.df = (k == PriorKind::Cauchy) ? Vec::Ones(1) : df;
    return p;
  }
};

namespace detail {
// Element j of a per-coefficient vector, recycling a length-1 vector.
inline double recycled(const Vec& v, Eigen::Index j) { return v.size() == 1 ? v[0] : v[j]; }

inline bool length_ok(const Vec& v, Eigen::Index k) { return v.size() == 1 || v.size() == k; }

}  // namespace detail

// Checks a coefficient prior for k coefficients (called at construction, never in a chain).
inline void validate_coef_prior(const Prior& p, Eigen::Index k, const std::string& what) {
  if (p.kind == PriorKind::Flat) return;
  if (p.kind == PriorKind::Exponential || p.kind == PriorKind::Gamma || p.kind == PriorKind::Beta)
    throw std::invalid_argument(what + ": " + prior_kind_name(p.kind) + " is only for an auxiliary parameter");
  if (p.kind == PriorKind::Horseshoe) throw std::invalid_argument(what + ": the horseshoe is only for the coefficients");
  if (!detail::length_ok(p.location, k) || !detail::length_ok(p.scale, k) ||
      !detail::length_ok(p.df, k))
    throw std::invalid_argument(what + ": location, scale and df must have length 1 or " +
                                std::to_string(k));
  if (!(p.scale.array() > 0).all() || !p.scale.allFinite())
    throw std::invalid_argument(what + ": scale must be positive and finite");
  if (!(p.df.array() > 0).all() || !p.df.allFinite())
    throw std::invalid_argument(what + ": df must be positive and finite");
  if (!p.location.allFinite()) throw std::invalid_argument(what + ": location must be finite");
}

// Checks the prior of a positive auxiliary parameter such as sigma (half-distributions:
// location 0, scalar; exponential; gamma).
inline void validate_aux_prior(const Prior& p, const std::string& what) {
  if (p.kind == PriorKind::Flat) return;
  if (p.kind == PriorKind::Beta) throw std::invalid_argument(what + ": beta() is for a probability");
  if (p.kind == PriorKind::Horseshoe) throw std::invalid_argument(what + ": the horseshoe is only for the coefficients");
  if (p.kind == PriorKind::Exponential || p.kind == PriorKind::Gamma) {
    if (!(p.rate > 0) || !std::isfinite(p.rate))
      throw std::invalid_argument(what + ": rate must be positive and finite");
    if (!(p.shape1 > 0) || !std::isfinite(p.shape1))
      throw std::invalid_argument(what + ": shape must be positive and finite");
    return;
  }
  if (p.location.size() != 1 || p.scale.size() != 1 || p.df.size() != 1)
    throw std::invalid_argument(what + ": location, scale and df must be scalars");
  if (p.location[0] != 0.0)
    throw std::invalid_argument(what + ": half-" + prior_kind_name(p.kind) +
                                " on sigma needs location 0");
  if (!(p.scale[0] > 0) || !std::isfinite(p.scale[0]))
    throw std::invalid_argument(what + ": scale must be positive and finite");
  if (!(p.df[0] > 0) || !std::isfinite(p.df[0]))
    throw std::invalid_argument(what + ": df must be positive and finite");
}

// U = -sum_j log p(beta_j) (constants dropped); if g is non-null, adds dU/dbeta to *g.
// No allocation.
inline double prior_eval(const Prior& p, const Eigen::Ref<const Vec>& beta, Eigen::Ref<Vec>* g) {
  const Eigen::Index k = beta.size();
  double u = 0.0;
  switch (p.kind) {
    case PriorKind::Flat:
    case PriorKind::Exponential:  // these three are rejected by validate_coef_prior
    case PriorKind::Gamma:
    case PriorKind::Beta:
    case PriorKind::Horseshoe:  // glm/horseshoe.hpp
      break;
    case PriorKind::Normal:
      for (Eigen::Index j = 0; j < k; ++j) {
        const double s = detail::recycled(p.scale, j);
        const double z = (beta[j] - detail::recycled(p.location, j)) / s;
        u += 0.5 * z * z;
        if (g) (*g)[j] += z / s;
      }
      break;
    case PriorKind::StudentT:
    case PriorKind::Cauchy:
      // U = (nu + 1) / 2 log(1 + z^2 / nu), dU/dbeta = (nu + 1) z / (s (nu + z^2)).
      for (Eigen::Index j = 0; j < k; ++j) {
        const double s = detail::recycled(p.scale, j);
        const double nu = p.kind == PriorKind::Cauchy ? 1.0 : detail::recycled(p.df, j);
        const double z = (beta[j] - detail::recycled(p.location, j)) / s;
        u += 0.5 * (nu + 1.0) * std::log1p(z * z / nu);
        if (g) (*g)[j] += (nu + 1.0) * z / (s * (nu + z * z));
      }
      break;
    case PriorKind::Laplace:
      for (Eigen::Index j = 0; j < k; ++j) {
        const double s = detail::recycled(p.scale, j);
        const double d = beta[j] - detail::recycled(p.location, j);
        u += std::fabs(d) / s;
        if (g) (*g)[j] += (d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0)) / s;
      }
      break;
  }
  return u;
}

inline double prior_value(const Prior& p, const Eigen::Ref<const Vec>& beta) {
  return prior_eval(p, beta, nullptr);
}

// Returns U and adds dU/dbeta to g (g must have beta's length).
inline double prior_value_add_grad(const Prior& p, const Eigen::Ref<const Vec>& beta,
                                   Eigen::Ref<Vec> g) {
  return prior_eval(p, beta, &g);
}

// Auxiliary on the log scale: t = log sigma. Returns U_aux = -log p(sigma) - t and writes
// dU_aux/dt into *dU when non-null. Written in t so that large |t| does not overflow where
// avoidable (half-t uses softplus/logistic of 2 (t - log s) - log nu).
inline double aux_prior_eval(const Prior& p, double t, double* dU) {
  double u = 0.0, d = 0.0;
  switch (p.kind) {
    case PriorKind::Flat:
      break;
    case PriorKind::Exponential: {
      const double sigma = std::exp(t);
      u = p.rate * sigma;
      d = p.rate * sigma;
      break;
    }
    case PriorKind::Gamma: {  // -(a - 1) log sigma + rate sigma
      const double sigma = std::exp(t);
      u = -(p.shape1 - 1.0) * t + p.rate * sigma;
      d = -(p.shape1 - 1.0) + p.rate * sigma;
      break;
    }
    case PriorKind::Beta:  // rejected by validate_aux_prior
    case PriorKind::Horseshoe:
      break;
    case PriorKind::Normal: {  // half-normal: sigma^2 / (2 s^2)
      const double z2 = std::exp(2.0 * (t - std::log(p.scale[0])));
      u = 0.5 * z2;
      d = z2;
      break;
    }
    case PriorKind::StudentT:
    case PriorKind::Cauchy: {  // half-t: (nu + 1)/2 log(1 + sigma^2 / (nu s^2))
      const double nu = p.kind == PriorKind::Cauchy ? 1.0 : p.df[0];
      const double a = 2.0 * (t - std::log(p.scale[0])) - std::log(nu);  // log(z^2 / nu)
      u = 0.5 * (nu + 1.0) * softplus(a);
      d = (nu + 1.0) * logistic(a);
      break;
    }
    case PriorKind::Laplace: {  // half-Laplace: sigma / s
      const double z = std::exp(t - std::log(p.scale[0]));
      u = z;
      d = z;
      break;
    }
  }
  // Jacobian of sigma = exp(t): -log |d sigma / dt| = -t.
  u -= t;
  d -= 1.0;
  if (dU) *dU = d;
  return u;
}

// The Fisher information of each coefficient's prior about its location, into h (added): a
// constant, so it can join a position-dependent metric (Riemannian HMC, Girolami &
// Calderhead 2011) without derivatives. normal: 1/s^2; student_t: (nu + 1) / ((nu + 3) s^2)
// (Lange, Little & Taylor 1989, eq. 6); cauchy: 1 / (2 s^2); laplace: 1/s^2; flat: 0.
inline void prior_add_fisher_diag(const Prior& p, Eigen::Index k, Eigen::Ref<Vec> h) {
  for (Eigen::Index j = 0; j < k; ++j) {
    if (p.kind == PriorKind::Flat || p.kind == PriorKind::Exponential || p.kind == PriorKind::Gamma ||
        p.kind == PriorKind::Beta || p.kind == PriorKind::Horseshoe)
      continue;
    const double s = detail::recycled(p.scale, j);
    double info = 1.0;
    if (p.kind == PriorKind::StudentT || p.kind == PriorKind::Cauchy) {
      const double nu = p.kind == PriorKind::Cauchy ? 1.0 : detail::recycled(p.df, j);
      info = (nu + 1.0) / (nu + 3.0);
    }
    h[j] += info / (s * s);
  }
}

// Adds d^2U/dbeta_j^2 of the coefficient prior to h (priors are independent across
// coefficients, so the prior Hessian is diagonal). Laplace: 0 away from its kink, where the
// Newton mode search never needs it to be anything else.
inline void prior_add_hessian_diag(const Prior& p, const Eigen::Ref<const Vec>& beta,
                                   Eigen::Ref<Vec> h) {
  for (Eigen::Index j = 0; j < beta.size(); ++j) {
    switch (p.kind) {
      case PriorKind::Flat:
      case PriorKind::Exponential:
      case PriorKind::Gamma:
      case PriorKind::Beta:
      case PriorKind::Laplace:
      case PriorKind::Horseshoe:
        break;
      case PriorKind::Normal: {
        const double s = detail::recycled(p.scale, j);
        h[j] += 1.0 / (s * s);
        break;
      }
      case PriorKind::StudentT:
      case PriorKind::Cauchy: {
        // d/dbeta of (nu + 1) z / (s (nu + z^2)) = (nu + 1)(nu - z^2) / (s^2 (nu + z^2)^2).
        const double s = detail::recycled(p.scale, j);
        const double nu = p.kind == PriorKind::Cauchy ? 1.0 : detail::recycled(p.df, j);
        const double z = (beta[j] - detail::recycled(p.location, j)) / s;
        const double q = nu + z * z;
        h[j] += (nu + 1.0) * (nu - z * z) / (s * s * q * q);
        break;
      }
    }
  }
}

// d^2 U_aux / dt^2 for t = log sigma (the Jacobian term -t is linear and drops out).
inline double aux_prior_hessian(const Prior& p, double t) {
  switch (p.kind) {
    case PriorKind::Flat:
      return 0.0;
    case PriorKind::Exponential:
    case PriorKind::Gamma:
      return p.rate * std::exp(t);
    case PriorKind::Beta:
    case PriorKind::Horseshoe:
      return 0.0;
    case PriorKind::Normal:
      return 2.0 * std::exp(2.0 * (t - std::log(p.scale[0])));
    case PriorKind::StudentT:
    case PriorKind::Cauchy: {
      const double nu = p.kind == PriorKind::Cauchy ? 1.0 : p.df[0];
      const double l = logistic(2.0 * (t - std::log(p.scale[0])) - std::log(nu));
      return 2.0 * (nu + 1.0) * l * (1.0 - l);
    }
    case PriorKind::Laplace:
      return std::exp(t - std::log(p.scale[0]));
  }
  return 0.0;
}

inline double aux_prior_value(const Prior& p, double t) { return aux_prior_eval(p, t, nullptr); }

inline double aux_prior_value_grad(const Prior& p, double t, double& dU) {
  return aux_prior_eval(p, t, &dU);
}

// A positive parameter with a lower bound, x = lower + exp(t) (Student's nu > 1): the prior
// of x at s = log x from aux_prior_eval(), whose Jacobian -s is swapped for -t:
// U = U_aux(s) + s - t, and with r = exp(t) / x = ds/dt, dU/dt = (U_aux'(s) + 1) r - 1 and
// d2U/dt2 = U_aux''(s) r^2 + (U_aux'(s) + 1) r (1 - r). The prior is truncated to x > lower
// (its normalising constant is dropped).
inline double shifted_prior_eval(const Prior& p, double t, double lower, double* dU, double* d2U = nullptr) {
  const double x = lower + std::exp(t), s = std::log(x), r = std::exp(t) / x;
  double da = 0.0;
  const double u = aux_prior_eval(p, s, &da) + s - t;
  if (dU) *dU = (da + 1.0) * r - 1.0;
  if (d2U) *d2U = aux_prior_hessian(p, s) * r * r + (da + 1.0) * r * (1.0 - r);
  return u;
}

// A probability x = logistic(t) with a beta(a, b) prior (flat: beta(1, 1)), Jacobian
// included: U = -a log x - b log(1 - x) = a softplus(-t) + b softplus(t).
inline double probability_prior_eval(const Prior& p, double t, double* dU, double* d2U = nullptr) {
  const double a = p.kind == PriorKind::Beta ? p.shape1 : 1.0, b = p.kind == PriorKind::Beta ? p.shape2 : 1.0;
  double x, xc;
  logistic_pair(t, x, xc);
  if (dU) *dU = -a * xc + b * x;
  if (d2U) *d2U = (a + b) * x * xc;
  return a * softplus(-t) + b * softplus(t);
}

// Checks the prior of a probability (beta or flat).
inline void validate_probability_prior(const Prior& p, const std::string& what) {
  if (p.kind == PriorKind::Flat) return;
  if (p.kind != PriorKind::Beta) throw std::invalid_argument(what + ": a probability takes beta() or flat()");
  if (!(p.shape1 > 0) || !(p.shape2 > 0) || !std::isfinite(p.shape1) || !std::isfinite(p.shape2))
    throw std::invalid_argument(what + ": the beta shapes must be positive and finite");
}

}  // namespace vhmc
