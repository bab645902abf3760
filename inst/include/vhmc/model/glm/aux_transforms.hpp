#pragma once
// The transforms between a family's auxiliary parameters and the sampler's unconstrained
// coordinates t (glm/layout.hpp): Log, x = lower + exp(t); Logit, x = logistic(t); Ordered,
// the cutpoints c_1 = t_1, c_j = c_{j-1} + exp(t_j) (Stan's ordered vector), whose Jacobian
// dc_j/dt_m = s_m for m <= j (s_1 = 1, s_m = exp(t_m)) and 0 above. The reported-scale map,
// the priors' Jacobians and the cumulative family's chain rule all read them from here.
#include <cmath>

#include "../../base/math.hpp"
#include "../../base/types.hpp"
#include "layout.hpp"

namespace vhmc {

// x of one coordinate (Log, Logit) or of a block (Ordered: n values from n coordinates).
inline void aux_to_natural(Transform tr, double lower, const double* t, Eigen::Index n, double* x) {
  switch (tr) {
    case Transform::Log:
      for (Eigen::Index i = 0; i < n; ++i) x[i] = lower == 0.0 ? std::exp(t[i]) : lower + std::exp(t[i]);
      return;
    case Transform::Logit:
      for (Eigen::Index i = 0; i < n; ++i) x[i] = logistic(t[i]);
      return;
    case Transform::Ordered:
      for (Eigen::Index i = 0; i < n; ++i) x[i] = i == 0 ? t[0] : x[i - 1] + std::exp(t[i]);
      return;
    case Transform::Identity:
      for (Eigen::Index i = 0; i < n; ++i) x[i] = t[i];
      return;
  }
}

// ... and back (initial values given on the natural scale).
inline void aux_from_natural(Transform tr, double lower, const double* x, Eigen::Index n, double* t) {
  switch (tr) {
    case Transform::Log:
      for (Eigen::Index i = 0; i < n; ++i) t[i] = std::log(x[i] - lower);
      return;
    case Transform::Logit:
      for (Eigen::Index i = 0; i < n; ++i) t[i] = std::log(x[i]) - std::log1p(-x[i]);
      return;
    case Transform::Ordered:
      for (Eigen::Index i = 0; i < n; ++i) t[i] = i == 0 ? x[0] : std::log(x[i] - x[i - 1]);
      return;
    case Transform::Identity:
      for (Eigen::Index i = 0; i < n; ++i) t[i] = x[i];
      return;
  }
}

namespace ordered {

// The cutpoints c and the Jacobian factors s from t (n of each).
inline void values(const double* t, Eigen::Index n, Vec& c, Vec& s) {
  c.resize(n);
  s.resize(n);
  for (Eigen::Index m = 0; m < n; ++m) {
    s[m] = m == 0 ? 1.0 : std::exp(t[m]);
    c[m] = m == 0 ? t[0] : c[m - 1] + s[m];
  }
}

// dt = J' dc: dt_m = s_m sum_{j >= m} dc_j.
inline void gradient(const Vec& s, const double* dc, double* dt) {
  double suffix = 0.0;
  for (Eigen::Index m = s.size() - 1; m >= 0; --m) {
    suffix += dc[m];
    dt[m] = s[m] * suffix;
  }
}

// The second derivative in t of a function with gradient dc and Hessian Hc in c:
// J' Hc J + diag(s_m sum_{j >= m} dc_j) for m >= 2 (from d2c_j/dt_m^2 = s_m, m <= j).
inline Mat hessian(const Vec& s, const Vec& dc, const Mat& Hc) {
  const Eigen::Index n = s.size();
  Mat J = Mat::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index m = 0; m <= j; ++m) J(j, m) = s[m];
  Mat H = J.transpose() * Hc * J;
  Vec dt(n);
  gradient(s, dc.data(), dt.data());
  for (Eigen::Index m = 1; m < n; ++m) H(m, m) += dt[m];
  return H;
}

}  // namespace ordered
}  // namespace vhmc
