#pragma once
// A family as a distribution of y in its mean mu composed with a link (glm/family/links.hpp):
// the distribution gives the log likelihood's derivatives in mu and in its aux coordinates,
// and the chain rule through mu(eta) gives those in eta:
//   dll/deta = l1 m1,  d2ll/deta2 = l2 m1^2 + l1 m2,  d2ll/deta dt = lmt m1.
// A distribution D offers kFamily, kAux, Aux aux(const double* t), in_support(MeanTerms)
// and terms(y, MeanTerms, aux, order, DistTerms&).
#include "censored.hpp"
#include "dist_terms.hpp"
#include "links.hpp"
#include "local.hpp"

namespace vhmc {
namespace family {

template <class D, class L>
struct MeanFamily : FromLocal<MeanFamily<D, L>> {
  static constexpr const char* kFamily = D::kFamily;
  static constexpr const char* kLink = L::kName;
  static constexpr auto kAux = D::kAux;
  using Aux = typename D::Aux;
  static Aux aux(const double* t, Eigen::Index) { return D::aux(t); }

  static void local(double y, double eta, const Aux& a, int order, Local& o) {
    MeanTerms m;
    L::mean(eta, m);
    if (!m.valid || !D::in_support(m)) return o.zero_density();
    DistTerms d;
    D::terms(y, m, a, order, d);
    through_link(d, m, order, o);
  }

  // Censored rows (glm/family/censored.hpp): kind is brms's cens() code, y2 the upper bound
  // of an interval; the aux values of the evaluation's grid (cens_aux(t), once per evaluation).
  static constexpr bool kCensored = censorable<D>();
  using CensAux = CdfGrid<D>;
  static CensAux cens_aux(const double* t) { return CensAux(t); }
  static void censored(double y, double y2, int kind, double eta, const CensAux& g, int order, Local& o) {
    MeanTerms m;
    L::mean(eta, m);
    if (!m.valid || !D::in_support(m)) return o.zero_density();
    DistTerms d;
    censored_dist_terms<D>(y, y2, kind, m, g, order, d);
    through_link(d, m, order, o);
  }

  // The chain rule from mu to eta.
  static void through_link(const DistTerms& d, const MeanTerms& m, int order, Local& o) {
    o.v = d.v;
    if (order < 1) return;
    constexpr std::size_t n = aux_count<D>();
    o.g[0] = d.l1 * m.m1;
    for (std::size_t k = 0; k < n; ++k) o.g[1 + k] = d.lt[k];
    if (order < 2) return;
    o.h[0][0] = d.l2 * m.m1 * m.m1 + d.l1 * m.m2;
    for (std::size_t k = 0; k < n; ++k) {
      o.h[0][1 + k] = d.lmt[k] * m.m1;
      for (std::size_t l = 0; l < n; ++l) o.h[1 + k][1 + l] = d.ltt[k][l];
    }
    o.symmetrise();
  }
};

}  // namespace family
}  // namespace vhmc
