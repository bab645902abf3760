#pragma once
// Zero-inflated and hurdle counts (brms's zero_inflated_poisson(), zero_inflated_negbinomial(),
// hurdle_poisson(), hurdle_negbinomial()), log link, with a constant zero-inflation or hurdle
// probability sampled as its logit:
//   zero-inflated  P(0) = zi + (1 - zi) P_c(0),  P(y) = (1 - zi) P_c(y) for y > 0;
//   hurdle         P(0) = hu,                    P(y) = (1 - hu) P_c(y) / (1 - P_c(0)) for y > 0,
// P_c the count distribution (Poisson, or negative binomial with brms's `shape`). A count
// part C gives, in local terms over (eta, its aux), log P_c(y) for y > 0 (positive()) and
// log P_c(0) (zero()).
#include "base.hpp"
#include "local.hpp"
#include "neg_binomial.hpp"

namespace vhmc {
namespace family {

// Poisson with log link: log P(y) = y eta - mu (lgamma(y + 1) dropped), log P(0) = -mu.
struct PoissonCount {
  static constexpr const char* kZeroInflated = "zero_inflated_poisson";
  static constexpr const char* kHurdle = "hurdle_poisson";
  static constexpr NoAuxSpecs kAux{};
  using Aux = NoAux;
  static Aux aux(const double*) { return {}; }
  static void positive(double y, double eta, const Aux&, int, Local& o) {
    const double mu = std::exp(eta);
    o.v = y * eta - mu;
    o.g[0] = y - mu;
    o.h[0][0] = -mu;
  }
  static void zero(double eta, const Aux&, int, Local& o) { o.v = o.g[0] = o.h[0][0] = -std::exp(eta); }
};

// Negative binomial with log link and shape phi = exp(t): NegBinomial2Log's row for y > 0,
// and log P(0) = phi (t - log(mu + phi)), q = mu / (mu + phi):
//   d/deta = -phi q, d/dt = phi (t - log(mu + phi) + q), d2/deta2 = -phi q (1 - q),
//   d2/deta dt = -phi q^2, d2/dt2 = d/dt + phi q^2.
struct NegBinCount {
  static constexpr const char* kZeroInflated = "zero_inflated_negbinomial";
  static constexpr const char* kHurdle = "hurdle_negbinomial";
  static constexpr std::array<AuxSpec, 1> kAux = {positive_param("shape")};
  using Aux = NegBinomial2Log::Aux;
  static Aux aux(const double* t) { return GammaAux::at(t[0]); }
  static void positive(double y, double eta, const Aux& a, int order, Local& o) {
    o.v = NegBinomial2Log::row(y, eta, a, order ? &o.g[0] : nullptr, order ? &o.g[1] : nullptr);
    if (order < 2) return;
    double he = 0.0, het = 0.0, htt = 0.0;
    NegBinomial2Log::curvature(y, eta, a, he, &het, &htt);
    o.h[0][0] = -he;
    o.h[0][1] = o.h[1][0] = -het;
    o.h[1][1] = -htt;
  }
  static void zero(double eta, const Aux& a, int, Local& o) {
    const double lmp = log_sum_exp(eta, a.t), q = std::exp(eta - lmp), phi = a.x;
    o.v = phi * (a.t - lmp);
    o.g[0] = -phi * q;
    o.g[1] = phi * (a.t - lmp + q);
    o.h[0][0] = -phi * q * (1.0 - q);
    o.h[0][1] = o.h[1][0] = -phi * q * q;
    o.h[1][1] = o.g[1] + phi * q * q;
  }
};

// The logit-scale probability of a zero model: p, log p, log(1 - p).
struct ZeroProb {
  double p, lp, lq;
  static ZeroProb at(double t) { return {logistic(t), -softplus(-t), -softplus(t)}; }
  // Adds log p (zero) or log(1 - p) (count) with its derivatives at index k.
  void add(bool zero_part, int k, Local& o) const {
    o.v += zero_part ? lp : lq;
    o.g[k] += zero_part ? 1.0 - p : -p;
    o.h[k][k] -= p * (1.0 - p);
  }
};

template <class C>
struct ZeroModelAux {
  typename C::Aux count;
  ZeroProb zero;
};

template <class C>
constexpr std::array<AuxSpec, aux_count<C>() + 1> zero_model_aux(const char* name) {
  if constexpr (aux_count<C>() == 0) {
    return {probability_param(name)};
  } else {
    return {C::kAux[0], probability_param(name)};
  }
}

template <class C>
struct ZeroInflated : FromLocal<ZeroInflated<C>> {
  static constexpr const char* kFamily = C::kZeroInflated;
  static constexpr const char* kLink = "log";
  static constexpr auto kAux = zero_model_aux<C>("zi");
  using Aux = ZeroModelAux<C>;
  static constexpr int kZ = static_cast<int>(aux_count<C>()) + 1;  // local index of logit zi
  static Aux aux(const double* t, Eigen::Index) { return {C::aux(t), ZeroProb::at(t[kZ - 1])}; }
  static void local(double y, double eta, const Aux& a, int order, Local& o) {
    if (y != 0.0) {
      C::positive(y, eta, a.count, order, o);
      return a.zero.add(false, kZ, o);
    }
    Local inflate, count;
    a.zero.add(true, kZ, inflate);
    C::zero(eta, a.count, order, count);
    a.zero.add(false, kZ, count);
    log_sum_exp_terms(inflate, count, order, o);
  }
};

// y > 0 subtracts log(1 - P_c(0)) = log(-expm1(l0)), whose gradient is -s g0 and Hessian
// -s H0 - s (1 + s) g0 g0' with s = 1 / expm1(-l0).
template <class C>
struct Hurdle : FromLocal<Hurdle<C>> {
  static constexpr const char* kFamily = C::kHurdle;
  static constexpr const char* kLink = "log";
  static constexpr auto kAux = zero_model_aux<C>("hu");
  using Aux = ZeroModelAux<C>;
  static constexpr int kZ = static_cast<int>(aux_count<C>()) + 1;
  static Aux aux(const double* t, Eigen::Index) { return {C::aux(t), ZeroProb::at(t[kZ - 1])}; }
  static void local(double y, double eta, const Aux& a, int order, Local& o) {
    if (y == 0.0) return a.zero.add(true, kZ, o);
    Local z;
    C::positive(y, eta, a.count, order, o);
    C::zero(eta, a.count, order, z);
    o.v -= std::log(-std::expm1(z.v));
    const double s = 1.0 / std::expm1(-z.v);
    for (int i = 0; i < kZ; ++i) {
      o.g[i] += s * z.g[i];
      for (int j = 0; j < kZ; ++j) o.h[i][j] += s * z.h[i][j] + s * (1.0 + s) * z.g[i] * z.g[j];
    }
    a.zero.add(false, kZ, o);
  }
};

}  // namespace family
}  // namespace vhmc
