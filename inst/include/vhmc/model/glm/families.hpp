#pragma once
// The families of the GLM potential, one struct per family and link: the log likelihood of
// a row and its derivatives in the linear predictor eta (and in the family's auxiliary
// parameter, sampled as t = log of it), the Fisher weight, and a pass over many rows. Every
// consumer reads a family from here: the value and gradient (pass()), minibatch gradients
// (derivs()), Newton's Hessian for the mode (curvature()), and rmhmc's metric (fisher()).
// Terms constant in the parameters (log y!, binomial coefficients, log 2 pi) are dropped.
//
// Interface of a family F (w: the row's weight, applied by the caller unless stated):
//   using Aux;  Aux aux(double t)          values precomputed from t once per evaluation
//   kHasAux, kHasFisher, kAuxName          the reported name of exp(t): "sigma", ...
//   kMaxCurvature                          the most -d2ll/deta2 can be per unit weight
//                                          (0: unbounded; integrator/split_leapfrog.hpp)
//   double pass(y, eta, w, aux, r, dt, scratch)
//                                          sum_i w_i ll_i, and with r: r_i = w_i dll_i/deta
//                                          and *dt = sum_i w_i dll_i/dt (aux families)
//   void derivs(y, eta, w, aux, r, z)      r_i = w_i dll_i/deta, z_i = -w_i dll_i/dt
//   void curvature(y, eta, aux, he, het, htt) per row: -d2ll/deta2, -d2ll/deta dt, -d2ll/dt2
//   void fisher(eta, aux, lam, dlam)       E[-d2ll/deta2] and its eta-derivative (kHasFisher)
// y, eta, w are vectors over the same rows (w of size 0: unit weights).
#include <algorithm>
#include <cmath>

#include "../../base/math.hpp"
#include "../../base/special.hpp"
#include "../../base/types.hpp"

namespace vhmc {

enum class GlmFamily { GaussianIdentity, BinomialLogit, BinomialProbit, PoissonLog, NegBinomial2Log, GammaLog };

using RowVec = Eigen::Ref<const Vec>;

namespace family {

struct NoAux {};

inline double weight(const RowVec& w, Eigen::Index i) { return w.size() ? w[i] : 1.0; }

// Per-row derivatives, and the pass from them, for families without a vectorised pass.
template <class F>
double row_pass(const RowVec& y, const Vec& eta, const RowVec& w, const typename F::Aux& a, Vec* r,
                double* dt) {
  double ll = 0.0, sdt = 0.0;
  for (Eigen::Index i = 0; i < eta.size(); ++i) {
    const double wi = weight(w, i);
    double d = 0.0, da = 0.0;
    ll += wi * F::row(y[i], eta[i], a, r ? &d : nullptr, dt ? &da : nullptr);
    if (r) (*r)[i] = wi * d;
    sdt += wi * da;
  }
  if (dt) *dt = sdt;
  return ll;
}

// ... and each row's weighted derivatives in eta (r) and, negated, in the aux parameter (z).
template <class F>
void row_derivs(const RowVec& y, const Vec& eta, const RowVec& w, const typename F::Aux& a, Vec& r, Vec& z) {
  for (Eigen::Index i = 0; i < eta.size(); ++i) {
    double d = 0.0, dt = 0.0;
    F::row(y[i], eta[i], a, &d, &dt);
    r[i] = weight(w, i) * d;
    z[i] = -weight(w, i) * dt;
  }
}

// Gaussian, identity link; aux: log sigma, or a fixed precision (Asaad 2017's fixed-noise
// ARDL). Its potential usually comes from sufficient statistics (glm/gaussian_stats.hpp);
// these rows serve minibatch gradients.
struct GaussianIdentity {
  struct Aux {
    double inv_s2, t;  // 1 / sigma^2 and log sigma (0 when the precision is fixed)
  };
  static constexpr bool kHasAux = true, kHasFisher = true;
  static constexpr double kMaxCurvature = 0.0;  // 1 / sigma^2: no bound while sigma moves
  static constexpr const char* kAuxName = "sigma";
  static Aux aux(double t) { return {std::exp(-2.0 * t), t}; }
  static Aux fixed(double precision) { return {precision, 0.0}; }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double e = y - eta;
    if (d) *d = e * a.inv_s2;
    if (dt) *dt = e * e * a.inv_s2 - 1.0;
    return -0.5 * e * e * a.inv_s2 - a.t;
  }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec* r, double* dt, Vec&) {
    return row_pass<GaussianIdentity>(y, eta, w, a, r, dt);
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double& het, double& htt) {
    const double e = y - eta;
    he = a.inv_s2;
    het = 2.0 * e * a.inv_s2;
    htt = 2.0 * e * e * a.inv_s2;
  }
  // -log lik_i = w e^2 / (2 sigma^2) + w log sigma; d/d eta = -w e / sigma^2.
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Vec& z) {
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      const double wi = weight(w, i), e = y[i] - eta[i];
      r[i] = wi * e * a.inv_s2;
      z[i] = wi - wi * e * e * a.inv_s2;
    }
  }
  static void fisher(double, const Aux& a, double& lam, double& dlam) {
    lam = a.inv_s2;
    dlam = 0.0;
  }
};

// Binomial, logit link; y the proportion of successes and w the trials (times the weight).
struct BinomialLogit {
  using Aux = NoAux;
  static constexpr bool kHasAux = false, kHasFisher = true;
  // -d2ll/deta2 = mu (1 - mu) <= 1/4 per trial (the split leapfrog's bound)
  static constexpr double kMaxCurvature = 0.25;
  static constexpr const char* kAuxName = "";
  static Aux aux(double) { return {}; }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*, Vec& z);
  // r = w (y - inv_logit(eta)), t = exp(-|eta|) giving both branches (as pass()).
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec& r, Vec& t) {
    const auto e = eta.array();
    t.array() = (-e.abs()).exp();
    r.array() = y.array() - (e >= 0.0).select(1.0, t.array()) / (1.0 + t.array());
    if (w.size()) r.array() *= w.array();
  }
  static void curvature(double, double eta, const Aux&, double& he, double&, double&) {
    const double pr = logistic(eta);
    he = pr * (1.0 - pr);
  }
  static void fisher(double eta, const Aux&, double& lam, double& dlam) {
    const double pr = logistic(eta);
    lam = pr * (1.0 - pr);
    dlam = lam * (1.0 - 2.0 * pr);
  }
};

// Binomial, probit link: log lik = y log Phi(eta) + (1 - y) log Phi(-eta); terms with a zero
// factor are skipped so that 0 * (-inf) never appears.
struct BinomialProbit {
  using Aux = NoAux;
  static constexpr bool kHasAux = false, kHasFisher = false;
  // -d2ll/deta2 of log Phi lies in (0, 1) per trial
  static constexpr double kMaxCurvature = 1.0;
  static constexpr const char* kAuxName = "";
  static Aux aux(double) { return {}; }
  static double row(double y, double e, const Aux&, double* d, double*) {
    double li = 0.0, ri = 0.0;
    if (y != 0.0) {
      li += y * log_Phi(e);
      if (d) ri += y * inv_mills(e);
    }
    if (y != 1.0) {
      li += (1.0 - y) * log_Phi(-e);
      if (d) ri -= (1.0 - y) * inv_mills(-e);
    }
    if (d) *d = ri;
    return li;
  }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec* r, double* dt, Vec&) {
    return row_pass<BinomialProbit>(y, eta, w, a, r, dt);
  }
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Vec&) {
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      double ri = 0.0;
      row(y[i], eta[i], a, &ri, nullptr);
      r[i] = weight(w, i) * ri;
    }
  }
  // d^2/de^2 log Phi(e) = -m(e) (e + m(e)), m the inverse Mills ratio.
  static void curvature(double y, double e, const Aux&, double& he, double&, double&) {
    double h = 0.0;
    if (y != 0.0) {
      const double m = inv_mills(e);
      h += y * m * (e + m);
    }
    if (y != 1.0) {
      const double m = inv_mills(-e);
      h += (1.0 - y) * m * (m - e);
    }
    he = h;
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
};

// Poisson, log link: log lik = y eta - exp(eta) (lgamma(y + 1) dropped).
struct PoissonLog {
  using Aux = NoAux;
  static constexpr bool kHasAux = false, kHasFisher = true;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static constexpr const char* kAuxName = "";
  static Aux aux(double) { return {}; }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*, Vec& z);
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec& r, Vec&) {
    r.array() = y.array() - eta.array().exp();
    if (w.size()) r.array() *= w.array();
  }
  static void curvature(double, double eta, const Aux&, double& he, double&, double&) { he = std::exp(eta); }
  static void fisher(double eta, const Aux&, double& lam, double& dlam) { lam = dlam = std::exp(eta); }
};

// Negative binomial, log link, in rstanarm's neg_binomial_2 parameterisation: mean
// mu = exp(eta), variance mu + mu^2 / phi, aux t = log phi (phi the reciprocal dispersion):
//   ll = lgamma(y + phi) - lgamma(phi) + phi (t - log(mu + phi)) + y (eta - log(mu + phi)).
struct NegBinomial2Log {
  struct Aux {
    double phi, t, lgamma_phi, digamma_phi, trigamma_phi;
  };
  static constexpr bool kHasAux = true, kHasFisher = false;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static constexpr const char* kAuxName = "reciprocal_dispersion";
  static Aux aux(double t) {
    const double phi = std::exp(t);
    return {phi, t, std::lgamma(phi), digamma(phi), trigamma(phi)};
  }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double lmp = log_sum_exp(eta, a.t);  // log(mu + phi)
    const double q = std::exp(eta - lmp);      // mu / (mu + phi)
    if (d) *d = y - (y + a.phi) * q;          // phi (y - mu) / (mu + phi)
    // dll/dphi = psi(y + phi) - psi(phi) + log phi - log(mu + phi) + (mu - y) / (mu + phi)
    if (dt) *dt = a.phi * (digamma(y + a.phi) - a.digamma_phi + a.t - lmp + q - y * (1.0 - q) / a.phi);
    const double lg = y == 0.0 ? 0.0 : std::lgamma(y + a.phi) - a.lgamma_phi;
    return lg + a.phi * (a.t - lmp) + y * (eta - lmp);
  }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec* r, double* dt, Vec&) {
    return row_pass<NegBinomial2Log>(y, eta, w, a, r, dt);
  }
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Vec& z) {
    row_derivs<NegBinomial2Log>(y, eta, w, a, r, z);
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double& het, double& htt) {
    const double lmp = log_sum_exp(eta, a.t);
    const double q = std::exp(eta - lmp), p = 1.0 - q;  // mu / (mu + phi), phi / (mu + phi)
    he = (y + a.phi) * q * p;                             // phi mu (y + phi) / (mu + phi)^2
    het = -(y - std::exp(eta)) * q * p;                   // -phi (y - mu) mu / (mu + phi)^2
    double dt = 0.0;
    row(y, eta, a, nullptr, &dt);
    // d2ll/dphi2 = trigamma(y + phi) - trigamma(phi) + 1/phi - 2/(mu + phi) + (y + phi)/(mu + phi)^2
    const double inv = p / a.phi;  // 1 / (mu + phi)
    const double d2 = trigamma(y + a.phi) - a.trigamma_phi + 1.0 / a.phi - 2.0 * inv + (y + a.phi) * inv * inv;
    htt = -(dt + a.phi * a.phi * d2);
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
};

// Gamma, log link, mean mu = exp(eta) and shape alpha = exp(t):
//   ll = alpha log alpha - lgamma(alpha) + (alpha - 1) log y - alpha (eta + y exp(-eta)).
struct GammaLog {
  struct Aux {
    double alpha, t, lgamma_alpha, digamma_alpha, trigamma_alpha;
  };
  static constexpr bool kHasAux = true, kHasFisher = false;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static constexpr const char* kAuxName = "shape";
  static Aux aux(double t) {
    const double alpha = std::exp(t);
    return {alpha, t, std::lgamma(alpha), digamma(alpha), trigamma(alpha)};
  }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double ly = std::log(y), u = y * std::exp(-eta);
    if (d) *d = a.alpha * (u - 1.0);
    if (dt) *dt = a.alpha * (a.t + 1.0 - a.digamma_alpha - eta + ly - u);
    return a.alpha * a.t - a.lgamma_alpha + (a.alpha - 1.0) * ly - a.alpha * (eta + u);
  }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec* r, double* dt, Vec&) {
    return row_pass<GammaLog>(y, eta, w, a, r, dt);
  }
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Vec& z) {
    row_derivs<GammaLog>(y, eta, w, a, r, z);
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double& het, double& htt) {
    const double u = y * std::exp(-eta);
    double dt = 0.0;
    row(y, eta, a, nullptr, &dt);
    he = a.alpha * u;
    het = -a.alpha * (u - 1.0);
    htt = -(dt + a.alpha - a.alpha * a.alpha * a.trigamma_alpha);
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
};

// Binomial-logit pass: log lik = w (y eta - log(1 + exp(eta))), d/d eta = w (y -
// inv_logit(eta)). One exp per observation, z = exp(-|eta|), gives both terms:
// log(1 + exp(eta)) = max(eta, 0) + log1p(z) and inv_logit(eta) = (eta >= 0 ? 1 : z) / (1 + z).
// Written as array expressions so that Eigen vectorises exp and the division; without
// weights the log1p terms are summed as logs of products of 64 factors 1 + z in (1, 2] (no
// overflow below 2^64), one log per 64 observations: the absolute error stays ~1e-16 per
// observation, which is all the Metropolis step and the potential's own summation need.
// This is the cost of every log-density evaluation of a logistic regression, so it is what
// surrogate HMC pays per iteration.
inline double BinomialLogit::pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*,
                                  Vec& z) {
  const Eigen::Index n = eta.size();
  auto e = eta.array();
  z.array() = (-e.abs()).exp();
  double ll;
  if (w.size()) {
    ll = (w.array() * (y.array() * e - e.max(0.0))).sum();
    for (Eigen::Index i = 0; i < n; ++i) ll -= w[i] * std::log1p(z[i]);
  } else {
    ll = (y.array() * e - e.max(0.0)).sum();
    constexpr Eigen::Index B = 64;
    double logs = 0.0;
    for (Eigen::Index i0 = 0; i0 < n; i0 += B) {
      const Eigen::Index m = std::min(B, n - i0);
      logs += std::log((1.0 + z.segment(i0, m).array()).prod());
    }
    ll -= logs;
  }
  if (r) {
    r->array() = y.array() - (e >= 0.0).select(1.0, z.array()) / (1.0 + z.array());
    if (w.size()) r->array() *= w.array();
  }
  return ll;
}

// Poisson pass as array expressions, so that Eigen's packet exp is used.
inline double PoissonLog::pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*, Vec& z) {
  const auto e = eta.array();
  Vec& rr = r ? *r : z;
  rr.array() = y.array() - e.exp();
  double ll;
  if (w.size()) {
    ll = (w.array() * (y.array() * e - (y.array() - rr.array()))).sum();
    rr.array() *= w.array();
  } else {
    ll = (y.array() * e).sum() - (y.array() - rr.array()).sum();
  }
  return ll;
}

}  // namespace family

// Calls f(F{}) with the family struct of `id`: the one switch over families of the core.
template <class Fn>
decltype(auto) with_family(GlmFamily id, Fn&& f) {
  switch (id) {
    case GlmFamily::GaussianIdentity: return f(family::GaussianIdentity{});
    case GlmFamily::BinomialLogit: return f(family::BinomialLogit{});
    case GlmFamily::BinomialProbit: return f(family::BinomialProbit{});
    case GlmFamily::PoissonLog: return f(family::PoissonLog{});
    case GlmFamily::NegBinomial2Log: return f(family::NegBinomial2Log{});
    case GlmFamily::GammaLog: return f(family::GammaLog{});
  }
  return f(family::GaussianIdentity{});
}

}  // namespace vhmc
