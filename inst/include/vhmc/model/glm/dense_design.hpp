#pragma once
// The dense predictor block of the GLM potential: an intercept and slopes on the columns of
// X, the linear predictor's first term.
// The intercept is implicit: X holds the K non-intercept columns (N x K, column-major, R's
// layout; with R's model.matrix the pointer to its column 2 skips the column of ones), and
// eta = alpha + X beta (+ offset, added by the potential). One pass over X for eta, one for
// the gradient -X' r with r = d loglik / d eta.
// Centring (GlmData::center): eta = alpha + (X - 1 c') beta, so alpha is the intercept at the
// predictor means c, where prior_intercept applies (as in rstanarm and brms), and the
// posterior of (alpha, beta) is far less correlated. Without an intercept, only where a
// family's cutpoints take its place (cumulative models, whose cutpoints are then at the
// predictor means, as brms's). X itself is never copied: (X - 1 c') beta = X beta - c'beta,
// and the gradient gains c sum(r).
// Scaling (GlmData::scale): the sampler's coordinates for the slopes are beta_j * s_j (s_j the
// spread of predictor j), so that all coordinates have comparable posterior scales whatever
// the predictors' units; this keeps the early warmup and Stan's metric regularisation (which
// adds a fixed 1e-3-sized variance) from penalising small-scale coefficients.
// A predictor block offers: eta (=), the gradient's scatter, the rows of the design in the
// sampler's coordinates (the Fisher metric's row gather) and the weighted Gram matrix.
#include <algorithm>
#include <memory>

#include "../../base/types.hpp"
#include "glm_data.hpp"
#include "../../base/sparse_columns.hpp"

namespace vhmc {

class DenseDesign {
 public:
  DenseDesign(const GlmData& d, bool intercept, Eigen::Index offset)
      : d_(&d), intercept_(intercept), off_(intercept ? 1 : 0), first_(offset), beta_(d.k()) {}

  Eigen::Index size() const { return off_ + d_->k(); }  // parameters: intercept and slopes
  Eigen::Index first() const { return first_; }           // offset of the block in theta
  Eigen::Index slopes() const { return first_ + off_; }   // offset of the slopes in theta
  bool intercept() const { return intercept_; }
  const GlmData& data() const { return *d_; }

  // The slopes on the data's scale, beta = theta_slopes / s.
  void set_beta(const Vec& theta) {
    if (d_->has_scale()) {
      beta_ = theta.segment(slopes(), d_->k()).cwiseQuotient(d_->scale);
    } else {
      beta_ = theta.segment(slopes(), d_->k());
    }
  }
  const Vec& beta() const { return beta_; }

  // The passes of predictor() and scatter() read the mostly-constant columns from an index
  // of their exceptions (base/sparse_columns.hpp) where that is cheaper. Only the row passes
  // use it; the Gram matrix, the Fisher metric's rows and minibatches read X itself.
  // A column is sparse when at most max_fraction of its rows differ from its majority value;
  // max_fraction = 0 turns the index off.
  void use_sparse_columns(double max_fraction = kSparseFraction) {
    sparse_.reset();
    if (max_fraction <= 0.0) return;
    auto s = std::make_shared<const SparseColumns>(d_->X, max_fraction);
    if (s->pays(d_->n(), d_->k())) sparse_ = std::move(s);
  }
  const SparseColumns* sparse_columns() const { return sparse_.get(); }

  // eta = alpha + (X - 1c') beta, one pass over X; needs set_beta().
  void predictor(const Vec& theta, Vec& eta) const {
    if (sparse_) {
      sparse_->times(d_->X, beta_, eta);
    } else {
      eta.noalias() = d_->X * beta_;
    }
    if (intercept_) {
      eta.array() += theta[first_] - centre_shift();
    } else if (d_->has_center()) {
      eta.array() -= centre_shift();
    }
  }

  // The block's gradient of -sum loglik from r = d loglik / d eta, into g: -Z' r.
  void scatter(const Vec& r, Vec& g) const {
    const Eigen::Index k = d_->k();
    auto gb = g.segment(slopes(), k);
    if (sparse_) {
      sparse_->transpose_times(d_->X, r, gb);
      gb = -gb;
    } else {
      gb.setZero();
      gb.noalias() -= d_->X.transpose() * r;
    }
    if (intercept_) {
      g[first_] = -r.sum();
      if (d_->has_center()) gb -= g[first_] * d_->center;  // + c sum(r)
    } else if (d_->has_center()) {
      gb += r.sum() * d_->center;
    }
    if (d_->has_scale()) gb.array() /= d_->scale.array();
  }

  // Rows r0..r0+m-1 of the design in the sampler's coordinates, Z = [1, (X - 1c') S^-1]
  // (the 1 column only with an intercept), into zb (m x size()).
  void rows(Eigen::Index r0, Eigen::Index m, Mat& zb) const {
    Mat xb;
    sampler_rows(r0, m, xb);
    zb.resize(m, off_ + xb.cols());
    if (intercept_) zb.col(0).setOnes();
    zb.rightCols(xb.cols()) = xb;
  }

  // G = Z' diag(w) Z (w of size 0: unit weights) and with v also rhs = Z' diag(w) v. By
  // blocks of rows, each centred and scaled before the products, so the temporaries are
  // B x k: built from raw cross-products, a predictor shifted by 1e8 loses every digit of its
  // variance to cancellation, and one whose scale is 1e-9 of another's falls below the rank
  // threshold of a least-squares solve.
  template <class V>
  void gram(const Eigen::Ref<const Vec>& w_all, const V* v, Mat& G, Vec* rhs) const;

  // Z' v (v over all rows), by blocks of rows.
  void transpose_times(const Vec& v, Vec& out) const {
    out.setZero(size());
    Mat zb;
    for (Eigen::Index r0 = 0; r0 < d_->n(); r0 += kRowBlock) {
      const Eigen::Index m = std::min(kRowBlock, d_->n() - r0);
      rows(r0, m, zb);
      out.noalias() += zb.transpose() * v.segment(r0, m);
    }
  }

  // Rows idx of the design in the sampler's coordinates (as rows()), into zb (m x size()).
  void rows_at(const int* idx, Eigen::Index m, Mat& zb) const {
    Mat xb;
    gather(idx, m, xb);
    to_sampler(xb);
    zb.resize(m, off_ + xb.cols());
    if (intercept_) zb.col(0).setOnes();
    zb.rightCols(xb.cols()) = xb;
  }

  // Rows idx of X into Xb (m x k) for a minibatch.
  void gather(const int* idx, Eigen::Index m, Mat& Xb) const {
    const Eigen::Index k = d_->k();
    if (Xb.rows() != m || Xb.cols() != k) Xb.resize(m, k);
    for (Eigen::Index j = 0; j < k; ++j) {
      const double* col = d_->X.data() + j * d_->n();
      double* out = Xb.data() + j * m;
      for (Eigen::Index i = 0; i < m; ++i) out[i] = col[idx[i]];
    }
  }
  // eta of gathered rows (without offset); needs set_beta().
  void batch_predictor(const Vec& theta, const Mat& Xb, Vec& eta) const {
    eta.noalias() = Xb * beta_;
    if (intercept_) {
      eta.array() += theta[first_] - (d_->has_center() ? d_->center.dot(beta_) : 0.0);
    } else if (d_->has_center()) {
      eta.array() -= d_->center.dot(beta_);
    }
  }
  // g's block = -f Z_b' r for gathered rows Xb.
  void batch_scatter(const Mat& Xb, const Vec& r, double f, Vec& g) const {
    auto gb = g.segment(slopes(), d_->k());
    gb.noalias() = Xb.transpose() * r;
    gb *= -f;
    if (intercept_) {
      g[first_] = -f * r.sum();
      if (d_->has_center()) gb -= g[first_] * d_->center;
    } else if (d_->has_center()) {
      gb += f * r.sum() * d_->center;
    }
    if (d_->has_scale()) gb.array() /= d_->scale.array();
  }
  // (N^2/m) times the sample variance over the gathered rows of each coordinate's per-row
  // log-likelihood gradient (r: d loglik / d eta), on the sampler's scale, into v's block.
  void batch_variance(const Mat& Xb, const Vec& r, double f, Vec& v) const;

  static constexpr Eigen::Index kRowBlock = 2048;

 private:
  double centre_shift() const { return d_->has_center() ? d_->center.dot(beta_) : 0.0; }

  // Rows r0..r0+m-1 of (X - 1c') S^-1 into zb (m x k).
  void sampler_rows(Eigen::Index r0, Eigen::Index m, Mat& zb) const {
    zb = d_->X.middleRows(r0, m);
    to_sampler(zb);
  }
  // Rows of X to the sampler's coordinates, (x - c) / s.
  void to_sampler(Mat& zb) const {
    if (d_->has_center()) zb.rowwise() -= d_->center.transpose();
    if (d_->has_scale()) zb.array().rowwise() /= d_->scale.transpose().array();
  }

  const GlmData* d_;
  bool intercept_;
  Eigen::Index off_, first_;
  Vec beta_;
  std::shared_ptr<const SparseColumns> sparse_;  // shared by copies (glm/gaussian_stats.hpp)
};

template <class V>
void DenseDesign::gram(const Eigen::Ref<const Vec>& w_all, const V* v, Mat& G, Vec* rhs) const {
  const Eigen::Index n = d_->n(), k = d_->k(), p = size();
  const bool hw = w_all.size() > 0;
  Mat ZtWZ = Mat::Zero(k, k);
  Vec ZtW1 = Vec::Zero(k), ZtWv = Vec::Zero(k);
  double sW = 0.0, sWv = 0.0;
  Mat zb, wz;
  for (Eigen::Index r0 = 0; r0 < n; r0 += kRowBlock) {
    const Eigen::Index m = std::min(kRowBlock, n - r0);
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
  G.block(off_, off_, k, k) = 0.5 * (ZtWZ + ZtWZ.transpose());
  if (rhs) {
    rhs->resize(p);
    if (intercept_) (*rhs)[0] = sWv;
    rhs->segment(off_, k) = ZtWv;
  }
}

inline void DenseDesign::batch_variance(const Mat& Xb, const Vec& r, double f, Vec& v) const {
  const Eigen::Index k = d_->k(), m = Xb.rows();
  auto var = [m](auto&& x) {
    const double mu = x.sum() / static_cast<double>(m);
    return (x.array() - mu).square().sum() / static_cast<double>(m - 1);
  };
  if (intercept_) v[first_] = f * var(r);
  for (Eigen::Index j = 0; j < k; ++j) {
    const double c = d_->has_center() ? d_->center[j] : 0.0;
    const double sj = d_->has_scale() ? d_->scale[j] : 1.0;
    v[slopes() + j] = f * var(r.cwiseProduct(Xb.col(j)) - c * r) / (sj * sj);
  }
}

}  // namespace vhmc
