#pragma once
// Training the surrogate of exact surrogate HMC on the gradients (or values) the
// exploration computed (Zhang, Shahbaba & Zhao 2017, Algorithms 1-2): the training points
// are cut to the region the chain visited, one in ten is held out, the bases are drawn in
// coordinates standardised by the exploration's mean and covariance (or the Laplace
// covariance), and the output weights are fitted by ridge regression. With gradient
// training a quadratic base comes first (least squares on the gradients, the Hessian at the
// posterior mode, or least squares shrunk toward it, whichever predicts the held-out
// gradients best) and the bases fit
// what it leaves; their number is then chosen by held-out error: the smallest of s, s/2, s/4,
// s/16 and none (the quadratic alone) within 25% of the best error (or below 1%). On a
// near-Gaussian posterior (a GLM with many observations) the quadratic alone is that
// accurate, so no Gram matrix is formed at all, and every surrogate step costs O(d^2).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../base/fields.hpp"
#include "../base/report.hpp"
#include "../base/rng.hpp"
#include "basis_count.hpp"
#include "choose_exact_rows.hpp"
#include "network.hpp"
#include "trainer.hpp"
#include "training_set.hpp"

namespace vhmc {

struct SurrogateTrainConfig {
  std::optional<int> hidden;  // number of bases; nullopt: chosen from d and the training set
  BasisCount bases{};      // the number drawn without `hidden`
  int refactor_every = 500;  // ARNS-HMC's online ridge: exact refactorisation every this many updates
  Activation activation = Activation::Softplus;
  bool train_on_gradient = true;
  std::optional<double> lambda;  // ridge penalty; nullopt: 1e-3 (gradients) or 1e-6 tr(G)/s (values)
  bool select_hidden = false;    // choose the number of bases by held-out error (gradient training)
  double select_tolerance = 0.01;  // a held-out relative gradient error this small is good enough
  ExactRowChoice exact_rows{};     // likelihood rows computed exactly (gradient training, a source given)
  static auto fields() {
    return std::make_tuple(field("hidden", &SurrogateTrainConfig::hidden),
                           field("activation", &SurrogateTrainConfig::activation),
                           field("train_on_gradient", &SurrogateTrainConfig::train_on_gradient),
                           field("lambda", &SurrogateTrainConfig::lambda),
                           field("select_hidden", &SurrogateTrainConfig::select_hidden),
                           field("bases", &SurrogateTrainConfig::bases),
                           field("refactor_every", &SurrogateTrainConfig::refactor_every),
                           field("exact_rows", &SurrogateTrainConfig::exact_rows));
  }
};

// The Laplace approximation at the posterior mode, when the host found one (mode, Hessian).
struct LaplaceBase {
  const Vec* mode = nullptr;
  const Mat* hessian = nullptr;
  bool available() const { return mode != nullptr && hessian != nullptr; }
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

// The default number of bases (basis_count.hpp), and at least two training numbers per
// output weight.
inline int surrogate_hidden(const SurrogateTrainConfig& tc, int d, long n_train) {
  if (tc.hidden) return *tc.hidden;
  const long per_point = tc.train_on_gradient ? d : 1;
  long s = tc.bases(d);
  s = std::min<long>(s, std::max<long>(1, n_train * per_point / 2));
  return static_cast<int>(std::max<long>(1, s));
}

// The quadratic base from the Hessian H at the mode m* in the network's coordinates
// u = L^-1 (theta - m): grad_u = L' H (theta - m*) = (L' H L) u + L' H (m - m*).
inline void quadratic_from_hessian(const Standardizer& st, const LaplaceBase& lb, Mat& Q, Vec& b) {
  const Mat HL = (*lb.hessian) * st.L;
  Q = st.L.transpose() * HL;
  b = HL.transpose() * (st.m - *lb.mode);
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

inline double holdout_rel_error(RandomBasisNetwork& net, const TrainingData& td) {
  double rmse, rel;
  holdout_gradient_error(net, td, rmse, rel);
  return rel;
}

// The gradients (rows of grads at the rows of thetas) less the network's exact rows' part.
inline Mat without_exact_rows(RandomBasisNetwork& net, const Mat& thetas, const Mat& grads) {
  if (!net.has_exact_rows()) return grads;
  Mat out = grads;
  Vec g(net.dim());
  for (Eigen::Index k = 0; k < thetas.rows(); ++k) {
    g.setZero();
    net.exact_rows().add_value_grad(thetas.row(k).transpose(), &g);
    out.row(k) -= g.transpose();
  }
  return out;
}

// The quadratic base (network weights still zero): whichever of the least-squares fit to
// the training gradients, the Laplace Hessian's, and the least-squares fits shrunk toward
// the Laplace Hessian's (trainer.hpp; shrink 0.03, 0.3, 3) predicts the held-out gradients
// best. Returns its source and writes its held-out error.
inline const char* fit_quadratic_base(RandomBasisNetwork& net, const TrainingData& td, const LaplaceBase& lb,
                                      double& error) {
  Mat Q, Qh, Qbest;
  Vec b, bh, bbest;
  const Mat grads = without_exact_rows(net, td.fit_theta, td.fit_grad);
  fit_quadratic_gradients(net.standardizer(), td.fit_theta, grads, Q, b);
  net.set_quadratic(Q, b);
  error = holdout_rel_error(net, td);
  if (!lb.available()) return "least squares";
  quadratic_from_hessian(net.standardizer(), lb, Qh, bh);
  if (net.has_exact_rows()) {  // the rows' own curvature at the mode is theirs, not the quadratic's
    Mat Hr = Mat::Zero(net.dim(), net.dim());
    net.exact_rows().add_hessian(*lb.mode, Hr);
    const Mat& L = net.standardizer().L;
    const Mat HrL = Hr * L;
    Qh -= L.transpose() * HrL;
    bh -= HrL.transpose() * (net.standardizer().m - *lb.mode);
  }
  const char* source = "least squares";
  Qbest = Q;
  bbest = b;
  auto consider = [&](const Mat& Qc, const Vec& bc, const char* name, bool wins_ties) {
    net.set_quadratic(Qc, bc);
    const double e = holdout_rel_error(net, td);
    if (e < error || (wins_ties && e == error) || !std::isfinite(error)) {
      error = e;
      source = name;
      Qbest = Qc;
      bbest = bc;
    }
  };
  consider(Qh, bh, "mode Hessian", true);
  for (double shrink : {0.03, 0.3, 3.0}) {
    fit_quadratic_gradients(net.standardizer(), td.fit_theta, grads, Q, b, QuadraticPrior{&Qh, &bh, shrink});
    consider(Q, b, "least squares about the mode Hessian", false);
  }
  net.set_quadratic(Qbest, bbest);
  return source;
}

// The candidates s, s/2, s/4, s/16 (>= 1) and 0, by held-out error; installs the smallest
// within max(1.25 x best, tolerance) (ties to fewer bases: each costs O(d) per surrogate
// step). s/2: on census (d = 95) the first 1,000 of 2,000 bases predicted within 3.4% where
// all gave 2.9%, at the same acceptance and ESS and a third less per surrogate step.
inline void choose_hidden(RandomBasisNetwork& net, const RidgeTrainer& trainer, const TrainingData& td,
                          double lambda, double quad_error, double tolerance, Report& rep) {
  const int s = net.hidden();
  std::vector<int> cand{s};
  for (int k : {s / 2, s / 4, s / 16})
    if (k >= 1 && k < cand.back()) cand.push_back(k);
  Vec err(static_cast<Eigen::Index>(cand.size()) + 1), size(err.size());
  std::vector<Vec> weights;
  for (std::size_t j = 0; j < cand.size(); ++j) {
    weights.push_back(trainer.solve_prefix(cand[j], lambda));
    net.weights().setZero();
    net.weights().head(cand[j]) = weights.back();
    err[static_cast<Eigen::Index>(j)] = holdout_rel_error(net, td);
    size[static_cast<Eigen::Index>(j)] = cand[j];
  }
  err[err.size() - 1] = quad_error;
  size[size.size() - 1] = 0;
  const double ok = std::max(1.25 * err.minCoeff(), tolerance);
  Eigen::Index pick = 0;
  for (Eigen::Index j = 0; j < err.size(); ++j)
    if (err[j] <= ok && size[j] < size[pick]) pick = j;
  net.weights().setZero();
  if (size[pick] > 0) net.weights().head(static_cast<Eigen::Index>(size[pick])) = weights[pick];
  net.truncate(static_cast<int>(size[pick]));
  rep.add("candidate_hidden", size);
  rep.add("candidate_error", err);
}

// What training leaves besides the network: the ridge state an online refinement continues
// from (ARNS-HMC; null when the quadratic base alone was kept), the penalty it used, and
// the held-out gradient error.
struct SurrogateFit {
  std::unique_ptr<RidgeTrainer> trainer;
  double lambda = NAN;
  double grad_rmse = NAN, grad_rel_error = NAN;
  // The training's seconds (by its caller's clock: the chain's) and the held-out errors.
  void report(Report& r, double seconds) const {
    r.add("train_seconds", seconds);
    r.add("grad_rmse", grad_rmse);
    r.add("grad_rel_error", grad_rel_error);
  }
};

// Gradient rows on what the quadratic base leaves; returns the trainer and the lambda used.
// With select_hidden the number of bases is chosen by held-out error, and when the
// quadratic alone is within the tolerance no Gram matrix is formed (no trainer).
inline SurrogateFit fit_gradient_weights(RandomBasisNetwork& net, const TrainingData& td,
                                         const SurrogateTrainConfig& tc, const LaplaceBase& lb, Report& rep) {
  SurrogateFit fit;
  double quad_error = NAN;
  rep.add("quadratic", fit_quadratic_base(net, td, lb, quad_error));
  rep.add("quadratic_error", quad_error);
  fit.lambda = tc.lambda ? *tc.lambda : 1e-3;
  if (tc.select_hidden && quad_error <= tc.select_tolerance) {
    net.weights().setZero();
    net.truncate(0);
    return fit;
  }
  Mat resid = td.fit_grad;
  Vec gq(net.dim());
  for (long k = 0; k < td.fit_theta.rows(); ++k) {
    net.base_grad(td.fit_theta.row(k).transpose(), gq);
    resid.row(k) -= gq.transpose();
  }
  fit.trainer = std::make_unique<RidgeTrainer>(net);
  fit.trainer->add_gradients(td.fit_theta, resid);
  if (!tc.select_hidden) {
    fit.lambda = fit.trainer->solve(fit.lambda);
    return fit;
  }
  choose_hidden(net, *fit.trainer, td, fit.lambda, quad_error, tc.select_tolerance, rep);
  return fit;
}

// Whether the quadratic base alone predicts the held-out gradients of `set` within the
// selection tolerance (only when the number of bases is being chosen, with gradient
// training): then training would keep no bases, and an automatic exploration can stop once
// the quadratic's own points are there instead of the most bases' (training_points_needed).
inline bool quadratic_suffices(const TrainingSet& set, const Standardizer& st, double U_cut,
                               const SurrogateTrainConfig& tc, const LaplaceBase& lb) {
  if (!tc.select_hidden || !tc.train_on_gradient || tc.hidden) return false;
  const TrainingData td = split_training_points(set, U_cut);
  if (td.hold_theta.rows() == 0) return false;
  RandomBasisNetwork net;  // the quadratic alone: one inert basis, cut away
  net.set_bases(tc.activation, st, Mat::Zero(1, st.dim()), Vec::Ones(1));
  net.truncate(0);
  double error = NAN;
  fit_quadratic_base(net, td, lb, error);
  return error <= tc.select_tolerance;
}

// Output weights by ridge regression: gradient rows (above) or value rows (Zhang et al.
// 2017, eq. 10). Returns the trainer and the lambda used; sets the offset so that z + b
// matches U on average (reporting and value updates only; the dynamics never see it).
inline SurrogateFit fit_output_weights(RandomBasisNetwork& net, const TrainingData& td,
                                       const SurrogateTrainConfig& tc, const LaplaceBase& lb, Report& rep) {
  const long n_fit = td.fit_theta.rows();
  SurrogateFit fit;
  if (tc.train_on_gradient) {
    fit = fit_gradient_weights(net, td, tc, lb, rep);
  } else {
    fit.trainer = std::make_unique<RidgeTrainer>(net);
    fit.trainer->add_values(td.fit_theta, (td.fit_U.array() - td.fit_U.minCoeff()).matrix());
    fit.lambda = fit.trainer->solve(tc.lambda ? *tc.lambda : 1e-6 * fit.trainer->gram().trace() / net.hidden());
  }
  double acc = 0.0;
  for (long k = 0; k < n_fit; ++k) acc += td.fit_U[k] - net.value(td.fit_theta.row(k).transpose());
  net.offset() = acc / static_cast<double>(n_fit);
  return fit;
}

// The training points of `set` below U_cut, split into fit and hold-out sets, the likelihood
// rows kept exact (choose_exact_rows.hpp; with gradient training and a row source), and the bases
// drawn for them (from srng) in coordinates standardised by st (weights zero). Training is
// this and fit_surrogate(); between the two a sampler may decide that training will not pay
// (sampler/training_payoff.hpp): the drawn network already costs what the trained one does.
inline TrainingData draw_surrogate(RandomBasisNetwork& net, const TrainingSet& set, const Standardizer& st,
                                   double U_cut, const SurrogateTrainConfig& tc, Rng& srng, Report& rep,
                                   const ExactRowSource& rows = {}) {
  TrainingData td = split_training_points(set, U_cut);
  rep.add("n_train", static_cast<long>(td.fit_theta.rows()));
  rep.add("n_holdout", static_cast<long>(td.hold_theta.rows()));
  rep.add("n_seen", set.seen());
  if (tc.train_on_gradient)
    choose_exact_rows(net, st, td.fit_theta, td.fit_grad, td.hold_theta, td.hold_grad, tc.exact_rows,
                      tc.select_tolerance, rows, rep);
  rep.add("exact_rows", static_cast<long>(net.has_exact_rows() ? net.exact_rows().size() : 0));
  net.draw(surrogate_hidden(tc, st.dim(), td.fit_theta.rows()), tc.activation, st, srng);
  return td;
}

// Fits the drawn network to td and reports what it chose; the caller keeps what it needs of
// the fit.
inline SurrogateFit fit_surrogate(RandomBasisNetwork& net, const TrainingData& td, const SurrogateTrainConfig& tc,
                                  Report& rep, const LaplaceBase& lb = {}) {
  const int s = net.hidden();
  SurrogateFit fit = fit_output_weights(net, td, tc, lb, rep);
  rep.add("lambda", fit.lambda);
  rep.add("hidden", net.hidden());
  rep.add("hidden_drawn", s);
  holdout_gradient_error(net, td, fit.grad_rmse, fit.grad_rel_error);
  return fit;
}

// Both steps at once.
inline SurrogateFit train_surrogate(RandomBasisNetwork& net, const TrainingSet& set, const Standardizer& st,
                                    double U_cut, const SurrogateTrainConfig& tc, Rng& srng, Report& rep,
                                    const LaplaceBase& lb = {}) {
  const TrainingData td = draw_surrogate(net, set, st, U_cut, tc, srng, rep);
  return fit_surrogate(net, td, tc, rep, lb);
}

}  // namespace vhmc
