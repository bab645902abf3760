#pragma once
// Student's t family (brms's student()): location mu, scale sigma = exp(t1), degrees of
// freedom nu = 1 + exp(t2) (brms's lower bound 1). With e = y - mu, s2 = sigma^2 and
// D = nu s2 + e^2,
//   ll = lgamma((nu + 1)/2) - lgamma(nu/2) - log(nu)/2 - log sigma - (nu + 1)/2 log(D / (nu s2)),
//   dll/dmu = (nu + 1) e / D,  dll/dlog sigma = (nu + 1) e^2 / D - 1,
//   dll/dnu = (psi((nu + 1)/2) - psi(nu/2) - 1/nu - log(D / (nu s2)))/2 + (nu + 1) e^2 / (2 nu D).
#include "../../../base/incomplete.hpp"
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"

namespace vhmc {
namespace family {

struct StudentDist {
  static constexpr const char* kFamily = "student";
  static constexpr std::array<AuxSpec, 2> kAux = {positive_param("sigma", true), positive_param("nu", false, 1.0)};
  struct Aux {
    double s2, t1, nu, dnu;  // sigma^2, log sigma, nu, dnu/dt2 = nu - 1
    double lg, psi, tri;     // lgamma((nu+1)/2) - lgamma(nu/2), its psi and psi' differences
  };
  static Aux aux(const double* t) {
    const double e = std::exp(t[1]), nu = 1.0 + e;
    return {std::exp(2.0 * t[0]), t[0], nu, e, std::lgamma(0.5 * (nu + 1.0)) - std::lgamma(0.5 * nu),
            digamma(0.5 * (nu + 1.0)) - digamma(0.5 * nu), trigamma(0.5 * (nu + 1.0)) - trigamma(0.5 * nu)};
  }
  static bool in_support(const MeanTerms& m) { return std::isfinite(m.mu); }
  // log F(y) or log(1 - F(y)) (censored rows): the tail beyond |q|, q = (y - mu) / sigma, is
  // I_x(nu/2, 1/2) / 2 with x = nu / (nu + q^2) (Abramowitz & Stegun 1964, eq. 26.7.1).
  static double log_cdf(double y, double mu, const Aux& a, bool upper) {
    const double q = (y - mu) * std::exp(-a.t1), q2 = q * q, nq = a.nu + q2;
    const double lt = -0.6931471805599453 + log_beta_inc(0.5 * a.nu, 0.5, a.nu / nq, q2 / nq);
    return (upper ? q > 0.0 : q < 0.0) ? lt : detail::log1m_exp(lt);
  }
  static double mu_scale(double, const Aux& a) { return std::exp(a.t1); }
  static void terms(double y, const MeanTerms& m, const Aux& a, int order, DistTerms& d) {
    const double nu = a.nu, e = y - m.mu, e2 = e * e, D = nu * a.s2 + e2;
    const double lq = std::log1p(e2 / (nu * a.s2));
    d.v = a.lg - 0.5 * std::log(nu) - a.t1 - 0.5 * (nu + 1.0) * lq;
    if (order < 1) return;
    const double dnu = 0.5 * (a.psi - 1.0 / nu - lq) + (nu + 1.0) * e2 / (2.0 * nu * D);
    d.l1 = (nu + 1.0) * e / D;
    d.lt[0] = (nu + 1.0) * e2 / D - 1.0;
    d.lt[1] = a.dnu * dnu;
    if (order < 2) return;
    const double D2 = D * D;
    d.l2 = (nu + 1.0) * (e2 - nu * a.s2) / D2;
    d.lmt[0] = -2.0 * (nu + 1.0) * e * nu * a.s2 / D2;
    d.lmt[1] = a.dnu * e * (e2 - a.s2) / D2;
    d.ltt[0][0] = -2.0 * (nu + 1.0) * e2 * nu * a.s2 / D2;
    d.ltt[0][1] = d.ltt[1][0] = a.dnu * e2 * (e2 - a.s2) / D2;
    const double d2nu = 0.25 * a.tri + 0.5 / (nu * nu) - 0.5 * (a.s2 / D - 1.0 / nu) -
                        e2 * (D + nu * (nu + 1.0) * a.s2) / (2.0 * nu * nu * D2);
    d.ltt[1][1] = a.dnu * dnu + a.dnu * a.dnu * d2nu;
  }
};

}  // namespace family
}  // namespace vhmc
