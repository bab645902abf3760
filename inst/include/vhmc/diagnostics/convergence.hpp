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
#include <cstdint>
#include <cstring>
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

// Draws in increasing order, each with its position in the matrix it came from.
using Order = std::vector<std::pair<double, Eigen::Index>>;

// An unsigned key with the order of the doubles (finite ones; -0 just before +0).
inline std::uint64_t order_key(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return (u >> 63) ? ~u : (u | (std::uint64_t{1} << 63));
}

// By a least-significant-digit radix sort on the keys, 8 bits a pass (passes where every key
// has the same digit skipped): about a fifth of a comparison sort's time for the thousands of
// draws of a variable, which a summary of tens of thousands of variables sorts three times.
inline Order order_of(const Mat& x) {
  const std::size_t n = static_cast<std::size_t>(x.size());
  std::vector<std::pair<std::uint64_t, Eigen::Index>> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = {order_key(x(static_cast<Eigen::Index>(i))), static_cast<Eigen::Index>(i)};
  for (int shift = 0; shift < 64; shift += 8) {
    std::size_t count[257] = {0};
    for (const auto& e : a) ++count[((e.first >> shift) & 0xFF) + 1];
    if (count[((a[0].first >> shift) & 0xFF) + 1] == n) continue;
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (const auto& e : a) b[count[(e.first >> shift) & 0xFF]++] = e;
    a.swap(b);
  }
  Order v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {x(a[i].second), a[i].second};
  return v;
}

// The order of |x - median| from the order of x, without sorting again: below the median
// the distance falls as x rises, above it it rises, so the two runs merge (fl(a - b) is
// -fl(b - a), so the distances are those of the folded draws computed directly).
inline Order fold_order(const Order& v, double median) {
  const std::size_t p = static_cast<std::size_t>(
      std::lower_bound(v.begin(), v.end(), median, [](const auto& e, double m) { return e.first < m; }) - v.begin());
  Order out;
  out.reserve(v.size());
  std::size_t lo = p, hi = p;
  auto dist = [&](std::size_t i) { return std::abs(v[i].first - median); };
  while (lo > 0 || hi < v.size()) {
    const bool take_lo = lo > 0 && (hi == v.size() || dist(lo - 1) <= dist(hi));
    const std::size_t i = take_lo ? --lo : hi++;
    out.push_back({dist(i), v[i].second});
  }
  return out;
}

// The normal scores of the ranks of the draws in order v (ties get their average rank), in
// a rows x cols matrix.
inline Mat z_scale(const Order& v, Eigen::Index rows, Eigen::Index cols, const NormalScores& scores) {
  Mat z(rows, cols);
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1].first == v[i].first) ++j;
    const double score = scores(0.5 * static_cast<double>(i + j) + 1.0);
    for (std::size_t k = i; k <= j; ++k) z(v[k].second) = score;
    i = j + 1;
  }
  return z;
}

inline std::vector<double> values_of(const Order& v) {
  std::vector<double> s(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) s[i] = v[i].first;
  return s;
}

// Quantile of sorted values, R's type 7.
inline double quantile7(const std::vector<double>& sorted, double p) {
  const double index = static_cast<double>(sorted.size() - 1) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(index));
  const std::size_t hi = static_cast<std::size_t>(std::ceil(index));
  const double q = sorted[lo], h = index - static_cast<double>(lo);
  return (index > static_cast<double>(lo) && sorted[hi] != q) ? (1.0 - h) * q + h * sorted[hi] : q;
}

inline std::vector<double> sorted_values(const Mat& x) { return values_of(order_of(x)); }

// x's draws in order, and the same for the split chains (the same draws when the number of
// iterations is even; an odd one drops each chain's middle draw).
struct SortedDraws {
  std::vector<double> all;
  Mat split;
  Order split_order;
};

inline SortedDraws sorted_draws(const Mat& x) {
  SortedDraws s{{}, split_chains(x), {}};
  s.split_order = order_of(s.split);
  s.all = s.split.size() == x.size() ? values_of(s.split_order) : sorted_values(x);
  return s;
}

inline double median_of(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

// The median of |x - median| (R's mad() before its constant), by selection.
inline double median_deviation(const std::vector<double>& x, double median) {
  std::vector<double> dev(x.size());
  std::transform(x.begin(), x.end(), dev.begin(), [&](double v) { return std::abs(v - median); });
  const auto mid = dev.begin() + static_cast<std::ptrdiff_t>(dev.size() / 2);
  std::nth_element(dev.begin(), mid, dev.end());
  return dev.size() % 2 == 1 ? *mid : (*std::max_element(dev.begin(), mid) + *mid) / 2.0;
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
