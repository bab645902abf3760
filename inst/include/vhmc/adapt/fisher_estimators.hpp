#pragma once
// The draw/gradient estimator behind each metric in the Fisher adaptation
// (adapt/fisher_adaptation.hpp), with one interface: add a (draw, gradient) pair, switch
// windows, update the metric from the foreground window. Each keeps two windows
// (adapt/switching_estimator.hpp).
//  * diag: running moments, sigma_i^2 = sqrt(var(x_i) / var(g_i)), O(d) per pair, so the
//    metric is re-estimated after every iteration (adapt/draw_grad_diag.hpp);
//  * low_rank: the window's pairs, diagonal plus the leading eigen-directions of the
//    Fisher-optimal covariance (adapt/fisher_low_rank.hpp), O(d n^2 + r^3) per estimate
//    (r = min(d, 2n)), hence re-estimated at every switch and every
//    low_rank_update_every(d) iterations between;
//  * dense: the same estimate with every eigen-direction kept (cutoff 1, rank up to d),
//    stored as a dense matrix: the Fisher-optimal covariance within the span of the window.
// metric_diagonal() reads the diagonal of any inverse metric (for reports);
// set_metric_diagonal() starts a metric from a diagonal; metric_snapshot() is what the
// convergence test (adapt/warmup_convergence.hpp) compares between window switches: the
// whole inverse metric where every entry is adapted (dense), else its diagonal (a low-rank
// metric's correction spans at most max_rank of the d directions).
#include <algorithm>

#include "../metric/low_rank_metric.hpp"
#include "../metric/metrics.hpp"
#include "draw_grad_buffer.hpp"
#include "draw_grad_diag.hpp"
#include "switching_estimator.hpp"

namespace vhmc {

inline Vec metric_diagonal(const UnitMetric& m) { return m.inv_metric_diag(); }
inline Vec metric_diagonal(const DiagMetric& m) { return m.w(); }
inline Vec metric_diagonal(const DenseMetric& m) { return m.W().diagonal(); }
inline Vec metric_diagonal(const LowRankMetric& m) { return m.inv_metric_diag(); }

template <class M>
Vec metric_snapshot(const M& m) {
  return metric_diagonal(m);
}
inline Mat metric_snapshot(const DenseMetric& m) { return m.W(); }

inline void set_metric_diagonal(UnitMetric&, const Vec&) {}
inline void set_metric_diagonal(DiagMetric& m, const Vec& w) { m.set_w(w); }
inline void set_metric_diagonal(DenseMetric& m, const Vec& w) { m.set_W(w.asDiagonal()); }
inline void set_metric_diagonal(LowRankMetric& m, const Vec& w) { m.set_w(w); }

// Template argument E: the per-window estimator (DrawGradDiag or DrawGradBuffer).
template <class E>
class WindowedPairs {
 public:
  explicit WindowedPairs(int d) : est_(d) {}
  void add(const Vec& theta, const Vec& grad_u) { est_.add(theta, grad_u); }
  void switch_window() { est_.switch_window(); }
  long foreground() const { return est_.foreground_count(); }
  long background() const { return est_.background_count(); }
  void release() { est_.release(); }

 protected:
  SwitchingEstimator<E> est_;
};

class DiagFisher : public WindowedPairs<DrawGradDiag> {
 public:
  static constexpr bool adapts = true;
  DiagFisher(int d, int) : WindowedPairs(d) {}
  int update_every() const { return 1; }
  void set_base(const DiagMetric&) {}
  void update(DiagMetric& m) const { m.set_w(est_.foreground().inv_metric(m.w())); }
  void refresh(DiagMetric&) const {}  // every iteration is an update
};

// Iterations between low-rank estimates within a window: 10 up to d = 100 (where the
// schedule was tuned), then growing as (d / 100)^2, since an estimate's r x r
// eigendecompositions grow as d^3 while an iteration's gradients grow about as d. At d in
// the hundreds every 10 iterations was most of the warmup: brms's inhaler model (d = 294)
// took about 40 ms per estimate against 0.6 ms per NUTS iteration, and two of four chains
// spent 1.6 s in warmup; at every 86 they spent 0.4 s, with the same min ESS over 3 seeds.
// Dense metrics keep 10 (their estimate is the metric itself).
inline int low_rank_update_every(int d) {
  const long every = static_cast<long>(d) * d / 1000;  // 10 (d / 100)^2
  return static_cast<int>(std::min(std::max(every, 10L), 1000000L));
}

// A dense metric that starts from a Laplace covariance S = L L' (the mode's curvature) is
// adapted in the coordinates S whitens, x = L^{-1} theta (gradients L' g): there the
// window's Fisher-optimal covariance replaces the identity only within the span of the
// window's pairs, and S stands in every direction the window has not explored. Without
// this, a window of n < d pairs (d = 118: a9a's full design) replaced S by a diagonal outside
// its span and undid the correlations the mode had measured exactly, and NUTS's trees grew
// to their 1023-step cap.
template <class M>
class BufferFisher : public WindowedPairs<DrawGradBuffer> {
 public:
  static constexpr bool adapts = true;
  BufferFisher(int d, int max_rank)
      : WindowedPairs(d), every_(std::is_same<M, DenseMetric>::value ? 10 : low_rank_update_every(d)) {
    if (std::is_same<M, DenseMetric>::value) {
      cfg_.cutoff = 1.0;
      cfg_.max_rank = d;
    } else {
      cfg_.max_rank = max_rank;
    }
  }
  // The initial metric as the base of the estimate (dense metrics only; before any pair).
  void set_base(const M& m) {
    if constexpr (std::is_same<M, DenseMetric>::value) {
      L_ = m.W().llt().matrixL();
      whitened_ = true;
    }
  }
  void add(const Vec& theta, const Vec& grad_u) {
    if (!whitened_) return est_.add(theta, grad_u);
    est_.add(L_.triangularView<Eigen::Lower>().solve(theta), L_.transpose() * grad_u);
  }
  int update_every() const { return every_; }
  void update(M& m) const {
    if constexpr (std::is_same<M, DenseMetric>::value) {
      if (whitened_) {
        const int d = static_cast<int>(L_.rows());
        const Mat Wx = LowRankMetric(fisher_low_rank(est_.foreground(), Vec::Ones(d), cfg_, &work_)).inv_metric_dense();
        m.set_W(L_ * Wx * L_.transpose());
        return;
      }
    }
    const LowRankFactors f = fisher_low_rank(est_.foreground(), metric_diagonal(m), cfg_, &work_);
    if constexpr (std::is_same<M, DenseMetric>::value) {
      m.set_W(LowRankMetric(f).inv_metric_dense());
    } else {
      m.set(f);
    }
  }
  // Between estimates. A low-rank metric whose last estimate kept no direction is the
  // diagonal metric, and takes the window's diagonal after every iteration as DiagFisher
  // does (O(d); the estimates' schedule exists for their eigendecompositions). Without it a
  // model of many levels, whose estimates come every window switch only (every_ grows as
  // d^2), kept an early window's diagonal for hundreds of iterations: 20,000 levels of a
  // binomial (1 | g) gave step sizes of 0.11 against the diagonal metric's 0.21-0.30, and at
  // 50,000 one chain's fell to 0.003.
  void refresh(M& m) const {
    if constexpr (std::is_same<M, LowRankMetric>::value) {
      if (m.rank() == 0) m.set_w(est_.foreground().moments().inv_metric(m.inv_metric_diag(), cfg_.clamp));
    }
  }
  // After the warmup: the windows' pairs and the estimates' scratch are freed.
  void release() {
    WindowedPairs::release();
    work_.z.resize(0, 0);
    work_.q.resize(0, 0);
  }

 private:
  int every_;  // iterations between estimates within a window
  LowRankConfig cfg_;
  mutable LowRankWork work_;  // the estimates' scratch, reused all warmup
  Mat L_;
  bool whitened_ = false;
};

// The unit metric is never adapted; only the step size is.
class NoFisher {
 public:
  static constexpr bool adapts = false;
  NoFisher(int, int) {}
  int update_every() const { return 1; }
  void set_base(const UnitMetric&) {}
  void add(const Vec&, const Vec&) {}
  void switch_window() {}
  long foreground() const { return 0; }
  long background() const { return 0; }
  void update(UnitMetric&) const {}
  void refresh(UnitMetric&) const {}
  void release() {}
};

template <class M>
struct FisherFor;
template <>
struct FisherFor<UnitMetric> {
  using type = NoFisher;
};
template <>
struct FisherFor<DiagMetric> {
  using type = DiagFisher;
};
template <>
struct FisherFor<DenseMetric> {
  using type = BufferFisher<DenseMetric>;
};
template <>
struct FisherFor<LowRankMetric> {
  using type = BufferFisher<LowRankMetric>;
};

}  // namespace vhmc
