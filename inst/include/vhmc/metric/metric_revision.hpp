#pragma once
// A stamp that names a metric's content: every change of a metric takes a fresh one from a
// process-wide counter, and a copy keeps its original's. Two metrics with the same stamp are
// the same metric, so what is derived from one (the split leapfrog's W Z' and Q = Z W Z',
// integrator/split_leapfrog.hpp: O(n d^2 + n^2 d) for n stiff rows, about as much as the
// rest of a transition on a9a's full design) is recomputed only when warmup changed it,
// not at every transition.
#include <atomic>
#include <cstdint>

namespace vhmc {

class MetricRevision {
 public:
  std::uint64_t revision() const { return revision_; }

 protected:
  MetricRevision() { touch(); }
  void touch() { revision_ = next().fetch_add(1, std::memory_order_relaxed) + 1; }

 private:
  static std::atomic<std::uint64_t>& next() {
    static std::atomic<std::uint64_t> counter{0};
    return counter;
  }
  std::uint64_t revision_ = 0;
};

}  // namespace vhmc
