#pragma once
// The (draw, gradient) pairs of the current adaptation window, kept whole because the
// low-rank estimator (adapt/fisher_low_rank.hpp) needs their leading directions, not only
// running moments. Memory is 2 d n doubles for a window of n pairs.
#include <vector>

#include "../base/types.hpp"

namespace vhmc {

class DrawGradBuffer {
 public:
  explicit DrawGradBuffer(int d = 0) : d_(d) {}
  void add(const Vec& theta, const Vec& grad_u) {
    draws_.push_back(theta);
    grads_.push_back(grad_u);
  }
  void reset() {
    draws_.clear();
    grads_.clear();
  }
  long n() const { return static_cast<long>(draws_.size()); }
  int dim() const { return d_; }
  // d x n matrices, one column a pair (built on demand: only at a metric update).
  Mat draws() const { return stack(draws_); }
  Mat grads() const { return stack(grads_); }

 private:
  Mat stack(const std::vector<Vec>& cols) const {
    Mat m(d_, static_cast<Eigen::Index>(cols.size()));
    for (std::size_t j = 0; j < cols.size(); ++j) m.col(static_cast<Eigen::Index>(j)) = cols[j];
    return m;
  }
  int d_;
  std::vector<Vec> draws_, grads_;
};

}  // namespace vhmc
