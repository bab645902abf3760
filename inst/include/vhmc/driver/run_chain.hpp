#pragma once
// One chain: warmup (with adaptation) then sampling, thinning, periodic interrupt checks,
// progress messages, evaluation counters and wall time. Errors inside the chain (an improper
// posterior found by the step-size search, a failed metric estimate) end the chain with a
// message instead of an exception, so the host can report them.
#include <chrono>
#include <cstdio>
#include <exception>

#include "../adapt/adapter.hpp"
#include "../metric/metrics.hpp"
#include "../sampler/transition.hpp"

namespace vhmc {

struct ChainConfig {
  int iter = 2000;
  int warmup = 1000;
  int thin = 1;
  std::uint64_t seed = 1;
  int chain = 1;
  int refresh = 0;          // progress message every `refresh` iterations; 0 = silent
  int interrupt_every = 10;  // iterations between interrupt polls
  double step_size = 1.0;   // initial (user) step size
  AdaptConfig adapt{};
};

struct ChainOutput {
  Mat draws;  // saved iterations x d
  Vec accept_stat, step_size, energy;
  Eigen::VectorXi n_leapfrog, treedepth, divergent;
  double final_step_size = 0.0;
  Vec inv_metric_diag;   // unit / diag metrics
  Mat inv_metric_dense;  // dense metric
  long n_grad_warmup = 0, n_grad_sampling = 0, n_potential = 0;
  double warmup_seconds = 0.0, sampling_seconds = 0.0;
  int iterations_done = 0;
  bool interrupted = false;
  std::string error;
};

inline void report_metric(const UnitMetric& m, ChainOutput& out) { out.inv_metric_diag = m.inv_metric_diag(); }
inline void report_metric(const DiagMetric& m, ChainOutput& out) { out.inv_metric_diag = m.w(); }
inline void report_metric(const DenseMetric& m, ChainOutput& out) { out.inv_metric_dense = m.W(); }

inline int saved_count(const ChainConfig& cfg) {
  const int n = cfg.iter - cfg.warmup;
  return n <= 0 ? 0 : (n + cfg.thin - 1) / cfg.thin;
}

// An interrupted or failed chain keeps only the iterations it saved.
inline void shrink(ChainOutput& out, int n) {
  out.draws.conservativeResize(n, Eigen::NoChange);
  out.accept_stat.conservativeResize(n);
  out.step_size.conservativeResize(n);
  out.energy.conservativeResize(n);
  out.n_leapfrog.conservativeResize(n);
  out.treedepth.conservativeResize(n);
  out.divergent.conservativeResize(n);
}

// Splits a chain's wall time into warmup and sampling (steady clock). close_warmup() is
// idempotent and returns true only the first time, when a driver snapshots its own counters.
class ChainClock {
 public:
  using clock = std::chrono::steady_clock;
  ChainClock() : start_(clock::now()), warm_end_(start_) {}
  bool close_warmup() {
    if (closed_) return false;
    closed_ = true;
    warm_end_ = clock::now();
    return true;
  }
  // Closes warmup if still open and writes both durations into out.
  void finish(ChainOutput& out) {
    close_warmup();
    const auto end = clock::now();
    out.warmup_seconds = std::chrono::duration<double>(warm_end_ - start_).count();
    out.sampling_seconds = std::chrono::duration<double>(end - warm_end_).count();
  }

 private:
  clock::time_point start_, warm_end_;
  bool closed_ = false;
};

// "Chain c: iteration i / n [p%] (phase)" every cfg.refresh iterations and at the end.
inline void log_progress(const ChainConfig& cfg, int i, const char* phase, Callbacks& cb) {
  if (cfg.refresh <= 0 || ((i + 1) % cfg.refresh != 0 && i + 1 != cfg.iter)) return;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "Chain %d: iteration %*d / %d [%3d%%] (%s)\n", cfg.chain,
                static_cast<int>(std::to_string(cfg.iter).size()), i + 1, cfg.iter,
                static_cast<int>(100.0 * (i + 1) / cfg.iter), phase);
  cb.log(buf);
}

inline void save_transition(ChainOutput& out, int row, const Vec& theta, const TransitionInfo& info) {
  out.draws.row(row) = theta.transpose();
  out.accept_stat[row] = info.accept_stat;
  out.step_size[row] = info.step_size;
  out.energy[row] = info.energy;
  out.n_leapfrog[row] = info.n_leapfrog;
  out.treedepth[row] = info.treedepth;
  out.divergent[row] = info.divergent ? 1 : 0;
}

inline ChainOutput allocate_output(const ChainConfig& cfg, int d) {
  const int n_save = saved_count(cfg);
  ChainOutput out;
  out.draws.resize(n_save, d);
  out.accept_stat.resize(n_save);
  out.step_size.resize(n_save);
  out.energy.resize(n_save);
  out.n_leapfrog.resize(n_save);
  out.treedepth.resize(n_save);
  out.divergent.resize(n_save);
  return out;
}

template <class Sampler, class M>
ChainOutput run_chain(Sampler& s, const Vec& init, const ChainConfig& cfg, Callbacks& cb) {
  auto& ham = s.hamiltonian();
  const int d = ham.dim();
  const int n_save = saved_count(cfg);
  ChainOutput out = allocate_output(cfg, d);

  Rng rng(cfg.seed, static_cast<std::uint64_t>(cfg.chain));
  PhasePoint z(d);
  z.theta = init;
  s.step_size() = cfg.step_size;
  ChainClock timer;
  long grad_at_warm_end = 0;
  auto close_warmup = [&]() {
    if (timer.close_warmup()) grad_at_warm_end = ham.target().counts().grad;
  };

  int saved = 0;
  try {
    if (!ham.init_point(z))
      throw std::runtime_error("the log density or its gradient is not finite at the initial values");
    Adapter<Sampler, M> adapter(cfg.warmup, d, cfg.adapt);
    adapter.start(s, z, rng);
    for (int i = 0; i < cfg.iter; ++i) {
      if (cfg.interrupt_every > 0 && i % cfg.interrupt_every == 0 && cb.interrupted()) {
        out.interrupted = true;
        break;
      }
      if (i == cfg.warmup) close_warmup();
      const TransitionInfo info = s.transition(z, rng);
      if (i < cfg.warmup) {
        adapter.learn(i, info.accept_stat, z, s, rng);
      } else if ((i - cfg.warmup) % cfg.thin == 0) {
        save_transition(out, saved++, z.theta, info);
      }
      out.iterations_done = i + 1;
      log_progress(cfg, i, i < cfg.warmup ? "warmup" : "sampling", cb);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (saved < n_save) shrink(out, saved);
  close_warmup();
  timer.finish(out);
  out.n_grad_warmup = grad_at_warm_end;
  out.n_grad_sampling = ham.target().counts().grad - grad_at_warm_end;
  out.n_potential = ham.target().counts().potential;
  out.final_step_size = s.step_size();
  report_metric(ham.metric(), out);
  return out;
}

}  // namespace vhmc
