#pragma once
// The wall clock of one chain (steady clock), kept by the chain loop (run_chain.hpp): it
// splits the chain's time into warmup and sampling, and it is the clock every phase reads
// (Phase::seconds()) when it measures what an iteration costs, so that no sampler keeps a
// clock of its own.
#include <chrono>

#include "chain_output.hpp"

namespace vhmc {

class ChainClock {
 public:
  using clock = std::chrono::steady_clock;
  ChainClock() : start_(clock::now()), warm_end_(start_) {}
  // Seconds since the chain started; a phase measures a stretch as a difference of two.
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  void close_warmup() { warm_end_ = clock::now(); }
  void finish(ChainOutput& out) const {
    const auto end = clock::now();
    out.warmup_seconds = std::chrono::duration<double>(warm_end_ - start_).count();
    out.sampling_seconds = std::chrono::duration<double>(end - warm_end_).count();
  }

 private:
  clock::time_point start_, warm_end_;
};

}  // namespace vhmc
