#pragma once
// Differential-evolution MCMC with sampling from the past and snooker updates (DE-MCzs;
// ter Braak & Vrugt 2008; BayesianTools' "DEzs"): a population of members, each proposing
// from differences of states in a shared archive (de_proposals.hpp), one evaluation of the
// log density per member and iteration and no gradient. The archive starts from 10 d states
// spread over the parameter space (latin_hypercube(): over the box of parameters with two
// bounds, as the host says) and, during warmup, every `archive_every` iterations takes
// every member's state, so that the population learns the posterior's shape, ridges and
// separate modes together.
// At the end of warmup the archive keeps the states of warmup's second half (the transient
// leaves) and is frozen: in sampling each member is then an exact Metropolis-Hastings chain
// with fixed proposals, independent of the others given the archive.
//
// The population is one chain of the loop (population.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "../base/fields.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../model/target.hpp"
#include "de_proposals.hpp"
#include "population.hpp"

namespace vhmc {

struct DemcConfig {
  int members = 4;              // the population (the host's chains)
  std::optional<double> gamma;  // parallel-direction scale; nullopt: 2.38 / sqrt(2 d)
  double jump = kDeJump;
  double snooker = kDeSnooker;
  int archive_every = 10;
  static auto fields() {
    return std::make_tuple(field("members", &DemcConfig::members), field("gamma", &DemcConfig::gamma),
                           field("jump", &DemcConfig::jump), field("snooker", &DemcConfig::snooker),
                           field("archive_every", &DemcConfig::archive_every));
  }
};

template <class P>
class DemcPopulation {
 public:
  DemcPopulation(P& potential, const DemcConfig& c, const Vec& inits, const Vec& scatter)
      : target_(potential), k_(c.members), d_(static_cast<int>(inits.size()) / c.members), scatter_(scatter),
        x_(inits), U_(Vec::Zero(k_)), accept_(Vec::Zero(k_)), evaluations_(Vec::Zero(k_)), moves_(Vec::Zero(k_)) {
    settings_ = {c.gamma.value_or(de_default_gamma(d_)), c.jump, c.snooker};
  }
  int dim() const { return k_ * d_; }
  int members() const { return k_; }
  void start(Rng& rng) {
    archive_ = DeArchive(latin_hypercube(10 * d_, scatter_, rng));
    refresh_jitter();
    x1_.resize(d_);
    prop_.size_for(d_);
    for (int k = 0; k < k_; ++k) {
      U_[k] = evaluate(k, x_.segment(k * d_, d_));
      if (!std::isfinite(U_[k]))
        throw std::runtime_error("the log density is not finite at the initial values of chain " + std::to_string(k + 1));
    }
  }
  TransitionInfo transition(Rng& rng) {
    for (int k = 0; k < k_; ++k) step(k, rng);
    TransitionInfo info;
    info.accept_stat = accept_.mean();
    info.step_size = settings_.gamma;
    return info;
  }
  const Vec& position() const { return x_; }
  EvalCounts counts() const { return target_.counts(); }
  unsigned columns() const { return kAcceptStat; }
  void adaptation(Report& r) const {
    r.add("step_size", settings_.gamma);
    r.add("inv_metric", Vec(archive_.spread().array().square().matrix()));
  }
  void archive_members() {
    for (int k = 0; k < k_; ++k) archive_.add(x_.segment(k * d_, d_));
    refresh_jitter();
  }
  void refresh_jitter() { prop_.follow(archive_); }
  DeArchive& archive() { return archive_; }
  const Vec& accept() const { return accept_; }          // last iteration's, per member
  const Vec& evaluations() const { return evaluations_; }  // per member, so far
  const Vec& moves() const { return moves_; }              // accepted proposals per member
  void start_sampling() {}
  void report(Report&) const {}

 private:
  double evaluate(int k, const Vec& x) {
    ++evaluations_[k];
    return target_.U(x);
  }
  // One proposal of member k, accepted with probability min(1, exp(U - U' + log correction)).
  void step(int k, Rng& rng) {
    accept_[k] = 0.0;
    x1_ = x_.segment(k * d_, d_);
    if (!de_propose(x1_, archive_, settings_, rng, prop_)) return;
    const double U1 = evaluate(k, prop_.x);
    const double log_a = U_[k] - U1 + prop_.log_correction;
    if (std::isnan(log_a)) return;
    accept_[k] = log_a >= 0 ? 1.0 : std::exp(log_a);
    if (std::log(rng.uniform()) < log_a) {
      x_.segment(k * d_, d_) = prop_.x;
      U_[k] = U1;
      ++moves_[k];
    }
  }

  Target<P> target_;
  int k_, d_;
  Vec scatter_;
  DeArchive archive_;
  DeSettings settings_{};
  DeProposal prop_;
  Vec x1_;  // the member being moved
  Vec x_, U_, accept_, evaluations_, moves_;
};

// Warmup: the members' states join the archive every `archive_every` iterations; at its end
// the archive keeps those of the second half (when they are at least 3 per dimension, else
// everything) and is frozen.
template <class Pop>
class DemcWarmup : public Phase {
 public:
  DemcWarmup(Pop& pop, const DemcConfig& c, int warmup) : pop_(pop), every_(std::max(1, c.archive_every)), half_(warmup / 2) {}
  void observe(int t, const TransitionInfo&, Rng&) override {
    if (t == half_) mid_ = pop_.archive().size();
    if ((t + 1) % every_ == 0) pop_.archive_members();
  }
  void finish(Rng&) override {
    initial_ = static_cast<long>(pop_.archive().size());
    if (mid_ >= 0 && pop_.archive().size() - mid_ >= 3L * pop_.dim() / pop_.members()) {
      pop_.archive().keep_from(mid_);
      pop_.refresh_jitter();
    }
  }
  void report(Report& r) const override {
    r.add("archive_warmup", initial_);
    r.add("archive_size", static_cast<long>(pop_.archive().size()));
  }

 private:
  Pop& pop_;
  int every_, half_;
  Eigen::Index mid_ = -1;
  long initial_ = 0;
};

struct DemcSampler {
  using Config = DemcConfig;
  static constexpr bool kHostsPopulation = true;  // runs only where the host runs a population
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    check_population_split(c.members, init.size());
    if (!x.scatter || x.scatter->size() != init.size() / c.members)
      throw std::runtime_error("internal: differential-evolution MCMC needs how to spread its initial archive");
    DemcPopulation<P> pop(potential, c, init, *x.scatter);
    DemcWarmup<DemcPopulation<P>> warmup(pop, c, cfg.warmup);
    return run_population(pop, warmup, cfg, cb);
  }
};

}  // namespace vhmc
