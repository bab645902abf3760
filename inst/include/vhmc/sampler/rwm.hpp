#pragma once
// Adaptive random-walk Metropolis, the sampler MCMCpack's users know: proposals
// theta' = theta + lambda L z, z ~ N(0, I), with C = L L' the proposal covariance, accepted
// with probability min(1, exp(U(theta) - U(theta'))). No gradient is evaluated.
// Warmup adapts both (adaptive Metropolis, Haario, Saksman & Tamminen 2001, eq. 2.1: the
// covariance of the chain's history; with the global scale of Andrieu & Thoms 2008,
// Algorithm 4): log lambda by Robbins-Monro toward the acceptance rate 0.234 (Roberts,
// Gelman & Gilks 1997: optimal for random-walk proposals in high dimension), and between 20%
// and 80% of warmup, every 25 iterations, C from the covariance of the states since 20%,
// shrunk toward the covariance in force (rwm_shrink()). C starts as the host's initial inverse
// metric (the Laplace covariance at the mode) or the identity. Both are frozen for
// sampling, so the sampling chain is plain Metropolis and exact.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "../adapt/robbins_monro.hpp"
#include "../adapt/welford.hpp"
#include "../base/fields.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../model/target.hpp"

namespace vhmc {

struct RwmConfig {
  double target_accept = 0.234;
  std::optional<double> scale;  // fixed lambda; nullopt: adapted from 2.38 / sqrt(d)
  bool adapt_covariance = true;
  static auto fields() {
    return std::make_tuple(field("target_accept", &RwmConfig::target_accept), field("scale", &RwmConfig::scale),
                           field("adapt_covariance", &RwmConfig::adapt_covariance));
  }
};

// The kernel: one Metropolis step with proposal scale lambda and covariance C = L L'.
template <class T>
class RandomWalkMetropolis {
 public:
  explicit RandomWalkMetropolis(T& target)
      : target_(target), C_(Mat::Identity(target.dim(), target.dim())), L_(C_), z_(target.dim()),
        prop_(target.dim()) {}

  TransitionInfo transition(PhasePoint& s, Rng& rng) {
    for (Eigen::Index j = 0; j < z_.size(); ++j) z_[j] = rng.normal();
    prop_.noalias() = L_.triangularView<Eigen::Lower>() * z_;
    prop_ = s.theta + lambda_ * prop_;
    const double U1 = target_.U(prop_);
    const double dU = std::isnan(U1 - s.U) ? kInf : U1 - s.U;
    TransitionInfo info;
    info.accept_stat = dU <= 0 ? 1.0 : std::exp(-dU);
    info.step_size = lambda_;
    if (std::log(rng.uniform()) < -dU) {
      s.theta = prop_;
      s.U = U1;
      ++moves_;
    }
    return info;
  }

  double& scale() { return lambda_; }
  double scale() const { return lambda_; }
  const Mat& covariance() const { return C_; }
  // Sets C if it is finite and positive definite; otherwise keeps the one in force and
  // returns false, so that the proposal can never become singular.
  bool set_covariance(const Mat& C) {
    if (!C.allFinite()) return false;
    Eigen::LLT<Mat> llt(C);
    if (llt.info() != Eigen::Success) return false;
    Mat L = llt.matrixL();
    if (!(L.diagonal().minCoeff() > 0.0)) return false;
    C_ = C;
    L_ = std::move(L);
    return true;
  }
  long moves() const { return moves_; }  // accepted proposals so far
  T& target() { return target_; }

 private:
  T& target_;
  double lambda_ = 1.0;
  Mat C_, L_;
  Vec z_, prop_;
  long moves_ = 0;
};

// The estimate of the posterior covariance from n states, S, shrunk toward the proposal
// covariance in force, C, as toward a prior worth n0 states: (n S + n0 C) / (n + n0). C is
// positive definite, so the result is too whatever S is (zero when no proposal of the
// window was accepted, singular with fewer distinct states than dimensions), and it is
// invariant to the scale of the parameters. (Stan shrinks toward 1e-3 I, Haario et al. 2001
// add eps I: both assume a scale; shrinking toward 1e-3 tr(S)/d I collapsed to 0 with S.)
inline Mat rwm_shrink(const Mat& S, double n, const Mat& C, double n0 = 5.0) {
  Mat W = (n / (n + n0)) * S + (n0 / (n + n0)) * C;
  return 0.5 * (W + W.transpose());
}

// Warmup: the global scale by Robbins-Monro in log lambda (gain t^-0.6) throughout; the
// covariance from the states of [20%, 80%) of warmup, updated every 25 iterations once they
// include enough accepted moves (the states of a chain that has not moved say nothing about
// the posterior's shape), and last at 80%. As Stan's terminal window does for the step size,
// the last 20% adapt the scale alone, to the final covariance, and the final scale is the
// average of log lambda over them (over the second half without covariance adaptation): the
// log-scale recursion of adapt/robbins_monro.hpp.
template <class Kernel>
class RwmAdaptation : public Phase {
 public:
  RwmAdaptation(Kernel& kernel, const PhasePoint& z, const RwmConfig& c, int warmup)
      : kernel_(kernel), z_(z), c_(c), first_(warmup / 5), last_(warmup - warmup / 5),
        average_(c.adapt_covariance ? last_ : warmup / 2), cov_(static_cast<int>(z.theta.size())),
        min_moves_(std::max(10L, static_cast<long>(z.theta.size()) + 1)) {}

  void observe(int t, const TransitionInfo& info, Rng&) override {
    if (!c_.scale) adapt_scale(t, info.accept_stat);
    if (!c_.adapt_covariance || t < first_ || t >= last_) return;
    if (cov_.n() == 0) moves0_ = kernel_.moves();
    cov_.add(z_.theta);
    if ((t + 1 - first_) % 25 == 0 || t + 1 == last_) update_covariance();
  }
  void start(Rng&) override {
    if (!c_.scale) scale_.restart(std::log(kernel_.scale()));
  }
  void finish(Rng&) override {
    if (!c_.scale && scale_.averaged() > 0) kernel_.scale() = scale_.averaged_value();
  }
  void report(Report& r) const override { r.add("covariance_updates", updates_); }

 private:
  void adapt_scale(int t, double accept_stat) {
    kernel_.scale() = scale_.learn(std::pow(t + 1.0, -0.6), std::min(1.0, accept_stat) - c_.target_accept);
    if (t >= average_) scale_.average();
  }
  void update_covariance() {
    if (cov_.n() < 10 || kernel_.moves() - moves0_ < min_moves_) return;
    const Mat W = rwm_shrink(cov_.covariance(), static_cast<double>(cov_.n()), kernel_.covariance());
    if (kernel_.set_covariance(W)) ++updates_;
  }

  Kernel& kernel_;
  const PhasePoint& z_;
  const RwmConfig& c_;
  int first_, last_, average_;
  WelfordDense cov_;
  long min_moves_, moves0_ = 0, updates_ = 0;
  LogRobbinsMonro scale_;  // log lambda
};

// Sampling, watched to count the accepted proposals: a chain that accepts none (or almost
// none) has a proposal that does not fit the posterior, which the host reports.
template <class Kernel>
class RwmSampling : public SamplingPhase {
 public:
  explicit RwmSampling(const Kernel& kernel) : kernel_(kernel) {}
  void start(Rng&) override { moves0_ = kernel_.moves(); }
  void report(Report& r) const override {
    r.add("moves_warmup", moves0_);
    r.add("moves_sampling", kernel_.moves() - moves0_);
  }

 private:
  const Kernel& kernel_;
  long moves0_ = 0;
};

// State and kernel of one chain; the proposal covariance starts at the initial inverse
// metric when the host has one (its dimension checked), else at the identity.
template <class P>
class RwmChain {
 public:
  RwmChain(P& potential, const RwmConfig& c, const Vec& init, const std::optional<Mat>& inv_metric)
      : target_(potential), kernel_(target_), z_(static_cast<int>(init.size())), init_(init), c_(c) {
    if (inv_metric && inv_metric->rows() == init.size() && inv_metric->cols() == init.size())
      kernel_.set_covariance(0.5 * (*inv_metric + inv_metric->transpose()));
    else if (inv_metric && inv_metric->rows() == init.size() && inv_metric->cols() == 1)
      kernel_.set_covariance(Mat(inv_metric->col(0).asDiagonal()));
  }
  int dim() const { return static_cast<int>(init_.size()); }
  void start(Rng&) {
    z_.theta = init_;
    z_.U = target_.U(z_.theta);
    if (!std::isfinite(z_.U)) throw std::runtime_error("the log density is not finite at the initial values");
    kernel_.scale() = c_.scale.value_or(2.38 / std::sqrt(static_cast<double>(dim())));
  }
  TransitionInfo transition(Rng& rng) { return kernel_.transition(z_, rng); }
  const Vec& position() const { return z_.theta; }
  EvalCounts counts() const { return target_.counts(); }
  unsigned columns() const { return kAcceptStat | kStepSize; }
  void adaptation(Report& r) const {
    r.add("step_size", kernel_.scale());
    r.add("inv_metric", kernel_.covariance());
  }
  RandomWalkMetropolis<Target<P>>& kernel() { return kernel_; }
  const PhasePoint& state() const { return z_; }

 private:
  Target<P> target_;
  RandomWalkMetropolis<Target<P>> kernel_;
  PhasePoint z_;
  Vec init_;
  const RwmConfig& c_;
};

struct RwmSampler {
  using Config = RwmConfig;
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& x, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    using Kernel = RandomWalkMetropolis<Target<P>>;
    RwmChain<P> chain(potential, c, init, x.inv_metric);
    RwmAdaptation<Kernel> warmup(chain.kernel(), chain.state(), c, cfg.warmup);
    RwmSampling<Kernel> sampling(chain.kernel());
    Schedule schedule;
    schedule.warmup = {{&warmup, cfg.warmup}};
    schedule.sampling = &sampling;
    return run_chain(chain, schedule, cfg, cb);
  }
};

}  // namespace vhmc
