#pragma once
// Welford's online mean and (co)variance, and Stan's regularisation of the warmup estimate
// toward 1e-3 I (Stan Reference Manual, HMC adaptation): W = n/(n+5) S + 1e-3 * 5/(n+5) I.
#include <stdexcept>

#include "../base/types.hpp"

namespace vhmc {

namespace detail {
inline void add_to_diagonal(Vec& w, double c) { w.array() += c; }  // a variance vector
inline void add_to_diagonal(Mat& w, double c) { w.diagonal().array() += c; }
}  // namespace detail

// Stan's regularisation (above) of a variance vector or covariance S estimated from
// n_draws draws; an estimate from fewer than 2 draws, or one that overflowed, is an error.
template <class M>
M stan_regularized(const M& S, long n_draws) {
  const double n = static_cast<double>(n_draws);
  M w = (n / (n + 5.0)) * S;
  detail::add_to_diagonal(w, 1e-3 * (5.0 / (n + 5.0)));
  if (n_draws < 2 || !w.allFinite())
    throw std::runtime_error("numerical overflow in metric adaptation: the posterior may be improper or too wide");
  return w;
}

struct NoEstimator {
  explicit NoEstimator(int = 0) {}
  void add(const Vec&) {}
  void reset() {}
  long n() const { return 0; }
};

class WelfordDiag {
 public:
  explicit WelfordDiag(int d = 0) : m_(Vec::Zero(d)), m2_(Vec::Zero(d)), delta_(d) {}
  void add(const Vec& x) {
    ++n_;
    delta_ = x - m_;
    m_ += delta_ / static_cast<double>(n_);
    m2_.array() += delta_.array() * (x - m_).array();
  }
  void reset() {
    n_ = 0;
    m_.setZero();
    m2_.setZero();
  }
  long n() const { return n_; }
  const Vec& mean() const { return m_; }
  Vec variance() const { return m2_ / static_cast<double>(n_ - 1); }
  Vec regularized() const { return stan_regularized(variance(), n_); }

 private:
  long n_ = 0;
  Vec m_, m2_, delta_;
};

class WelfordDense {
 public:
  explicit WelfordDense(int d = 0) : m_(Vec::Zero(d)), m2_(Mat::Zero(d, d)), delta_(d) {}
  void add(const Vec& x) {
    ++n_;
    delta_ = x - m_;
    m_ += delta_ / static_cast<double>(n_);
    m2_.noalias() += (x - m_) * delta_.transpose();
  }
  void reset() {
    n_ = 0;
    m_.setZero();
    m2_.setZero();
  }
  long n() const { return n_; }
  const Vec& mean() const { return m_; }
  Mat covariance() const { return m2_ / static_cast<double>(n_ - 1); }
  Mat regularized() const {
    const Mat w = stan_regularized(covariance(), n_);
    return 0.5 * (w + w.transpose());
  }

 private:
  long n_ = 0;
  Vec m_;
  Mat m2_;
  Vec delta_;
};

}  // namespace vhmc
