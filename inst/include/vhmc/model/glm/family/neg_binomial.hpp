#pragma once
// The negative binomial family in rstanarm's neg_binomial_2 parameterisation: mean mu,
// variance mu + mu^2 / phi, aux t = log phi (phi the reciprocal dispersion). The log link in
// eta directly (mu + phi as a log-sum-exp, no overflow), the identity and sqrt links as a
// distribution in its mean.
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"

namespace vhmc {
namespace family {

constexpr std::array<AuxSpec, 1> kReciprocalDispersion = {positive_param("reciprocal_dispersion")};

// The values of a positive aux parameter x = exp(t) that the gamma-function families need.
struct GammaAux {
  double x, t, lgamma_x, digamma_x, trigamma_x;
  static GammaAux at(double t) {
    const double x = std::exp(t);
    return {x, t, std::lgamma(x), digamma(x), trigamma(x)};
  }
};

//   ll = lgamma(y + phi) - lgamma(phi) + phi (t - log(mu + phi)) + y (eta - log(mu + phi)).
struct NegBinomial2Log : FromRows<NegBinomial2Log> {
  static constexpr const char* kFamily = "neg_binomial_2";
  static constexpr const char* kLink = "log";
  static constexpr auto kAux = kReciprocalDispersion;
  using Aux = GammaAux;  // x = phi
  static constexpr bool kHasFisher = false, kGaussianStats = false, kThresholds = false;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static Aux aux(const double* t, Eigen::Index) { return GammaAux::at(t[0]); }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double lmp = log_sum_exp(eta, a.t);  // log(mu + phi)
    const double q = std::exp(eta - lmp);      // mu / (mu + phi)
    if (d) *d = y - (y + a.x) * q;          // phi (y - mu) / (mu + phi)
    // dll/dphi = psi(y + phi) - psi(phi) + log phi - log(mu + phi) + (mu - y) / (mu + phi)
    if (dt) *dt = a.x * (digamma(y + a.x) - a.digamma_x + a.t - lmp + q - y * (1.0 - q) / a.x);
    const double lg = y == 0.0 ? 0.0 : std::lgamma(y + a.x) - a.lgamma_x;
    return lg + a.x * (a.t - lmp) + y * (eta - lmp);
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double* het, double* htt) {
    const double lmp = log_sum_exp(eta, a.t);
    const double q = std::exp(eta - lmp), p = 1.0 - q;  // mu / (mu + phi), phi / (mu + phi)
    he = (y + a.x) * q * p;                             // phi mu (y + phi) / (mu + phi)^2
    het[0] = -(y - std::exp(eta)) * q * p;                // -phi (y - mu) mu / (mu + phi)^2
    double dt = 0.0;
    row(y, eta, a, nullptr, &dt);
    // d2ll/dphi2 = trigamma(y + phi) - trigamma(phi) + 1/phi - 2/(mu + phi) + (y + phi)/(mu + phi)^2
    const double inv = p / a.x;  // 1 / (mu + phi)
    const double d2 = trigamma(y + a.x) - a.trigamma_x + 1.0 / a.x - 2.0 * inv + (y + a.x) * inv * inv;
    htt[0] = -(dt + a.x * a.x * d2);
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
};

// ll = lgamma(y + phi) - lgamma(phi) + phi log phi + y log mu - (y + phi) log(mu + phi), for
// links other than the log.
struct NegBinomial2Dist {
  static constexpr const char* kFamily = "neg_binomial_2";
  static constexpr auto kAux = kReciprocalDispersion;
  using Aux = GammaAux;
  static Aux aux(const double* t) { return GammaAux::at(t[0]); }
  static bool in_support(const MeanTerms& m) { return m.mu > 0.0; }
  static void terms(double y, const MeanTerms& m, const Aux& a, int order, DistTerms& d) {
    const double phi = a.x, s = m.mu + phi, ls = std::log(s);
    d.v = (y == 0.0 ? 0.0 : std::lgamma(y + phi) - a.lgamma_x + y * std::log(m.mu)) + phi * (a.t - ls) - y * ls;
    if (order < 1) return;
    const double dg = digamma(y + phi);
    d.l1 = y / m.mu - (y + phi) / s;
    d.lt[0] = phi * (dg - a.digamma_x + a.t + 1.0 - ls - (y + phi) / s);
    if (order < 2) return;
    d.l2 = -y / (m.mu * m.mu) + (y + phi) / (s * s);
    d.lmt[0] = phi * (y - m.mu) / (s * s);
    const double d2 = trigamma(y + phi) - a.trigamma_x + 1.0 / phi - 2.0 / s + (y + phi) / (s * s);
    d.ltt[0][0] = d.lt[0] + phi * phi * d2;
  }
};

}  // namespace family
}  // namespace vhmc
