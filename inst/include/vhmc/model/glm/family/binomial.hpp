#pragma once
// The binomial family; y the proportion of successes and w the trials (times the weight).
// The logit link has a vectorised pass (a logistic regression's whole cost per gradient)
// and the probit link its own rows; cauchit, log and cloglog are composed from their
// probability link's log F and log(1 - F) (glm/family/links.hpp).
#include <algorithm>

#include "base.hpp"
#include "links.hpp"
#include "local.hpp"

namespace vhmc {
namespace family {

struct BinomialLogit : FromRows<BinomialLogit> {
  static constexpr const char* kFamily = "binomial";
  static constexpr const char* kLink = "logit";
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static constexpr bool kHasFisher = true, kGaussianStats = false, kThresholds = false;
  // -d2ll/deta2 = mu (1 - mu) <= 1/4 per trial (the split leapfrog's bound)
  static constexpr double kMaxCurvature = 0.25;
  static Aux aux(const double*, Eigen::Index) { return {}; }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*, Vec& z);
  // r = w (y - inv_logit(eta)), t = exp(-|eta|) giving both branches (as pass()).
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec& r, Mat& t) {
    const auto e = eta.array();
    t.col(0).array() = (-e.abs()).exp();
    r.array() = y.array() - (e >= 0.0).select(1.0, t.col(0).array()) / (1.0 + t.col(0).array());
    if (w.size()) r.array() *= w.array();
  }
  static void curvature(double, double eta, const Aux&, double& he, double*, double*) {
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
struct BinomialProbit : FromRows<BinomialProbit> {
  static constexpr const char* kFamily = "binomial";
  static constexpr const char* kLink = "probit";
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static constexpr bool kHasFisher = false, kGaussianStats = false, kThresholds = false;
  // -d2ll/deta2 of log Phi lies in (0, 1) per trial
  static constexpr double kMaxCurvature = 1.0;
  static Aux aux(const double*, Eigen::Index) { return {}; }
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
  // d^2/de^2 log Phi(e) = -m(e) (e + m(e)), m the inverse Mills ratio.
  static void curvature(double y, double e, const Aux&, double& he, double*, double*) {
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

// Binomial with any other probability link L: ll = y log F(eta) + (1 - y) log(1 - F(eta)),
// terms with a zero factor skipped (so the log link's y = 1 at mu = 1 is finite); a
// "probability" above 1 (the log link at eta > 0) is outside the support.
template <class L>
struct Binomial : FromLocal<Binomial<L>> {
  static constexpr const char* kFamily = "binomial";
  static constexpr const char* kLink = L::kName;
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static Aux aux(const double*, Eigen::Index) { return {}; }
  static void local(double y, double eta, const Aux&, int order, Local& o) {
    ProbTerms p;
    L::prob(eta, p);
    if (!(p.lp <= 0.0)) return o.zero_density();
    const double s = y, f = 1.0 - y;
    o.v = (s != 0.0 ? s * p.lp : 0.0) + (f != 0.0 ? f * p.lq : 0.0);
    if (!(o.v > -kInf)) return o.zero_density();
    if (order >= 1) o.g[0] = (s != 0.0 ? s * p.dlp : 0.0) + (f != 0.0 ? f * p.dlq : 0.0);
    if (order >= 2) o.h[0][0] = (s != 0.0 ? s * p.d2lp : 0.0) + (f != 0.0 ? f * p.d2lq : 0.0);
  }
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

}  // namespace family
}  // namespace vhmc
