#pragma once
// A phase of a chain: a stretch of iterations during which something watches the
// transitions and may change the kernel between them (adapt its step size and metric,
// collect training points, tune a trajectory length, update a surrogate). A sampler is a
// kernel plus the sequence of its warmup phases; the loop (run_chain.hpp) drives them all
// the same way:
//   start()      before the phase's first iteration (even when it has none),
//   before(t)    before the transition of its t-th iteration,
//   observe(t)   after that transition, with its statistics,
//   saved(row)   (sampling) after the draw of this iteration was saved in `row`,
//   done()       before each iteration of a warmup phase: true ends the phase early (an
//                automatic warmup that converged, an exploration with enough training
//                points), and with it the warmup iterations it would still have taken,
//   finish()     after its last iteration (even when it had none),
//   release()    (warmup phases) after the whole warmup, before the first sampling
//                iteration: free what only the warmup needed (a phase is not run again),
//   report()     after the chain, the named values the phase measured or chose (only a
//                phase that started reports: one a failed chain never reached has nothing).
// The loop also hands every phase its clock before start(): a phase that measures what its
// iterations cost reads seconds() (the chain's clock), never a clock of its own.
#include <vector>

#include "../base/report.hpp"
#include "../base/rng.hpp"
#include "../sampler/transition.hpp"
#include "chain_clock.hpp"

namespace vhmc {

class Phase {
 public:
  virtual ~Phase() = default;
  virtual const char* label() const { return "warmup"; }  // for progress messages
  virtual void start(Rng&) {}
  virtual void before(int, Rng&) {}
  virtual void observe(int, const TransitionInfo&, Rng&) {}
  virtual void saved(int) {}
  virtual bool done() const { return false; }
  virtual void finish(Rng&) {}
  virtual void release() {}
  virtual void report(Report&) const {}

  // Called by the chain loop (and by a phase that drives another inside it) before start().
  void use_clock(const ChainClock& clock) { clock_ = &clock; }

 protected:
  // Seconds since the chain started, by the chain's clock (0 for a phase run outside a chain).
  double seconds() const { return clock_ ? clock_->seconds() : 0.0; }
  const ChainClock* clock() const { return clock_; }

 private:
  const ChainClock* clock_ = nullptr;
};

// The sampling iterations when nothing watches them.
class SamplingPhase : public Phase {
 public:
  const char* label() const override { return "sampling"; }
};

struct PhasePlan {
  Phase* phase;
  int iterations;
};

// The warmup phases in order (their iterations add up to the run's warmup) and the phase
// that watches sampling (nullptr: nothing does).
struct Schedule {
  std::vector<PhasePlan> warmup;
  Phase* sampling = nullptr;
};

}  // namespace vhmc
