#pragma once
// Activations of the random-basis network (Zhang, Shahbaba & Zhao 2017, eq. 10): softplus (default of Zhang et al. 2017, 2018 and
// the authors' code), logistic sigmoid, tanh for additive nodes sigma(w.u + d), and Gaussian
// RBF nodes exp(-|u - c|^2 / (2 ell^2)). Values and the first three derivatives follow the
// derivatives of the logistic function, written so that nothing overflows or cancels for large |x|:
// softplus = max(x, 0) + log1p(exp(-|x|)); the logistic l and its complement 1 - l = l(-x)
// come from one exp(-|x|) (two-branch form), so l(1 - l) keeps full relative accuracy in the
// tails; 1 - tanh^2 is computed as sech^2 = 4e/(1 + e)^2 with e = exp(-2|x|).
#include <cmath>
#include <stdexcept>
#include <string>

#include "../base/math.hpp"

namespace vhmc {

enum class Activation { Softplus, Sigmoid, Tanh, Rbf };

inline Activation activation_from_name(const std::string& name) {
  if (name == "softplus") return Activation::Softplus;
  if (name == "sigmoid") return Activation::Sigmoid;
  if (name == "tanh") return Activation::Tanh;
  if (name == "rbf") return Activation::Rbf;
  throw std::invalid_argument("activation must be one of \"softplus\", \"sigmoid\", \"tanh\", \"rbf\"; got \"" +
                              name + "\"");
}

inline const char* activation_name(Activation a) {
  switch (a) {
    case Activation::Softplus: return "softplus";
    case Activation::Sigmoid: return "sigmoid";
    case Activation::Tanh: return "tanh";
    case Activation::Rbf: return "rbf";
  }
  return "?";
}

// True for additive nodes sigma(w.u + d) (everything but RBF).
inline bool is_additive(Activation a) { return a != Activation::Rbf; }

namespace act {

// sech^2(x) = 1 - tanh^2(x) without cancellation.
inline double sech2(double x) {
  const double e = std::exp(-2.0 * std::fabs(x));
  const double q = 1.0 + e;
  return 4.0 * e / (q * q);
}

// sigma(x) of an additive activation.
inline double value(Activation a, double x) {
  double l, lc;
  switch (a) {
    case Activation::Softplus: return softplus(x);
    case Activation::Sigmoid: logistic_pair(x, l, lc); return l;
    case Activation::Tanh: return std::tanh(x);
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::value: not an additive activation");
}

// sigma'(x) of an additive activation.
inline double d1(Activation a, double x) {
  double l, lc;
  switch (a) {
    case Activation::Softplus: logistic_pair(x, l, lc); return l;
    case Activation::Sigmoid: logistic_pair(x, l, lc); return l * lc;
    case Activation::Tanh: return sech2(x);
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::d1: not an additive activation");
}

// sigma(x), sigma'(x) in one call (the evaluation hot path).
inline void value_d1(Activation a, double x, double& f, double& f1) {
  double l, lc;
  switch (a) {
    case Activation::Softplus: {  // one exp for both
      const double e = std::exp(-std::fabs(x));
      const double r = 1.0 / (1.0 + e);
      f = std::fmax(x, 0.0) + std::log1p(e);
      f1 = x >= 0 ? r : e * r;
      return;
    }
    case Activation::Sigmoid:
      logistic_pair(x, l, lc);
      f = l;
      f1 = l * lc;
      return;
    case Activation::Tanh:
      f = std::tanh(x);
      f1 = sech2(x);
      return;
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::value_d1: not an additive activation");
}

// out = sigma'(x) elementwise for an additive activation, from e = exp(-|x|) (or
// exp(-2|x|) for tanh) as array expressions, so that Eigen's packet exp vectorises it:
// softplus' = logistic = (x >= 0 ? 1 : e) / (1 + e); sigmoid' = l (1 - l) = e / (1 + e)^2;
// tanh' = sech^2 = 4 e / (1 + e)^2 with e = exp(-2|x|). out may not alias x.
inline void d1_array(Activation a, const Vec& x, Vec& out) {
  out.resize(x.size());
  switch (a) {
    case Activation::Softplus:
      out.array() = (-x.array().abs()).exp();
      out.array() = (x.array() >= 0.0).select(1.0, out.array()) / (1.0 + out.array());
      return;
    case Activation::Sigmoid:
      out.array() = (-x.array().abs()).exp();
      out.array() = out.array() / (1.0 + out.array()).square();
      return;
    case Activation::Tanh:
      out.array() = (-2.0 * x.array().abs()).exp();
      out.array() = 4.0 * out.array() / (1.0 + out.array()).square();
      return;
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::d1_array: not an additive activation");
}

// sigma''(x) and sigma'''(x) of an additive activation 
inline double d2(Activation a, double x) {
  double l, lc;
  switch (a) {
    case Activation::Softplus: logistic_pair(x, l, lc); return l * lc;
    case Activation::Sigmoid: logistic_pair(x, l, lc); return l * lc * (lc - l);  // l(1-l)(1-2l)
    case Activation::Tanh: return -2.0 * std::tanh(x) * sech2(x);
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::d2: not an additive activation");
}

inline double d3(Activation a, double x) {
  double l, lc;
  switch (a) {
    case Activation::Softplus: logistic_pair(x, l, lc); return l * lc * (lc - l);
    case Activation::Sigmoid: logistic_pair(x, l, lc); return l * lc * (1.0 - 6.0 * l * lc);  // 1-6l+6l^2
    case Activation::Tanh: {
      const double t = std::tanh(x);
      return -2.0 * sech2(x) * (1.0 - 3.0 * t * t);
    }
    case Activation::Rbf: break;
  }
  throw std::logic_error("act::d3: not an additive activation");
}

}  // namespace act
}  // namespace vhmc
