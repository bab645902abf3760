#pragma once
// The Poisson family: the log link with a vectorised pass, and the identity and sqrt links
// as a distribution in its mean (mu > 0; the identity link can leave that domain).
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"

namespace vhmc {
namespace family {

// log lik = y eta - exp(eta) (lgamma(y + 1) dropped).
struct PoissonLog {
  static constexpr const char* kFamily = "poisson";
  static constexpr const char* kLink = "log";
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static constexpr bool kHasFisher = true, kGaussianStats = false, kThresholds = false, kCensored = false;
  static constexpr double kMaxCurvature = 0.0;  // unbounded in eta: 0
  static Aux aux(const double*, Eigen::Index) { return {}; }
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec* r, double*, Vec& z);
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux&, Vec& r, Mat&) {
    r.array() = y.array() - eta.array().exp();
    if (w.size()) r.array() *= w.array();
  }
  // -d2ll/deta2 = exp(eta), as an array expression (Eigen's packet exp, as the pass).
  static void hessian(const RowVec&, const Vec& eta, const RowVec& w, const Aux&, Vec& he, Mat&, Mat&) {
    he.array() = eta.array().exp();
    if (w.size()) he.array() *= w.array();
  }
  static void fisher(double eta, const Aux&, double& lam, double& dlam) { lam = dlam = std::exp(eta); }
};

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

// ll = y log mu - mu.
struct PoissonDist {
  static constexpr const char* kFamily = "poisson";
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static Aux aux(const double*) { return {}; }
  static bool in_support(const MeanTerms& m) { return m.mu > 0.0; }
  static void terms(double y, const MeanTerms& m, const Aux&, int, DistTerms& d) {
    d.v = (y != 0.0 ? y * std::log(m.mu) : 0.0) - m.mu;
    d.l1 = y / m.mu - 1.0;
    d.l2 = -y / (m.mu * m.mu);
  }
};

}  // namespace family
}  // namespace vhmc
