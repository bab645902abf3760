#pragma once
// Welford's online mean and (co)variance, and Stan's regularisation of the warmup estimate
// toward 1e-3 I (Stan Reference Manual, HMC adaptation): W = n/(n+5) S + 1e-3 * 5/(n+5) I.
#include <stdexcept>

#include "../base/types.hpp"

namespace vhmc {

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
  Vec regularized() const {
    const double n = static_cast<double>(n_);
    Vec w = (n / (n + 5.0)) * variance();
    w.array() += 1e-3 * (5.0 / (n + 5.0));
    if (n_ < 2 || !w.allFinite())
      throw std::runtime_error(
          "numerical overflow in metric adaptation: the posterior may be improper or too wide");
    return w;
  }

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
    const double n = static_cast<double>(n_);
    Mat w = (n / (n + 5.0)) * covariance();
    w.diagonal().array() += 1e-3 * (5.0 / (n + 5.0));
    if (n_ < 2 || !w.allFinite())
      throw std::runtime_error(
          "numerical overflow in metric adaptation: the posterior may be improper or too wide");
    return 0.5 * (w + w.transpose());
  }

 private:
  long n_ = 0;
  Vec m_;
  Mat m2_;
  Vec delta_;
};

}  // namespace vhmc
