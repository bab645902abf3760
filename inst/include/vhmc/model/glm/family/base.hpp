#pragma once
// What every family of the GLM potential shares: the description of its auxiliary
// parameters, the generic passes over rows built from a family's per-row terms, and the
// interface each family struct offers (one struct per family and link; the registry,
// glm/families.hpp, lists them). Terms constant in the parameters (log y!, binomial
// coefficients, log 2 pi) are dropped.
//
// Interface of a family F (w: the row's weight, applied by the caller unless stated):
//   kFamily, kLink                         its names (R's family$family and family$link)
//   kAux                                   std::array of AuxSpec, one per auxiliary parameter
//   kHasFisher                             fisher() gives rmhmc()'s metric (no aux parameter)
//   kMaxCurvature                          the most -d2ll/deta2 can be per unit weight
//                                          (0: unbounded; integrator/split_leapfrog.hpp)
//   kGaussianStats                         the gaussian identity likelihood, whose closed forms
//                                          (sufficient statistics, cells, effects integrated
//                                          out) the potential may use instead of rows
//   kThresholds                            the aux block holds ordered cutpoints that take the
//                                          intercept's place (cumulative models)
//   using Aux;  Aux aux(const double* t, Eigen::Index n)
//                                          values precomputed from the n unconstrained aux
//                                          coordinates t once per evaluation
//   double pass(y, eta, w, aux, r, dt, scratch)
//                                          sum_i w_i ll_i, and with r: r_i = w_i dll_i/deta
//                                          and with dt: dt[k] = sum_i w_i dll_i/dt_k
//   void derivs(y, eta, w, aux, r, z)      r_i = w_i dll_i/deta, z(i, k) = -w_i dll_i/dt_k
//                                          (z has at least one column; scratch without aux)
//   void hessian(y, eta, w, aux, he, het, htt)
//                                          he_i = -w_i d2ll_i/deta2, het(i, k) = -w_i
//                                          d2ll_i/deta dt_k, htt = -sum_i w_i d2ll_i/dt dt'
//                                          (Newton's Hessian for the mode)
//   void fisher(eta, aux, lam, dlam)       E[-d2ll/deta2] and its eta-derivative (kHasFisher)
//   kCensored                              censored rows (glm/family/censored.hpp): then
//                                          using CensAux; CensAux cens_aux(const double* t)
//                                          (once per evaluation) and
//                                          censored(y, y2, kind, eta, cens_aux, order, Local&)
// Families with a fixed number of aux parameters write row() and curvature() and take
// pass(), derivs() and hessian() from the generic row passes below (FromRows<F>); families
// written from their local derivatives (glm/family/local.hpp) take all of it from those.
// y, eta, w are vectors over the same rows (w of size 0: unit weights). A linear predictor
// outside the family's domain (a probability above 1 from the log link, a negative Poisson
// mean from the identity link) gives ll = -inf: zero density, which a chain rejects.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "../../../base/math.hpp"
#include "../../../base/special.hpp"
#include "../../../base/types.hpp"
#include "../layout.hpp"

namespace vhmc {

using RowVec = Eigen::Ref<const Vec>;

namespace family {

// One auxiliary parameter: its reported name; its transform from the sampler's unconstrained
// coordinate (Log: x = lower + exp(t); Logit: x = logistic(t); Ordered: cutpoints); whether it
// is in the response's units (sigma: rescaled with a standardised response); whether its size
// comes from the data (the cutpoints: categories less one) rather than being 1.
struct AuxSpec {
  const char* name;
  Transform transform;
  double lower;
  bool scales_with_y;
  bool sized_by_data;
};

constexpr AuxSpec positive_param(const char* name, bool scales_with_y = false, double lower = 0.0) {
  return {name, Transform::Log, lower, scales_with_y, false};
}
constexpr AuxSpec probability_param(const char* name) { return {name, Transform::Logit, 0.0, false, false}; }
constexpr AuxSpec cutpoint_params(const char* name) { return {name, Transform::Ordered, 0.0, false, true}; }

using NoAuxSpecs = std::array<AuxSpec, 0>;

struct NoAux {};

// The largest number of aux values a row's terms involve (families with a fixed count).
constexpr std::size_t kMaxRowAux = 2;

inline double weight(const RowVec& w, Eigen::Index i) { return w.size() ? w[i] : 1.0; }

template <class F>
constexpr std::size_t aux_count() {
  return std::tuple_size<decltype(F::kAux)>::value;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per-row derivatives, and the pass from them, for families without a vectorised pass.
template <class F>
double row_pass(const RowVec& y, const Vec& eta, const RowVec& w, const typename F::Aux& a, Vec* r,
                double* dt) {
  constexpr std::size_t A = aux_count<F>();
  double ll = 0.0;
  std::array<double, A ? A : 1> sdt{};
  for (Eigen::Index i = 0; i < eta.size(); ++i) {
    const double wi = weight(w, i);
    double d = 0.0;
    std::array<double, A ? A : 1> da{};
    ll += wi * F::row(y[i], eta[i], a, r ? &d : nullptr, dt ? da.data() : nullptr);
    if (r) (*r)[i] = wi * d;
    for (std::size_t k = 0; k < A; ++k) sdt[k] += wi * da[k];
  }
  if (dt) std::copy(sdt.begin(), sdt.begin() + A, dt);
  return ll;
}

// ... and each row's weighted derivatives in eta (r) and, negated, in the aux parameters (z).
template <class F>
void row_derivs(const RowVec& y, const Vec& eta, const RowVec& w, const typename F::Aux& a, Vec& r, Mat& z) {
  constexpr std::size_t A = aux_count<F>();
  for (Eigen::Index i = 0; i < eta.size(); ++i) {
    double d = 0.0;
    std::array<double, A ? A : 1> dt{};
    F::row(y[i], eta[i], a, &d, dt.data());
    r[i] = weight(w, i) * d;
    for (std::size_t k = 0; k < A; ++k) z(i, static_cast<Eigen::Index>(k)) = -weight(w, i) * dt[k];
  }
}

// Newton's Hessian terms from each row's curvature(y, eta, aux, he, het, htt) (het: one value
// per aux parameter, htt: A x A row-major), weighted.
template <class F>
void row_hessian(const RowVec& y, const Vec& eta, const RowVec& w, const typename F::Aux& a, Vec& he, Mat& het,
                 Mat& htt) {
  constexpr std::size_t A = aux_count<F>();
  const bool hw = w.size() > 0;
  for (Eigen::Index i = 0; i < eta.size(); ++i) {
    double hx[A ? A : 1] = {}, ht[A ? A * A : 1] = {};
    double h = 0.0;
    F::curvature(y[i], eta[i], a, h, hx, ht);
    he[i] = h;
    for (std::size_t k = 0; k < A; ++k) {
      het(i, static_cast<Eigen::Index>(k)) = hw ? w[i] * hx[k] : hx[k];
      for (std::size_t l = 0; l < A; ++l)
        htt(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(l)) += hw ? w[i] * ht[k * A + l] : ht[k * A + l];
    }
  }
  if (hw) he.array() *= w.array();
}

// The passes of a family F that writes row() and curvature() (templates over the Aux type,
// since F is incomplete where this is a base): pass(), derivs() and hessian() row by row.
template <class F>
struct FromRows {
  static constexpr bool kCensored = false;
  template <class A>
  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const A& a, Vec* r, double* dt, Vec&) {
    return row_pass<F>(y, eta, w, a, r, dt);
  }
  template <class A>
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const A& a, Vec& r, Mat& z) {
    row_derivs<F>(y, eta, w, a, r, z);
  }
  template <class A>
  static void hessian(const RowVec& y, const Vec& eta, const RowVec& w, const A& a, Vec& he, Mat& het, Mat& htt) {
    row_hessian<F>(y, eta, w, a, he, het, htt);
  }
};

}  // namespace family
}  // namespace vhmc
