#pragma once
// Minibatches for stochastic-gradient MCMC (Welling & Teh 2011; Chen et al. 2014). A potential with minibatch gradients
// provides
//   Eigen::Index n_obs() const;                                       // N
//   void minibatch_grad(const Vec& theta, const int* idx, Eigen::Index m, Vec& g,
//                       Vec* noise_var = nullptr);
// where g = -(N/m) sum_{i in idx} grad log p(x_i | theta) - grad log p0(theta) and, when
// noise_var is given, noise_var = (N^2/m) var_{i in idx}(grad log p(x_i | theta)); and, for
// control variates (SGLD-CV, SGHMC-CV; Baker et al. 2017),
//   void minibatch_grad_diff(const Vec& theta, const Vec& theta_hat, const int* idx,
//                            Eigen::Index m, Vec& g, Vec* noise_var = nullptr);
// the same with every per-row term and the prior gradient replaced by its difference between
// theta and theta_hat (noise_var: the variance of the differences).
// BatchSchedule draws the index sets: without replacement within an epoch, i.e. a random
// permutation of 0..N-1 consumed in consecutive chunks of B, reshuffled (Fisher-Yates, from
// the chain's own Rng) when fewer than B unused indices remain. Every batch is then a
// uniformly random B-subset, so g~ is unbiased; when B divides N the batches of one epoch
// partition the data. A tail of N mod B indices is skipped at the end of an epoch.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../base/rng.hpp"
#include "../base/types.hpp"

namespace vhmc {

class BatchSchedule {
 public:
  // fresh = true: every batch is drawn anew (B indices without replacement by a partial
  // Fisher-Yates pass, O(B)), independently of the previous ones (sampling with replacement across batches);
  // false: epochs as above.
  BatchSchedule(Eigen::Index n, Eigen::Index b, bool fresh = false)
      : perm_(static_cast<std::size_t>(n)), n_(n), b_(b), pos_(n), fresh_(fresh) {
    if (n < 1 || b < 1 || b > n) throw std::invalid_argument("batch size must be in 1..N");
    std::iota(perm_.begin(), perm_.end(), 0);
  }

  // The next batch: a pointer to B indices, valid until the next call.
  const int* next(Rng& rng) {
    if (fresh_) {
      for (Eigen::Index i = 0; i < b_; ++i) {
        const auto j = i + static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(n_ - i)));
        std::swap(perm_[static_cast<std::size_t>(i)], perm_[static_cast<std::size_t>(j)]);
      }
      return perm_.data();
    }
    if (pos_ + b_ > n_) {
      shuffle(rng);
      pos_ = 0;
    }
    const int* p = perm_.data() + pos_;
    pos_ += b_;
    return p;
  }

  Eigen::Index batch_size() const { return b_; }
  Eigen::Index n() const { return n_; }

 private:
  // Fisher-Yates. (Sorting each batch's indices for cache locality was measured slower:
  // log2(B) comparisons per row cost more than the k gathers they would speed up.)
  void shuffle(Rng& rng) {
    for (Eigen::Index i = n_ - 1; i > 0; --i) {
      const auto j = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(i + 1)));
      std::swap(perm_[static_cast<std::size_t>(i)], perm_[static_cast<std::size_t>(j)]);
    }
  }

  std::vector<int> perm_;
  Eigen::Index n_, b_, pos_;
  bool fresh_;
};

// Curvature scales of U at theta from one fixed random batch of m rows (drawn with
// replacement; common random numbers make finite differences of that batch's gradient
// estimate exact directional derivatives of an unbiased Hessian estimate):
//  * with diag = true, s_j = 1 / sqrt(H_jj) from d Hessian-vector products on the unit
//    vectors (a non-positive or non-finite H_jj takes the median of the others), else s = 1;
//  * returns the largest |eigenvalue| of the preconditioned Hessian S H S, S = diag(s), by
//    power iteration (`iters` products).
// Costs (1 + d [diag] + iters) gradients of m rows, added to *obs_evals. Used to put the
// default step sizes on the posterior's natural time scale. Returns NaN if a gradient is
// not finite.
template <class P>
double estimate_curvature(P& pot, const Vec& theta, Eigen::Index m, Rng& rng, long* obs_evals,
                          bool diag, Vec& s, int iters = 20) {
  const Eigen::Index n = pot.n_obs();
  const int d = static_cast<int>(theta.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<int> idx(static_cast<std::size_t>(m));
  for (auto& i : idx) i = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
  Vec g0(d), g1(d), v(d), th(d);
  auto grad = [&](const Vec& x, Vec& g) {
    pot.minibatch_grad(x, idx.data(), m, g);
    if (obs_evals) *obs_evals += m;
    return g.allFinite();
  };
  if (!grad(theta, g0)) return nan;
  const double delta = 1e-6 * std::max(1.0, theta.lpNorm<Eigen::Infinity>());
  s = Vec::Ones(d);
  if (diag) {
    Vec h(d);
    for (int j = 0; j < d; ++j) {
      th = theta;
      th[j] += delta;
      if (!grad(th, g1)) return nan;
      h[j] = (g1[j] - g0[j]) / delta;
    }
    std::vector<double> ok;
    for (int j = 0; j < d; ++j)
      if (h[j] > 0 && std::isfinite(h[j])) ok.push_back(h[j]);
    if (ok.empty()) return nan;
    std::nth_element(ok.begin(), ok.begin() + ok.size() / 2, ok.end());
    const double med = ok[ok.size() / 2];
    for (int j = 0; j < d; ++j) s[j] = 1.0 / std::sqrt(h[j] > 0 && std::isfinite(h[j]) ? h[j] : med);
  }
  for (int j = 0; j < d; ++j) v[j] = rng.normal();
  v.normalize();
  double lambda = 0.0;
  for (int it = 0; it < iters; ++it) {
    th = theta + delta * s.cwiseProduct(v);
    if (!grad(th, g1)) return nan;
    v = s.cwiseProduct(g1 - g0) / delta;
    lambda = v.norm();
    if (!(lambda > 0) || !std::isfinite(lambda)) return lambda;
    v /= lambda;
  }
  return lambda;
}

// SGLD-CV / SGHMC-CV (Baker et al. 2019; Murphy 2023, eqs. 12.158-12.160): theta_hat is the
// posterior mode and grad_hat = g(theta_hat) the full gradient there, both computed once per
// fit by the caller. The estimator
//   g_cv(theta) = g(theta_hat) - grad log p0(theta) + grad log p0(theta_hat)
//                 - (N/B) sum_{n in S} [grad log p(x_n|theta) - grad log p(x_n|theta_hat)]
// is unbiased for g(theta) (its epoch average is g(theta) exactly when B divides N); its noise
// vanishes at theta_hat and grows with |theta - theta_hat|, so near the mode it is far smaller
// than that of g~. Each evaluation costs 2B per-observation gradients.
struct ControlVariate {
  Vec theta_hat, grad_hat;

  template <class P>
  void operator()(P& pot, const Vec& theta, const int* idx, Eigen::Index m, Vec& g,
                  Vec* noise_var) const {
    pot.minibatch_grad_diff(theta, theta_hat, idx, m, g, noise_var);
    g += grad_hat;
  }
};

// Whether a potential estimates the per-coordinate variance of its minibatch gradients from
// the rows (noise_var); one may say not (GlmPotential::minibatch_noise(): group-level terms).
template <class P>
auto row_noise(const P& pot, int) -> decltype(pot.minibatch_noise()) { return pot.minibatch_noise(); }
template <class P>
bool row_noise(const P&, long) { return true; }

// The variance of b-row control-variate estimates per coordinate at theta, from `reps`
// independent batches (each drawn without replacement; 2 b per-observation gradients each),
// for potentials without the rows' estimate.
template <class P>
bool replicate_noise(P& pot, const ControlVariate& cv, const Vec& theta, Eigen::Index b, Rng& rng, long* obs_evals,
                     Vec& v, int reps = 10) {
  const Eigen::Index n = pot.n_obs(), d = theta.size();
  BatchSchedule batches(n, b, true);
  Vec g(d), sum = Vec::Zero(d), sq = Vec::Zero(d);
  for (int k = 0; k < reps; ++k) {
    cv(pot, theta, batches.next(rng), b, g, nullptr);
    if (obs_evals) *obs_evals += 2 * b;
    if (!g.allFinite()) return false;
    sum += g;
    sq += g.cwiseProduct(g);
  }
  v = ((sq - sum.cwiseProduct(sum) / reps) / (reps - 1)).cwiseMax(0.0);
  return true;
}

// The noise variance of a gradient estimate with batch size b, in the metric's coordinates
// (s_j^2 V_j), largest over coordinates and averaged over `probes` points theta_hat + q .* z,
// z ~ N(0, I) (a typical distance from the mode under curvature scales q), each
// from one random batch of m rows (drawn with replacement; 2m per-observation gradients each,
// added to *obs_evals). For the control variate this replaces the plain estimator's noise
// model (variance lambda N / b in these coordinates) in the default step sizes. NaN if a
// gradient is not finite.
template <class P>
double cv_noise(P& pot, const ControlVariate& cv, const Vec& s, const Vec& q, Eigen::Index m,
                Eigen::Index b,
                Rng& rng, long* obs_evals, int probes = 4) {
  const Eigen::Index n = pot.n_obs(), d = cv.theta_hat.size();
  const bool rows = row_noise(pot, 0);
  std::vector<int> idx(static_cast<std::size_t>(m));
  Vec th(d), g(d), v(d), acc = Vec::Zero(d);
  for (int p = 0; p < probes; ++p) {
    for (auto& i : idx) i = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    for (Eigen::Index j = 0; j < d; ++j) th[j] = cv.theta_hat[j] + q[j] * rng.normal();
    if (rows) {
      cv(pot, th, idx.data(), m, g, &v);
      if (obs_evals) *obs_evals += 2 * m;
    } else if (!replicate_noise(pot, cv, th, b, rng, obs_evals, v)) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (!v.allFinite()) return std::numeric_limits<double>::quiet_NaN();
    acc += v;
  }
  // Rows' v = (N^2/m) var_i: the variance of a batch-m estimate; a batch of b has m/b times
  // it. The replicates' is a batch-b estimate's already.
  const double to_b = rows ? static_cast<double>(m) / (static_cast<double>(b) * probes) : 1.0 / probes;
  return (s.array().square() * acc.array()).maxCoeff() * to_b;
}

}  // namespace vhmc
