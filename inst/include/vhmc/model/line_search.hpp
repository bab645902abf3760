#pragma once
// Line search for the strong Wolfe conditions (Nocedal & Wright 2006, Algorithms 3.5 and
// 3.6: bracketing, then zoom by safeguarded cubic interpolation), along a descent
// direction p of a potential with U_grad(theta, g). With phi(a) = U(x0 + a p):
//   sufficient decrease  phi(a) <= phi(0) + c1 a phi'(0),
//   curvature            |phi'(a)| <= c2 |phi'(0)|.
// The curvature condition makes s'y > 0, so every accepted step gives a positive definite
// BFGS update. A trial where U or its gradient is not finite (outside the support, overflow)
// is treated as "too far": it becomes the upper end of the bracket and the interval is
// bisected toward the last finite point, a bounded number of times (max_evals in all).
#include <algorithm>
#include <cmath>
#include <string>

#include "../base/types.hpp"

namespace vhmc {

struct LineSearchOptions {
  double c1 = 1e-4;  // sufficient decrease (Nocedal & Wright's usual value)
  double c2 = 0.9;   // curvature; 0.9 suits quasi-Newton directions (same source)
  int max_evals = 40;
  double expand = 4.0;      // growth of the trial step while phi keeps decreasing steeply
  double alpha_max = 1e10;  // largest step tried
};

struct LineSearchResult {
  bool ok = false;        // strong Wolfe met, or at least sufficient decrease (wolfe false)
  bool wolfe = false;
  double alpha = 0.0, value = 0.0;
  Vec theta, gradient;    // at the accepted step
  int evals = 0;
  std::string message;
};

namespace detail {

struct Trial {
  double a = 0.0, f = 0.0, df = 0.0;
  bool finite = true;
};

// Minimiser of the cubic matching phi and phi' at lo and hi (Nocedal & Wright 2006,
// eq. 3.59), kept 10% inside the interval; bisection when it is not defined or the upper end
// is not finite.
inline double cubic_step(const Trial& lo, const Trial& hi) {
  const double mid = 0.5 * (lo.a + hi.a);
  if (!hi.finite) return mid;
  const double d1 = lo.df + hi.df - 3.0 * (lo.f - hi.f) / (lo.a - hi.a);
  const double disc = d1 * d1 - lo.df * hi.df;
  if (!(disc >= 0.0)) return mid;
  const double d2 = std::copysign(std::sqrt(disc), hi.a - lo.a);
  const double a = hi.a - (hi.a - lo.a) * (hi.df + d2 - d1) / (hi.df - lo.df + 2.0 * d2);
  const double left = std::min(lo.a, hi.a), width = std::fabs(hi.a - lo.a);
  if (!std::isfinite(a) || a < left + 0.1 * width || a > left + 0.9 * width) return mid;
  return a;
}

template <class Potential>
class WolfeSearch {
 public:
  WolfeSearch(Potential& pot, const Vec& x0, double f0, const Vec& g0, const Vec& p,
              const LineSearchOptions& opt)
      : pot_(pot), x0_(x0), p_(p), opt_(opt), f0_(f0), df0_(g0.dot(p)), x_(x0.size()),
        g_(x0.size()) {
    r_.theta = x0;
    r_.gradient = g0;
    r_.value = f0;
  }

  LineSearchResult run(double alpha0) {
    if (!(df0_ < 0.0)) return fail("not a descent direction");
    Trial prev{0.0, f0_, df0_, true};
    double a = alpha0;
    for (int i = 0; r_.evals < opt_.max_evals; ++i) {
      const Trial cur = eval(a);
      if (!cur.finite || armijo_fails(cur) || (i > 0 && cur.f >= prev.f)) return zoom(prev, cur);
      if (std::fabs(cur.df) <= -opt_.c2 * df0_) return accept(cur, true);
      if (cur.df >= 0.0) return zoom(cur, prev);
      keep_lo(cur);
      prev = cur;
      if (a >= opt_.alpha_max) break;
      a = std::min(a * opt_.expand, opt_.alpha_max);
    }
    return best_or_fail("no step met the Wolfe conditions within the evaluation budget");
  }

 private:
  LineSearchResult zoom(Trial lo, Trial hi) {
    if (lo.a > 0.0 && lo.a != r_.alpha) keep_lo(lo);  // lo is the current point x_
    while (r_.evals < opt_.max_evals) {
      if (std::fabs(hi.a - lo.a) <= 1e-16 * std::max(1.0, lo.a)) break;
      const Trial cur = eval(cubic_step(lo, hi));
      if (!cur.finite || armijo_fails(cur) || cur.f >= lo.f) {
        hi = cur;
        continue;
      }
      if (std::fabs(cur.df) <= -opt_.c2 * df0_) return accept(cur, true);
      if (cur.df * (hi.a - lo.a) >= 0.0) hi = lo;
      lo = cur;
      keep_lo(cur);
    }
    return best_or_fail("the bracketing interval shrank without meeting the Wolfe conditions");
  }

  Trial eval(double a) {
    ++r_.evals;
    x_ = x0_ + a * p_;
    Trial t;
    t.a = a;
    t.f = pot_.U_grad(x_, g_);
    t.finite = std::isfinite(t.f) && g_.allFinite();
    t.df = t.finite ? g_.dot(p_) : 0.0;
    return t;
  }
  bool armijo_fails(const Trial& t) const { return t.f > f0_ + opt_.c1 * t.a * df0_; }
  // The last evaluated trial becomes the best sufficient-decrease point so far.
  void keep_lo(const Trial& t) {
    r_.alpha = t.a;
    r_.value = t.f;
    r_.theta = x_;
    r_.gradient = g_;
  }
  LineSearchResult accept(const Trial& t, bool wolfe) {
    keep_lo(t);
    r_.ok = true;
    r_.wolfe = wolfe;
    return r_;
  }
  LineSearchResult best_or_fail(const char* why) {
    r_.message = why;
    r_.ok = r_.alpha > 0.0;  // a sufficient-decrease point without the curvature condition
    return r_;
  }
  LineSearchResult fail(const char* why) {
    r_.message = why;
    return r_;
  }

  Potential& pot_;
  const Vec& x0_;
  const Vec& p_;
  LineSearchOptions opt_;
  double f0_, df0_;
  Vec x_, g_;
  LineSearchResult r_;
};

}  // namespace detail

// From x0 (value f0, gradient g0) along p, first trying step alpha0.
template <class Potential>
LineSearchResult wolfe_line_search(Potential& pot, const Vec& x0, double f0, const Vec& g0,
                                   const Vec& p, double alpha0,
                                   const LineSearchOptions& opt = LineSearchOptions()) {
  return detail::WolfeSearch<Potential>(pot, x0, f0, g0, p, opt).run(alpha0);
}

}  // namespace vhmc
