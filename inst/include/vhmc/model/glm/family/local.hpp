#pragma once
// Families written from their local derivatives: one function, local(y, eta, aux, order, o),
// gives a row's log likelihood and (order 1) its gradient and (order 2) its Hessian in
// (eta, t_1, ..., t_A), and FromLocal<F> derives the interface of glm/family/base.hpp from it.
// The second order serves only Newton's Hessian for the mode, so a family need not make it
// cheap.
#include <array>

#include "base.hpp"

namespace vhmc {
namespace family {

// A row's log likelihood v and its derivatives in (eta, t_1, ..., t_A), A <= kMaxRowAux.
struct Local {
  static constexpr int kSize = 1 + static_cast<int>(kMaxRowAux);
  double v = 0.0;
  double g[kSize] = {};
  double h[kSize][kSize] = {};

  void symmetrise() {
    for (int i = 0; i < kSize; ++i)
      for (int j = 0; j < i; ++j) h[i][j] = h[j][i];
  }
  // Outside the family's support: zero density, and derivatives that say nothing.
  void zero_density() {
    v = -kInf;
    for (int i = 0; i < kSize; ++i) {
      g[i] = 0.0;
      for (int j = 0; j < kSize; ++j) h[i][j] = 0.0;
    }
  }
};

// The interface of glm/family/base.hpp for a family F with local() and a fixed number of aux
// parameters (templates over the Aux type, since F is incomplete where this is a base); the
// passes over the rows are FromRows<F>'s, from row() and curvature() below.
template <class F>
struct FromLocal : FromRows<F> {
  static constexpr bool kHasFisher = false, kGaussianStats = false, kThresholds = false;
  static constexpr double kMaxCurvature = 0.0;

  template <class A>
  static double row(double y, double eta, const A& a, double* d, double* dt) {
    Local o;
    F::local(y, eta, a, d || dt ? 1 : 0, o);
    if (d) *d = o.g[0];
    if (dt)
      for (std::size_t k = 0; k < aux_count<F>(); ++k) dt[k] = o.g[1 + k];
    return o.v;
  }
  template <class A>
  static void curvature(double y, double eta, const A& a, double& he, double* het, double* htt) {
    constexpr std::size_t n = aux_count<F>();
    Local o;
    F::local(y, eta, a, 2, o);
    he = -o.h[0][0];
    for (std::size_t k = 0; k < n; ++k) {
      het[k] = -o.h[0][1 + k];
      for (std::size_t l = 0; l < n; ++l) htt[k * n + l] = -o.h[1 + k][1 + l];
    }
  }
  template <class A>
  static void fisher(double, const A&, double& lam, double& dlam) {
    lam = dlam = 0.0;
  }
};

// log(exp(a) + exp(b)) of two local terms, with its derivatives: the weight p of b,
// g = (1 - p) g_a + p g_b and H = (1 - p) H_a + p H_b + p (1 - p) (g_b - g_a)(g_b - g_a)'
// (a zero-inflated count's zero: inflation or a zero of the count).
inline void log_sum_exp_terms(const Local& a, const Local& b, int order, Local& o) {
  o.v = log_sum_exp(a.v, b.v);
  const double p = std::exp(b.v - o.v);
  if (order < 1) return;
  for (int i = 0; i < Local::kSize; ++i) o.g[i] = (1.0 - p) * a.g[i] + p * b.g[i];
  if (order < 2) return;
  for (int i = 0; i < Local::kSize; ++i)
    for (int j = 0; j < Local::kSize; ++j)
      o.h[i][j] = (1.0 - p) * a.h[i][j] + p * b.h[i][j] + p * (1.0 - p) * (b.g[i] - a.g[i]) * (b.g[j] - a.g[j]);
}

}  // namespace family
}  // namespace vhmc
