#pragma once
// The inverse Gaussian family, mean mu and shape lambda = exp(t) (rstanarm's `lambda`;
// variance mu^3 / lambda), every link of stats::inverse.gaussian() as a distribution in its
// mean:
//   ll = log(lambda) / 2 - lambda (y - mu)^2 / (2 mu^2 y)   (-3/2 log y - log(2 pi)/2 dropped).
#include "base.hpp"
#include "links.hpp"
#include "mean_family.hpp"

namespace vhmc {
namespace family {

struct InverseGaussianDist {
  static constexpr const char* kFamily = "inverse.gaussian";
  static constexpr std::array<AuxSpec, 1> kAux = {positive_param("lambda")};
  struct Aux {
    double lambda;
  };
  static Aux aux(const double* t) { return {std::exp(t[0])}; }
  static bool in_support(const MeanTerms& m) { return m.mu > 0.0; }
  // With g(mu) = (y - mu)^2 / (mu^2 y): g' = 2 (mu - y) / mu^3, g'' = 6 y / mu^4 - 4 / mu^3.
  static void terms(double y, const MeanTerms& m, const Aux& a, int, DistTerms& d) {
    const double mu = m.mu, e = y - mu, mu2 = mu * mu, mu3 = mu2 * mu;
    const double g = e * e / (mu2 * y);
    d.v = 0.5 * std::log(a.lambda) - 0.5 * a.lambda * g;
    d.l1 = a.lambda * e / mu3;
    d.l2 = a.lambda * (2.0 / mu3 - 3.0 * y / (mu3 * mu));
    d.lt[0] = 0.5 - 0.5 * a.lambda * g;
    d.lmt[0] = d.l1;
    d.ltt[0][0] = -0.5 * a.lambda * g;
  }
};

}  // namespace family
}  // namespace vhmc
