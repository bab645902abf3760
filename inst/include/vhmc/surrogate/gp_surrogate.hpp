#pragma once
// A Gaussian-process surrogate of a log density for the surrogate-transition sampler
// (sampler/surrogate_transition.hpp): the posterior mean of a GP with a squared-exponential
// kernel (Rasmussen and Williams 2006, eq. 2.25) over a concave quadratic mean
// (quadratic_fit.hpp), fitted to evaluated log densities in coordinates whitened by the
// sampler's current Gaussian, u = L^-1 (z - mu). Far from the points it falls back to the
// quadratic, a proper Gaussian shape with half the fitted curvature: its tails are heavier
// than the posterior's, so that the chain is not held where the surrogate would fall below
// the log density (there the correction exp(p - s) would reject every way out; Liu 2001).
// Points far below the highest (more than the 0.9999 chi-square quantile / 2 + 5 nats) are
// left out, and the rest weighted by exp(-(max - P) / d) (the nugget is lambda / w, so the
// tails are fitted loosely); at most `max_points` of them, drawn by weight. The length
// scale and nugget are chosen on a grid by the error over held-out points of the typical
// set (a fifth of the points, where P is within d / 2 + 2 sqrt(d / 2) of the highest):
// the sampler's acceptance depends on the error's spread there, not on a constant offset.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "quadratic_fit.hpp"

namespace vhmc {

// The chi-square quantile by Wilson and Hilferty's (1931) cube-root approximation, z the
// standard normal quantile (3.719 for 0.9999).
inline double chi_square_quantile(double d, double z) {
  const double a = 2.0 / (9.0 * d);
  return d * std::pow(1.0 - a + z * std::sqrt(a), 3);
}

// The standard deviation of a - b over the indices idx.
inline double residual_sd(const Vec& a, const Vec& b, const std::vector<Eigen::Index>& idx) {
  if (idx.size() < 2) return kInf;
  double m = 0.0, s = 0.0;
  for (auto i : idx) m += a[i] - b[i];
  m /= static_cast<double>(idx.size());
  for (auto i : idx) s += (a[i] - b[i] - m) * (a[i] - b[i] - m);
  return std::sqrt(s / static_cast<double>(idx.size() - 1));
}

class GpSurrogate {
 public:
  struct Points {
    Mat U;  // whitened points (rows)
    Vec P, w;
  };
  // Fits on the first n rows of Z (values P; non-finite ones skipped), whitened by (mu, L).
  void fit(const Mat& Z, const Vec& P, Eigen::Index n, const Vec& mu, const Mat& L, int max_points, Rng& rng) {
    mu_ = mu;
    L_ = L;
    Points pts = select(Z, P, n, max_points, rng);
    fit_points(pts, rng);
  }
  // No allocation: the inner random walk evaluates it `steps` times per iteration.
  double operator()(const Vec& z) const {
    u_ = z - mu_;
    L_.triangularView<Eigen::Lower>().solveInPlace(u_);
    return at(u_);
  }
  double held_out_error() const { return error_; }
  double quadratic_error() const { return quadratic_error_; }
  double length_scale() const { return ell_; }
  double nugget() const { return lambda_; }
  Eigen::Index points() const { return U_.rows(); }

 private:
  Points select(const Mat& Z, const Vec& P, Eigen::Index n, int max_points, Rng& rng) const {
    const int d = static_cast<int>(Z.cols());
    double top = -kInf;
    for (Eigen::Index i = 0; i < n; ++i)
      if (std::isfinite(P[i])) top = std::max(top, P[i]);
    const double floor = top - (0.5 * chi_square_quantile(d, 3.719) + 5.0);
    std::vector<std::pair<double, Eigen::Index>> keyed;  // Efraimidis-Spirakis keys log(v) / w
    for (Eigen::Index i = 0; i < n; ++i)
      if (std::isfinite(P[i]) && P[i] >= floor)
        keyed.push_back({std::log(rng.uniform()) / std::exp(-(top - P[i]) / d), i});
    const std::size_t m = std::min(keyed.size(), static_cast<std::size_t>(std::max(1, max_points)));
    std::partial_sort(keyed.begin(), keyed.begin() + m, keyed.end(), [](auto& a, auto& b) { return a.first > b.first; });
    Points pts{Mat(m, d), Vec(m), Vec(m)};
    for (std::size_t k = 0; k < m; ++k) {
      const Eigen::Index i = keyed[k].second;
      pts.U.row(k) = L_.triangularView<Eigen::Lower>().solve(Vec(Z.row(i).transpose() - mu_)).transpose();
      pts.P[k] = P[i];
      pts.w[k] = std::exp(-(top - P[i]) / d);
    }
    return pts;
  }
  void fit_points(const Points& pts, Rng& rng);
  bool fit_gp(const Mat& U, const Vec& resid, const Vec& w, const Mat& D2, double ell, double lambda);
  // The surrogate at whitened coordinates u.
  double at(const Vec& u) const {
    double s = mean_(u);
    if (alpha_.size() == 0) return s;
    dist_.noalias() = U_ * u;
    const double uu = u.squaredNorm(), c = -0.5 / (ell_ * ell_);
    for (Eigen::Index i = 0; i < alpha_.size(); ++i)
      s += alpha_[i] * std::exp(c * std::max(0.0, norms_[i] + uu - 2.0 * dist_[i]));
    return s;
  }
  Vec predict(const Mat& V) const {
    Vec out(V.rows());
    for (Eigen::Index i = 0; i < V.rows(); ++i) out[i] = at(V.row(i).transpose());
    return out;
  }

  Vec mu_;
  Mat L_;
  Quadratic mean_;
  Mat U_;
  Vec norms_, alpha_;
  double ell_ = 1.0, lambda_ = 0.0, error_ = kInf, quadratic_error_ = kInf;
  mutable Vec u_, dist_;
};

// Squared distances between the rows of U.
inline Mat squared_distances(const Mat& U) {
  const Vec n = U.rowwise().squaredNorm();
  Mat D = (-2.0 * U * U.transpose()).colwise() + n;
  D.rowwise() += n.transpose();
  return D.cwiseMax(0.0);
}

// The GP of the residuals of the mean on (U, w): alpha = (K + diag(lambda / w))^-1 resid.
inline bool GpSurrogate::fit_gp(const Mat& U, const Vec& resid, const Vec& w, const Mat& D2, double ell, double lambda) {
  Mat K = (D2 * (-0.5 / (ell * ell))).array().exp().matrix();
  K.diagonal().array() += lambda / w.array();
  Eigen::LLT<Mat> llt(K);
  if (llt.info() != Eigen::Success) return false;
  alpha_ = llt.solve(resid);
  if (!alpha_.allFinite()) return false;
  U_ = U;
  norms_ = U.rowwise().squaredNorm();
  ell_ = ell;
  lambda_ = lambda;
  return true;
}

// Held-out choice of the length scale and nugget, then the final fit on every point.
inline void GpSurrogate::fit_points(const Points& pts, Rng& rng) {
  const Eigen::Index m = pts.P.size();
  const int d = static_cast<int>(pts.U.cols());
  alpha_.resize(0);
  U_.resize(0, d);
  u_.resize(d);
  if (m < 2 * quadratic_features(d)) {  // too few points for a quadratic: the whitening's Gaussian
    mean_ = Quadratic{m > 0 ? pts.P.maxCoeff() : 0.0, Vec::Zero(d), -Mat::Identity(d, d)};
    error_ = quadratic_error_ = kInf;
    return;
  }
  const double top = pts.P.maxCoeff(), typical = top - 0.5 * d - 2.0 * std::sqrt(0.5 * d);
  std::vector<Eigen::Index> order(m);
  std::iota(order.begin(), order.end(), 0);
  for (Eigen::Index i = m - 1; i > 0; --i) std::swap(order[i], order[static_cast<Eigen::Index>(rng.uniform() * (i + 1))]);
  const Eigen::Index h = std::min(m / 2, std::max<Eigen::Index>(20, m / 5));
  std::vector<Eigen::Index> train(order.begin() + h, order.end()), held, typ;
  Mat Ut(train.size(), d), Uh(h, d);
  Vec Pt(train.size()), wt(train.size()), Ph(h);
  for (std::size_t k = 0; k < train.size(); ++k) { Ut.row(k) = pts.U.row(train[k]); Pt[k] = pts.P[train[k]]; wt[k] = pts.w[train[k]]; }
  for (Eigen::Index k = 0; k < h; ++k) { Uh.row(k) = pts.U.row(order[k]); Ph[k] = pts.P[order[k]]; if (Ph[k] >= typical) typ.push_back(k); }
  if (typ.size() < 10) {  // the highest held-out points stand in for the typical set
    typ.resize(h);
    std::iota(typ.begin(), typ.end(), 0);
    std::sort(typ.begin(), typ.end(), [&](auto a, auto b) { return Ph[a] > Ph[b]; });
    typ.resize(std::min<Eigen::Index>(h, 10));
  }
  const double floor = 0.05, widen = 0.5;
  mean_ = fit_concave_quadratic(Ut, Pt, wt, floor, widen);
  alpha_.resize(0);
  quadratic_error_ = residual_sd(Ph, predict(Uh), typ);
  error_ = quadratic_error_;
  double best_ell = 0.0, best_lambda = 0.0;
  Vec resid(Pt.size());
  for (Eigen::Index i = 0; i < Pt.size(); ++i) resid[i] = Pt[i] - mean_(Ut.row(i).transpose());
  const Mat D2 = squared_distances(Ut);
  for (double ell : {0.5, 0.8, 1.2, 2.0})
    for (double lambda : {1e-3, 1e-2, 1e-1}) {
      if (!fit_gp(Ut, resid, wt, D2, ell, lambda)) continue;
      const double e = residual_sd(Ph, predict(Uh), typ);
      if (std::isfinite(e) && e < error_) { error_ = e; best_ell = ell; best_lambda = lambda; }
    }
  mean_ = fit_concave_quadratic(pts.U, pts.P, pts.w, floor, widen);
  alpha_.resize(0);
  U_.resize(0, d);
  if (best_ell > 0.0) {
    Vec r(m);
    for (Eigen::Index i = 0; i < m; ++i) r[i] = pts.P[i] - mean_(pts.U.row(i).transpose());
    if (!fit_gp(pts.U, r, pts.w, squared_distances(pts.U), best_ell, best_lambda)) alpha_.resize(0);
  }
}

}  // namespace vhmc
