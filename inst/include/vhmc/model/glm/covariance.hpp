#pragma once
// The covariance of a group-level term's effects, Sigma = D Omega D (D = diag(tau), the
// standard deviations; Omega = L L' the correlations), from its unconstrained parameters,
// with the log density of their prior and the log Jacobians. Written once for a scalar T:
// double for values, Dual (base/dual.hpp) for the derivatives of tau, L and the log density
// with respect to the parameters (a handful per term).
//
// Priors (rstanarm's, Gabry and Goodrich 2020, "Prior distributions for rstanarm models"):
//  decov(regularization, concentration, shape, scale): the trace of Sigma is p s^2 with
//    s / scale ~ Gamma(shape, 1), the variances are the trace times a simplex pi ~
//    Dirichlet(concentration), Omega ~ LKJ(regularization); for the gaussian family Sigma is
//    relative to sigma^2 (the dispersion times every tau), as in rstanarm's make_theta_L.
//    Parameters: log s, then p - 1 additive-logistic coordinates of pi.
//  lkj(regularization, scale, df): each tau_k ~ half-t(df, 0, scale), Omega ~
//    LKJ(regularization). Parameters: log tau_k.
// Omega's Cholesky factor L comes from p(p-1)/2 canonical partial correlations z = tanh(w)
// (Lewandowski, Kurowicka and Joe 2009), as Stan's cholesky_factor_corr, and LKJ(eta) has
// log density sum_{i=1}^{p-1} (p - i - 1 + 2 eta - 2) log L_ii on L (Stan's
// lkj_corr_cholesky).
#include <cmath>
#include <vector>

#include "../../base/dual.hpp"
#include "../../base/types.hpp"

namespace vhmc {

enum class CovPriorKind { Decov, Lkj };

struct CovPrior {
  CovPriorKind kind = CovPriorKind::Decov;
  double regularization = 1.0;                      // LKJ shape eta
  double concentration = 1.0, shape = 1.0;          // decov
  double scale = 1.0;                               // decov's Gamma scale, lkj's half-t scale
  double df = 1.0;                                  // lkj's half-t degrees of freedom
  bool relative_to_sigma = false;                   // decov with the gaussian family
};

// Numbers of unconstrained parameters of a term with p effects per level.
inline Eigen::Index sd_params(const CovPrior&, Eigen::Index p) { return p; }
inline Eigen::Index cor_params(Eigen::Index p) { return p * (p - 1) / 2; }

template <class T>
struct TermCovariance {
  std::vector<T> tau;  // p standard deviations
  std::vector<T> L;    // p x p lower triangle of Omega's Cholesky factor, row-major
  T lp;                // log prior density of the parameters plus log Jacobians
};

namespace detail {

template <class T>
T zero_like(const T& x) {
  T z = x;
  z = z - z;
  return z;
}

// decov's standard deviations: log s = u[0], simplex from u[1..p-1].
template <class T>
void decov_sds(const CovPrior& pr, Eigen::Index p, const T* u, const T& log_disp, TermCovariance<T>& c) {
  using std::exp;
  using std::log;
  T lp = pr.shape * (u[0] - std::log(pr.scale)) - exp(u[0]) / pr.scale;
  // log pi_k = v_k - lse, log pi_last = -lse, lse = log(1 + sum exp(v)) (stable).
  double m = 0.0;
  for (Eigen::Index k = 1; k < p; ++k) m = std::max(m, value_of(u[k]));
  T sum = exp(zero_like(u[0]) + (-m));
  for (Eigen::Index k = 1; k < p; ++k) sum += exp(u[k] + (-m));
  const T lse = log(sum) + m;
  const double log_p = std::log(static_cast<double>(p));
  for (Eigen::Index k = 0; k < p; ++k) {
    const T log_pi = k + 1 < p ? u[k + 1] - lse : zero_like(lse) - lse;
    if (p > 1) lp += pr.concentration * log_pi;  // Dirichlet density times the Jacobian
    c.tau[k] = exp(u[0] + log_disp + 0.5 * (log_pi + log_p));
  }
  c.lp = lp;
}

// lkj's standard deviations: tau_k = exp(u_k), half-t(df, 0, scale) with the Jacobian u_k.
template <class T>
void lkj_sds(const CovPrior& pr, Eigen::Index p, const T* u, TermCovariance<T>& c) {
  using std::exp;
  using std::log1p;
  T lp = zero_like(u[0]);
  for (Eigen::Index k = 0; k < p; ++k) {
    c.tau[k] = exp(u[k]);
    const T z = c.tau[k] / pr.scale;
    lp += u[k] - 0.5 * (pr.df + 1.0) * log1p(z * z / pr.df);
  }
  c.lp = lp;
}

// L from canonical partial correlations tanh(w), row by row, with the log Jacobian and
// the LKJ density.
template <class T>
void cholesky_corr(const CovPrior& pr, Eigen::Index p, const T* w, TermCovariance<T>& c) {
  using std::log;
  using std::sqrt;
  using std::tanh;
  const T zero = zero_like(c.lp);
  c.L.assign(static_cast<size_t>(p * p), zero);
  c.L[0] = zero + 1.0;
  Eigen::Index pos = 0;
  for (Eigen::Index i = 1; i < p; ++i) {
    T sum_sq = zero;
    for (Eigen::Index j = 0; j < i; ++j, ++pos) {
      const T z = tanh(w[pos]);
      c.lp += log1m_tanh_sq(w[pos]);
      if (j == 0) {
        c.L[i * p] = z;
      } else {
        c.lp += 0.5 * log(1.0 - sum_sq);
        c.L[i * p + j] = z * sqrt(1.0 - sum_sq);
      }
      sum_sq += c.L[i * p + j] * c.L[i * p + j];
    }
    c.L[i * p + i] = sqrt(1.0 - sum_sq);
    const double coef = static_cast<double>(p - i - 1) + 2.0 * pr.regularization - 2.0;
    c.lp += coef * log(c.L[i * p + i]);
  }
}

}  // namespace detail

// tau, L and lp of a term from its sd parameters u (sd_params() of them), correlation
// parameters w (cor_params()) and, for decov relative to sigma, log sigma (else 0).
template <class T>
TermCovariance<T> term_covariance(const CovPrior& pr, Eigen::Index p, const T* u, const T* w, const T& log_disp) {
  TermCovariance<T> c;
  c.tau.assign(static_cast<size_t>(p), u[0]);
  if (pr.kind == CovPriorKind::Decov) {
    detail::decov_sds(pr, p, u, log_disp, c);
  } else {
    detail::lkj_sds(pr, p, u, c);
  }
  if (p > 1) {
    detail::cholesky_corr(pr, p, w, c);
  } else {
    c.L.assign(1, detail::zero_like(c.lp) + 1.0);
  }
  return c;
}

}  // namespace vhmc
