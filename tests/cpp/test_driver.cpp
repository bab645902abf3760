// Tests of the one chain loop (driver/run_chain.hpp) with a scripted chain and recording
// phases: the phase protocol (start, before, observe, saved, finish, report) in order across
// warmup phases (with and without iterations) and sampling, thinning, counts at the end of
// warmup, the adaptation report, errors (IterationError with and without "{where}", plain
// exceptions, failures at the start), the progress labels of the phases, and the random
// streams and clock the loop hands out.
#include <catch2/catch.hpp>

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_util.hpp"

using vhmc::ChainConfig;
using vhmc::ChainOutput;
using vhmc::Rng;
using vhmc::TransitionInfo;
using vhmc::Vec;

namespace {

// A deterministic chain: the state is the number of transitions made; every transition
// costs one "gradient". It fails at transition fail_at (1-based; 0 = never) with an
// IterationError carrying `message`, or a plain runtime_error if plain_error.
struct ScriptedChain {
  int transitions = 0;
  int fail_at = 0;
  bool fail_start = false, plain_error = false, out_of_memory = false;
  std::string message;
  Vec x = Vec::Zero(1);
  std::vector<std::string>* events = nullptr;

  int dim() const { return 1; }
  void start(Rng&) {
    if (events) events->push_back("chain.start");
    if (fail_start) throw std::runtime_error("cannot start");
    transitions = 0;
    x[0] = 0.0;
  }
  TransitionInfo transition(Rng&) {
    ++transitions;
    if (transitions == fail_at) {
      if (out_of_memory) throw std::bad_alloc();
      if (plain_error) throw std::runtime_error(message);
      throw vhmc::IterationError(message);
    }
    x[0] = transitions;
    TransitionInfo info;
    info.accept_stat = 0.5;
    info.step_size = 0.25;
    info.n_leapfrog = transitions;
    info.energy = 2.0 * transitions;
    info.divergent = transitions % 3 == 0;
    return info;
  }
  const Vec& position() const { return x; }
  vhmc::EvalCounts counts() const {
    vhmc::EvalCounts c;
    c.grad = transitions;
    c.potential = 2L * transitions;
    return c;
  }
  unsigned columns() const { return vhmc::kStepSize | vhmc::kLeapfrog; }
  void adaptation(vhmc::Report& r) const { r.add("step_size", 0.25); }
};

// A phase that records every call, and the transition it observed.
class Recorder : public vhmc::Phase {
 public:
  Recorder(std::string name, std::vector<std::string>& events, const ScriptedChain& chain,
           const char* label = "warmup")
      : name_(std::move(name)), events_(events), chain_(chain), label_(label) {}
  const char* label() const override { return label_; }
  void start(Rng&) override { events_.push_back(name_ + ".start"); }
  void before(int t, Rng&) override {
    events_.push_back(name_ + ".before " + std::to_string(t));
    before_transitions_ = chain_.transitions;
  }
  void observe(int t, const TransitionInfo& info, Rng&) override {
    // observe follows the transition of the same iteration, and sees its statistics
    const bool ok = chain_.transitions == before_transitions_ + 1 && info.n_leapfrog == chain_.transitions;
    events_.push_back(name_ + ".observe " + std::to_string(t) + (ok ? "" : " (wrong transition)"));
  }
  void saved(int row) override { events_.push_back(name_ + ".saved " + std::to_string(row)); }
  void finish(Rng&) override { events_.push_back(name_ + ".finish"); }
  void release() override { events_.push_back(name_ + ".release"); }
  void report(vhmc::Report& r) const override {
    events_.push_back(name_ + ".report");
    r.add(name_, name_);
    r.add("last", name_);  // a later phase's value replaces an earlier one's
  }

 private:
  std::string name_;
  std::vector<std::string>& events_;
  const ScriptedChain& chain_;
  const char* label_;
  int before_transitions_ = 0;
};

ChainConfig config(int warmup, int sampling, int thin = 1) {
  ChainConfig cfg = vt::chain_config(warmup, sampling, 5);
  cfg.thin = thin;
  return cfg;
}

std::vector<std::string> iterations(const std::string& name, int n, const std::vector<int>& saved_rows = {},
                                    int thin = 1) {
  std::vector<std::string> e;
  size_t row = 0;
  for (int t = 0; t < n; ++t) {
    e.push_back(name + ".before " + std::to_string(t));
    e.push_back(name + ".observe " + std::to_string(t));
    if (!saved_rows.empty() && t % thin == 0) e.push_back(name + ".saved " + std::to_string(saved_rows[row++]));
  }
  return e;
}

void append(std::vector<std::string>& a, const std::vector<std::string>& b) { a.insert(a.end(), b.begin(), b.end()); }

}  // namespace

TEST_CASE("run_chain drives the phases in order and saves every thin-th sampling draw", "[driver]") {
  std::vector<std::string> events;
  ScriptedChain chain;
  chain.events = &events;
  Recorder a("a", events, chain), b("b", events, chain), c("c", events, chain, "warmup: c"),
      s("s", events, chain, "sampling");
  vhmc::Schedule schedule;
  schedule.warmup = {{&a, 3}, {&b, 0}, {&c, 2}};
  schedule.sampling = &s;
  ChainConfig cfg = config(5, 7, 3);
  vhmc::Callbacks cb;
  std::vector<std::string> lines;
  cb.log = [&](const std::string& m) { lines.push_back(m); };
  cfg.refresh = 4;
  const ChainOutput out = vhmc::run_chain(chain, schedule, cfg, cb);

  INFO("error: " << out.error);
  REQUIRE(out.error.empty());
  CHECK_FALSE(out.interrupted);
  CHECK(out.iterations_done == 12);

  std::vector<std::string> expect = {"chain.start", "a.start"};
  append(expect, iterations("a", 3));
  append(expect, {"a.finish", "b.start", "b.finish", "c.start"});
  append(expect, iterations("c", 2));
  // The warmup phases release their buffers once the whole warmup is over; sampling's does not.
  append(expect, {"c.finish", "a.release", "b.release", "c.release", "s.start"});
  append(expect, iterations("s", 7, {0, 1, 2}, 3));
  append(expect, {"s.finish", "a.report", "b.report", "c.report", "s.report"});
  CHECK(events == expect);

  // Sampling iterations 0, 3, 6 (transitions 6, 9, 12) are saved with their statistics.
  REQUIRE(out.draws.rows() == 3);
  CHECK(out.draws(0, 0) == 6.0);
  CHECK(out.draws(1, 0) == 9.0);
  CHECK(out.draws(2, 0) == 12.0);
  CHECK(out.n_leapfrog == (Eigen::VectorXi(3) << 6, 9, 12).finished());
  CHECK(out.energy == (Vec(3) << 12.0, 18.0, 24.0).finished());
  CHECK(out.divergent == (Eigen::VectorXi(3) << 1, 1, 1).finished());
  CHECK((out.accept_stat.array() == 0.5).all());
  CHECK((out.step_size.array() == 0.25).all());
  CHECK((out.treedepth.array() == -1).all());
  CHECK(out.columns == (vhmc::kStepSize | vhmc::kLeapfrog));

  // Counts at the end of warmup (5 transitions) and in total (12).
  CHECK(out.counts_warmup.grad == 5);
  CHECK(out.counts_warmup.potential == 10);
  CHECK(out.counts_total.grad == 12);
  CHECK(out.counts_total.potential == 24);
  CHECK(out.warmup_seconds >= 0.0);
  CHECK(out.sampling_seconds >= 0.0);

  // Reports: the chain's adaptation; every phase's values, in order, later ones replacing.
  CHECK(vt::final_step_size(out) == 0.25);
  REQUIRE(out.report.items().size() == 5);
  CHECK(out.report.items()[0].first == "a");
  CHECK(out.report.items()[1].first == "last");
  CHECK(vt::report_value<std::string>(out.report, "last") == "s");
  CHECK(vt::report_value<std::string>(out.report, "c") == "c");
  CHECK_THROWS_AS(out.report.at("nothing"), std::out_of_range);

  // Progress after the first iteration (the chain has started), every 4 iterations and at
  // the end, labelled by the phase running.
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "Chain 1: iteration  1 / 12 [  8%] (warmup)\n");
  CHECK(lines[1] == "Chain 1: iteration  4 / 12 [ 33%] (warmup: c)\n");
  CHECK(lines[2] == "Chain 1: iteration  8 / 12 [ 66%] (sampling)\n");
  CHECK(lines[3] == "Chain 1: iteration 12 / 12 [100%] (sampling)\n");
}

TEST_CASE("run_chain saves into the host's memory when given it (a chain's slice of R's array)", "[driver]") {
  ScriptedChain chain;
  std::vector<std::string> events;
  chain.events = &events;
  Recorder s("s", events, chain, "sampling");
  vhmc::Schedule schedule;
  schedule.sampling = &s;
  ChainConfig cfg = config(0, 7, 3);
  // chain 2 of 2 in an iterations x chains x d array of 3 saved draws: its slice starts 3
  // doubles in, and coordinate j is 6 doubles on
  std::vector<double> arr(3 * 2 * 1, -1.0);
  cfg.draws_to = arr.data() + 3;
  cfg.draws_stride = 6;
  vhmc::Callbacks cb;
  const ChainOutput out = vhmc::run_chain(chain, schedule, cfg, cb);
  REQUIRE(out.error.empty());
  CHECK(out.draws.rows() == 0);
  CHECK(arr == std::vector<double>{-1.0, -1.0, -1.0, 1.0, 4.0, 7.0});
  CHECK(out.n_leapfrog == (Eigen::VectorXi(3) << 1, 4, 7).finished());
}

TEST_CASE("run_chain's progress: also whenever refresh_seconds have passed", "[driver]") {
  auto run = [](double seconds) {
    ScriptedChain chain;
    std::vector<std::string> events;
    Recorder w("w", events, chain);
    vhmc::Schedule schedule;
    schedule.warmup = {{&w, 4}};
    ChainConfig cfg = config(4, 6);
    cfg.refresh = 100;  // by count: the first and the last iteration only
    cfg.refresh_seconds = seconds;
    std::vector<std::string> lines;
    vhmc::Callbacks cb;
    cb.log = [&](const std::string& m) { lines.push_back(m); };
    vhmc::run_chain(chain, schedule, cfg, cb);
    return lines;
  };
  CHECK(run(0.0).size() == 2);     // off
  CHECK(run(3600.0).size() == 2);  // an hour has not passed
  const std::vector<std::string> every = run(1e-12);  // always passed: every iteration
  REQUIRE(every.size() == 10);
  CHECK(every[4] == "Chain 1: iteration  5 / 10 [ 50%] (sampling)\n");
}

TEST_CASE("run_chain without a sampling phase, and without sampling iterations", "[driver]") {
  ScriptedChain chain;
  std::vector<std::string> events;
  Recorder w("w", events, chain);
  vhmc::Schedule schedule;
  schedule.warmup = {{&w, 4}};
  vhmc::Callbacks cb;
  const ChainOutput out = vhmc::run_chain(chain, schedule, config(4, 6), cb);
  REQUIRE(out.error.empty());
  CHECK(out.draws.rows() == 6);
  CHECK(out.draws(0, 0) == 5.0);
  CHECK(out.draws(5, 0) == 10.0);
  CHECK(out.counts_warmup.grad == 4);

  ScriptedChain chain2;
  std::vector<std::string> events2;
  Recorder w2("w", events2, chain2), s2("s", events2, chain2, "sampling");
  vhmc::Schedule only_warmup;
  only_warmup.warmup = {{&w2, 4}};
  only_warmup.sampling = &s2;
  const ChainOutput none = vhmc::run_chain(chain2, only_warmup, config(4, 0), cb);
  REQUIRE(none.error.empty());
  CHECK(none.draws.rows() == 0);
  CHECK(none.iterations_done == 4);
  // the sampling phase is started and finished even without iterations
  std::vector<std::string> expect = {"w.start"};
  append(expect, iterations("w", 4));
  append(expect, {"w.finish", "w.release", "s.start", "s.finish", "w.report", "s.report"});
  CHECK(events2 == expect);
}

TEST_CASE("run_chain turns errors into messages that say where they happened", "[driver]") {
  vhmc::Callbacks cb;
  auto run = [&](ScriptedChain& chain, const char* sampling_label = "sampling") {
    std::vector<std::string> events;
    Recorder w("w", events, chain, "warmup: w"), s("s", events, chain, sampling_label);
    vhmc::Schedule schedule;
    schedule.warmup = {{&w, 3}};
    schedule.sampling = &s;
    return vhmc::run_chain(chain, schedule, config(3, 5), cb);
  };
  SECTION("IterationError with {where} in warmup") {
    ScriptedChain chain;
    chain.fail_at = 2;
    chain.message = "the state became non-finite {where}, with step size 0.5";
    const ChainOutput out = run(chain);
    CHECK(out.error == "the state became non-finite at iteration 2 (warmup: w), with step size 0.5");
    CHECK(out.iterations_done == 1);
    CHECK(out.draws.rows() == 0);
    CHECK_FALSE(out.interrupted);
    // counts of a chain that failed in warmup: all of them are warmup's
    CHECK(out.counts_warmup.grad == 2);
    CHECK(out.counts_total.grad == 2);
  }
  SECTION("IterationError without {where} in sampling: the place is appended") {
    ScriptedChain chain;
    chain.fail_at = 6;
    chain.message = "boom";
    const ChainOutput out = run(chain);
    CHECK(out.error == "boom at iteration 6 (sampling)");
    CHECK(out.iterations_done == 5);
    // the draws saved before the error are kept
    REQUIRE(out.draws.rows() == 2);
    CHECK(out.draws(1, 0) == 5.0);
    CHECK(out.n_leapfrog.size() == 2);
    CHECK(out.counts_warmup.grad == 3);
    CHECK(out.counts_total.grad == 6);
  }
  SECTION("another exception keeps its message") {
    ScriptedChain chain;
    chain.fail_at = 4;
    chain.plain_error = true;
    chain.message = "plain {where}";
    const ChainOutput out = run(chain);
    CHECK(out.error == "plain {where}");
    CHECK(out.draws.rows() == 0);
  }
  SECTION("a failed allocation: a message for the user, not \"std::bad_alloc\"") {
    ScriptedChain chain;
    chain.fail_at = 2;
    chain.out_of_memory = true;
    const ChainOutput out = run(chain);
    CHECK(out.error.rfind("ran out of memory (an allocation failed)", 0) == 0);
    CHECK(out.error.find("bad_alloc") == std::string::npos);
  }
  SECTION("a failure to start: no iteration, no draws") {
    ScriptedChain chain;
    chain.fail_start = true;
    const ChainOutput out = run(chain);
    CHECK(out.error == "cannot start");
    CHECK(out.iterations_done == 0);
    CHECK(out.draws.rows() == 0);
    CHECK(vt::final_step_size(out) == 0.25);  // reports are still written
  }
}

namespace {

// A chain that takes its streams at start: it keeps a stream of its own and draws its
// transitions' numbers from the main stream, recording both.
struct StreamChain {
  Vec x = Vec::Zero(1);
  Rng own;
  std::vector<double> main_draws, own_draws;
  int dim() const { return 1; }
  void start(vhmc::ChainStreams& streams) {
    own = streams.stream(0x77ULL << 32);
    main_draws.push_back(streams.main().uniform());
  }
  TransitionInfo transition(Rng& rng) {
    main_draws.push_back(rng.uniform());
    own_draws.push_back(own.uniform());
    return TransitionInfo{};
  }
  const Vec& position() const { return x; }
  vhmc::EvalCounts counts() const { return {}; }
  unsigned columns() const { return vhmc::kAcceptStat; }
  void adaptation(vhmc::Report&) const {}
};

// A phase that reads the chain's clock at start and at finish.
class Timed : public vhmc::Phase {
 public:
  void start(Rng&) override { t0 = seconds(); }
  void finish(Rng&) override { t1 = seconds(); }
  double t0 = -1.0, t1 = -1.0;
};

}  // namespace

TEST_CASE("run_chain hands out the chain's random streams and its clock", "[driver]") {
  StreamChain chain;
  Timed warm;
  vhmc::Schedule schedule;
  schedule.warmup = {{&warm, 3}};
  vhmc::Callbacks cb;
  const ChainConfig cfg = config(3, 4);
  vhmc::run_chain(chain, schedule, cfg, cb);
  // The main stream is the one seeded by (seed, chain); a family's stream by (seed, family +
  // chain): the ids every sampler's draws were recorded with.
  Rng main(cfg.seed, static_cast<std::uint64_t>(cfg.chain));
  Rng own(cfg.seed, (0x77ULL << 32) + static_cast<std::uint64_t>(cfg.chain));
  REQUIRE(chain.main_draws.size() == 8);
  for (double u : chain.main_draws) CHECK(u == main.uniform());
  for (double u : chain.own_draws) CHECK(u == own.uniform());
  // Every phase reads the chain's clock: seconds since the chain started, never backwards.
  CHECK(warm.t0 >= 0.0);
  CHECK(warm.t1 >= warm.t0);
  Timed alone;  // outside a chain a phase has no clock
  Rng rng;
  alone.start(rng);
  CHECK(alone.t0 == 0.0);
}

TEST_CASE("run_chain calls the host after each phase, and stops at a budget of model runs", "[driver]") {
  ScriptedChain chain;  // each transition: 1 gradient and 2 potentials
  std::vector<std::string> events;
  Recorder w1("w1", events, chain, "warmup: one"), w2("w2", events, chain, "warmup: two"),
      s("s", events, chain, "sampling");
  vhmc::Schedule schedule;
  schedule.warmup = {{&w1, 2}, {&w2, 0}};
  schedule.sampling = &s;
  std::vector<std::string> ends;
  vhmc::Callbacks cb;
  cb.phase_end = [&](const char* label) { ends.push_back(std::string(label) + " @" + std::to_string(chain.transitions)); };
  ChainOutput out = vhmc::run_chain(chain, schedule, config(2, 5), cb);
  REQUIRE(out.error.empty());
  CHECK_FALSE(out.budget_spent);
  CHECK(ends == std::vector<std::string>{"warmup: one @2", "warmup: two @2", "sampling @7"});

  // Runs: 1 per potential, 3 per gradient: 5 per transition; a budget of 23 ends the chain at
  // its 5th transition (25 runs), after 3 saved draws, which are kept.
  ChainConfig cfg = config(2, 10);
  cfg.max_runs = 23;
  cfg.runs_per_gradient = 3;
  ScriptedChain chain2;
  std::vector<std::string> events2, ends2;
  Recorder v("v", events2, chain2, "warmup"), t("t", events2, chain2, "sampling");
  vhmc::Schedule sched2;
  sched2.warmup = {{&v, 2}};
  sched2.sampling = &t;
  vhmc::Callbacks cb2;
  cb2.phase_end = [&](const char* label) { ends2.push_back(label); };
  out = vhmc::run_chain(chain2, sched2, cfg, cb2);
  CHECK(out.error.empty());
  CHECK(out.budget_spent);
  CHECK_FALSE(out.interrupted);
  CHECK(out.draws.rows() == 3);
  CHECK(out.draws(2, 0) == 5.0);
  CHECK(out.iterations_done == 5);
  CHECK(ends2 == std::vector<std::string>{"warmup", "sampling"});
}
