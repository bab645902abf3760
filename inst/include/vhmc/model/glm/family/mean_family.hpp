#pragma once
// A family as a distribution of y in its mean mu composed with a link (glm/family/links.hpp):
// the distribution gives the log likelihood's derivatives in mu and in its aux coordinates,
// and the chain rule through mu(eta) gives those in eta:
//   dll/deta = l1 m1,  d2ll/deta2 = l2 m1^2 + l1 m2,  d2ll/deta dt = lmt m1.
// A distribution D offers kFamily, kAux, Aux aux(const double* t), in_support(MeanTerms)
// and terms(y, MeanTerms, aux, order, DistTerms&).
#include "links.hpp"
#include "local.hpp"

namespace vhmc {
namespace family {

// A row's log likelihood in mu and the aux coordinates t, with derivatives.
struct DistTerms {
  double v = 0.0, l1 = 0.0, l2 = 0.0;  // ll, dll/dmu, d2ll/dmu2
  double lt[kMaxRowAux] = {}, lmt[kMaxRowAux] = {}, ltt[kMaxRowAux][kMaxRowAux] = {};
};

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
