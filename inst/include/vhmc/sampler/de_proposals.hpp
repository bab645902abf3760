#pragma once
// The archive of past states and the two proposals of differential-evolution MCMC with
// sampling from the past (DE-MCzs; ter Braak & Vrugt 2008). A member at x proposes
//   parallel direction: x' = x + gamma (z1 - z2) + e,  gamma = 2.38 / sqrt(2 d) (ter Braak
//     2006, eq. 2: the optimal random-walk scale for the difference of two draws), gamma = 1
//     with probability `jump` (a jump between modes: z1 - z2 then spans them), e ~ N(0, b^2)
//     per coordinate with b 1e-4 of the archive's spread (irreducibility; ter Braak 2006);
//   snooker: with z another archive state, x' = x + gamma_s ((z1 - z2) . u) u along
//     u = (x - z) / |x - z|, gamma_s ~ U(1.2, 2.2), accepted with the extra factor
//     (|x' - z| / |x - z|)^(d - 1) (ter Braak & Vrugt 2008, eqs. 3-4).
// z1, z2 (and z) are distinct states drawn uniformly from the archive. With the archive held
// fixed both proposals are reversible with respect to the target, so a chain whose archive
// is frozen is an exact Metropolis-Hastings chain.
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../base/rng.hpp"
#include "../base/types.hpp"

namespace vhmc {

// n states spread over the space by a Latin hypercube (each coordinate's n values one per
// stratum of (0, 1), in random order): per coordinate the logistic quantile (a parameter
// with two bounds: uniform over its box) where scatter is 1, else uniform in (-2, 2), the
// range of the random initial values.
inline Mat latin_hypercube(int n, const Vec& scatter, Rng& rng) {
  Mat z(n, scatter.size());
  std::vector<int> order(static_cast<std::size_t>(n));
  for (Eigen::Index j = 0; j < scatter.size(); ++j) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; i > 0; --i) std::swap(order[i], order[static_cast<int>(rng.uniform() * (i + 1))]);
    for (int i = 0; i < n; ++i) {
      const double u = (order[i] + rng.uniform()) / n;
      z(i, j) = scatter[j] > 0 ? std::log(u) - std::log1p(-u) : 4.0 * u - 2.0;
    }
  }
  return z;
}

// States stored row by row; grows by doubling its capacity.
class DeArchive {
 public:
  DeArchive() = default;
  explicit DeArchive(Mat initial) : rows_(std::move(initial)), n_(rows_.rows()) { update_spread(); }
  Eigen::Index size() const { return n_; }
  int dim() const { return static_cast<int>(rows_.cols()); }
  void add(const Vec& x) {
    if (n_ == rows_.rows()) rows_.conservativeResize(std::max<Eigen::Index>(16, 2 * n_), Eigen::NoChange);
    rows_.row(n_++) = x.transpose();
  }
  // Keeps rows [from, size()) only: the transient states of a warmup leave the archive.
  void keep_from(Eigen::Index from) {
    const Eigen::Index n = n_ - from;
    Mat kept = rows_.middleRows(from, n);
    rows_ = std::move(kept);
    n_ = n;
  }
  auto row(Eigen::Index i) const { return rows_.row(i).transpose(); }
  Eigen::Index draw(Rng& rng) const { return static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n_)); }
  const Vec& spread() const { return spread_; }
  // The jitter's scale: each coordinate's standard deviation over the archive (1 where the
  // archive does not vary).
  void update_spread() {
    const Mat z = rows_.topRows(n_);
    const Vec mean = z.colwise().mean().transpose();
    spread_ = ((z.rowwise() - mean.transpose()).array().square().colwise().sum() / std::max<double>(1, n_ - 1))
                  .sqrt()
                  .matrix()
                  .transpose();
    for (Eigen::Index j = 0; j < spread_.size(); ++j)
      if (!(spread_[j] > 0) || !std::isfinite(spread_[j])) spread_[j] = 1.0;
  }

 private:
  Mat rows_;
  Eigen::Index n_ = 0;
  Vec spread_;
};

struct DeSettings {
  double gamma;    // parallel-direction scale
  double jump;     // probability of gamma = 1
  double snooker;  // probability of a snooker proposal
};

// A proposal: the point and the log of the proposal's correction factor (0 for the
// parallel direction).
struct DeProposal {
  Vec x;
  double log_correction = 0.0;
};

// `count` distinct archive rows.
inline void draw_distinct(const DeArchive& z, Rng& rng, Eigen::Index* out, int count) {
  if (z.size() < count) throw std::runtime_error("internal: the differential-evolution archive is too small");
  for (int k = 0; k < count; ++k) {
    bool repeated;
    do {
      out[k] = z.draw(rng);
      repeated = false;
      for (int j = 0; j < k; ++j) repeated = repeated || out[j] == out[k];
    } while (repeated);
  }
}

inline void de_parallel(const Vec& x, const DeArchive& z, const DeSettings& s, Rng& rng, DeProposal& p) {
  Eigen::Index r[2];
  draw_distinct(z, rng, r, 2);
  const double gamma = rng.uniform() < s.jump ? 1.0 : s.gamma;
  p.x = x + gamma * (z.row(r[0]) - z.row(r[1]));
  for (Eigen::Index j = 0; j < x.size(); ++j) p.x[j] += 1e-4 * z.spread()[j] * rng.normal();
  p.log_correction = 0.0;
}

// Snooker update; false when x coincides with the drawn centre (no direction: no move).
inline bool de_snooker(const Vec& x, const DeArchive& z, Rng& rng, DeProposal& p) {
  Eigen::Index r[3];
  draw_distinct(z, rng, r, 3);
  const Vec u0 = x - z.row(r[0]);
  const double norm = u0.norm();
  if (!(norm > 0)) return false;
  const Vec u = u0 / norm;
  const double gamma = 1.2 + rng.uniform();
  p.x = x + gamma * (z.row(r[1]) - z.row(r[2])).dot(u) * u;
  const double moved = (p.x - z.row(r[0])).norm();
  p.log_correction = (static_cast<double>(x.size()) - 1.0) * (std::log(moved) - std::log(norm));
  return std::isfinite(p.log_correction);
}

inline bool de_propose(const Vec& x, const DeArchive& z, const DeSettings& s, Rng& rng, DeProposal& p) {
  if (rng.uniform() < s.snooker) return de_snooker(x, z, rng, p);
  de_parallel(x, z, s, rng, p);
  return true;
}

}  // namespace vhmc
