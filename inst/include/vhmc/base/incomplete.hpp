#pragma once
// Logs of the regularised incomplete gamma and beta functions, for the cdfs of censored
// observations (Gamma and Student-t families): the power series and the continued fractions
// evaluated by the modified Lentz method (Press, Teukolsky, Vetterling and Flannery 2007,
// eqs. 6.2.5, 6.2.7 and 6.4.5), on the log scale so that tails far below the smallest double
// stay finite.
#include <cmath>
#include <limits>

namespace vhmc {

namespace detail {
constexpr double kIncompleteEps = 1e-16;
constexpr double kLentzTiny = 1e-300;
constexpr int kIncompleteMaxIter = 100000;

// log of the series sum_n x^n / ((a + 1) ... (a + n)), so that
// P(a, x) = exp(-x + a log x - lgamma(a + 1)) times it (for x < a + 1).
inline double log_gamma_series(double a, double x) {
  double term = 1.0, sum = 1.0, ap = a;
  for (int n = 0; n < kIncompleteMaxIter; ++n) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (term < sum * kIncompleteEps) break;
  }
  return std::log(sum);
}

// log of the continued fraction of Q(a, x) = exp(-x + a log x - lgamma(a)) times it (x >= a + 1).
inline double log_gamma_fraction(double a, double x) {
  double b = x + 1.0 - a, c = 1.0 / kLentzTiny, d = 1.0 / b, h = d;
  for (int i = 1; i < kIncompleteMaxIter; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kLentzTiny) d = kLentzTiny;
    c = b + an / c;
    if (std::fabs(c) < kLentzTiny) c = kLentzTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kIncompleteEps) break;
  }
  return std::log(h);
}

// The continued fraction of I_x(a, b) (for x < (a + 1) / (a + b + 2)), xc = 1 - x.
inline double beta_fraction(double a, double b, double x) {
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kLentzTiny) d = kLentzTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < kIncompleteMaxIter; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kLentzTiny) d = kLentzTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kLentzTiny) c = kLentzTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kLentzTiny) d = kLentzTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kLentzTiny) c = kLentzTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kIncompleteEps) break;
  }
  return h;
}

// log(1 - exp(l)) for l < 0, accurate at both ends.
inline double log1m_exp(double l) { return l > -0.693147 ? std::log(-std::expm1(l)) : std::log1p(-std::exp(l)); }
}  // namespace detail

// log P(a, x) (lower = true) or log Q(a, x) = log(1 - P(a, x)), a > 0, x >= 0.
inline double log_gamma_p(double a, double x, bool lower) {
  if (x <= 0.0) return lower ? -std::numeric_limits<double>::infinity() : 0.0;
  if (x < a + 1.0) {
    const double lp = -x + a * std::log(x) - std::lgamma(a + 1.0) + detail::log_gamma_series(a, x);
    return lower ? lp : detail::log1m_exp(lp);
  }
  const double lq = -x + a * std::log(x) - std::lgamma(a) + detail::log_gamma_fraction(a, x);
  return lower ? detail::log1m_exp(lq) : lq;
}

// log I_x(a, b), the regularised incomplete beta function, given x and xc = 1 - x (each
// accurate, so that neither end loses digits to a subtraction); with upper, log(1 - I_x(a, b)).
inline double log_beta_inc(double a, double b, double x, double xc, bool upper = false) {
  if (x <= 0.0) return upper ? 0.0 : -std::numeric_limits<double>::infinity();
  if (xc <= 0.0) return upper ? -std::numeric_limits<double>::infinity() : 0.0;
  const double front = a * std::log(x) + b * std::log(xc) + std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    const double l = front + std::log(detail::beta_fraction(a, b, x) / a);
    return upper ? detail::log1m_exp(l) : l;
  }
  const double l = front + std::log(detail::beta_fraction(b, a, xc) / b);  // log(1 - I_x(a, b))
  return upper ? l : detail::log1m_exp(l);
}

}  // namespace vhmc
