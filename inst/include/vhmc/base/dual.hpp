#pragma once
// Forward-mode dual numbers for the small transforms of covariance parameters (a
// group-level term's standard deviations and correlation Cholesky factor from a handful of
// unconstrained values): each carries its value and its partial derivatives with respect to
// up to kMaxPartials inputs, on the stack. Only the operations those transforms use.
#include <cmath>

#include "types.hpp"

namespace vhmc {

constexpr int kMaxPartials = 64;
using Partials = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxPartials, 1>;

struct Dual {
  double v = 0.0;
  Partials d;

  Dual() = default;
  Dual(double value, Eigen::Index n) : v(value), d(Partials::Zero(n)) {}
  Dual(double value, const Partials& partials) : v(value), d(partials) {}
  // The i-th of n inputs, with value x.
  static Dual input(double x, Eigen::Index i, Eigen::Index n) {
    Dual r(x, n);
    r.d[i] = 1.0;
    return r;
  }
  Dual& operator+=(const Dual& b) {
    v += b.v;
    d += b.d;
    return *this;
  }
};

inline Dual operator+(Dual a, const Dual& b) { return a += b; }
inline Dual operator-(const Dual& a, const Dual& b) { return {a.v - b.v, a.d - b.d}; }
inline Dual operator-(const Dual& a) { return {-a.v, -a.d}; }
inline Dual operator*(const Dual& a, const Dual& b) { return {a.v * b.v, a.d * b.v + b.d * a.v}; }
inline Dual operator/(const Dual& a, const Dual& b) {
  return {a.v / b.v, (a.d * b.v - b.d * a.v) / (b.v * b.v)};
}
inline Dual operator+(const Dual& a, double c) { return {a.v + c, a.d}; }
inline Dual operator-(const Dual& a, double c) { return {a.v - c, a.d}; }
inline Dual operator-(double c, const Dual& a) { return {c - a.v, -a.d}; }
inline Dual operator*(double c, const Dual& a) { return {c * a.v, c * a.d}; }
inline Dual operator/(const Dual& a, double c) { return {a.v / c, a.d / c}; }

inline Dual exp(const Dual& a) {
  const double e = std::exp(a.v);
  return {e, e * a.d};
}
inline Dual log(const Dual& a) { return {std::log(a.v), a.d / a.v}; }
inline Dual log1p(const Dual& a) { return {std::log1p(a.v), a.d / (1.0 + a.v)}; }
inline Dual sqrt(const Dual& a) {
  const double s = std::sqrt(a.v);
  return {s, a.d / (2.0 * s)};
}
inline Dual tanh(const Dual& a) {
  const double t = std::tanh(a.v);
  return {t, (1.0 - t * t) * a.d};
}

// log(1 - tanh(w)^2) = log 4 - 2|w| - 2 log1p(exp(-2|w|)), finite for every w (1 - tanh^2
// rounds to 0 beyond |w| ~ 19); its derivative is -2 tanh(w).
inline double log1m_tanh_sq(double w) {
  const double a = std::fabs(w);
  return std::log(4.0) - 2.0 * a - 2.0 * std::log1p(std::exp(-2.0 * a));
}
inline Dual log1m_tanh_sq(const Dual& w) { return {log1m_tanh_sq(w.v), -2.0 * std::tanh(w.v) * w.d}; }

// Value of a double or a Dual, for code templated on the scalar.
inline double value_of(double x) { return x; }
inline double value_of(const Dual& x) { return x.v; }

}  // namespace vhmc
