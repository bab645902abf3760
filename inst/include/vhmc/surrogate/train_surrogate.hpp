#pragma once
// Training the surrogate of exact surrogate HMC on the gradients (or values) the
// exploration computed (Zhang, Shahbaba & Zhao 2017, Algorithms 1-2): the training points
// are cut to the region the chain visited, one in ten is held out, the bases are drawn in
// coordinates standardised by the exploration's mean and covariance, and the output weights
// are fitted by ridge regression; with gradient training a quadratic is fitted first and
// the bases fit what it leaves.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../base/fields.hpp"
#include "../base/report.hpp"
#include "../base/rng.hpp"
#include "network.hpp"
#include "trainer.hpp"
#include "training_set.hpp"

namespace vhmc {

struct SurrogateTrainConfig {
  std::optional<int> hidden;  // number of bases; nullopt: chosen from d and the training set
  int max_hidden = 2000;
  Activation activation = Activation::Softplus;
  bool train_on_gradient = true;
  std::optional<double> lambda;  // ridge penalty; nullopt: 1e-3 (gradients) or 1e-6 tr(G)/s (values)
  static auto fields() {
    return std::make_tuple(field("hidden", &SurrogateTrainConfig::hidden),
                           field("activation", &SurrogateTrainConfig::activation),
                           field("train_on_gradient", &SurrogateTrainConfig::train_on_gradient),
                           field("lambda", &SurrogateTrainConfig::lambda));
  }
};

// The training points kept (potential at most U_cut), split into a fit and a hold-out set.
struct TrainingData {
  Mat fit_theta, fit_grad, hold_theta, hold_grad;
  Vec fit_U;
};

// Leapfrog states far above every visited state come from divergent trajectories: the
// sampler never needs the surrogate there, and their huge gradients would dominate the
// least-squares fit. Keeps the points with U <= U_cut; every tenth (with at least 50) is
// held out to measure the fitted surrogate.
inline TrainingData split_training_points(const TrainingSet& set, double U_cut) {
  const int d = static_cast<int>(set.theta().cols());
  std::vector<long> keep;
  for (long k = 0; k < set.size(); ++k)
    if (set.U()[k] <= U_cut) keep.push_back(k);
  const long n_all = static_cast<long>(keep.size());
  const bool holdout = n_all >= 50;
  long n_hold = 0;
  for (long k = 0; k < n_all; ++k) n_hold += (holdout && k % 10 == 9) ? 1 : 0;
  const long n_fit = n_all - n_hold;
  if (n_fit < 10) throw std::runtime_error("too few training points for the surrogate; increase `explore`");
  TrainingData td;
  td.fit_theta.resize(n_fit, d);
  td.fit_grad.resize(n_fit, d);
  td.hold_theta.resize(n_hold, d);
  td.hold_grad.resize(n_hold, d);
  td.fit_U.resize(n_fit);
  long a = 0, b = 0;
  for (long j = 0; j < n_all; ++j) {
    const long k = keep[j];
    if (holdout && j % 10 == 9) {
      td.hold_theta.row(b) = set.theta().row(k);
      td.hold_grad.row(b++) = set.grad().row(k);
    } else {
      td.fit_theta.row(a) = set.theta().row(k);
      td.fit_grad.row(a) = set.grad().row(k);
      td.fit_U[a++] = set.U()[k];
    }
  }
  return td;
}

// min(max_hidden, 40 d) bases, at least 50 (the papers used 40 for d = 2, 1000 for d = 20-32,
// 2000-2500 for d = 50-60), and at least two training numbers per output weight.
inline int surrogate_hidden(const SurrogateTrainConfig& tc, int d, long n_train) {
  if (tc.hidden) return *tc.hidden;
  const long per_point = tc.train_on_gradient ? d : 1;
  long s = std::min<long>(tc.max_hidden, std::max<long>(50, 40L * d));
  s = std::min<long>(s, std::max<long>(1, n_train * per_point / 2));
  return static_cast<int>(std::max<long>(1, s));
}

// Output weights by ridge regression: gradient rows on what the quadratic base leaves, or
// value rows (Zhang et al. 2017, eq. 10). Returns the lambda used; sets the offset so that
// z + b matches U on average (reporting and value updates only; the dynamics never see it).
inline double fit_output_weights(RandomBasisNetwork& net, RidgeTrainer& trainer, const TrainingData& td,
                                 const SurrogateTrainConfig& tc) {
  const Standardizer& st = net.standardizer();
  const long n_fit = td.fit_theta.rows();
  const double U_ref = td.fit_U.minCoeff();
  if (tc.train_on_gradient) {
    Mat Q;
    Vec qb, gq(net.dim());
    fit_quadratic_gradients(st, td.fit_theta, td.fit_grad, Q, qb);
    net.set_quadratic(Q, qb);
    Mat resid = td.fit_grad;
    for (long k = 0; k < n_fit; ++k) {
      net.base_grad(td.fit_theta.row(k).transpose(), gq);
      resid.row(k) -= gq.transpose();
    }
    trainer.add_gradients(td.fit_theta, resid);
  } else {
    trainer.add_values(td.fit_theta, (td.fit_U.array() - U_ref).matrix());
  }
  const double lambda = tc.lambda ? *tc.lambda
                        : (tc.train_on_gradient ? 1e-3 : 1e-6 * trainer.gram().trace() / net.hidden());
  const double used = trainer.solve(lambda);
  double acc = 0.0;
  for (long k = 0; k < n_fit; ++k) acc += td.fit_U[k] - net.value(td.fit_theta.row(k).transpose());
  net.offset() = acc / static_cast<double>(n_fit);
  return used;
}

// Held-out gradient error in standardised coordinates: RMS per coordinate, and pooled
// relative to the gradients' size. NaN without a hold-out set.
inline void holdout_gradient_error(RandomBasisNetwork& net, const TrainingData& td, double& rmse, double& rel) {
  const long n = td.hold_theta.rows();
  rmse = rel = NAN;
  if (n == 0) return;
  const int d = net.dim();
  const Standardizer& st = net.standardizer();
  Vec g(d), gu(d), tu(d);
  double se = 0.0, ref = 0.0;
  for (long k = 0; k < n; ++k) {
    net.value_grad(td.hold_theta.row(k).transpose(), g);
    st.grad_to_u(g - td.hold_grad.row(k).transpose(), gu);
    st.grad_to_u(td.hold_grad.row(k).transpose(), tu);
    se += gu.squaredNorm();
    ref += tu.squaredNorm();
  }
  rmse = std::sqrt(se / static_cast<double>(n * d));
  rel = std::sqrt(se / ref);
}

// Draws the bases (from srng) in coordinates standardised by st, fits them to the points of
// `set` below U_cut and reports what it did. With `online`, the exact recursive ridge state
// that continues from this fit (ARNS-HMC) is created there.
inline void train_surrogate(RandomBasisNetwork& net, const TrainingSet& set, const Standardizer& st,
                            double U_cut, const SurrogateTrainConfig& tc, Rng& srng, Report& rep,
                            std::unique_ptr<OnlineRidge>* online = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  const int d = st.dim();
  const TrainingData td = split_training_points(set, U_cut);
  rep.add("n_train", static_cast<long>(td.fit_theta.rows()));
  rep.add("n_holdout", static_cast<long>(td.hold_theta.rows()));
  rep.add("n_seen", set.seen());
  const int s = surrogate_hidden(tc, d, td.fit_theta.rows());
  net.draw(s, tc.activation, st, srng);
  RidgeTrainer trainer(net);
  const double lambda = fit_output_weights(net, trainer, td, tc);
  rep.add("lambda", lambda);
  rep.add("hidden", s);
  double rmse, rel;
  holdout_gradient_error(net, td, rmse, rel);
  if (online) online->reset(new OnlineRidge(net, trainer.gram(), trainer.rhs(), lambda));
  rep.add("train_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  rep.add("grad_rmse", rmse);
  rep.add("grad_rel_error", rel);
}

}  // namespace vhmc
