#pragma once
// The state of one chain of a surrogate sampler (surrogate_sampler.hpp) and what it owns:
// NUTS on the true potential, whose gradients are recorded into the training set, until
// the surrogate is trained; the network it trains (and, for ARNS-HMC, the ridge state that
// refines it while sampling); and the motion of the dynamics D, which takes over from NUTS
// at its state once the surrogate exists (surrogate_hmc_dynamics.hpp, surrogate_rmhmc.hpp)
// and may hand back to it (surrogate HMC's fallback, surrogate_payoff.hpp), or never take
// over when training is not worth it (training_payoff.hpp). A dynamics D is
//   struct D {
//     struct Config;                          // its settings, named by fields()
//     static bool online(const Config&);      // whether sampling refines the surrogate
//     template <class P> using Motion = ...;  // its kernel and state (below)
//     template <class Chain> using Phases = ...;  // its phases after the exploration:
//       Phases(Chain&, SurrogateExploration<Chain>&, const SurrogateConfig&,
//              const Config&, const HmcWarmupConfig&, const ChainConfig&);
//         (a dynamics that may decide against training registers its TrainingGate with
//          the exploration here: explore.ask_before_training())
//       void schedule(Schedule&, const ChainConfig&);  // adds them to the chain's schedule
//   };
// and its Motion<P>
//     Motion(P&, RandomBasisNetwork&, const SurrogateConfig&, const Config&);
//     Kernel& enter(const PhasePoint& z, args...);   // take over at z (whose U is true)
//     bool active() const;  void leave();          // leave(): only dynamics that hand back
//     TransitionInfo transition(Rng&);  const Vec& position() const;
//     EvalCounts counts() const;   // its true gradients and potentials, surrogate gradients
//     template <class M> void adaptation(Report&, const M& explore_metric) const;
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include "../driver/chain_streams.hpp"
#include "../surrogate/train_surrogate.hpp"
#include "../surrogate/training_set.hpp"
#include "hmc_family.hpp"
#include "surrogate_exploration.hpp"

namespace vhmc {

namespace detail {
// The chain's own stream families (driver/chain_streams.hpp), apart from the main stream so
// that training changes no transition's numbers: the surrogate's (its random bases,
// ARNS-HMC's refreshes) and the training set's reservoir sample.
constexpr std::uint64_t kSurrogateStream = 0x5a17ULL << 32;
constexpr std::uint64_t kTrainingSetStream = kSurrogateStream + 1000003ULL;
}  // namespace detail

template <class P, class M, class D>
class SurrogateChain {
 public:
  using Dynamics = D;
  using Explore = Target<RecordingPotential<P>>;
  using Motion = typename D::template Motion<P>;

  SurrogateChain(P& potential, M metric, const SurrogateConfig& sc, const typename D::Config& dc,
                 const HmcWarmupConfig& wc, const Vec& init)
      : init_(init), step_size_(wc.initial_step_size()), online_training_(D::online(dc)),
        set_(potential.dim(), sc.max_train), recorder_(potential, set_), explore_(recorder_),
        ham_(explore_, std::move(metric)), nuts_(ham_, sc.nuts), z_(potential.dim()),
        motion_(potential, net_, sc, dc) {}

  int dim() const { return static_cast<int>(init_.size()); }
  // The chain loop hands out the streams: the training set's and the surrogate's here.
  void start(ChainStreams& streams) {
    set_.draw_from(streams.stream(detail::kTrainingSetStream));
    srng_ = streams.stream(detail::kSurrogateStream);
    z_.theta = init_;
    if (!ham_.init_point(z_))
      throw std::runtime_error("the log density or its gradient is not finite at the initial values");
    nuts_.step_size() = step_size_;
  }
  TransitionInfo transition(Rng& rng) { return motion_.active() ? motion_.transition(rng) : nuts_.transition(z_, rng); }
  const Vec& position() const { return motion_.active() ? motion_.position() : z_.theta; }
  EvalCounts counts() const {
    const EvalCounts e = explore_.counts(), m = motion_.counts();
    EvalCounts c;
    c.grad = e.grad + m.grad;
    c.potential = e.potential + m.potential;
    c.surrogate_grad = m.surrogate_grad;
    count_split(ham_.split(), c);
    return c;
  }
  unsigned columns() const { return kHmcColumns; }
  // The step size (0 before the dynamics took over) and the exploration's adapted metric,
  // or what the dynamics report while they run.
  // With stiff rows, NUTS's split leapfrog as well (its inner steps at NUTS's step size).
  void adaptation(Report& r) const {
    report_split(ham_.split(), nuts_.step_size(), r);
    if (motion_.active()) return motion_.adaptation(r, ham_.metric());
    r.add("step_size", fell_back() ? nuts_.step_size() : 0.0);
    report_inverse_metric(ham_.metric(), r);
  }

  // Training, in two steps (surrogate/train_surrogate.hpp): the training points and the
  // network's bases drawn, then (unless the dynamics decide that it will not pay) the fit;
  // with online training (ARNS-HMC) the chain keeps the ridge state sampling refines the
  // output weights from.
  TrainingData draw(const Standardizer& st, double U_cut, const SurrogateTrainConfig& tc, Report& rep) {
    return draw_surrogate(net_, set_, st, U_cut, tc, srng_, rep, exact_rows_);
  }
  // Where training may find likelihood rows to keep exact (choose_exact_rows.hpp); none by default.
  void offer_exact_rows(ExactRowSource source) { exact_rows_ = std::move(source); }
  SurrogateFit fit(const TrainingData& td, const SurrogateTrainConfig& tc, const LaplaceBase& lb, Report& rep) {
    SurrogateFit fit = fit_surrogate(net_, td, tc, rep, lb);
    if (online_training_) {
      if (!fit.trainer) throw std::runtime_error("online refinement needs random bases (training kept none)");
      online_ = std::make_unique<OnlineRidge>(net_, fit.trainer->gram(), fit.trainer->rhs(), fit.lambda,
                                              tc.refactor_every);
    }
    return fit;
  }
  // The trained surrogate's dynamics take over from NUTS at its state (args: theirs).
  template <class... A>
  auto& enter(A&&... args) {
    return motion_.enter(z_, std::forward<A>(args)...);
  }
  // Back to NUTS on the true gradient, from the dynamics' state, with the exploration's
  // adapted metric and step size (surrogate_payoff.hpp decides).
  void fall_back() {
    z_.theta = motion_.position();
    if (!ham_.init_point(z_))
      throw std::runtime_error("the log density or its gradient is not finite at the chain's position");
    motion_.leave();
    handed_over_ = true;
  }
  // The hand-over before training (training_payoff.hpp): NUTS simply continues from its own
  // state; the dynamics never take over.
  void hand_over_untrained() { handed_over_ = true; }
  bool fell_back() const { return handed_over_; }

  Nuts<Explore, M>& nuts() { return nuts_; }
  const PhasePoint& explore_state() const { return z_; }
  Hamiltonian<Explore, M>& explore_hamiltonian() { return ham_; }
  RecordingPotential<P>& recorder() { return recorder_; }
  P& potential() { return recorder_.inner(); }  // the true potential, uncounted and unrecorded
  TrainingSet& training_set() { return set_; }
  RandomBasisNetwork& network() { return net_; }
  OnlineRidge* online() { return online_.get(); }  // null unless trained for online refinement
  Rng& surrogate_rng() { return srng_; }
  Motion& motion() { return motion_; }

 private:
  ExactRowSource exact_rows_;
  Vec init_;
  double step_size_;
  bool online_training_, handed_over_ = false;
  TrainingSet set_;
  RecordingPotential<P> recorder_;
  Explore explore_;
  Hamiltonian<Explore, M> ham_;
  Nuts<Explore, M> nuts_;
  PhasePoint z_;
  RandomBasisNetwork net_;
  Rng srng_;
  std::unique_ptr<OnlineRidge> online_;
  Motion motion_;
};

}  // namespace vhmc
