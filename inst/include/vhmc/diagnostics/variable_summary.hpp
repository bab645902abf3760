#pragma once
// One variable's posterior summary from its draws x (n iterations x m chains): posterior's
// default summary, convergence and MCSE measures (Vehtari et al. 2021), or the convergence
// measures alone (R-hat, bulk and tail ESS) for a fit's own check.
#include <algorithm>
#include <cmath>
#include <vector>

#include "convergence.hpp"
#include "ess.hpp"

namespace vhmc {
namespace diagnostics {

// The ESS of the indicator x <= its prob-quantile (Vehtari et al. 2021, eq. 16).
inline double ess_quantile(const Mat& x, const std::vector<double>& sorted, double prob) {
  if (no_statistic(x)) return kNA;
  const double S = static_cast<double>(sorted.size());
  if (prob == 1.0) prob = (S - 0.5) / S;
  const double q = quantile7(sorted, prob);
  const Mat I = (x.array() <= q).cast<double>().matrix();
  return ess_basic(split_chains(I));
}

// ess_quantile() of one variable at each probability asked, computed once (the tail ESS and
// the quantiles' MCSEs ask for the same ones).
class QuantileEss {
 public:
  QuantileEss(const Mat& x, const std::vector<double>& sorted) : x_(x), sorted_(sorted) {}
  double operator()(double prob) {
    for (const auto& e : cache_)
      if (e.first == prob) return e.second;
    cache_.push_back({prob, ess_quantile(x_, sorted_, prob)});
    return cache_.back().second;
  }

 private:
  const Mat& x_;
  const std::vector<double>& sorted_;
  std::vector<std::pair<double, double>> cache_;
};

// Rank-normalised split R-hat, the larger of the bulk's and the folded draws' (eq. 4), and
// the bulk ESS.
inline std::pair<double, double> rhat_and_bulk_ess(const SortedDraws& s, const NormalScores& z) {
  const Eigen::Index r = s.split.rows(), c = s.split.cols();
  const Mat bulk_z = z_scale(s.split_order, r, c, z);
  const double bulk = rhat_basic(bulk_z);
  const double tail = rhat_basic(z_scale(fold_order(s.split_order, median_of(s.all)), r, c, z));
  return {(std::isnan(bulk) || std::isnan(tail)) ? kNA : std::max(bulk, tail), ess_basic(bulk_z)};
}

// MCSE of the prob-quantile from the ESS of its indicator and beta quantiles (eq. 17).
inline double mcse_quantile(QuantileEss& ess_q, const std::vector<double>& sorted, double prob, QbetaFn qbeta) {
  const double ess = ess_q(prob);
  if (std::isnan(ess)) return kNA;
  const double a1 = qbeta(0.1586553, ess * prob + 1.0, ess * (1.0 - prob) + 1.0);
  const double a2 = qbeta(0.8413447, ess * prob + 1.0, ess * (1.0 - prob) + 1.0);
  const double S = static_cast<double>(sorted.size());
  const std::size_t i1 = static_cast<std::size_t>(std::max(std::floor(a1 * S), 1.0)) - 1;
  const std::size_t i2 = static_cast<std::size_t>(std::min(std::ceil(a2 * S), S)) - 1;
  return (sorted[i2] - sorted[i1]) / 2.0;
}

// MCSE of the sd (posterior's mcse_sd: the variance's MCSE by the delta method).
inline double mcse_sd(const Mat& x, double mean) {
  const Mat c2 = (x.array() - mean).square().matrix();
  const double ess = ess_basic(split_chains(c2));
  const double evar = c2.mean();
  const double varvar = (c2.array().square().mean() - evar * evar) / ess;
  return std::sqrt(varvar / evar / 4.0);
}

struct Convergence {
  double rhat, ess_bulk, ess_tail;
};

inline Convergence convergence(const SortedDraws& s, QuantileEss& ess_q, const NormalScores& z) {
  const double lo = ess_q(0.05), hi = ess_q(0.95);
  const std::pair<double, double> rb = rhat_and_bulk_ess(s, z);
  return {rb.first, rb.second, std::isnan(lo) || std::isnan(hi) ? kNA : std::min(lo, hi)};
}

// mean, median, sd, mad, the quantiles at probs, rhat, ess_bulk, ess_tail, mcse_mean,
// mcse_median, mcse_sd, and the quantiles' MCSE: 10 + 2 * probs.size() values.
inline Vec variable_summary(const Mat& x, const std::vector<double>& probs, const NormalScores& z, QbetaFn qbeta) {
  Vec out = Vec::Constant(10 + 2 * static_cast<Eigen::Index>(probs.size()), kNA);
  out[0] = x.mean();
  if (!x.allFinite()) return out;
  const SortedDraws draws = sorted_draws(x);
  const std::vector<double>& sorted = draws.all;
  const double S = static_cast<double>(x.size()), median = median_of(sorted);
  const double sd = std::sqrt((x.array() - out[0]).square().sum() / (S - 1.0));
  QuantileEss ess_q(x, sorted);
  const Convergence c = convergence(draws, ess_q, z);
  const Eigen::Index k = static_cast<Eigen::Index>(probs.size());
  out.head(4) << out[0], median, sd, 1.4826 * median_deviation(sorted, median);
  for (Eigen::Index j = 0; j < k; ++j) out[4 + j] = quantile7(sorted, probs[static_cast<std::size_t>(j)]);
  out.segment(4 + k, 3) << c.rhat, c.ess_bulk, c.ess_tail;
  out[7 + k] = sd / std::sqrt(ess_basic(split_chains(x)));
  out[8 + k] = mcse_quantile(ess_q, sorted, 0.5, qbeta);
  out[9 + k] = mcse_sd(x, out[0]);
  for (Eigen::Index j = 0; j < k; ++j) out[10 + k + j] = mcse_quantile(ess_q, sorted, probs[static_cast<std::size_t>(j)], qbeta);
  return out;
}

}  // namespace diagnostics
}  // namespace vhmc
