#pragma once
// Special functions of the likelihoods: the standard normal log cdf and inverse Mills ratio
// (probit), the digamma and trigamma functions (negative binomial, Gamma).
#include <cmath>

namespace vhmc {

namespace detail {
constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)
// Below this x, Phi(x) comes from the asymptotic series (erfc would approach underflow).
constexpr double kPhiAsymptotic = -30.0;

// S(x) = 1 - 1/x^2 + 3/x^4 - 15/x^6 + ... with Phi(x) = phi(x) / (-x) * S(x), x -> -inf.
// For x <= -30 ten terms give relative error < 1e-20.
inline double mills_series(double x) {
  const double ix2 = 1.0 / (x * x);
  double term = 1.0, s = 1.0;
  for (int k = 1; k <= 10; ++k) {
    term *= -(2.0 * k - 1.0) * ix2;
    s += term;
  }
  return s;
}
}  // namespace detail

// log Phi(x), the standard normal log cdf, finite for every finite x (down to ~ -1e154).
inline double log_Phi(double x) {
  if (x < detail::kPhiAsymptotic)
    return -0.5 * x * x - std::log(-x) - detail::kLogSqrt2Pi + std::log(detail::mills_series(x));
  if (x < 0) return std::log(0.5 * std::erfc(-x * detail::kSqrt1_2));
  return std::log1p(-0.5 * std::erfc(x * detail::kSqrt1_2));
}

// Inverse Mills ratio phi(x) / Phi(x) = d log Phi(x) / dx; ~ -x for x -> -inf, -> 0 for
// x -> +inf.
inline double inv_mills(double x) {
  if (x < detail::kPhiAsymptotic) return -x / detail::mills_series(x);
  const double phi = std::exp(-0.5 * x * x - detail::kLogSqrt2Pi);
  return phi / (0.5 * std::erfc(-x * detail::kSqrt1_2));
}

// The digamma function psi(x) = d log Gamma(x) / dx for x > 0: the recurrence
// psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
// psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k) (Abramowitz & Stegun 1964, eq. 6.3.18),
// whose first omitted term is below 1e-17 there.
inline double digamma(double x) {
  double shift = 0.0;
  while (x < 10.0) {
    shift -= 1.0 / x;
    x += 1.0;
  }
  const double i2 = 1.0 / (x * x);
  const double series =
      i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 * (1.0 / 240 - i2 * (1.0 / 132 - i2 * (691.0 / 32760 - i2 / 12))))));
  return shift + std::log(x) - 0.5 / x - series;
}

// The trigamma function psi'(x) for x > 0: psi'(x) = psi'(x + 1) + 1/x^2 up to x >= 10, then
// psi'(x) ~ 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1) (Abramowitz & Stegun 1964, eq. 6.4.12).
inline double trigamma(double x) {
  double shift = 0.0;
  while (x < 10.0) {
    shift += 1.0 / (x * x);
    x += 1.0;
  }
  const double i2 = 1.0 / (x * x);
  const double series =
      (1.0 / 6 - i2 * (1.0 / 30 - i2 * (1.0 / 42 - i2 * (1.0 / 30 - i2 * (5.0 / 66 - i2 * (691.0 / 2730 - i2 * 7.0 / 6)))))) / (x * x * x);
  return shift + 1.0 / x + 0.5 * i2 + series;
}

}  // namespace vhmc
