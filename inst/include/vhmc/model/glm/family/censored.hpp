#pragma once
// Censored observations (brms's cens(): left, right, interval): a censored row's likelihood
// is a probability of the distribution in its mean, log F(y) (left), log(1 - F(y)) (right)
// or log(F(y2) - F(y)) (interval, y < y2), in place of the density. A distribution D that can
// be censored offers either
//   cens_terms(y, y2, kind, MeanTerms, Aux, order, DistTerms&)   analytic derivatives, or
//   log_cdf(y, mu, Aux, upper) and mu_scale(mu, Aux)             log F(y) (log(1 - F(y)) with
//                                                                upper), and the scale of mu
// and the derivatives of the second kind are central differences: in mu with a step 1e-4
// times mu_scale, in the aux coordinates t with a step 1e-4, from a grid of the aux values
// at t + h {-1, 0, 1}^A computed once per evaluation (CdfGrid). Their relative error is
// about 1e-9; a chain's Metropolis or multinomial step uses the exact log density, so the
// draws stay exact (a leapfrog with any deterministic force is reversible and keeps volume).
// The second order (Newton's Hessian for the mode) comes from second differences.
#include <array>
#include <cmath>
#include <type_traits>

#include "../../../base/incomplete.hpp"
#include "../../../base/special.hpp"
#include "dist_terms.hpp"
#include "links.hpp"

namespace vhmc {
namespace family {

// brms's coding of cens(): -1 left, 0 none, 1 right, 2 interval.
enum CensKind : int { kCensLeft = -1, kCensNone = 0, kCensRight = 1, kCensInterval = 2 };

constexpr double kCdfStep = 1e-4;

template <class D, class = void>
struct has_cens_terms : std::false_type {};
template <class D>
struct has_cens_terms<D, std::void_t<decltype(&D::cens_terms)>> : std::true_type {};
template <class D, class = void>
struct has_log_cdf : std::false_type {};
template <class D>
struct has_log_cdf<D, std::void_t<decltype(&D::log_cdf)>> : std::true_type {};
template <class D>
constexpr bool censorable() {
  return has_cens_terms<D>::value || has_log_cdf<D>::value;
}

constexpr std::size_t pow3(std::size_t a) { return a == 0 ? 1 : 3 * pow3(a - 1); }

// D's aux values at t + h o, o in {-1, 0, 1}^A (point index sum_k (o_k + 1) 3^k).
template <class D>
struct CdfGrid {
  static constexpr std::size_t A = aux_count<D>();
  std::array<typename D::Aux, pow3(A)> at;
  explicit CdfGrid(const double* t) {
    for (std::size_t p = 0; p < at.size(); ++p) {
      std::array<double, A ? A : 1> tp{};
      std::size_t q = p;
      for (std::size_t k = 0; k < A; ++k, q /= 3) tp[k] = t[k] + kCdfStep * (static_cast<double>(q % 3) - 1.0);
      at[p] = D::aux(tp.data());
    }
  }
  static constexpr std::size_t centre() { return (pow3(A) - 1) / 2; }
  static constexpr std::size_t shifted(std::size_t p, std::size_t k, int o) {
    return static_cast<std::size_t>(static_cast<long>(p) + o * static_cast<long>(pow3(k)));
  }
  const typename D::Aux& centre_aux() const { return at[centre()]; }
};

// log of the probability of a censored row under D with mean mu.
template <class D>
double cens_value(double y, double y2, int kind, double mu, const typename D::Aux& a) {
  if (kind == kCensLeft) return D::log_cdf(y, mu, a, false);
  if (kind == kCensRight) return D::log_cdf(y, mu, a, true);
  const double l1 = D::log_cdf(y, mu, a, false);
  if (l1 < -0.693147) {  // F(y) < 1/2: from the lower tail
    const double l2 = D::log_cdf(y2, mu, a, false);
    return l2 + detail::log1m_exp(l1 - l2);
  }
  const double s1 = D::log_cdf(y, mu, a, true), s2 = D::log_cdf(y2, mu, a, true);
  return s1 + detail::log1m_exp(s2 - s1);
}

// A censored row's terms in mu and t by central differences over the grid.
template <class D>
void difference_terms(double y, double y2, int kind, double mu, const CdfGrid<D>& g, int order, DistTerms& d) {
  constexpr std::size_t A = aux_count<D>();
  const std::size_t c = CdfGrid<D>::centre();
  const double hm = kCdfStep * D::mu_scale(mu, g.at[c]), h = kCdfStep;
  auto V = [&](int om, std::size_t p) { return cens_value<D>(y, y2, kind, mu + om * hm, g.at[p]); };
  d.v = V(0, c);
  if (order < 1) return;
  const double vp = V(1, c), vm = V(-1, c);
  d.l1 = (vp - vm) / (2.0 * hm);
  std::array<double, A ? A : 1> tp{}, tm{};
  for (std::size_t k = 0; k < A; ++k) {
    tp[k] = V(0, CdfGrid<D>::shifted(c, k, 1));
    tm[k] = V(0, CdfGrid<D>::shifted(c, k, -1));
    d.lt[k] = (tp[k] - tm[k]) / (2.0 * h);
  }
  if (order < 2) return;
  d.l2 = (vp - 2.0 * d.v + vm) / (hm * hm);
  for (std::size_t k = 0; k < A; ++k) {
    const std::size_t up = CdfGrid<D>::shifted(c, k, 1), dn = CdfGrid<D>::shifted(c, k, -1);
    d.lmt[k] = (V(1, up) - V(1, dn) - V(-1, up) + V(-1, dn)) / (4.0 * hm * h);
    d.ltt[k][k] = (tp[k] - 2.0 * d.v + tm[k]) / (h * h);
    for (std::size_t l = 0; l < k; ++l) {
      auto at = [&](int ok, int ol) { return V(0, CdfGrid<D>::shifted(CdfGrid<D>::shifted(c, k, ok), l, ol)); };
      d.ltt[k][l] = d.ltt[l][k] = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4.0 * h * h);
    }
  }
}

// A censored row's terms in mu and t: D's own, or by differences.
template <class D>
void censored_dist_terms(double y, double y2, int kind, const MeanTerms& m, const CdfGrid<D>& g, int order,
                         DistTerms& d) {
  if constexpr (has_cens_terms<D>::value) {
    D::cens_terms(y, y2, kind, m, g.centre_aux(), order, d);
  } else {
    difference_terms<D>(y, y2, kind, m.mu, g, order, d);
  }
}

}  // namespace family
}  // namespace vhmc
