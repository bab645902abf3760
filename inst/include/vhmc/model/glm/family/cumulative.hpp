#pragma once
// Cumulative ordinal models (brms's cumulative(), MASS's polr): categories 1..K of y,
// P(y <= k) = F(c_k - eta) with ordered cutpoints c_1 < ... < c_{K-1} (the aux block, at the
// predictor means: the linear predictor has no intercept) and F the link's distribution, so
//   P(y = k) = F(u) - F(l),  u = c_k - eta,  l = c_{k-1} - eta  (F(c_0 - eta) = 0, F(c_K - eta) = 1).
// log P = log F(u) + log(1 - exp(log F(l) - log F(u))), accurate in both tails as long as
// log F is (glm/family/links.hpp). With P's derivatives g_u = f(u)/P, g_l = -f(l)/P and
// f/P = (f/F)(F/P), f'/P = (f'/F)(F/P): d/deta = -(g_u + g_l), d/dc_k = g_u, d/dc_{k-1} = g_l;
// the gradient in t follows from the ordered transform (glm/aux_transforms.hpp).
#include "../aux_transforms.hpp"
#include "base.hpp"
#include "links.hpp"

namespace vhmc {
namespace family {

// A row's log P and its derivatives in (u, l); k the category (1-based); has_u: k < K.
struct OrdinalRow {
  int k = 1;
  bool has_u = false, has_l = false;
  double v = 0.0, gu = 0.0, gl = 0.0, huu = 0.0, hll = 0.0, hul = 0.0;
  double d_eta() const { return -(gu + gl); }
  double h_eta() const { return huu + 2.0 * hul + hll; }
};

template <class L>
struct Cumulative {
  static constexpr const char* kFamily = "cumulative";
  static constexpr const char* kLink = L::kName;
  static constexpr std::array<AuxSpec, 1> kAux = {cutpoint_params("cutpoints")};
  static constexpr bool kHasFisher = false, kGaussianStats = false, kThresholds = true, kCensored = false;
  static constexpr double kMaxCurvature = 0.0;
  struct Aux {
    Vec c, s;  // cutpoints and the ordered transform's Jacobian factors
  };
  static Aux aux(const double* t, Eigen::Index n) {
    Aux a;
    ordered::values(t, n, a.c, a.s);
    return a;
  }

  static OrdinalRow row_terms(double y, double eta, const Aux& a) {
    OrdinalRow o;
    o.k = static_cast<int>(y);
    o.has_u = o.k <= a.c.size();
    o.has_l = o.k >= 2;
    ProbTerms pu, pl;
    if (o.has_u) L::prob(a.c[o.k - 1] - eta, pu);
    if (o.has_l) L::prob(a.c[o.k - 2] - eta, pl);
    if (!o.has_l) {
      o.v = pu.lp;
      o.gu = pu.dlp;
      o.huu = pu.d2lp;
      return o;
    }
    if (!o.has_u) {
      o.v = pl.lq;
      o.gl = pl.dlq;
      o.hll = pl.d2lq;
      return o;
    }
    o.v = pu.lp + std::log(-std::expm1(pl.lp - pu.lp));
    const double au = std::exp(pu.lp - o.v), al = std::exp(pl.lp - o.v);  // F/P at u and l
    o.gu = pu.dlp * au;
    o.gl = -pl.dlp * al;
    o.huu = (pu.d2lp + pu.dlp * pu.dlp) * au - o.gu * o.gu;
    o.hll = -(pl.d2lp + pl.dlp * pl.dlp) * al - o.gl * o.gl;
    o.hul = -o.gu * o.gl;
    return o;
  }

  static double pass(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec* r, double* dt, Vec&) {
    Vec dc = Vec::Zero(a.c.size());
    double ll = 0.0;
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      const double wi = weight(w, i);
      const OrdinalRow o = row_terms(y[i], eta[i], a);
      ll += wi * o.v;
      if (r) (*r)[i] = wi * o.d_eta();
      if (o.has_u) dc[o.k - 1] += wi * o.gu;
      if (o.has_l) dc[o.k - 2] += wi * o.gl;
    }
    if (dt) ordered::gradient(a.s, dc.data(), dt);
    return ll;
  }
  static void derivs(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& r, Mat& z) {
    const Eigen::Index n = a.c.size();
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      const double wi = weight(w, i);
      const OrdinalRow o = row_terms(y[i], eta[i], a);
      r[i] = wi * o.d_eta();
      for (Eigen::Index m = 0; m < n; ++m) {
        const double suffix = m <= o.k - 2 ? o.gu + o.gl : (m == o.k - 1 ? o.gu : 0.0);
        z(i, m) = -wi * a.s[m] * suffix;
      }
    }
  }
  // Newton's terms: per row in (eta, c), then carried to t (glm/aux_transforms.hpp).
  static void hessian(const RowVec& y, const Vec& eta, const RowVec& w, const Aux& a, Vec& he, Mat& het, Mat& htt) {
    const Eigen::Index n = a.c.size();
    Vec dc = Vec::Zero(n), hc(n), ht(n);
    Mat Hc = Mat::Zero(n, n);
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
      const double wi = weight(w, i);
      const OrdinalRow o = row_terms(y[i], eta[i], a);
      he[i] = -wi * o.h_eta();
      hc.setZero();
      if (o.has_u) {
        dc[o.k - 1] += wi * o.gu;
        hc[o.k - 1] = (o.huu + o.hul) * wi;  // -d2ll/deta dc_k
        Hc(o.k - 1, o.k - 1) -= wi * o.huu;
      }
      if (o.has_l) {
        dc[o.k - 2] += wi * o.gl;
        hc[o.k - 2] = (o.hul + o.hll) * wi;
        Hc(o.k - 2, o.k - 2) -= wi * o.hll;
      }
      if (o.has_u && o.has_l) {
        Hc(o.k - 1, o.k - 2) -= wi * o.hul;
        Hc(o.k - 2, o.k - 1) -= wi * o.hul;
      }
      ordered::gradient(a.s, hc.data(), ht.data());
      het.row(i) = ht.transpose();
    }
    htt = ordered::hessian(a.s, -dc, Hc);
  }
  static void fisher(double, const Aux&, double& lam, double& dlam) { lam = dlam = 0.0; }
  // The responses must be categories 1..n + 1 for n cutpoints.
  static bool valid_response(const RowVec& y, Eigen::Index n) {
    for (Eigen::Index i = 0; i < y.size(); ++i)
      if (!(y[i] >= 1.0 && y[i] <= static_cast<double>(n + 1) && y[i] == std::floor(y[i]))) return false;
    return true;
  }
};

}  // namespace family
}  // namespace vhmc
