#pragma once
// Euclidean metrics W = M^{-1} (Neal 2011; Betancourt 2017): kinetic energy K(p) = 1/2 p' W p, momentum
// p ~ N(0, W^{-1}) and sharp momentum v = W p. Neither M nor W^{-1} is ever formed.
// Each metric names the Welford estimator its warmup adaptation uses (adapt/welford.hpp).
#include <stdexcept>
#include <string>

#include <optional>

#include "../adapt/welford.hpp"
#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "low_rank_metric.hpp"
#include "metric_revision.hpp"

namespace vhmc {

enum class MetricKind { Unit, Diag, Dense, LowRank };

inline MetricKind metric_from_name(const std::string& name) {
  if (name == "unit") return MetricKind::Unit;
  if (name == "diag") return MetricKind::Diag;
  if (name == "dense") return MetricKind::Dense;
  if (name == "low_rank") return MetricKind::LowRank;
  throw std::invalid_argument("metric must be \"unit\", \"diag\", \"dense\" or \"low_rank\"; got \"" + name + "\"");
}

inline const char* metric_name(MetricKind k) {
  switch (k) {
    case MetricKind::Unit: return "unit";
    case MetricKind::Diag: return "diag";
    case MetricKind::Dense: return "dense";
    case MetricKind::LowRank: return "low_rank";
  }
  return "?";
}

class UnitMetric : public MetricRevision {
 public:
  using Estimator = NoEstimator;
  explicit UnitMetric(int d) : d_(d) {}
  void sample_momentum(Rng& rng, Vec& p) const {
    for (int i = 0; i < d_; ++i) p[i] = rng.normal();
  }
  void sharp(const Vec& p, Vec& v) const { v = p; }
  void set(const Estimator&) {}
  Vec inv_metric_diag() const { return Vec::Ones(d_); }
  static constexpr bool adapts = false;

 private:
  int d_;
};

class DiagMetric : public MetricRevision {
 public:
  using Estimator = WelfordDiag;
  explicit DiagMetric(const Vec& w) : w_(w), sd_inv_(w.cwiseSqrt().cwiseInverse()) {}
  void sample_momentum(Rng& rng, Vec& p) const {
    for (Eigen::Index i = 0; i < w_.size(); ++i) p[i] = rng.normal() * sd_inv_[i];
  }
  void sharp(const Vec& p, Vec& v) const { v = w_.cwiseProduct(p); }
  void set(const Estimator& est) { set_w(est.regularized()); }
  void set_w(const Vec& w) {
    w_ = w;
    sd_inv_ = w_.cwiseSqrt().cwiseInverse();
    touch();
  }
  const Vec& w() const { return w_; }
  static constexpr bool adapts = true;

 private:
  Vec w_, sd_inv_;
};

class DenseMetric : public MetricRevision {
 public:
  using Estimator = WelfordDense;
  explicit DenseMetric(const Mat& W) : z_(W.rows()) { set_W(W); }
  // p = L^{-T} z with W = L L', so that Cov(p) = W^{-1} = M.
  void sample_momentum(Rng& rng, Vec& p) const {
    for (Eigen::Index i = 0; i < z_.size(); ++i) z_[i] = rng.normal();
    p = llt_.matrixU().solve(z_);
  }
  void sharp(const Vec& p, Vec& v) const { v.noalias() = W_ * p; }
  void set(const Estimator& est) { set_W(est.regularized()); }
  void set_W(const Mat& W) {
    W_ = 0.5 * (W + W.transpose());
    llt_.compute(W_);
    if (llt_.info() != Eigen::Success)
      throw std::runtime_error("dense metric is not positive definite");
    touch();
  }
  const Mat& W() const { return W_; }
  static constexpr bool adapts = true;

 private:
  Mat W_;
  Eigen::LLT<Mat> llt_;
  mutable Vec z_;
};

// Calls f with the initial metric of a kind: the identity, or, given the covariance of a
// Gaussian approximation of the posterior (the inverse Hessian at the mode), that covariance
// as the metric allows it: its diagonal, itself, or its diagonal and leading correlation
// directions (low_rank, at most max_rank of them). Warmup adapts it from there.
// The unit kind is a diagonal of ones (the same arithmetic: products with 1.0 are exact)
// whose adaptation the caller turns off; one metric type fewer per sampler and potential
// keeps the compiled library small.
template <class F>
auto with_metric(MetricKind kind, int d, const std::optional<Mat>& cov, int max_rank, F&& f) {
  // A covariance given as one column is a diagonal one (a multilevel start: no d x d matrix).
  const bool diagonal = cov && cov->cols() == 1 && d > 1;
  if (kind == MetricKind::Unit) return f(DiagMetric(Vec::Ones(d)));
  if (kind == MetricKind::Diag) {
    if (!cov) return f(DiagMetric(Vec::Ones(d)));
    return f(DiagMetric(diagonal ? Vec(cov->col(0)) : Vec(cov->diagonal())));
  }
  if (kind == MetricKind::LowRank) {
    if (!cov) return f(LowRankMetric(Vec::Ones(d)));
    if (diagonal) return f(LowRankMetric(Vec(cov->col(0))));
    LowRankConfig lr;
    lr.max_rank = max_rank;
    return f(LowRankMetric(low_rank_from_covariance(*cov, lr)));
  }
  if (diagonal) return f(DenseMetric(Mat(cov->col(0).asDiagonal())));
  return f(DenseMetric(cov ? *cov : Mat::Identity(d, d)));
}

// The identity metric of a kind (samplers whose warmup starts there).
template <class F>
auto with_metric(MetricKind kind, int d, F&& f) {
  return with_metric(kind, d, std::nullopt, 0, std::forward<F>(f));
}

}  // namespace vhmc
