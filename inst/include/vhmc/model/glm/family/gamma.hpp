#pragma once
// The Gamma family, mean mu and shape alpha = exp(t):
//   ll = alpha log alpha - lgamma(alpha) + (alpha - 1) log y - alpha (log mu + y / mu).
// The log link in eta directly (y exp(-eta), no division by an overflowing mean); the inverse
// and identity links as a distribution in its mean (mu > 0).
#include "../../../base/incomplete.hpp"
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"
#include "neg_binomial.hpp"

namespace vhmc {
namespace family {

constexpr std::array<AuxSpec, 1> kShape = {positive_param("shape")};

struct GammaDist {
  static constexpr const char* kFamily = "Gamma";
  static constexpr auto kAux = kShape;
  using Aux = GammaAux;
  static Aux aux(const double* t) { return GammaAux::at(t[0]); }
  static bool in_support(const MeanTerms& m) { return m.mu > 0.0; }
  // log F(y) or log(1 - F(y)) (censored rows): P(alpha, alpha y / mu) or Q.
  static double log_cdf(double y, double mu, const Aux& a, bool upper) { return log_gamma_p(a.x, a.x * y / mu, !upper); }
  static double mu_scale(double mu, const Aux&) { return mu; }
  static void terms(double y, const MeanTerms& m, const Aux& a, int order, DistTerms& d) {
    const double al = a.x, ly = std::log(y), lm = std::log(m.mu), u = y / m.mu;
    d.v = al * a.t - a.lgamma_x + (al - 1.0) * ly - al * (lm + u);
    if (order < 1) return;
    d.l1 = al * (u - 1.0) / m.mu;
    d.lt[0] = al * (a.t + 1.0 - a.digamma_x + ly - lm - u);
    if (order < 2) return;
    d.l2 = al * (1.0 - 2.0 * u) / (m.mu * m.mu);
    d.lmt[0] = d.l1;
    d.ltt[0][0] = d.lt[0] + al - al * al * a.trigamma_x;
  }
};

struct GammaLog : FromRows<GammaLog> {
  static constexpr const char* kFamily = "Gamma";
  static constexpr const char* kLink = "log";
  static constexpr auto kAux = kShape;
  using Aux = GammaAux;  // x = alpha
  static constexpr bool kHasFisher = false, kGaussianStats = false, kThresholds = false;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static Aux aux(const double* t, Eigen::Index) { return GammaAux::at(t[0]); }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double ly = std::log(y), u = y * std::exp(-eta);
    if (d) *d = a.x * (u - 1.0);
    if (dt) *dt = a.x * (a.t + 1.0 - a.digamma_x - eta + ly - u);
    return a.x * a.t - a.lgamma_x + (a.x - 1.0) * ly - a.x * (eta + u);
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double* het, double* htt) {
    const double u = y * std::exp(-eta);
    double dt = 0.0;
    row(y, eta, a, nullptr, &dt);
    he = a.x * u;
    het[0] = -a.x * (u - 1.0);
    htt[0] = -(dt + a.x - a.x * a.x * a.trigamma_x);
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
  // Censored rows: GammaDist's through the log link.
  static constexpr bool kCensored = true;
  using CensAux = CdfGrid<GammaDist>;
  static CensAux cens_aux(const double* t) { return CensAux(t); }
  static void censored(double y, double y2, int kind, double eta, const CensAux& g, int order, Local& o) {
    MeanFamily<GammaDist, LogLink>::censored(y, y2, kind, eta, g, order, o);
  }
};

}  // namespace family
}  // namespace vhmc
