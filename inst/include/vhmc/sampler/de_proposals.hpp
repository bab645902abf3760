#pragma once
// The archive of past states and the two proposals of differential-evolution MCMC with
// sampling from the past (DE-MCzs; ter Braak & Vrugt 2008). A member at x proposes
//   parallel direction: x' = x + gamma (z1 - z2) + e,  gamma = 2.38 / sqrt(2 d) (ter Braak
//     2006, eq. 2: the optimal random-walk scale for the difference of two draws), gamma = 1
//     with probability `jump` (a jump between modes: z1 - z2 then spans them), e ~ N(0, b^2)
//     per coordinate with b 1e-4 of the archive's spread (irreducibility; ter Braak 2006;
//     the caller keeps b in the proposal's `jitter`);
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

#include "../adapt/welford.hpp"
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

// States stored row by row; grows by doubling its capacity. Each coordinate's spread (the
// jitter's scale) is kept by Welford's recursion as states arrive, and recomputed once when
// the archive is trimmed.
class DeArchive {
 public:
  DeArchive() = default;
  explicit DeArchive(Mat initial) : rows_(std::move(initial)), n_(rows_.rows()) { restart_spread(); }
  Eigen::Index size() const { return n_; }
  int dim() const { return static_cast<int>(rows_.cols()); }
  void add(const Vec& x) {
    if (n_ == rows_.rows()) rows_.conservativeResize(std::max<Eigen::Index>(16, 2 * n_), Eigen::NoChange);
    rows_.row(n_++) = x.transpose();
    moments_.add(x);
  }
  // Keeps rows [from, size()) only: the transient states of a warmup leave the archive.
  void keep_from(Eigen::Index from) {
    const Eigen::Index n = n_ - from;
    Mat kept = rows_.middleRows(from, n);
    rows_ = std::move(kept);
    n_ = n;
    restart_spread();
  }
  auto row(Eigen::Index i) const { return rows_.row(i).transpose(); }
  Eigen::Index draw(Rng& rng) const { return static_cast<Eigen::Index>(rng.uniform() * static_cast<double>(n_)); }
  // Each coordinate's standard deviation over the archive (1 where it does not vary).
  Vec spread() const {
    Vec s = moments_.n() > 1 ? Vec(moments_.variance().array().sqrt().matrix()) : Vec::Ones(rows_.cols());
    for (Eigen::Index j = 0; j < s.size(); ++j)
      if (!(s[j] > 0) || !std::isfinite(s[j])) s[j] = 1.0;
    return s;
  }

 private:
  void restart_spread() {
    moments_ = WelfordDiag(static_cast<int>(rows_.cols()));
    for (Eigen::Index i = 0; i < n_; ++i) moments_.add(rows_.row(i).transpose());
  }

  Mat rows_;
  Eigen::Index n_ = 0;
  WelfordDiag moments_;
};

struct DeSettings {
  double gamma;    // parallel-direction scale
  double jump;     // probability of gamma = 1
  double snooker;  // probability of a snooker proposal
};

// The defaults in d dimensions: ter Braak (2006, eq. 2)'s scale, ter Braak and Vrugt
// (2008)'s probabilities of a jump and of a snooker proposal.
constexpr double kDeJump = 0.1;
constexpr double kDeSnooker = 0.1;
inline double de_default_gamma(int d) { return 2.38 / std::sqrt(2.0 * d); }
inline DeSettings de_defaults(int d) { return {de_default_gamma(d), kDeJump, kDeSnooker}; }

// A proposal: the point and the log of the proposal's correction factor (0 for the
// parallel direction); `jitter` (1e-4 of the archive's spread) and `u` are its scratch,
// sized once, so that proposing allocates nothing.
struct DeProposal {
  Vec x, jitter, u;
  double log_correction = 0.0;
  void size_for(int d) {
    x.resize(d);
    u.resize(d);
  }
  // The jitter follows the archive's spread (fixed once the archive is frozen).
  void follow(const DeArchive& z) { jitter = 1e-4 * z.spread(); }
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
  for (Eigen::Index j = 0; j < x.size(); ++j) p.x[j] += p.jitter[j] * rng.normal();
  p.log_correction = 0.0;
}

// Snooker update; false when x coincides with the drawn centre (no direction: no move).
inline bool de_snooker(const Vec& x, const DeArchive& z, Rng& rng, DeProposal& p) {
  Eigen::Index r[3];
  draw_distinct(z, rng, r, 3);
  p.u = x - z.row(r[0]);
  const double norm = p.u.norm();
  if (!(norm > 0)) return false;
  p.u /= norm;
  const double gamma = 1.2 + rng.uniform();
  p.x = x + gamma * (z.row(r[1]) - z.row(r[2])).dot(p.u) * p.u;
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
