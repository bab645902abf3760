#pragma once
// Potentials of Bayesian GLMs (issue 3, item 3): U(theta) = -log lik - log prior, grad U.
// Families/links: gaussian-identity, binomial-logit, binomial-probit, poisson-log.
// Parameter vector theta = (alpha [if intercept], beta_1..beta_K, log sigma [gaussian only]).
// The intercept is implicit: X holds the K non-intercept columns (N x K, column-major, R's
// layout; with R's model.matrix the pointer to its column 2 skips the column of ones), and
// eta = alpha + X beta + offset. One pass over X for eta, one for grad = -X' r with
// r = d loglik / d eta; buffers are allocated at construction only.
// Centring (GlmData::center, with an intercept only): eta = alpha + (X - 1 c') beta + offset,
// so alpha is the intercept at the predictor means c, where prior_intercept applies (as in
// rstanarm and brms), and the posterior of (alpha, beta) is far less correlated. X itself is
// never copied: (X - 1 c') beta = X beta - c'beta, and the gradient gains c sum(r).
// Scaling (GlmData::scale): the sampler's coordinates for the slopes are beta_j * s_j (s_j the
// spread of predictor j), so that all coordinates have comparable posterior scales whatever
// the predictors' units; this keeps the early warmup and Stan's metric regularisation (which
// adds a fixed 1e-3-sized variance) from penalising small-scale coefficients. Priors still
// apply to beta.
// Gaussian family: the log likelihood depends on the data only through the weighted Gram
// matrix G of the design in the sampler's coordinates, Z = [1, (X - 1c') S^-1] (S the
// predictor scales), and the least-squares fit (b_hat, SSR), computed once; then
// SSE(b) = SSR + (b - b_hat)' G (b - b_hat) costs O(p^2) per gradient instead of O(n p), and
// the residual form has no cancellation (rstanarm does the same). G is formed from rows
// that are centred and scaled before they are multiplied: built from raw cross-products, a
// predictor shifted by 1e8 loses every digit of its variance to cancellation, and one whose
// scale is 1e-9 of another's falls below the rank threshold of the least-squares solve and
// is silently dropped (b_hat then is not the minimiser, and SSE(b) above is wrong).
// Weights multiply each observation's log likelihood (frequency weights, as rstanarm): weight 2
// equals a duplicated row for every family. Binomial: y is the proportion of successes and the
// weight the number of trials, log lik_i = w_i (y_i log p_i + (1 - y_i) log(1 - p_i)).
// Constants that do not depend on theta (log 2 pi, lgamma(y + 1), binomial coefficients) are
// dropped, so gaussian U = sum w e^2 / (2 sigma^2) + sum(w) log sigma + U_prior + U_aux.
// Fixed noise precision (gaussian only; the fixed-precision ARDL model of Asaad 2017): with
// noise_precision alpha > 0 there is no sigma parameter and U = (alpha/2) sum w e^2 + U_prior;
// every code path (sufficient statistics, minibatch rows) is the sigma-estimated one with
// 1/sigma^2 replaced by alpha, so the two models share their likelihood code.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/QR>

#include "../base/types.hpp"
#include "priors.hpp"

namespace vhmc {

enum class GlmFamily { GaussianIdentity, BinomialLogit, BinomialProbit, PoissonLog };

// ---------------------------------------------------------------------------------------
// Stable scalar helpers


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

// ---------------------------------------------------------------------------------------
// Data: views of memory owned elsewhere (R), shared read-only by all chains.

struct GlmData {
  // X: n x k column-major; y: n; weights, offset: n or nullptr; center: k or nullptr.
  GlmData(const double* X, Eigen::Index n, Eigen::Index k, const double* y,
          const double* weights = nullptr, const double* offset = nullptr,
          const double* center = nullptr, const double* scale = nullptr)
      : X(X, n, k), y(y, n), weights(weights, weights ? n : 0), offset(offset, offset ? n : 0),
        center(center, center ? k : 0), scale(scale, scale ? k : 0) {}

  Eigen::Map<const Mat> X;
  Eigen::Map<const Vec> y;
  Eigen::Map<const Vec> weights;  // size 0 when absent
  Eigen::Map<const Vec> offset;   // size 0 when absent
  Eigen::Map<const Vec> center;   // size 0 when absent
  Eigen::Map<const Vec> scale;    // size 0 when absent (all 1)

  Eigen::Index n() const { return X.rows(); }
  Eigen::Index k() const { return X.cols(); }
  bool has_weights() const { return weights.size() > 0; }
  bool has_offset() const { return offset.size() > 0; }
  bool has_center() const { return center.size() > 0; }
  bool has_scale() const { return scale.size() > 0; }
};

// ---------------------------------------------------------------------------------------

class GlmPotential {
 public:
  // data must outlive the potential (it is not copied). prior_intercept is ignored without an
  // intercept; prior_aux is used by the gaussian family only. Throws std::invalid_argument on
  // an invalid prior (see validate_coef_prior / validate_aux_prior) -- before any chain runs.
  GlmPotential(const GlmData& data, GlmFamily family, bool has_intercept,
               const Prior& prior_intercept, const Prior& prior,
               const Prior& prior_aux = Prior::exponential(1.0), double noise_precision = 0.0)
      : data_(&data), family_(family), intercept_(has_intercept), prior_intercept_(prior_intercept),
        prior_(prior), prior_aux_(prior_aux), noise_precision_(noise_precision), eta_(data.n()),
        r_(data.n()), z_(data.n()) {
    if (!(noise_precision_ >= 0.0) || !std::isfinite(noise_precision_))
      throw std::invalid_argument("noise_precision must be finite and >= 0 (0: sigma estimated)");
    if (noise_precision_ > 0.0 && family_ != GlmFamily::GaussianIdentity)
      throw std::invalid_argument("a fixed noise precision needs the gaussian family");
    if (intercept_) validate_coef_prior(prior_intercept_, 1, "prior_intercept");
    validate_coef_prior(prior_, data.k(), "prior");
    if (has_aux()) validate_aux_prior(prior_aux_, "prior_aux");
    if (data.has_center() && !intercept_)
      throw std::invalid_argument("centred predictors need an intercept");
    if (data.has_scale() && !((data.scale.array() > 0).all() && data.scale.allFinite()))
      throw std::invalid_argument("predictor scales must be positive and finite");
    sum_w_ = data.has_weights() ? data.weights.sum() : static_cast<double>(data.n());
    beta_.resize(data.k());
    if (family_ == GlmFamily::GaussianIdentity) gaussian_statistics();
  }

  int dim() const {
    return static_cast<int>((intercept_ ? 1 : 0) + data_->k() + (has_aux() ? 1 : 0));
  }
  bool has_aux() const { return family_ == GlmFamily::GaussianIdentity && !fixed_noise(); }
  bool fixed_noise() const { return noise_precision_ > 0.0; }
  bool has_intercept() const { return intercept_; }
  GlmFamily family() const { return family_; }
  const GlmData& data() const { return *data_; }

  // U(theta) only (no r, no X' r).
  double U(const Vec& theta) { return eval(theta, nullptr); }

  // U(theta); writes grad U into g (resized to dim() if needed).
  double U_grad(const Vec& theta, Vec& g) {
    if (g.size() != dim()) g.resize(dim());
    return eval(theta, &g);
  }

  // Analytic Hessian of U at theta into H (dim() x dim()), for the Newton mode search behind
  // the Laplace anchor (never called inside a chain). Non-gaussian families: Z' diag(h) Z
  // with h_i = -w_i d^2 log lik_i / d eta^2, one pass over X by blocks of rows; gaussian:
  // from the sufficient statistics, with the log sigma row; both in the sampler's
  // coordinates. Then the diagonal prior Hessian.
  void hessian(const Vec& theta, Mat& H) {
    const GlmData& d = *data_;
    const Eigen::Index k = d.k(), off = intercept_ ? 1 : 0, p = off + k, D = dim();
    H.setZero(D, D);
    set_beta(theta);
    if (family_ == GlmFamily::GaussianIdentity) {
      q_ = theta.head(p) - b_hat_;
      Gq_.noalias() = G_ * q_;
      const double sse = ssr_ + std::max(0.0, q_.dot(Gq_));
      const double inv_s2 = inv_sigma2(theta);
      H.topLeftCorner(p, p) = inv_s2 * G_;
      if (has_aux()) {
        H.block(0, D - 1, p, 1) = -2.0 * inv_s2 * Gq_;
        H.block(D - 1, 0, 1, p) = H.block(0, D - 1, p, 1).transpose();
        H(D - 1, D - 1) = 2.0 * sse * inv_s2;
      }
    } else {
      linear_predictor(theta);
      curvature_weights();
      Mat Z;
      weighted_gram<Vec>(z_, nullptr, Z, nullptr);
      H.topLeftCorner(p, p) = Z;
    }
    // Priors act on beta = theta / S: their diagonal Hessian picks up 1 / s_j^2.
    Vec hd = Vec::Zero(D);
    if (intercept_) prior_add_hessian_diag(prior_intercept_, theta.segment(0, 1), hd.segment(0, 1));
    prior_add_hessian_diag(prior_, beta_, hd.segment(off, k));
    if (d.has_scale()) hd.segment(off, k).array() /= d.scale.array().square();
    H.diagonal() += hd;
    if (has_aux()) H(D - 1, D - 1) += aux_prior_hessian(prior_aux_, theta[D - 1]);
  }

  // Whether fisher_weights() knows the family: the canonical links without a dispersion
  // parameter, whose Fisher information is the likelihood's Hessian.
  bool has_fisher() const {
    return family_ == GlmFamily::BinomialLogit || family_ == GlmFamily::PoissonLog ||
           (family_ == GlmFamily::GaussianIdentity && fixed_noise());
  }

  // The Fisher information of the likelihood is Z' diag(lam) Z (Z the design in the sampler's
  // coordinates, design_rows()); lam = w b''(eta) and dlam = w b'''(eta) = d lam / d eta at
  // theta, one pass over X. logistic: b'' = p(1-p), b''' = p(1-p)(1-2p); poisson: both
  // exp(eta); gaussian with a fixed sigma: 1/sigma^2 and 0. Needs has_fisher().
  void fisher_weights(const Vec& theta, Vec& lam, Vec& dlam) {
    const Eigen::Index n = data_->n();
    set_beta(theta);
    linear_predictor(theta);
    lam.resize(n);
    dlam.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (family_ == GlmFamily::BinomialLogit) {
        const double pr = logistic(eta_[i]);
        lam[i] = pr * (1.0 - pr);
        dlam[i] = lam[i] * (1.0 - 2.0 * pr);
      } else if (family_ == GlmFamily::PoissonLog) {
        lam[i] = dlam[i] = std::exp(eta_[i]);
      } else {
        lam[i] = noise_precision_;
        dlam[i] = 0.0;
      }
    }
    if (data_->has_weights()) {
      lam.array() *= data_->weights.array();
      dlam.array() *= data_->weights.array();
    }
  }

  // The priors' Fisher information in the sampler's coordinates (prior_add_fisher_diag;
  // the slopes' picks up 1 / s_j^2 as in hessian()).
  Vec prior_fisher_diag() const {
    const GlmData& d = *data_;
    const Eigen::Index off = intercept_ ? 1 : 0, k = d.k();
    Vec h = Vec::Zero(off + k);
    if (intercept_) prior_add_fisher_diag(prior_intercept_, 1, h.segment(0, 1));
    prior_add_fisher_diag(prior_, k, h.segment(off, k));
    if (d.has_scale()) h.segment(off, k).array() /= d.scale.array().square();
    return h;
  }

  // Rows r0..r0+m-1 of the design in the sampler's coordinates, Z = [1, (X - 1c') S^-1]
  // (the 1 column only with an intercept), into zb (m x p).
  void design_rows(Eigen::Index r0, Eigen::Index m, Mat& zb) const {
    const Eigen::Index off = intercept_ ? 1 : 0;
    Mat xb;
    sampler_rows(r0, m, xb);
    zb.resize(m, off + xb.cols());
    if (intercept_) zb.col(0).setOnes();
    zb.rightCols(xb.cols()) = xb;
  }

  // Z' W Z of the design in the sampler's coordinates (see weighted_gram), for the
  // identifiability check: its rank is the design's, with every column on one scale.
  void design_gram(Mat& G) const { weighted_gram<Vec>(data_->weights, nullptr, G, nullptr); }

  // Number of observations (rows of X) in the likelihood: N of the minibatch estimates (Welling & Teh 2011).
  Eigen::Index n_obs() const { return data_->n(); }

  // Minibatch estimate of grad U (Welling & Teh 2011, eq. 1) into g:
  //   g~ = -(N/m) sum_{i in idx} grad log p(y_i | theta) - grad log p0(theta),
  // the per-observation terms with the same weights, offset, centring and scaling as the
  // full gradient (for the gaussian family in the per-row residual form, not from the
  // sufficient statistics), the prior gradient in full. idx holds m row indices in [0, N).
  // The m rows of X are gathered into a per-object m x k buffer (resized only when m
  // changes); X itself is never copied. Averaging g~ over a partition of the rows into
  // batches of equal size gives the full gradient exactly (up to rounding).
  // With noise_var, also writes V_hat = (N^2/m) var_{i in idx}(grad log p(y_i | theta)) per
  // coordinate (sample variance over the batch; the estimate behind Chen et al. 2014's B_hat), 0 if m < 2.
  void minibatch_grad(const Vec& theta, const int* idx, Eigen::Index m, Vec& g,
                      Vec* noise_var = nullptr) {
    gather(idx, m);
    row_terms(theta, idx, m, rb_, zb_);
    batch_grad(m, g);
    prior_terms(theta, &g);
    if (noise_var) row_gradient_variance(m, *noise_var);
  }

  // The control-variate part of SGLD-CV / SGHMC-CV (Baker et al. 2019) into g:
  //   -(N/m) sum_{i in idx} [grad log p(y_i | theta) - grad log p(y_i | theta_hat)]
  //   - grad log p0(theta) + grad log p0(theta_hat),
  // so that g(theta_hat) + g is g_cv(theta). Both rows' terms come from the same gathered
  // rows (one gather, two m x k products for eta, one for the gradient). With noise_var, V_hat
  // of the differences (the noise of g_cv), as in minibatch_grad().
  void minibatch_grad_diff(const Vec& theta, const Vec& theta_hat, const int* idx,
                           Eigen::Index m, Vec& g, Vec* noise_var = nullptr) {
    gather(idx, m);
    prior_hat_.setZero(dim());
    set_beta(theta_hat);
    prior_terms(theta_hat, &prior_hat_);
    row_terms(theta_hat, idx, m, rh_, zh_);
    row_terms(theta, idx, m, rb_, zb_);  // last: leaves beta_ at theta for prior_terms
    rb_ -= rh_;
    if (has_aux()) zb_ -= zh_;
    batch_grad(m, g);
    prior_terms(theta, &g);
    g -= prior_hat_;
    if (noise_var) row_gradient_variance(m, *noise_var);
  }

 private:
  const GlmData* data_;
  GlmFamily family_;
  bool intercept_;
  Prior prior_intercept_, prior_, prior_aux_;
  double noise_precision_;  // > 0: fixed 1/sigma^2 (no sigma parameter); 0: sigma estimated
  double sum_w_ = 0.0;
  Vec eta_, r_, z_;  // per-observation buffers (linear predictor, d loglik / d eta, exp(-|eta|))
  Vec beta_;     // slopes on the data's scale
  Vec prior_grad_;  // d U_prior / d beta, before the chain rule to the sampler's coordinates
  Mat Xb_;       // minibatch rows of X (m x k), gathered per minibatch gradient
  // Minibatch eta, d loglik / d eta, y, gaussian d(-loglik)/d log sigma, exp(-|eta|); the
  // row terms at theta_hat (control variates) and the prior gradient there.
  Vec eb_, rb_, yb_, zb_, tb_, rh_, zh_, prior_hat_;
  // Gaussian sufficient statistics: b = (alpha, beta) of the model; SSE(b) = ssr_ + q'Gq, q = b - b_hat.
  Mat G_;
  Vec b_hat_, q_, Gq_;
  double ssr_ = 0.0;

  void set_beta(const Vec& theta) {
    const GlmData& d = *data_;
    const Eigen::Index off = intercept_ ? 1 : 0;
    if (d.has_scale()) {
      beta_ = theta.segment(off, d.k()).cwiseQuotient(d.scale);
    } else {
      beta_ = theta.segment(off, d.k());
    }
  }

  // Rows idx of X into Xb_ (m x k), y into yb_; buffers resized only when m changes.
  void gather(const int* idx, Eigen::Index m) {
    const GlmData& d = *data_;
    const Eigen::Index k = d.k();
    if (Xb_.rows() != m || Xb_.cols() != k) {
      Xb_.resize(m, k);
      for (Vec* v : {&eb_, &rb_, &yb_, &zb_, &tb_, &rh_, &zh_}) v->resize(m);
    }
    for (Eigen::Index j = 0; j < k; ++j) {
      const double* col = d.X.data() + j * d.n();
      double* out = Xb_.data() + j * m;
      for (Eigen::Index i = 0; i < m; ++i) out[i] = col[idx[i]];
    }
    for (Eigen::Index i = 0; i < m; ++i) yb_[i] = d.y[idx[i]];
  }

  // Per gathered row at theta: r = d loglik_i / d eta and, gaussian only, z = d(-loglik_i) /
  // d log sigma. Sets beta_ to theta's slopes.
  void row_terms(const Vec& theta, const int* idx, Eigen::Index m, Vec& r, Vec& z) {
    const GlmData& d = *data_;
    const bool hw = d.has_weights();
    set_beta(theta);
    eb_.noalias() = Xb_ * beta_;
    if (intercept_) eb_.array() += theta[0] - (d.has_center() ? d.center.dot(beta_) : 0.0);
    if (d.has_offset())
      for (Eigen::Index i = 0; i < m; ++i) eb_[i] += d.offset[idx[i]];
    switch (family_) {
      case GlmFamily::GaussianIdentity: {
        // -log lik_i = w e^2 / (2 sigma^2) + w log sigma; d/d eta = -w e / sigma^2.
        const double inv_s2 = inv_sigma2(theta);
        for (Eigen::Index i = 0; i < m; ++i) {
          const double w = hw ? d.weights[idx[i]] : 1.0;
          const double e = yb_[i] - eb_[i];
          r[i] = w * e * inv_s2;
          z[i] = w - w * e * e * inv_s2;
        }
        break;
      }
      case GlmFamily::BinomialLogit: {
        // As logit_loglik(): t = exp(-|eta|), inv_logit = (eta >= 0 ? 1 : t) / (1 + t),
        // vectorised by Eigen.
        const auto e = eb_.array();
        tb_.array() = (-e.abs()).exp();
        r.array() = yb_.array() - (e >= 0.0).select(1.0, tb_.array()) / (1.0 + tb_.array());
        if (hw)
          for (Eigen::Index i = 0; i < m; ++i) r[i] *= d.weights[idx[i]];
        break;
      }
      case GlmFamily::BinomialProbit:
        for (Eigen::Index i = 0; i < m; ++i) {
          const double w = hw ? d.weights[idx[i]] : 1.0;
          const double y = yb_[i], e = eb_[i];
          double ri = 0.0;
          if (y != 0.0) ri += y * inv_mills(e);
          if (y != 1.0) ri -= (1.0 - y) * inv_mills(-e);
          r[i] = w * ri;
        }
        break;
      case GlmFamily::PoissonLog:
        r.array() = yb_.array() - eb_.array().exp();
        if (hw)
          for (Eigen::Index i = 0; i < m; ++i) r[i] *= d.weights[idx[i]];
        break;
    }
  }

  // g = -(N/m) times the sum over the gathered rows of the log-likelihood gradient from the
  // row terms in rb_ (and zb_), in the sampler's coordinates.
  void batch_grad(Eigen::Index m, Vec& g) {
    const GlmData& d = *data_;
    const Eigen::Index k = d.k(), off = intercept_ ? 1 : 0;
    if (g.size() != dim()) g.resize(dim());
    const double f = static_cast<double>(d.n()) / static_cast<double>(m);
    auto gb = g.segment(off, k);
    gb.noalias() = Xb_.transpose() * rb_;
    gb *= -f;
    if (intercept_) {
      g[0] = -f * rb_.sum();
      if (d.has_center()) gb -= g[0] * d.center;
    }
    if (d.has_scale()) gb.array() /= d.scale.array();
    if (has_aux()) g[dim() - 1] = f * zb_.sum();
  }

  // (N^2/m) times the sample variance over the minibatch rows of each coordinate of the
  // per-row log-likelihood gradient (rows in Xb_, d loglik/d eta in rb_, gaussian
  // d/d log sigma in zb_), on the sampler's scale (slopes divided by their scales).
  void row_gradient_variance(Eigen::Index m, Vec& v) {
    const GlmData& d = *data_;
    const Eigen::Index k = d.k(), off = intercept_ ? 1 : 0;
    v.setZero(dim());
    if (m < 2) return;
    const double f = static_cast<double>(d.n()) * static_cast<double>(d.n()) / static_cast<double>(m);
    auto var = [m](auto&& x) {
      const double mu = x.sum() / static_cast<double>(m);
      return (x.array() - mu).square().sum() / static_cast<double>(m - 1);
    };
    if (intercept_) v[0] = f * var(rb_);
    for (Eigen::Index j = 0; j < k; ++j) {
      const double c = d.has_center() ? d.center[j] : 0.0;
      const double sj = d.has_scale() ? d.scale[j] : 1.0;
      v[off + j] = f * var(rb_.cwiseProduct(Xb_.col(j)) - c * rb_) / (sj * sj);
    }
    if (has_aux()) v[dim() - 1] = f * var(zb_);
  }

  void gaussian_statistics() {
    const GlmData& d = *data_;
    const Eigen::Index n = d.n(), k = d.k(), off = intercept_ ? 1 : 0;
    const bool hw = d.has_weights();
    Vec rhs;
    if (d.has_offset()) {
      const Vec y_off = d.y - d.offset;
      weighted_gram(d.weights, &y_off, G_, &rhs);
    } else {
      weighted_gram(d.weights, &d.y, G_, &rhs);
    }
    // Least squares (minimum norm if the design is rank deficient). In the sampler's
    // coordinates every column of Z has spread ~1, so the rank threshold only drops
    // directions that are collinear, never small-scale predictors.
    b_hat_ = Eigen::CompleteOrthogonalDecomposition<Mat>(G_).solve(rhs);
    // SSR by one pass over the data, in the residual form.
    set_beta(b_hat_);
    eta_.noalias() = d.X * beta_;
    if (intercept_) eta_.array() += b_hat_[0] - (d.has_center() ? d.center.dot(beta_) : 0.0);
    if (d.has_offset()) eta_ += d.offset;
    ssr_ = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double e = d.y[i] - eta_[i];
      ssr_ += (hw ? d.weights[i] : 1.0) * e * e;
    }
    q_.resize(off + k);
    Gq_.resize(off + k);
  }

  // G = Z' diag(w) Z for the sampler's coordinates Z = [1, (X - 1c') S^-1] (the 1 column
  // only with an intercept), and with v also rhs = Z' diag(w) v; w of size 0 means unit
  // weights. By blocks of rows, each centred and scaled before the products (see the
  // header: no cancellation, no lost small-scale columns), so the temporaries are B x k.
  template <class V>
  void weighted_gram(const Eigen::Ref<const Vec>& w_all, const V* v, Mat& G, Vec* rhs) const {
    const GlmData& d = *data_;
    const Eigen::Index n = d.n(), k = d.k(), off = intercept_ ? 1 : 0, p = k + off;
    const bool hw = w_all.size() > 0;
    Mat ZtWZ = Mat::Zero(k, k);
    Vec ZtW1 = Vec::Zero(k), ZtWv = Vec::Zero(k);
    double sW = 0.0, sWv = 0.0;
    const Eigen::Index B = 2048;
    Mat zb, wz;
    for (Eigen::Index r0 = 0; r0 < n; r0 += B) {
      const Eigen::Index m = std::min(B, n - r0);
      sampler_rows(r0, m, zb);
      const Vec w = hw ? Vec(w_all.segment(r0, m)) : Vec::Ones(m);  // m values only
      wz = w.asDiagonal() * zb;
      ZtWZ.noalias() += zb.transpose() * wz;
      ZtW1 += wz.colwise().sum().transpose();
      sW += w.sum();
      if (v) {
        ZtWv.noalias() += wz.transpose() * v->segment(r0, m);
        sWv += w.dot(v->segment(r0, m));
      }
    }
    G.setZero(p, p);
    if (intercept_) {
      G(0, 0) = sW;
      G.block(1, 0, k, 1) = ZtW1;
      G.block(0, 1, 1, k) = ZtW1.transpose();
    }
    G.block(off, off, k, k) = 0.5 * (ZtWZ + ZtWZ.transpose());
    if (rhs) {
      rhs->resize(p);
      if (intercept_) (*rhs)[0] = sWv;
      rhs->segment(off, k) = ZtWv;
    }
  }

  // Rows r0..r0+m-1 of (X - 1c') S^-1 into zb (m x k).
  void sampler_rows(Eigen::Index r0, Eigen::Index m, Mat& zb) const {
    const GlmData& d = *data_;
    zb = d.X.middleRows(r0, m);
    if (d.has_center()) zb.rowwise() -= d.center.transpose();
    if (d.has_scale()) zb.array().rowwise() /= d.scale.transpose().array();
  }

  // eta_ = alpha + (X - 1c') beta + offset, one pass over X; needs beta_ (set_beta).
  void linear_predictor(const Vec& theta) {
    const GlmData& d = *data_;
    eta_.noalias() = d.X * beta_;
    if (intercept_) {
      const double shift = d.has_center() ? d.center.dot(beta_) : 0.0;
      eta_.array() += theta[0] - shift;
    }
    if (d.has_offset()) eta_ += d.offset;
  }

  // z_ = -w d^2 log lik / d eta^2 at eta_ (non-gaussian families; all are >= 0).
  void curvature_weights() {
    const GlmData& d = *data_;
    const Eigen::Index n = d.n();
    switch (family_) {
      case GlmFamily::GaussianIdentity:
        break;
      case GlmFamily::BinomialLogit:
        for (Eigen::Index i = 0; i < n; ++i) {
          const double pr = logistic(eta_[i]);
          z_[i] = pr * (1.0 - pr);
        }
        break;
      case GlmFamily::BinomialProbit:
        // d^2/de^2 log Phi(e) = -m(e) (e + m(e)), m the inverse Mills ratio.
        for (Eigen::Index i = 0; i < n; ++i) {
          const double y = d.y[i], e = eta_[i];
          double h = 0.0;
          if (y != 0.0) {
            const double m = inv_mills(e);
            h += y * m * (e + m);
          }
          if (y != 1.0) {
            const double m = inv_mills(-e);
            h += (1.0 - y) * m * (m - e);
          }
          z_[i] = h;
        }
        break;
      case GlmFamily::PoissonLog:
        z_.array() = eta_.array().exp();
        break;
    }
    if (d.has_weights()) z_.array() *= d.weights.array();
  }

  double eval(const Vec& theta, Vec* g) {
    const GlmData& d = *data_;
    const Eigen::Index n = d.n(), k = d.k();
    const Eigen::Index off = intercept_ ? 1 : 0;
    const bool hw = d.has_weights();

    set_beta(theta);
    const bool grad = g != nullptr;
    if (family_ == GlmFamily::GaussianIdentity) return eval_gaussian(theta, g);
    linear_predictor(theta);

    double ll = 0.0;
    switch (family_) {
      case GlmFamily::GaussianIdentity:
        break;  // handled by eval_gaussian
      case GlmFamily::BinomialLogit:
        ll = logit_loglik(grad);
        break;
      case GlmFamily::BinomialProbit:
        // log lik = w (y log Phi(eta) + (1 - y) log Phi(-eta)); terms with a zero factor are
        // skipped so that 0 * (-inf) never appears.
        for (Eigen::Index i = 0; i < n; ++i) {
          const double w = hw ? d.weights[i] : 1.0;
          const double y = d.y[i], e = eta_[i];
          double li = 0.0, ri = 0.0;
          if (y != 0.0) {
            li += y * log_Phi(e);
            if (grad) ri += y * inv_mills(e);
          }
          if (y != 1.0) {
            li += (1.0 - y) * log_Phi(-e);
            if (grad) ri -= (1.0 - y) * inv_mills(-e);
          }
          ll += w * li;
          if (grad) r_[i] = w * ri;
        }
        break;
      case GlmFamily::PoissonLog: {
        // log lik = w (y eta - exp(eta)) (lgamma(y + 1) dropped); d/d eta = w (y - exp(eta)).
        // Array expressions so that Eigen's packet exp is used.
        const auto e = eta_.array();
        r_.array() = d.y.array() - e.exp();
        if (hw) {
          ll = (d.weights.array() * (d.y.array() * e - (d.y.array() - r_.array()))).sum();
          r_.array() *= d.weights.array();
        } else {
          ll = (d.y.array() * e).sum() - (d.y.array() - r_.array()).sum();
        }
        break;
      }
    }

    double u = -ll;
    if (!grad) return u + prior_terms(theta, nullptr);

    // grad U: -X' r for the slopes (second pass over X), -sum r for the intercept.
    Vec& gv = *g;
    auto gb = gv.segment(off, k);
    gb.setZero();
    gb.noalias() -= d.X.transpose() * r_;
    if (intercept_) {
      gv[0] = -r_.sum();
      if (d.has_center()) gb -= gv[0] * d.center;  // + c sum(r)
    }
    if (d.has_scale()) gb.array() /= d.scale.array();
    return u + prior_terms(theta, &gv);
  }

  // Binomial-logit log likelihood at eta_, and r_ = d loglik / d eta when grad:
  // log lik = w (y eta - log(1 + exp(eta))), d/d eta = w (y - inv_logit(eta)). One exp per
  // observation, z = exp(-|eta|), gives both terms: log(1 + exp(eta)) = max(eta, 0) + log1p(z)
  // and inv_logit(eta) = (eta >= 0 ? 1 : z) / (1 + z). Written as array expressions so that
  // Eigen vectorises exp and the division; without weights the log1p terms are summed as
  // logs of products of 64 factors 1 + z in (1, 2] (no overflow below 2^64), one log per 64
  // observations: the absolute error stays ~1e-16 per observation, which is all the
  // Metropolis step and the potential's own summation need. This is the cost of every
  // log-density evaluation of a logistic regression, so it is what surrogate HMC pays per
  // iteration.
  double logit_loglik(bool grad) {
    const GlmData& d = *data_;
    const Eigen::Index n = d.n();
    const bool hw = d.has_weights();
    auto e = eta_.array();
    z_.array() = (-e.abs()).exp();
    double ll;
    if (hw) {
      ll = (d.weights.array() * (d.y.array() * e - e.max(0.0))).sum();
      for (Eigen::Index i = 0; i < n; ++i) ll -= d.weights[i] * std::log1p(z_[i]);
    } else {
      ll = (d.y.array() * e - e.max(0.0)).sum();
      constexpr Eigen::Index B = 64;
      double logs = 0.0;
      for (Eigen::Index i0 = 0; i0 < n; i0 += B) {
        const Eigen::Index m = std::min(B, n - i0);
        logs += std::log((1.0 + z_.segment(i0, m).array()).prod());
      }
      ll -= logs;
    }
    if (grad) {
      r_.array() = d.y.array() - (e >= 0.0).select(1.0, z_.array()) / (1.0 + z_.array());
      if (hw) r_.array() *= d.weights.array();
    }
    return ll;
  }

  // 1/sigma^2 of the gaussian family: the fixed precision, or exp(-2 log sigma).
  double inv_sigma2(const Vec& theta) const {
    return fixed_noise() ? noise_precision_ : std::exp(-2.0 * theta[dim() - 1]);
  }

  // Gaussian: U_lik = SSE / (2 sigma^2) + sum(w) log sigma from the sufficient statistics
  // (the log sigma term is a constant, dropped, when the precision is fixed).
  double eval_gaussian(const Vec& theta, Vec* g) {
    const Eigen::Index p = q_.size();
    q_ = theta.head(p) - b_hat_;
    Gq_.noalias() = G_ * q_;
    const double sse = ssr_ + std::max(0.0, q_.dot(Gq_));
    const double inv_s2 = inv_sigma2(theta);
    const double u = 0.5 * sse * inv_s2 + (has_aux() ? sum_w_ * theta[dim() - 1] : 0.0);
    if (!g) return u + prior_terms(theta, nullptr);
    Vec& gv = *g;
    gv.head(p) = inv_s2 * Gq_;
    if (has_aux()) gv[dim() - 1] = -sse * inv_s2 + sum_w_;
    return u + prior_terms(theta, &gv);
  }

  // Priors on (alpha, beta, sigma) with their gradients, in the sampler's coordinates
  // (d/dtheta_j = d/dbeta_j / s_j), added to *g. Needs beta_ (set_beta).
  double prior_terms(const Vec& theta, Vec* g) {
    const GlmData& d = *data_;
    const Eigen::Index k = d.k(), off = intercept_ ? 1 : 0;
    double u = 0.0;
    if (!g) {
      if (intercept_) u += prior_value(prior_intercept_, theta.segment(0, 1));
      u += prior_value(prior_, beta_);
      if (has_aux()) u += aux_prior_value(prior_aux_, theta[dim() - 1]);
      return u;
    }
    Vec& gv = *g;
    if (intercept_) u += prior_value_add_grad(prior_intercept_, theta.segment(0, 1), gv.segment(0, 1));
    prior_grad_.setZero(k);
    u += prior_value_add_grad(prior_, beta_, prior_grad_);
    if (d.has_scale()) prior_grad_.array() /= d.scale.array();
    gv.segment(off, k) += prior_grad_;
    if (has_aux()) {
      double da = 0.0;
      u += aux_prior_value_grad(prior_aux_, theta[dim() - 1], da);
      gv[dim() - 1] += da;
    }
    return u;
  }
};

}  // namespace vhmc
