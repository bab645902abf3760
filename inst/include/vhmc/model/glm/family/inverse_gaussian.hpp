#pragma once
// The inverse Gaussian family, mean mu and shape lambda = exp(t) (rstanarm's `lambda`;
// variance mu^3 / lambda), every link of stats::inverse.gaussian() as a distribution in its
// mean:
//   ll = log(lambda) / 2 - lambda (y - mu)^2 / (2 mu^2 y)   (-3/2 log y - log(2 pi)/2 dropped).
#include <algorithm>
#include <limits>

#include "../../../base/incomplete.hpp"
#include "../../../base/special.hpp"
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
  // log F(y) or log(1 - F(y)) (censored rows), F(y) = Phi(r (y/mu - 1)) + exp(2 lambda / mu)
  // Phi(-r (y/mu + 1)), r = sqrt(lambda / y) (Chhikara and Folks 1989, eq. 2.9).
  static double log_cdf(double y, double mu, const Aux& a, bool upper) {
    const double r = std::sqrt(a.lambda / y), lb = 2.0 * a.lambda / mu + log_Phi(-r * (y / mu + 1.0));
    if (!upper) return log_sum_exp(log_Phi(r * (y / mu - 1.0)), lb);
    const double la = log_Phi(-r * (y / mu - 1.0));
    return la + detail::log1m_exp(std::min(lb - la, -std::numeric_limits<double>::epsilon()));
  }
  static double mu_scale(double mu, const Aux&) { return mu; }
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
