#pragma once
// The one loop of every chain, for every sampler (as Stan's generate_transitions is for
// its samplers): seeding, interrupts, timing, thinning, saving, progress, counters and
// error capture live here and nowhere else. A sampler hands it a Chain (its kernel and
// state) and a Schedule (its warmup phases and the phase watching sampling); see phase.hpp.
// The loop hands out the random streams (chain_streams.hpp: the main one to every
// transition and phase) and the clock (chain_clock.hpp: to every phase before its start).
// A Chain provides
//   int dim() const;
//   void start(Rng&);                      // initial state; throws if it cannot be evaluated
//     or void start(ChainStreams&);        // ... for a chain that also draws from streams of
//                                          //     its own (given here, with the main one)
//   TransitionInfo transition(Rng&);       // one transition of the current kernel
//   const Vec& position() const;           // the state's parameters, as saved
//   EvalCounts counts() const;             // evaluations so far
//   unsigned columns() const;              // the diagnostic columns its transitions fill
//   void adaptation(Report&) const;        // final step size and inverse metric
// Errors inside the chain end it with a message instead of an exception, so that the host
// can report them; an IterationError's message gets the iteration where it happened.
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../base/free_memory.hpp"
#include "chain_clock.hpp"
#include "chain_output.hpp"
#include "chain_streams.hpp"
#include "phase.hpp"

namespace vhmc {

// An error of one transition; "{where}" in its message becomes "at iteration i (phase)".
class IterationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

struct Interrupted {};
struct BudgetSpent {};

// Polls the host for Ctrl-C at most every 50 ms of wall time (and at the first
// iteration), so that an expensive iteration is never waited for more than once and a
// cheap one costs no more than a clock read.
class InterruptPoll {
 public:
  explicit InterruptPoll(Callbacks& cb) : cb_(cb) {}
  void check() {
    const auto now = std::chrono::steady_clock::now();
    if (polled_ && now - last_ < std::chrono::milliseconds(50)) return;
    polled_ = true;
    last_ = now;
    if (cb_.interrupted()) throw Interrupted{};
  }

 private:
  Callbacks& cb_;
  bool polled_ = false;
  std::chrono::steady_clock::time_point last_;
};

// "Chain c: iteration i / n [p%] (label)" after the first iteration (the chain has started),
// every cfg.refresh iterations, at the end, and whenever cfg.refresh_seconds have passed
// since the last line; n is the chain's total, which shrinks when an automatic warmup ends
// early. Silent when cfg.refresh is 0.
class ProgressLog {
 public:
  ProgressLog(const ChainConfig& cfg, Callbacks& cb)
      : cfg_(cfg), cb_(cb), last_(std::chrono::steady_clock::now()) {}
  void iteration(int i, int total, const char* label) {
    if (cfg_.refresh <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    const bool timed = cfg_.refresh_seconds > 0 &&
                       std::chrono::duration<double>(now - last_).count() >= cfg_.refresh_seconds;
    if (i != 0 && (i + 1) % cfg_.refresh != 0 && i + 1 != total && !timed) return;
    last_ = now;
    char buf[160];
    std::snprintf(buf, sizeof(buf), "Chain %d: iteration %*d / %d [%3d%%] (%s)\n", cfg_.chain,
                  static_cast<int>(std::to_string(total).size()), i + 1, total,
                  static_cast<int>(100.0 * (i + 1) / total), label);
    cb_.log(buf);
  }

 private:
  const ChainConfig& cfg_;
  Callbacks& cb_;
  std::chrono::steady_clock::time_point last_;
};

inline std::string where_message(const std::string& what, int i, const char* label) {
  const std::string where = "at iteration " + std::to_string(i + 1) + " (" + label + ")";
  const auto pos = what.find("{where}");
  return pos == std::string::npos ? what + " " + where : what.substr(0, pos) + where + what.substr(pos + 7);
}

// Whether a chain takes its streams at start (start(ChainStreams&)), else the main one.
template <class Chain, class = void>
struct TakesStreams : std::false_type {};
template <class Chain>
struct TakesStreams<Chain, std::void_t<decltype(std::declval<Chain&>().start(std::declval<ChainStreams&>()))>>
    : std::true_type {};

template <class Chain>
void start_chain(Chain& chain, ChainStreams& streams) {
  if constexpr (TakesStreams<Chain>::value) {
    chain.start(streams);
  } else {
    chain.start(streams.main());
  }
}

// The iterations of one phase; sampling phases save every thin-th draw into out.
struct PhaseRunner {
  const ChainConfig& cfg;
  Callbacks& cb;
  const ChainClock& clock;
  InterruptPoll& poll;
  ProgressLog& progress;
  ChainOutput& out;
  int i = 0;      // iterations done so far in the chain
  int saved = 0;  // draws saved so far
  int total;      // iterations the chain will take
  std::vector<Phase*> started;  // phases whose start() ran: only they report

  template <class Chain>
  void run(Chain& chain, Phase& phase, int iterations, bool sampling, Rng& rng) {
    started.push_back(&phase);
    phase.use_clock(clock);
    phase.start(rng);
    for (int t = 0; t < iterations; ++t) {
      if (!sampling && phase.done()) break;
      poll.check();
      phase.before(t, rng);
      TransitionInfo info;
      try {
        info = chain.transition(rng);
      } catch (const IterationError& e) {
        throw std::runtime_error(where_message(e.what(), i, phase.label()));
      }
      phase.observe(t, info, rng);
      if (sampling && t % cfg.thin == 0) {
        save_transition(out, saved, chain.position(), info);
        phase.saved(saved++);
      }
      out.iterations_done = ++i;
      progress.iteration(i - 1, total, phase.label());
      if (cfg.max_runs > 0 && budget_spent(cfg, chain.counts())) {  // as an interrupt, but the draws are kept
        cb.phase_end(phase.label());
        throw BudgetSpent{};
      }
    }
    phase.finish(rng);
    cb.phase_end(phase.label());
  }
};

}  // namespace detail

template <class Chain>
ChainOutput run_chain(Chain& chain, const Schedule& schedule, const ChainConfig& cfg, Callbacks& cb) {
  ChainOutput out = allocate_output(cfg, chain.dim());
  out.columns = chain.columns();
  ChainStreams streams(cfg.seed, cfg.chain);
  Rng& rng = streams.main();
  ChainClock clock;
  detail::InterruptPoll poll(cb);
  detail::ProgressLog progress(cfg, cb);
  detail::PhaseRunner runner{cfg, cb, clock, poll, progress, out, 0, 0, cfg.iter, {}};
  SamplingPhase plain;
  Phase& sampling = schedule.sampling ? *schedule.sampling : plain;
  bool warm = false;
  try {
    detail::start_chain(chain, streams);
    for (const PhasePlan& p : schedule.warmup) runner.run(chain, *p.phase, p.iterations, false, rng);
    for (const PhasePlan& p : schedule.warmup) p.phase->release();
    return_free_memory();
    out.warmup_iterations = runner.i;
    runner.total = runner.i + (cfg.iter - cfg.warmup);
    out.counts_warmup = chain.counts();
    clock.close_warmup();
    warm = true;
    runner.run(chain, sampling, cfg.iter - cfg.warmup, true, rng);
  } catch (const detail::Interrupted&) {
    out.interrupted = true;
  } catch (const detail::BudgetSpent&) {
    out.budget_spent = true;
  } catch (const std::bad_alloc&) {  // its what() ("std::bad_alloc") means nothing to a user
    out.error = "ran out of memory (an allocation failed): the settings need more memory than this "
                "machine has (for example a surrogate with very many hidden units, or very many parameters)";
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (!warm) {
    out.warmup_iterations = runner.i;
    out.counts_warmup = chain.counts();
    clock.close_warmup();
  }
  if (runner.saved < saved_count(cfg)) shrink(out, runner.saved);
  clock.finish(out);
  out.counts_total = chain.counts();
  chain.adaptation(out.adaptation);
  for (Phase* p : runner.started) p->report(out.report);
  return out;
}

}  // namespace vhmc
