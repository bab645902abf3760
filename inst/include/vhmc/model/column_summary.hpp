#pragma once
// One pass per statistic over each column of a design matrix, without copying it: what the
// GLM front end needs for autoscaled priors, centring, scaling and its checks. The mean and
// the standard deviation are computed exactly as R's colMeans() and sd() compute them (long
// double sums; the mean corrected by a second pass, as R's var() does), and the weighted sd
// as vhmc's R code did, so that moving them here changed no draw.
#include <algorithm>
#include <cmath>

#include "../base/types.hpp"

namespace vhmc {

struct ColumnSummary {
  double mean = 0.0;        // as colMeans()
  double sd = 0.0;          // as sd(): n - 1 denominator
  double weighted_sd = 0.0; // frequency-weighted (sd() when unweighted)
  int n_distinct = 0;       // 0, 1, 2, or 3 meaning "more than two"
  double min = 0.0, max = 0.0;
  bool all_finite = true, all_zero = true;
};

namespace detail {

// R's var() of one vector: long double mean with a correction pass, then the long double
// sum of squared deviations over n - 1.
inline double r_sd(const double* x, Eigen::Index n) {
  long double sum = 0.0L;
  for (Eigen::Index k = 0; k < n; ++k) sum += x[k];
  long double tmp = sum / n;
  if (std::isfinite(static_cast<double>(tmp))) {
    sum = 0.0L;
    for (Eigen::Index k = 0; k < n; ++k) sum += (x[k] - tmp);
    tmp = tmp + sum / n;
  }
  const double xm = static_cast<double>(tmp);
  sum = 0.0L;
  for (Eigen::Index k = 0; k < n; ++k) sum += (x[k] - xm) * (x[k] - xm);
  return std::sqrt(static_cast<double>(sum / (n - 1)));
}

// sum(w * x) / sum(w), then sqrt(sum(w * (x - m)^2) / (sum(w) - 1, or sum(w) if that is <= 1)),
// each sum a long double accumulation of doubles, as R's sum() does.
inline double r_weighted_sd(const double* x, const double* w, Eigen::Index n) {
  long double swx = 0.0L, sw = 0.0L;
  for (Eigen::Index k = 0; k < n; ++k) {
    swx += w[k] * x[k];
    sw += w[k];
  }
  const double m = static_cast<double>(swx) / static_cast<double>(sw);
  long double ss = 0.0L;
  for (Eigen::Index k = 0; k < n; ++k) {
    const double dev = x[k] - m;
    ss += w[k] * (dev * dev);
  }
  const double W = static_cast<double>(sw);
  return std::sqrt(static_cast<double>(ss) / (W > 1 ? W - 1 : W));
}

}  // namespace detail

// Column j of an n-row column-major matrix; w: n frequency weights or nullptr.
inline ColumnSummary summarise_column(const double* x, Eigen::Index n, const double* w) {
  ColumnSummary s;
  long double sum = 0.0L;
  double first = 0.0, second = 0.0;
  for (Eigen::Index k = 0; k < n; ++k) {
    const double v = x[k];
    sum += v;
    if (!std::isfinite(v)) s.all_finite = false;
    if (v != 0.0) s.all_zero = false;
    if (k == 0) s.min = s.max = v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    if (s.n_distinct == 0) {
      first = v;
      s.n_distinct = 1;
    } else if (s.n_distinct == 1 && v != first) {
      second = v;
      s.n_distinct = 2;
    } else if (s.n_distinct == 2 && v != first && v != second) {
      s.n_distinct = 3;
    }
  }
  s.mean = static_cast<double>(sum / n);
  if (n > 1) s.sd = detail::r_sd(x, n);
  s.weighted_sd = w ? detail::r_weighted_sd(x, w, n) : s.sd;
  return s;
}

}  // namespace vhmc
