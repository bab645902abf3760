#pragma once
// The (draw, gradient) pairs of the current adaptation window, kept whole because the
// low-rank estimator (adapt/fisher_low_rank.hpp) needs their leading directions, not only
// running moments. Memory is 2 d m doubles for m stored pairs.
//
// At most `capacity` pairs (pair_capacity(d) by default) are stored. A window that offers
// more is thinned to every other stored pair, and from then on every offered pair at the
// new stride is stored (a deterministic systematic subsample of the window, evenly spread over it). Why:
// a multilevel model of 100,000 levels has d ~ 1e5, and a window of 500 pairs would hold
// 800 MB per chain (twice: adapt/switching_estimator.hpp keeps two windows), plus the
// estimate's d x 2m work matrices; its O(d m^2) cost grew the same way. The capacity,
// pair_capacity(d), keeps each matrix under pair_budget doubles, so it binds only where d
// times the window is large (d above 4,000 at the default warmup's windows of up to 512
// pairs): smaller models store every pair, as before. The estimate's diagonal does not
// rest on the subsample: the window's running moments over EVERY offered pair (moments())
// give it when the window was thinned; the stored pairs give the low-rank directions,
// which need only a few times max_rank pairs.
#include <algorithm>

#include "../base/types.hpp"
#include "draw_grad_diag.hpp"

namespace vhmc {

constexpr long pair_budget = 1L << 21;  // doubles per stored matrix (16 MiB)
constexpr long min_pair_capacity = 16;   // stored pairs, whatever d

// Columns to reserve for `cols` when `have` are reserved: doubling, capped at `most` (a
// window's storage and an estimate's scratch grow a few times, then never move).
inline long grown_columns(long have, long cols, long most) {
  return std::min(most, std::max(cols, 2 * have));
}

inline long pair_capacity(int d) {
  return std::max(min_pair_capacity, pair_budget / std::max(d, 1));
}

class DrawGradBuffer {
 public:
  explicit DrawGradBuffer(int d = 0) : DrawGradBuffer(d, pair_capacity(d)) {}
  DrawGradBuffer(int d, long capacity) : d_(d), capacity_(std::max(capacity, 2L)), moments_(d) {}

  void add(const Vec& theta, const Vec& grad_u) {
    moments_.add(theta, grad_u);
    if (offered_++ % stride_ != 0) return;
    reserve(m_ + 1);
    draws_.col(m_) = theta;
    grads_.col(m_) = grad_u;
    if (++m_ > capacity_) thin();
  }
  // Keeps the storage: a chain's windows reuse the same two matrices all warmup long.
  void reset() {
    m_ = 0;
    moments_.reset();
    offered_ = 0;
    stride_ = 1;
  }
  long n() const { return offered_; }  // pairs offered in this window
  long stored() const { return m_; }
  bool thinned() const { return stride_ > 1; }
  int dim() const { return d_; }
  long capacity() const { return capacity_; }
  // Running moments of every offered pair (the diagonal of a thinned window).
  const DrawGradDiag& moments() const { return moments_; }
  // The stored pairs as one d x 2m matrix [draws grads], one column a draw or a gradient,
  // written into z (d x 2m; pairs() allocates it).
  void pairs_into(Eigen::Ref<Mat> z) const {
    z.leftCols(m_) = draws_.leftCols(m_);
    z.rightCols(m_) = grads_.leftCols(m_);
  }
  Mat pairs() const {
    Mat z(d_, 2 * m_);
    pairs_into(z);
    return z;
  }

 private:
  // Storage grows by doubling up to capacity + 1 columns (the pair that triggers a thinning),
  // then never moves: no allocation per pair or per window in a long warmup, which at a
  // hundred thousand parameters (800 KB a column) left the threads' malloc arenas
  // fragmented.
  void reserve(long cols) {
    if (cols <= draws_.cols()) return;
    const long grown = grown_columns(static_cast<long>(draws_.cols()), cols, capacity_ + 1);
    draws_.conservativeResize(d_, grown);
    grads_.conservativeResize(d_, grown);
  }
  // Keep the stored pairs at even positions (offered indices 0, 2s, 4s, ...); the stride
  // doubles, so later pairs continue the same systematic subsample.
  void thin() {
    long k = 0;
    for (long j = 0; j < m_; j += 2, ++k) {
      if (k != j) {
        draws_.col(k) = draws_.col(j);
        grads_.col(k) = grads_.col(j);
      }
    }
    m_ = k;
    stride_ *= 2;
  }
  int d_;
  long capacity_;
  long offered_ = 0, stride_ = 1, m_ = 0;
  Mat draws_, grads_;  // d x (columns reserved); the first m_ columns are the stored pairs
  DrawGradDiag moments_;
};

}  // namespace vhmc
