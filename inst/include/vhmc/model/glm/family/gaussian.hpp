#pragma once
// The gaussian family: the identity link (whose likelihood the potential usually takes from
// closed forms: sufficient statistics, cells, effects integrated out; glm/gaussian_*.hpp)
// and the log and inverse links as a distribution in its mean. Aux: sigma, sampled as
// t = log sigma, or (identity link) a fixed precision (Asaad 2017's fixed-noise ARDL).
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"
#include "normal_cdf.hpp"

namespace vhmc {
namespace family {

constexpr std::array<AuxSpec, 1> kSigma = {positive_param("sigma", true)};

// sigma's values: 1 / sigma^2 and log sigma (0 when the precision is fixed).
struct GaussianAux {
  double inv_s2, t;
};

// ll = -(y - mu)^2 / (2 sigma^2) - log sigma, for links other than the identity (and the
// identity link's censored rows).
struct GaussianDist {
  static constexpr const char* kFamily = "gaussian";
  static constexpr auto kAux = kSigma;
  using Aux = GaussianAux;
  static Aux aux(const double* t) { return {std::exp(-2.0 * t[0]), t[0]}; }
  static bool in_support(const MeanTerms& m) { return std::isfinite(m.mu); }
  static void cens_terms(double y, double y2, int kind, const MeanTerms& m, const Aux& a, int order, DistTerms& d) {
    normal_cens_terms(y, y2, kind, m.mu, a.t, order, d);
  }
  static void terms(double y, const MeanTerms& m, const Aux& a, int, DistTerms& d) {
    const double e = y - m.mu;
    d.v = -0.5 * e * e * a.inv_s2 - a.t;
    d.l1 = e * a.inv_s2;
    d.l2 = -a.inv_s2;
    d.lt[0] = e * e * a.inv_s2 - 1.0;
    d.lmt[0] = -2.0 * e * a.inv_s2;
    d.ltt[0][0] = -2.0 * e * e * a.inv_s2;
  }
};

struct GaussianIdentity : FromRows<GaussianIdentity> {
  static constexpr const char* kFamily = "gaussian";
  static constexpr const char* kLink = "identity";
  static constexpr auto kAux = kSigma;
  using Aux = GaussianAux;
  static constexpr bool kHasFisher = true, kGaussianStats = true, kThresholds = false;
  static constexpr double kMaxCurvature = 0.0;  // 1 / sigma^2: no bound while sigma moves
  static Aux aux(const double* t, Eigen::Index) { return {std::exp(-2.0 * t[0]), t[0]}; }
  static Aux fixed(double precision) { return {precision, 0.0}; }
  static double row(double y, double eta, const Aux& a, double* d, double* dt) {
    const double e = y - eta;
    if (d) *d = e * a.inv_s2;
    if (dt) *dt = e * e * a.inv_s2 - 1.0;
    return -0.5 * e * e * a.inv_s2 - a.t;
  }
  static void curvature(double y, double eta, const Aux& a, double& he, double* het, double* htt) {
    const double e = y - eta;
    he = a.inv_s2;
    het[0] = 2.0 * e * a.inv_s2;
    htt[0] = 2.0 * e * e * a.inv_s2;
  }
  // Its own minibatch terms, with the arithmetic (and so the last bits) they always had:
  // -log lik_i = w e^2 / (2 sigma^2) + w log sigma; d/d eta = -w e / sigma^2.
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Mat& z) {
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      const double wi = weight(w, i), e = y[i] - eta[i];
      r[i] = wi * e * a.inv_s2;
      z(i, 0) = wi - wi * e * e * a.inv_s2;
    }
  }
  static void fisher(double, const Aux& a, double& lam, double& dlam) {
    lam = a.inv_s2;
    dlam = 0.0;
  }
  // Censored rows: GaussianDist's, with mu = eta.
  static constexpr bool kCensored = true;
  using CensAux = CdfGrid<GaussianDist>;
  static CensAux cens_aux(const double* t) { return CensAux(t); }
  static void censored(double y, double y2, int kind, double eta, const CensAux& g, int order, Local& o) {
    MeanFamily<GaussianDist, IdentityLink>::censored(y, y2, kind, eta, g, order, o);
  }
};

}  // namespace family
}  // namespace vhmc
