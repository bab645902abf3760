#pragma once
// The fast path of the gaussian family with one dense predictor block: its log likelihood
// depends on the data only through the weighted Gram matrix G of the design in the sampler's
// coordinates, Z = [1, (X - 1c') S^-1] (S the predictor scales), and the least-squares fit
// (b_hat, SSR), computed once; then SSE(b) = SSR + (b - b_hat)' G (b - b_hat) costs O(p^2)
// per gradient instead of O(n p), and the residual form has no cancellation (rstanarm does
// the same). G is formed from centred, scaled rows (DenseDesign::gram): in these coordinates
// every column of Z has spread ~1, so the rank threshold of the least-squares solve only
// drops directions that are collinear, never small-scale predictors (b_hat then is the
// minimiser and SSE(b) above is exact).
// U_lik = SSE / (2 sigma^2) + sum(w) log sigma (the log sigma term is dropped when the
// precision is fixed).
#include <algorithm>

#include <Eigen/QR>

#include "../../base/types.hpp"
#include "dense_design.hpp"

namespace vhmc {

class GaussianStats {
 public:
  explicit GaussianStats(const DenseDesign& design) {
    const GlmData& d = design.data();
    Vec rhs;
    if (d.has_offset()) {
      const Vec y_off = d.y - d.offset;
      design.gram(d.weights, &y_off, G_, &rhs);
    } else {
      design.gram(d.weights, &d.y, G_, &rhs);
    }
    // Least squares (minimum norm if the design is rank deficient).
    b_hat_ = Eigen::CompleteOrthogonalDecomposition<Mat>(G_).solve(rhs);
    ssr_ = residual_sum_of_squares(design, d);
    q_.resize(b_hat_.size());
    Gq_.resize(b_hat_.size());
  }

  const Vec& b_hat() const { return b_hat_; }

  // U_lik at the block's values b = theta.head(p) (the dense block comes first) with 1/sigma^2
  // inv_s2; with g, its gradient in the block and, with aux >= 0, in theta[aux] = log sigma.
  double eval(const Vec& theta, double inv_s2, double sum_w, Eigen::Index aux, Vec* g) {
    const Eigen::Index p = q_.size();
    q_ = theta.head(p) - b_hat_;
    Gq_.noalias() = G_ * q_;
    const double sse = ssr_ + std::max(0.0, q_.dot(Gq_));
    const double u = 0.5 * sse * inv_s2 + (aux >= 0 ? sum_w * theta[aux] : 0.0);
    if (!g) return u;
    g->head(p) = inv_s2 * Gq_;
    if (aux >= 0) (*g)[aux] = -sse * inv_s2 + sum_w;
    return u;
  }

  // The likelihood's Hessian at theta into H (zeroed by the caller), with the log sigma row
  // and column when aux >= 0.
  void hessian(const Vec& theta, double inv_s2, Eigen::Index aux, Mat& H) {
    const Eigen::Index p = q_.size();
    q_ = theta.head(p) - b_hat_;
    Gq_.noalias() = G_ * q_;
    const double sse = ssr_ + std::max(0.0, q_.dot(Gq_));
    H.topLeftCorner(p, p) = inv_s2 * G_;
    if (aux >= 0) {
      H.block(0, aux, p, 1) = -2.0 * inv_s2 * Gq_;
      H.block(aux, 0, 1, p) = H.block(0, aux, p, 1).transpose();
      H(aux, aux) = 2.0 * sse * inv_s2;
    }
  }

 private:
  // SSR at b_hat by one pass over the data, in the residual form.
  double residual_sum_of_squares(const DenseDesign& design, const GlmData& d) {
    DenseDesign at_hat = design;
    at_hat.set_beta(b_hat_);
    Vec eta(d.n());
    at_hat.predictor(b_hat_, eta);
    if (d.has_offset()) eta += d.offset;
    double ssr = 0.0;
    for (Eigen::Index i = 0; i < d.n(); ++i) {
      const double e = d.y[i] - eta[i];
      ssr += (d.has_weights() ? d.weights[i] : 1.0) * e * e;
    }
    return ssr;
  }

  Mat G_;
  Vec b_hat_, q_, Gq_;
  double ssr_ = 0.0;
};

}  // namespace vhmc
