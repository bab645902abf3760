#pragma once
// Convergence diagnostics and Monte Carlo standard errors of draws, variable by variable:
// rank-normalised split R-hat, bulk and tail ESS, and the MCSE of the mean, sd and quantiles
// (Vehtari, Gelman, Simpson, Carpenter and Buerkner 2021, eqs. 3-4 and 14-16, as computed by
// the posterior R package, whose results these reproduce to rounding). R's summaries call
// posterior once per variable, which took minutes for the 40,000 variables of a model with
// 20,000 levels; here a variable costs a few sorts and the autocovariances up to Geyer's
// truncation lag, computed lag by lag (a chain that mixes well stops after a few lags).
// The normal and beta quantile functions come from the caller (R's, through the glue).
#include <utility>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "../base/types.hpp"

namespace vhmc {
namespace diagnostics {

using QnormFn = double (*)(double p);
using QbetaFn = double (*)(double p, double a, double b);

constexpr double kNA = std::numeric_limits<double>::quiet_NaN();

// x (n iterations x m chains) with each chain split in halves (posterior's .split_chains:
// an odd n drops the middle draw).
inline Mat split_chains(const Mat& x) {
  const Eigen::Index n = x.rows(), m = x.cols();
  if (n == 1) return x;
  const Eigen::Index h = n / 2;
  Mat out(h, 2 * m);
  out.leftCols(m) = x.topRows(h);
  out.rightCols(m) = x.bottomRows(h);
  return out;
}

// The number of draws split_chains() keeps of n iterations in m chains.
inline Eigen::Index split_size(Eigen::Index n, Eigen::Index m) { return n == 1 ? m : 2 * (n / 2) * m; }

// No statistic for draws that are not all finite or are constant (relative to their size:
// a posterior on the 1e-8 scale is not constant).
inline bool no_statistic(const Mat& x) {
  if (!x.allFinite()) return true;
  const double hi = x.maxCoeff(), lo = x.minCoeff();
  return hi - lo <= std::numeric_limits<double>::epsilon() * std::max(std::abs(hi), std::abs(lo));
}

// The normal scores of rank-normalisation, qnorm((r - 3/8) / (S + 1/4)) for rank r of S draws
// (Blom 1958; Vehtari et al. 2021, eq. 14): a table for the integer ranks, computed once for
// every variable of the same size, and qnorm itself for the average rank of tied draws.
class NormalScores {
 public:
  NormalScores(Eigen::Index S, QnormFn qnorm) : S_(static_cast<double>(S)), qnorm_(qnorm), table_(S) {
    for (Eigen::Index k = 0; k < S; ++k) table_[k] = score(static_cast<double>(k + 1));
  }
  Eigen::Index size() const { return table_.size(); }
  double operator()(double rank) const {
    const double k = std::floor(rank);
    return k == rank ? table_[static_cast<Eigen::Index>(k) - 1] : score(rank);
  }

 private:
  double score(double r) const { return qnorm_((r - 0.375) / (S_ + 0.25)); }
  double S_;
  QnormFn qnorm_;
  Vec table_;
};

// The normal scores of x's ranks (ties get their average rank).
inline Mat z_scale(const Mat& x, const NormalScores& scores) {
  const Eigen::Index S = x.size();
  std::vector<std::pair<double, Eigen::Index>> v(static_cast<std::size_t>(S));
  for (Eigen::Index i = 0; i < S; ++i) v[static_cast<std::size_t>(i)] = {x(i), i};
  std::sort(v.begin(), v.end());
  Mat z(x.rows(), x.cols());
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1].first == v[i].first) ++j;
    const double score = scores(0.5 * static_cast<double>(i + j) + 1.0);
    for (std::size_t k = i; k <= j; ++k) z(v[k].second) = score;
    i = j + 1;
  }
  return z;
}

// Quantile of sorted values, R's type 7.
inline double quantile7(const std::vector<double>& sorted, double p) {
  const double index = static_cast<double>(sorted.size() - 1) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(index));
  const std::size_t hi = static_cast<std::size_t>(std::ceil(index));
  const double q = sorted[lo], h = index - static_cast<double>(lo);
  return (index > static_cast<double>(lo) && sorted[hi] != q) ? (1.0 - h) * q + h * sorted[hi] : q;
}

inline std::vector<double> sorted_values(const Mat& x) {
  std::vector<double> s(x.data(), x.data() + x.size());
  std::sort(s.begin(), s.end());
  return s;
}

inline double median_of(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

// R-hat of (split) chains, the columns of x (Gelman et al. 2013, eq. 11.4).
inline double rhat_basic(const Mat& x) {
  if (no_statistic(x)) return kNA;
  const double n = static_cast<double>(x.rows());
  const Vec means = x.colwise().mean().transpose();
  const Vec vars = ((x.rowwise() - means.transpose()).colwise().squaredNorm().transpose()) / (n - 1.0);
  const double between = n * (means.array() - means.mean()).square().sum() / (static_cast<double>(x.cols()) - 1.0);
  const double within = vars.mean();
  return std::sqrt((between / within + n - 1.0) / n);
}

}  // namespace diagnostics
}  // namespace vhmc
