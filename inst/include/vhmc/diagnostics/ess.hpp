#pragma once
// The effective sample size of (split) chains, the columns of x, from the mean over chains of
// their autocovariances, truncated by Geyer's (1992) initial positive sequence and made
// monotone (Vehtari et al. 2021, eqs. 10-11; the estimator of posterior's .ess(), capped as
// there at S log10(S)). The autocovariances are computed lag by lag as the truncation asks
// for them: a chain that mixes well needs a few lags, not all n.
#include <cmath>
#include <vector>

#include "convergence.hpp"

namespace vhmc {
namespace diagnostics {

// The mean over chains of the autocovariance at each lag (divided by n, as an FFT's).
class ChainAutocovariance {
 public:
  explicit ChainAutocovariance(const Mat& x) : yc_(x.rowwise() - x.colwise().mean()) {}
  double at(Eigen::Index k) {
    while (static_cast<Eigen::Index>(cache_.size()) <= k) cache_.push_back(lag(static_cast<Eigen::Index>(cache_.size())));
    return cache_[static_cast<std::size_t>(k)];
  }

 private:
  double lag(Eigen::Index k) const {
    const Eigen::Index n = yc_.rows();
    double s = 0.0;
    for (Eigen::Index c = 0; c < yc_.cols(); ++c) s += yc_.col(c).head(n - k).dot(yc_.col(c).tail(n - k));
    return s / static_cast<double>(n) / static_cast<double>(yc_.cols());
  }
  Mat yc_;
  std::vector<double> cache_;
};

// Geyer's initial positive sequence of the autocorrelations rho (0-based; rho[0] = 1); returns
// the truncation lag max_t.
inline Eigen::Index geyer_truncate(ChainAutocovariance& acov, double mean_var, double var_plus, std::vector<double>& rho) {
  const Eigen::Index n = static_cast<Eigen::Index>(rho.size());
  auto r = [&](Eigen::Index k) { return 1.0 - (mean_var - acov.at(k)) / var_plus; };
  Eigen::Index t = 0;
  double even = 1.0, odd = r(1);
  rho[0] = even;
  rho[1] = odd;
  while (t < n - 5 && !std::isnan(even + odd) && even + odd > 0.0) {
    t += 2;
    even = r(t);
    odd = r(t + 1);
    if (even + odd >= 0.0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  if (even > 0.0) rho[t] = even;
  return t;
}

// Geyer's initial monotone sequence, in place.
inline void geyer_monotone(std::vector<double>& rho, Eigen::Index max_t) {
  for (Eigen::Index t = 2; t <= max_t - 2; t += 2) {
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2.0;
      rho[t + 1] = rho[t];
    }
  }
}

inline double ess_basic(const Mat& x) {
  const Eigen::Index n = x.rows(), m = x.cols();
  if (n < 3 || no_statistic(x)) return kNA;
  ChainAutocovariance acov(x);
  const double nd = static_cast<double>(n);
  const double mean_var = acov.at(0) * nd / (nd - 1.0);
  double var_plus = mean_var * (nd - 1.0) / nd;
  if (m > 1) {
    const Vec means = x.colwise().mean().transpose();
    var_plus += (means.array() - means.mean()).square().sum() / static_cast<double>(m - 1);
  }
  std::vector<double> rho(static_cast<std::size_t>(n), 0.0);
  const Eigen::Index max_t = geyer_truncate(acov, mean_var, var_plus, rho);
  geyer_monotone(rho, max_t);
  // posterior sums rho[1:max_t] in R's indexing, which for max_t = 0 is rho[1] alone.
  double sum = max_t == 0 ? rho[0] : 0.0;
  for (Eigen::Index k = 0; k < max_t; ++k) sum += rho[static_cast<std::size_t>(k)];
  const double draws = static_cast<double>(n * m);
  const double tau = std::max(-1.0 + 2.0 * sum + rho[static_cast<std::size_t>(max_t)], 1.0 / std::log10(draws));
  return draws / tau;
}

}  // namespace diagnostics
}  // namespace vhmc
