#pragma once
// Metropolis-Hastings with surrogate transitions (Liu 2001, "Monte Carlo Strategies in
// Scientific Computing", the surrogate transition method; Christen and Fox 2005's delayed
// acceptance) for expensive log densities without gradients. Each iteration, each member
// runs `steps` random-walk Metropolis steps that target a cheap surrogate s of the log
// density p (a kernel reversible with respect to exp(s)), and the state y it reaches is
// accepted with probability min(1, exp(p(y) - p(x) - s(y) + s(x))): one model run per
// iteration, and the chain is exact for any fixed surrogate. A poor surrogate costs
// acceptance, never correctness.
//
// The surrogate (surrogate/gp_surrogate.hpp) is trained on every evaluation before sampling:
// the exploration refines the host's Laplace approximation (the best mode its start found)
// by weighted quadratic regressions on draws of the current Gaussian (finite-difference
// Hessians of a noisy model, e.g. an ODE solved to a tolerance, mislead; a regression over
// the Gaussian's scale does not), evaluates `pilot` draws of the result, and starts members
// whose initial state lies far below the mass there (a local mode of their own search) at
// pilot draws; warmup refits the surrogate and the random walk's covariance after 50
// iterations and then every 100 (an automatic warmup ends after the third refit). Sampling
// keeps them fixed.
//
// The members form one population (population.hpp), so that they train one surrogate.
// Given the surrogate, the members are independent.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "../base/fields.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../model/target.hpp"
#include "../surrogate/gp_surrogate.hpp"
#include "de_proposals.hpp"
#include "population.hpp"

namespace vhmc {

struct SurrogateTransitionConfig {
  int members = 4;       // the population (the host's chains)
  int steps = 50;        // random-walk steps on the surrogate per iteration
  int pilot = 200;       // draws of the refined Gaussian evaluated before warmup
  int refine = 4;        // quadratic refinements of the Laplace approximation
  int max_points = 1000; // the surrogate's training points at most
  double de_moves = 0.1; // share of iterations that make a DE-MCzs move instead (while the surrogate is usable)
  double max_error = 2.0;  // the surrogate's held-out error above which every move is a DE-MCzs one
  static auto fields() {
    using C = SurrogateTransitionConfig;
    return std::make_tuple(field("members", &C::members), field("steps", &C::steps), field("pilot", &C::pilot),
                           field("refine", &C::refine), field("max_points", &C::max_points),
                           field("de_moves", &C::de_moves), field("max_error", &C::max_error));
  }
};

// Evaluated states (rows) and their log densities; grows by doubling.
class EvaluatedPoints {
 public:
  explicit EvaluatedPoints(int d) : Z_(64, d), P_(64) {}
  void add(const Vec& z, double p) {
    if (n_ == Z_.rows()) {
      Z_.conservativeResize(2 * n_, Eigen::NoChange);
      P_.conservativeResize(2 * n_);
    }
    Z_.row(n_) = z.transpose();
    P_[n_++] = p;
  }
  Eigen::Index size() const { return n_; }
  const Mat& Z() const { return Z_; }
  const Vec& P() const { return P_; }
  void release() { Z_.resize(0, Z_.cols()); P_.resize(0); n_ = 0; }

 private:
  Mat Z_;
  Vec P_;
  Eigen::Index n_ = 0;
};

// The Gaussian N(m, L L') the exploration refines and the random walk proposes from.
struct GaussianFit {
  Vec m;
  Mat L;  // lower triangular
};

// One weighted quadratic refinement of N(m, L L') from draws u ~ N(0, r^2 I) and their log
// densities P: the quadratic's maximum (a step of at most 3 in u) and its curvature (clamped
// at 0.05 per unit of u) give the next Gaussian. Unchanged when too few draws are finite.
inline void refine_gaussian(GaussianFit& g, const Mat& U, const Vec& P) {
  const int d = static_cast<int>(U.cols());
  double top = -kInf;
  for (Eigen::Index i = 0; i < P.size(); ++i)
    if (std::isfinite(P[i])) top = std::max(top, P[i]);
  std::vector<Eigen::Index> ok;
  for (Eigen::Index i = 0; i < P.size(); ++i)
    if (std::isfinite(P[i]) && P[i] > top - 50.0) ok.push_back(i);
  if (static_cast<int>(ok.size()) < quadratic_features(d) + 2) return;
  Mat Uk(ok.size(), d);
  Vec Pk(ok.size()), w(ok.size());
  for (std::size_t k = 0; k < ok.size(); ++k) {
    Uk.row(k) = U.row(ok[k]);
    Pk[k] = P[ok[k]];
    w[k] = std::exp(-(top - Pk[k]) / d);
  }
  const Quadratic q = fit_quadratic_raw(Uk, Pk, w);
  if (!q.A.allFinite() || !q.b.allFinite()) return;
  Eigen::SelfAdjointEigenSolver<Mat> es(-0.5 * (q.A + q.A.transpose()));
  if (es.info() != Eigen::Success) return;
  const Vec lam = es.eigenvalues().cwiseMax(0.05);
  const Mat Su = es.eigenvectors() * lam.cwiseInverse().asDiagonal() * es.eigenvectors().transpose();
  Vec du = Su * q.b;
  if (du.norm() > 3.0) du *= 3.0 / du.norm();
  g.m += g.L * du;
  g.L = (g.L * Eigen::LLT<Mat>(Su).matrixL().toDenseMatrix()).eval();
}

template <class P>
class StPopulation {
 public:
  StPopulation(P& potential, const SurrogateTransitionConfig& c, const Vec& inits, const FitExtras& x)
      : target_(potential), c_(c), k_(c.members), d_(static_cast<int>(inits.size()) / c.members), x_(inits),
        lp_(Vec::Zero(k_)), s_(Vec::Zero(k_)), accept_(Vec::Ones(k_)), evaluations_(Vec::Zero(k_)),
        moves_(Vec::Zero(k_)), points_(d_), laplace_(x.laplace), scatter_(x.scatter) {
    scale_ = 2.38 / std::sqrt(static_cast<double>(d_));
    de_ = de_defaults(d_);
    relocated_gap_ = Vec::Zero(k_);
  }
  int dim() const { return k_ * d_; }
  int members() const { return k_; }
  int member_dim() const { return d_; }
  void start(Rng& rng) {
    for (int k = 0; k < k_; ++k) {
      lp_[k] = log_density(k, x_.segment(k * d_, d_));
      if (!std::isfinite(lp_[k]))
        throw std::runtime_error("the log density is not finite at the initial values of chain " + std::to_string(k + 1));
    }
    explore(rng);
  }
  TransitionInfo transition(Rng& rng) {
    for (int k = 0; k < k_; ++k) step(k, rng);
    TransitionInfo info;
    info.accept_stat = accept_.mean();
    info.step_size = scale_;
    return info;
  }
  const Vec& position() const { return x_; }
  EvalCounts counts() const { return target_.counts(); }
  unsigned columns() const { return kAcceptStat; }
  void adaptation(Report& r) const {
    r.add("step_size", scale_);
    r.add("inv_metric", Vec((g_.L * g_.L.transpose()).diagonal()));
  }
  // Refits the random walk's Gaussian to `states` (rows; with the pilot draws when asked)
  // when the window accepted at least 5% of its proposals, then the surrogate to every
  // evaluation so far.
  void refit(const Mat& states, bool with_pilot, Rng& rng) {
    Mat S = states;
    if (with_pilot) {
      S.conservativeResize(states.rows() + pilot_.rows(), Eigen::NoChange);
      S.bottomRows(pilot_.rows()) = pilot_;
    }
    const double rate = window_tried_ > 0 ? window_moves_ / window_tried_ : 0.0;
    if (S.rows() > 2 * d_ + 2 && rate >= 0.05) {
      const Vec mu = S.colwise().mean().transpose();
      const Mat Zc = S.rowwise() - mu.transpose();
      Eigen::LLT<Mat> llt(Zc.transpose() * Zc / static_cast<double>(S.rows() - 1));
      if (llt.info() == Eigen::Success) g_ = GaussianFit{mu, llt.matrixL().toDenseMatrix()};
    }
    fit_surrogate(rng);
    window_moves_ = window_tried_ = 0.0;
  }
  // Warmup's states join the archive of the DE-MCzs moves (ter Braak and Vrugt 2008).
  void archive_members() {
    for (int k = 0; k < k_; ++k) archive_.add(x_.segment(k * d_, d_));
    dprop_.follow(archive_);
  }
  bool surrogate_usable() const { return surrogate_.held_out_error() <= c_.max_error; }
  // The archive keeps the second half of warmup's states (the pilot draws and the transient
  // leave it) when they are at least 3 per dimension; sampling keeps it fixed.
  void stop_recording() {
    recording_ = false;
    points_.release();
    const Eigen::Index added = archive_.size() - pilot_.rows();
    if (added / 2 >= 3 * d_) archive_.keep_from(archive_.size() - added / 2);
    dprop_.follow(archive_);
    pilot_.resize(0, d_);
  }
  void start_sampling() {
    tried0_ = tried_;
    de_tried0_ = de_tried_;
  }
  void report(Report& r) const {
    r.add("runs_sampling", tried_ - tried0_);
    r.add("inner_accept", inner_tries_ > 0 ? inner_accepts_ / inner_tries_ : 0.0);
    r.add("surrogate_error", surrogate_.held_out_error());
    r.add("quadratic_error", surrogate_.quadratic_error());
    r.add("length_scale", surrogate_.length_scale());
    r.add("training_points", static_cast<long>(surrogate_.points()));
    r.add("exploration_evaluations", explore_evaluations_);
    r.add("relocated", static_cast<long>((relocated_gap_.array() > 0).count()));
    r.add("relocated_gap", relocated_gap_);
    r.add("de_share", de_share_);
    r.add("de_runs_sampling", de_tried_ - de_tried0_);
  }
  const Vec& accept() const { return accept_; }
  const Vec& evaluations() const { return evaluations_; }
  const Vec& moves() const { return moves_; }

 private:
  double log_density(int k, const Vec& z) {
    ++evaluations_[k];
    const double lp = -target_.U(z);
    if (recording_) points_.add(z, lp);
    return lp;
  }
  void explore(Rng& rng);
  GaussianFit initial_gaussian(Rng& rng);
  void relocate(Rng& rng);
  void fit_surrogate(Rng& rng) {
    surrogate_.fit(points_.Z(), points_.P(), points_.size(), g_.m, g_.L, c_.max_points, rng);
    for (int k = 0; k < k_; ++k) s_[k] = surrogate_(x_.segment(k * d_, d_));
    de_share_ = surrogate_usable() ? c_.de_moves : 1.0;
  }
  void step(int k, Rng& rng);
  void de_step(int k, Rng& rng);

  Target<P> target_;
  SurrogateTransitionConfig c_;
  int k_, d_;
  double scale_ = 1.0;
  Vec x_, lp_, s_, accept_, evaluations_, moves_;
  EvaluatedPoints points_;
  std::optional<Anchor> laplace_;
  std::optional<Vec> scatter_;
  GaussianFit g_;
  GpSurrogate surrogate_;
  DeArchive archive_;
  DeSettings de_{};
  DeProposal dprop_;
  double de_share_ = 0.0, de_tried_ = 0.0, de_tried0_ = 0.0;
  Mat pilot_;
  Vec y_, prop_, eps_;
  bool recording_ = true;
  long explore_evaluations_ = 0;
  Vec relocated_gap_;  // per member: how far below the best it was when moved (0: not moved)
  double tried_ = 0.0, tried0_ = 0.0, window_tried_ = 0.0, window_moves_ = 0.0, inner_accepts_ = 0.0, inner_tries_ = 0.0;
};

// The Gaussian to refine: the host's Laplace approximation at the best mode its start found;
// without one, the best of the members' states and a Latin hypercube of 10 d states over the
// parameter space, with a quarter of the hypercube's spread.
template <class P>
GaussianFit StPopulation<P>::initial_gaussian(Rng& rng) {
  if (laplace_ && laplace_->hessian.rows() == d_) {
    Mat H = 0.5 * (laplace_->hessian + laplace_->hessian.transpose());
    Eigen::LLT<Mat> llt(H);
    for (double jitter = 1e-8; llt.info() != Eigen::Success && jitter < 1e8; jitter *= 100)
      llt.compute(H + jitter * H.diagonal().cwiseAbs().maxCoeff() * Mat::Identity(d_, d_));
    if (llt.info() == Eigen::Success) {
      const Mat S = llt.solve(Mat::Identity(d_, d_));
      return GaussianFit{laplace_->mode, Eigen::LLT<Mat>(S).matrixL().toDenseMatrix()};
    }
  }
  const Mat H = latin_hypercube(10 * d_, scatter_ ? *scatter_ : Vec::Zero(d_), rng);
  int best = 0;
  for (int k = 1; k < k_; ++k)
    if (lp_[k] > lp_[best]) best = k;
  Vec m = x_.segment(best * d_, d_);
  double top = lp_[best];
  for (Eigen::Index i = 0; i < H.rows(); ++i) {
    const double lp = log_density(static_cast<int>(i % k_), H.row(i).transpose());
    if (lp > top) { top = lp; m = H.row(i).transpose(); }
  }
  const Mat Hc = H.rowwise() - H.colwise().mean();
  const Vec sd = (Hc.colwise().squaredNorm() / (H.rows() - 1.0)).cwiseSqrt().transpose();
  return GaussianFit{m, Mat((0.25 * sd).asDiagonal())};
}

template <class P>
void StPopulation<P>::explore(Rng& rng) {
  const double before = evaluations_.sum();
  g_ = initial_gaussian(rng);
  const int n = 3 * quadratic_features(d_);
  Mat U(n, d_);
  Vec Pv(n);
  for (int stage = 0; stage < c_.refine; ++stage) {
    const double r = stage == 0 ? 0.5 : 1.0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < d_; ++j) U(i, j) = r * rng.normal();
      Pv[i] = log_density(i % k_, g_.m + g_.L * U.row(i).transpose());
    }
    refine_gaussian(g_, U, Pv);
  }
  pilot_.resize(c_.pilot, d_);
  for (int i = 0; i < c_.pilot; ++i) {
    Vec e(d_);
    for (int j = 0; j < d_; ++j) e[j] = rng.normal();
    const Vec z = g_.m + g_.L * e;
    log_density(i % k_, z);
    pilot_.row(i) = z.transpose();
  }
  archive_ = DeArchive(pilot_);
  dprop_.size_for(d_);
  dprop_.follow(archive_);
  explore_evaluations_ = static_cast<long>(evaluations_.sum() - before);
  fit_surrogate(rng);
  relocate(rng);
}

// Members whose state lies far below the best evaluation (more than the 0.999 chi-square
// quantile / 2 + 5 nats: a local mode of their own start, or a search ended short of one)
// move to a random pilot draw that does not; warmup discards the difference. This is the one
// place that decides; R's message names the members from relocated_gap_.
template <class P>
void StPopulation<P>::relocate(Rng& rng) {
  const Eigen::Index n = points_.size();
  const double top = points_.P().head(n).maxCoeff();
  const double floor = top - (0.5 * chi_square_quantile(d_, 3.090) + 5.0);
  const Eigen::Index first = n - pilot_.rows();
  relocated_gap_ = Vec::Zero(k_);
  for (int k = 0; k < k_; ++k) {
    if (lp_[k] >= floor) continue;
    for (int attempt = 0; attempt < 100; ++attempt) {
      const Eigen::Index i = first + static_cast<Eigen::Index>(rng.uniform() * pilot_.rows());
      if (!(points_.P()[i] >= floor)) continue;
      relocated_gap_[k] = top - lp_[k];
      x_.segment(k * d_, d_) = points_.Z().row(i).transpose();
      lp_[k] = points_.P()[i];
      s_[k] = surrogate_(x_.segment(k * d_, d_));
      break;
    }
  }
}

// One iteration of member k: `steps` random-walk steps on the surrogate, then one model run
// and the correction min(1, exp(p(y) - p(x) - s(y) + s(x))). An inner walk that never moved
// proposes the state itself (accepted, no run).
template <class P>
void StPopulation<P>::step(int k, Rng& rng) {
  if (de_share_ >= 1.0 || (de_share_ > 0.0 && rng.uniform() < de_share_)) return de_step(k, rng);
  y_ = x_.segment(k * d_, d_);
  double sy = s_[k];
  bool moved = false;
  eps_.resize(d_);
  for (int j = 0; j < c_.steps; ++j) {
    for (int i = 0; i < d_; ++i) eps_[i] = rng.normal();
    prop_.noalias() = g_.L * eps_;
    prop_ = y_ + scale_ * prop_;
    const double sp = surrogate_(prop_);
    if (std::log(rng.uniform()) < sp - sy) {
      y_.swap(prop_);
      sy = sp;
      moved = true;
      ++inner_accepts_;
    }
  }
  inner_tries_ += c_.steps;
  accept_[k] = 1.0;
  if (!moved) return;
  const double lp = log_density(k, y_);
  ++tried_;
  ++window_tried_;
  const double log_a = lp - lp_[k] - sy + s_[k];
  accept_[k] = std::isnan(log_a) ? 0.0 : (log_a >= 0 ? 1.0 : std::exp(log_a));
  if (std::isnan(log_a) || !(std::log(rng.uniform()) < log_a)) return;
  x_.segment(k * d_, d_) = y_;
  lp_[k] = lp;
  s_[k] = sy;
  ++moves_[k];
  ++window_moves_;
}

// A DE-MCzs move of member k on the model itself (de_proposals.hpp): exact with the archive
// fixed, as in sampling. It explores where the surrogate cannot yet drive the chains (ridges,
// several modes: its evaluations train the next surrogate) and, mixed with the surrogate
// transitions, moves a chain out of a region where the surrogate falls below the model
// (where every surrogate transition out is rejected).
template <class P>
void StPopulation<P>::de_step(int k, Rng& rng) {
  accept_[k] = 0.0;
  y_ = x_.segment(k * d_, d_);
  if (!de_propose(y_, archive_, de_, rng, dprop_)) return;
  const double lp = log_density(k, dprop_.x);
  ++tried_;
  ++de_tried_;
  ++window_tried_;
  const double log_a = lp - lp_[k] + dprop_.log_correction;
  if (std::isnan(log_a)) return;
  accept_[k] = log_a >= 0 ? 1.0 : std::exp(log_a);
  if (!(std::log(rng.uniform()) < log_a)) return;
  x_.segment(k * d_, d_) = dprop_.x;
  lp_[k] = lp;
  s_[k] = surrogate_(dprop_.x);
  ++moves_[k];
  ++window_moves_;
}

// Warmup: the surrogate and the random walk's Gaussian are refitted after the first 50
// iterations (with the pilot draws) and every 100 after, to the states of each window's
// second half; an automatic warmup ends after the third refit. At its end (a last refit
// when the window had 20 iterations or more) they are frozen.
template <class Pop>
class StWarmup : public Phase {
 public:
  StWarmup(Pop& pop, bool automatic) : pop_(pop), automatic_(automatic) {}
  void observe(int, const TransitionInfo&, Rng& rng) override {
    ++since_;
    pop_.archive_members();
    const int len = refits_ == 0 ? 50 : 100;
    if (2 * since_ > len) add_states();
    if (since_ == len) refit(rng);
  }
  bool done() const override { return automatic_ && refits_ >= 3 && pop_.surrogate_usable(); }
  void finish(Rng& rng) override {
    if (since_ >= 20) refit(rng);
    pop_.stop_recording();
  }
  void report(Report& r) const override { r.add("refits", static_cast<long>(refits_)); }

 private:
  void add_states() {
    const int k = pop_.members(), d = pop_.member_dim();
    if (n_ + k > states_.rows()) states_.conservativeResize(std::max<Eigen::Index>(64, 2 * (n_ + k)), d);
    for (int m = 0; m < k; ++m) states_.row(n_++) = pop_.position().segment(m * d, d).transpose();
  }
  void refit(Rng& rng) {
    pop_.refit(states_.topRows(n_), refits_ == 0, rng);
    ++refits_;
    since_ = 0;
    n_ = 0;
  }
  Pop& pop_;
  bool automatic_;
  int since_ = 0, refits_ = 0;
  Mat states_;
  Eigen::Index n_ = 0;
};

struct SurrogateTransitionSampler {
  using Config = SurrogateTransitionConfig;
  static constexpr bool kHostsPopulation = true;  // runs only where the host runs a population
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    check_population_split(c.members, init.size());
    if (x.laplace && x.laplace->mode.size() != init.size() / c.members)
      throw std::runtime_error("internal: the Laplace approximation does not match the members' dimension");
    StPopulation<P> pop(potential, c, init, x);
    StWarmup<StPopulation<P>> warmup(pop, cfg.warmup_auto);
    return run_population(pop, warmup, cfg, cb);
  }
};

}  // namespace vhmc
