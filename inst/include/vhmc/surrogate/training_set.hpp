#pragma once
// Training points for a surrogate: every (theta, U, grad U) the true potential computes while
// recording is on -- all leapfrog states of the exploration phase, accepted or not, since
// they cost nothing extra (Zhang, Shahbaba & Zhao 2017, Algorithm 1). Memory is capped: beyond `capacity` points a reservoir
// sample is kept (each point seen so far equally likely), drawn from its own stream, which
// its owner hands it (draw_from(); a chain's from the chain loop's streams, at its start).
#include <cmath>

#include "../base/rng.hpp"
#include "../base/types.hpp"

namespace vhmc {

class TrainingSet {
 public:
  TrainingSet(int d, long capacity) : capacity_(capacity), theta_(0, d), grad_(0, d) {}
  void draw_from(Rng rng) { rng_ = rng; }  // the reservoir sample's stream

  void add(const Vec& theta, double U, const Vec& g) {
    if (!std::isfinite(U) || !g.allFinite()) return;
    ++seen_;
    long slot = size_;
    if (size_ < capacity_) {
      if (size_ == theta_.rows()) grow();
      ++size_;
    } else {
      slot = static_cast<long>(rng_.below(static_cast<std::uint64_t>(seen_)));
      if (slot >= capacity_) return;
    }
    theta_.row(slot) = theta.transpose();
    grad_.row(slot) = g.transpose();
    U_[slot] = U;
  }

  long size() const { return size_; }
  long seen() const { return seen_; }
  // Views of the stored points (rows 0..size-1).
  auto theta() const { return theta_.topRows(size_); }
  auto grad() const { return grad_.topRows(size_); }
  auto U() const { return U_.head(size_); }

 private:
  void grow() {
    const long rows = std::min(capacity_, std::max<long>(1024, 2 * theta_.rows()));
    theta_.conservativeResize(rows, Eigen::NoChange);
    grad_.conservativeResize(rows, Eigen::NoChange);
    U_.conservativeResize(rows);
  }

  long capacity_;
  Rng rng_;
  long size_ = 0, seen_ = 0;
  Mat theta_, grad_;
  Vec U_;
};

// A potential that also records its gradient evaluations into a TrainingSet while enabled.
template <class P>
class RecordingPotential {
 public:
  RecordingPotential(P& p, TrainingSet& set) : p_(p), set_(set) {}
  int dim() const { return p_.dim(); }
  double U(const Vec& theta) { return p_.U(theta); }
  double U_grad(const Vec& theta, Vec& g) {
    const double u = p_.U_grad(theta, g);
    if (recording_) set_.add(theta, u, g);
    return u;
  }
  void record(bool on) { recording_ = on; }
  P& inner() { return p_; }

 private:
  P& p_;
  TrainingSet& set_;
  bool recording_ = false;
};

}  // namespace vhmc
