#pragma once
// The random streams of one chain. The chain loop (run_chain.hpp) alone seeds them, from
// the run's seed and the chain's id, and hands them out: the main stream to every
// transition and phase, the others to the chain at its start. A sampler whose draws must not
// shift the main stream's numbers (a surrogate's random bases, the reservoir sample of its
// training set) asks for a stream of its own by a family id: the stream id is family + chain,
// so chains never share a stream, and each family's numbers do not depend on how many the
// others took. The main stream is family 0.
#include <cstdint>

#include "../base/rng.hpp"

namespace vhmc {

class ChainStreams {
 public:
  ChainStreams(std::uint64_t seed, int chain) : seed_(seed), chain_(chain), main_(stream(0)) {}
  Rng& main() { return main_; }
  // The stream of a family, from its start (the same numbers every time it is asked for).
  Rng stream(std::uint64_t family) const { return Rng(seed_, family + static_cast<std::uint64_t>(chain_)); }

 private:
  std::uint64_t seed_;
  int chain_;
  Rng main_;
};

}  // namespace vhmc
