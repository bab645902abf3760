#pragma once
// What the population samplers (demc.hpp, surrogate_transition.hpp) share: a population is
// one chain of the loop (run_chain.hpp) whose state is every member's one after the other;
// the host splits its draws into one chain per member. In sampling each member's acceptance
// probability at every saved draw, its evaluations and its accepted proposals are reported,
// with what the population itself reports (its report(); start_sampling() marks where
// sampling began).
#include <stdexcept>

#include "../driver/run_chain.hpp"

namespace vhmc {

template <class Pop>
class MemberSampling : public SamplingPhase {
 public:
  MemberSampling(Pop& pop, int saved) : pop_(pop), accept_(Mat::Zero(saved, pop.members())) {}
  void start(Rng&) override {
    moves0_ = pop_.moves();
    pop_.start_sampling();
  }
  void saved(int row) override { accept_.row(row) = pop_.accept().transpose(); }
  void report(Report& r) const override {
    r.add("member_accept", accept_);
    r.add("member_evaluations", pop_.evaluations());
    r.add("moves_warmup", moves0_);
    r.add("moves_sampling", Vec(pop_.moves() - moves0_));
    pop_.report(r);
  }

 private:
  Pop& pop_;
  Mat accept_;
  Vec moves0_;
};

inline void check_population_split(int members, Eigen::Index size) {
  if (members < 1 || size % members != 0)
    throw std::runtime_error("internal: the population's initial values do not split into its members");
}

// The population's run: its warmup phase, then sampling watched by MemberSampling.
template <class Pop>
ChainOutput run_population(Pop& pop, Phase& warmup, const ChainConfig& cfg, Callbacks& cb) {
  MemberSampling<Pop> sampling(pop, saved_count(cfg));
  Schedule schedule;
  schedule.warmup = {{&warmup, cfg.warmup}};
  schedule.sampling = &sampling;
  return run_chain(pop, schedule, cfg, cb);
}

}  // namespace vhmc
