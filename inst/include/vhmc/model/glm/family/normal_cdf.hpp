#pragma once
// The normal distribution's censored terms, analytic: log Phi(u_a) (left or right) or
// log(Phi(u_a) - Phi(u_b)) (an interval, from the tail its lower bound is in, so that a
// narrow interval far out keeps its digits), u = s (bound - mu) / sigma, s = +-1, in mu and
// t = log sigma. With rho_j = phi(u_j) / P (P the probability):
//   dv/dx = rho_a du_a/dx - rho_b du_b/dx,
//   d2v/dxdy = sum_j +-rho_j (-u_j du_j/dx du_j/dy + d2u_j/dxdy) - dv/dx dv/dy.
#include <cmath>

#include "../../../base/incomplete.hpp"
#include "../../../base/special.hpp"
#include "censored.hpp"
#include "dist_terms.hpp"

namespace vhmc {
namespace family {

// u = s (b - mu) / sigma and its derivatives in (mu, t).
struct PhiArg {
  double u = 0.0, d[2] = {}, dd[2][2] = {};
  PhiArg(double b, double mu, double sigma, double s) {
    u = s * (b - mu) / sigma;
    d[0] = -s / sigma;
    d[1] = -u;
    dd[0][1] = dd[1][0] = s / sigma;
    dd[1][1] = u;
  }
};

inline void normal_cens_terms(double y, double y2, int kind, double mu, double t, int order, DistTerms& out) {
  const double sigma = std::exp(t);
  const bool interval = kind == kCensInterval, upper = interval ? y > mu : kind == kCensRight;
  const double s = upper ? -1.0 : 1.0;
  // a: the bound whose Phi term is the larger; b: the other one of an interval.
  const PhiArg a(interval && !upper ? y2 : y, mu, sigma, s), b(interval && !upper ? y : y2, mu, sigma, s);
  const double la = log_Phi(a.u);
  const double lp = interval ? la + detail::log1m_exp(log_Phi(b.u) - la) : la;
  out.v = lp;
  if (order < 1) return;
  const double ra = interval ? std::exp(-0.5 * a.u * a.u - detail::kLogSqrt2Pi - lp) : inv_mills(a.u);
  const double rb = interval ? std::exp(-0.5 * b.u * b.u - detail::kLogSqrt2Pi - lp) : 0.0;
  double g[2];
  for (int x = 0; x < 2; ++x) g[x] = ra * a.d[x] - rb * b.d[x];
  out.l1 = g[0];
  out.lt[0] = g[1];
  if (order < 2) return;
  double h[2][2];
  for (int x = 0; x < 2; ++x)
    for (int z = 0; z < 2; ++z)
      h[x][z] = ra * (-a.u * a.d[x] * a.d[z] + a.dd[x][z]) - rb * (-b.u * b.d[x] * b.d[z] + b.dd[x][z]) - g[x] * g[z];
  out.l2 = h[0][0];
  out.lmt[0] = h[0][1];
  out.ltt[0][0] = h[1][1];
}

}  // namespace family
}  // namespace vhmc
