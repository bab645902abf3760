#pragma once
// The Beta family (brms's Beta()): mean mu in (0, 1) through a probability link and
// precision phi = exp(t), y ~ Beta(mu phi, (1 - mu) phi):
//   ll = lgamma(phi) - lgamma(mu phi) - lgamma((1 - mu) phi) + (mu phi - 1) log y
//        + ((1 - mu) phi - 1) log(1 - y).
// 1 - mu comes from the link's own complement (accurate where mu is near 1).
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"

namespace vhmc {
namespace family {

struct BetaDist {
  static constexpr const char* kFamily = "Beta";
  static constexpr std::array<AuxSpec, 1> kAux = {positive_param("phi")};
  struct Aux {
    double phi, lgamma_phi, digamma_phi, trigamma_phi;
  };
  static Aux aux(const double* t) {
    const double phi = std::exp(t[0]);
    return {phi, std::lgamma(phi), digamma(phi), trigamma(phi)};
  }
  static bool in_support(const MeanTerms& m) { return m.mu > 0.0 && m.mu_c > 0.0; }
  static void terms(double y, const MeanTerms& m, const Aux& a, int order, DistTerms& d) {
    const double phi = a.phi, p = m.mu * phi, q = m.mu_c * phi;
    const double ly = std::log(y), l1y = std::log1p(-y);
    d.v = a.lgamma_phi - std::lgamma(p) - std::lgamma(q) + (p - 1.0) * ly + (q - 1.0) * l1y;
    if (order < 1) return;
    const double dp = digamma(p), dq = digamma(q), lr = ly - l1y;
    d.l1 = phi * (lr - dp + dq);
    const double dphi = a.digamma_phi - m.mu * dp - m.mu_c * dq + m.mu * ly + m.mu_c * l1y;
    d.lt[0] = phi * dphi;
    if (order < 2) return;
    const double tp = trigamma(p), tq = trigamma(q);
    d.l2 = -phi * phi * (tp + tq);
    d.lmt[0] = phi * (lr - dp + dq - p * tp + q * tq);
    const double d2phi = a.trigamma_phi - m.mu * m.mu * tp - m.mu_c * m.mu_c * tq;
    d.ltt[0][0] = d.lt[0] + phi * phi * d2phi;
  }
};

}  // namespace family
}  // namespace vhmc
