#pragma once
// What one chain is asked to do (ChainConfig: the run's settings, shared by every sampler)
// and what it gives back (ChainOutput: saved draws with their transition statistics,
// evaluation counts at the end of warmup and in total, wall time, the sampler's reports).
// Iterations 0..warmup-1 are warmup; iterations warmup, warmup + thin, ... are saved. An
// automatic warmup (warmup_auto) may end before iteration warmup; the saved iterations follow
// it, as many as a full warmup would leave.
#include <cstdint>
#include <string>

#include "../base/report.hpp"
#include "../base/types.hpp"
#include "../model/target.hpp"
#include "../sampler/transition.hpp"

namespace vhmc {

struct ChainConfig {
  int iter = 2000;
  int warmup = 1000;
  int thin = 1;
  std::uint64_t seed = 1;
  int chain = 1;
  int refresh = 0;  // progress message every `refresh` iterations; 0 = silent
  // with progress on, a message also whenever this many seconds of wall time passed since
  // the last one (a slow target is not silent for 10% of the iterations); 0 = never
  double refresh_seconds = 0.0;
  // warmup is a maximum: a sampler whose adaptation converges may end it early (the draws
  // kept are still iter - warmup)
  bool warmup_auto = false;
  // A budget of model runs (0: none): the chain stops once runs_per_potential per potential
  // evaluation plus runs_per_gradient per gradient reach max_runs, keeping the draws so far
  // (a target written in R: its log density and gradient calls).
  double max_runs = 0.0;
  double runs_per_potential = 1.0, runs_per_gradient = 1.0;
  // Where the saved draws go: ChainOutput::draws (nullptr), or the host's memory, saved draw i's
  // coordinate j at draws_to[i + j * draws_stride] (a chain's slice of R's iterations x chains
  // x d array: a fit with a hundred thousand parameters then holds its draws once).
  double* draws_to = nullptr;
  Eigen::Index draws_stride = 0;
};

inline bool budget_spent(const ChainConfig& cfg, const EvalCounts& c) {
  return cfg.max_runs > 0 &&
         cfg.runs_per_potential * c.potential + cfg.runs_per_gradient * c.grad >= cfg.max_runs;
}

struct ChainOutput {
  Mat draws;  // saved iterations x d
  Vec accept_stat, step_size, energy;
  Eigen::VectorXi n_leapfrog, treedepth, divergent;
  unsigned columns = kHmcColumns;
  EvalCounts counts_warmup, counts_total;
  double warmup_seconds = 0.0, sampling_seconds = 0.0;
  int iterations_done = 0;
  int warmup_iterations = 0;  // warmup iterations taken (fewer than cfg.warmup if it ended early)
  bool interrupted = false;
  bool budget_spent = false;  // stopped by the budget of model runs (ChainConfig::max_runs)
  std::string error;
  double* draws_to = nullptr;  // the host's memory for the draws (ChainConfig::draws_to), if any
  Eigen::Index draws_stride = 0;
  Report adaptation;  // final step size and inverse metric
  Report report;      // what the sampler's phases measured and chose
};

inline int saved_count(const ChainConfig& cfg) {
  const int n = cfg.iter - cfg.warmup;
  return n <= 0 ? 0 : (n + cfg.thin - 1) / cfg.thin;
}

// Applies f to every per-draw vector of the output (statistics; the draws aside).
template <class F>
void for_each_statistic(ChainOutput& out, F&& f) {
  f(out.accept_stat);
  f(out.step_size);
  f(out.energy);
  f(out.n_leapfrog);
  f(out.treedepth);
  f(out.divergent);
}

inline ChainOutput allocate_output(const ChainConfig& cfg, int d) {
  const int n = saved_count(cfg);
  ChainOutput out;
  out.draws_to = cfg.draws_to;
  out.draws_stride = cfg.draws_stride;
  out.draws.resize(out.draws_to ? 0 : n, d);
  for_each_statistic(out, [n](auto& v) { v.resize(n); });
  return out;
}

// An interrupted or failed chain keeps only the iterations it saved.
inline void shrink(ChainOutput& out, int n) {
  if (!out.draws_to) out.draws.conservativeResize(n, Eigen::NoChange);
  for_each_statistic(out, [n](auto& v) { v.conservativeResize(n); });
}

inline void save_transition(ChainOutput& out, int row, const Vec& theta, const TransitionInfo& info) {
  if (out.draws_to) {
    for (Eigen::Index j = 0; j < theta.size(); ++j) out.draws_to[row + j * out.draws_stride] = theta[j];
  } else {
    out.draws.row(row) = theta.transpose();
  }
  out.accept_stat[row] = info.accept_stat;
  out.step_size[row] = info.step_size;
  out.energy[row] = info.energy;
  out.n_leapfrog[row] = info.n_leapfrog;
  out.treedepth[row] = info.treedepth;
  out.divergent[row] = info.divergent ? 1 : 0;
}

}  // namespace vhmc
