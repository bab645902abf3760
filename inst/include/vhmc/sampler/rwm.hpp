#pragma once
// Adaptive random-walk Metropolis, the sampler MCMCpack's users know: proposals
// theta' = theta + lambda L z, z ~ N(0, I), with L L' the proposal covariance, accepted with
// probability min(1, exp(U(theta) - U(theta'))). No gradient is evaluated.
// Warmup adapts both (adaptive Metropolis, Haario, Saksman & Tamminen 2001, eq. 2.1: the
// covariance of the chain's history; with the global scale of Andrieu & Thoms 2008,
// Algorithm 4): log lambda by Robbins-Monro toward the acceptance rate 0.234 (Roberts,
// Gelman & Gilks 1997: optimal for random-walk proposals in high dimension), and from 20%
// of warmup on, every 25 iterations, L from the covariance of the states since then
// (regularised toward a small multiple of the identity). Both are frozen for sampling, so
// the sampling chain is plain Metropolis and exact.
#include <algorithm>
#include <cmath>
#include <optional>

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

// The kernel: one Metropolis step with proposal scale lambda and covariance factor L.
template <class T>
class RandomWalkMetropolis {
 public:
  explicit RandomWalkMetropolis(T& target) : target_(target), L_(Mat::Identity(target.dim(), target.dim())),
                                             z_(target.dim()), prop_(target.dim()) {}

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
    }
    return info;
  }

  double& scale() { return lambda_; }
  double scale() const { return lambda_; }
  const Mat& factor() const { return L_; }
  void set_covariance(const Mat& C) { L_ = C.llt().matrixL(); }
  T& target() { return target_; }

 private:
  T& target_;
  double lambda_ = 1.0;
  Mat L_;
  Vec z_, prop_;
};

// Warmup: the global scale by Robbins-Monro in log lambda (gain t^-0.6), the covariance from
// the states after 20% of warmup; the final scale is the average of log lambda over the
// second half. The covariance is regularised as Stan's metric is, shrunk toward
// 1e-3 trace/d I, so that a few states never give a singular proposal.
template <class Kernel>
class RwmAdaptation : public Phase {
 public:
  RwmAdaptation(Kernel& kernel, const PhasePoint& z, const RwmConfig& c, int warmup)
      : kernel_(kernel), z_(z), c_(c), warmup_(warmup), cov_(static_cast<int>(z.theta.size())) {}

  void observe(int t, const TransitionInfo& info, Rng&) override {
    if (!c_.scale) {
      log_scale_ += std::pow(t + 1.0, -0.6) * (std::min(1.0, info.accept_stat) - c_.target_accept);
      kernel_.scale() = std::exp(log_scale_);
      if (2 * t >= warmup_) {
        sum_ += log_scale_;
        ++n_;
      }
    }
    if (!c_.adapt_covariance || 5 * t < warmup_) return;
    cov_.add(z_.theta);
    if (cov_.n() >= 10 && (t + 1) % 25 == 0) kernel_.set_covariance(regularised());
  }
  void start(Rng&) override {
    if (!c_.scale) log_scale_ = std::log(kernel_.scale());
  }
  void finish(Rng&) override {
    if (c_.adapt_covariance && cov_.n() >= 10) kernel_.set_covariance(regularised());
    if (!c_.scale && n_ > 0) kernel_.scale() = std::exp(sum_ / n_);
  }

 private:
  Mat regularised() const {
    const double n = static_cast<double>(cov_.n());
    Mat S = cov_.covariance();
    const double ridge = 1e-3 * S.trace() / static_cast<double>(S.rows());
    S = (n / (n + 5.0)) * S;
    S.diagonal().array() += ridge * 5.0 / (n + 5.0);
    return 0.5 * (S + S.transpose());
  }

  Kernel& kernel_;
  const PhasePoint& z_;
  const RwmConfig& c_;
  int warmup_;
  WelfordDense cov_;
  double log_scale_ = 0.0, sum_ = 0.0;
  long n_ = 0;
};

// State and kernel of one chain.
template <class P>
class RwmChain {
 public:
  RwmChain(P& potential, const RwmConfig& c, const Vec& init)
      : target_(potential), kernel_(target_), z_(static_cast<int>(init.size())), init_(init), c_(c) {}
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
    const Mat& L = kernel_.factor();
    r.add("inv_metric", Mat(L * L.transpose()));
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
  static ChainOutput run(P& potential, const Config& c, const FitExtras&, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    RwmChain<P> chain(potential, c, init);
    RwmAdaptation<RandomWalkMetropolis<Target<P>>> warmup(chain.kernel(), chain.state(), c, cfg.warmup);
    Schedule schedule;
    schedule.warmup = {{&warmup, cfg.warmup}};
    return run_chain(chain, schedule, cfg, cb);
  }
};

}  // namespace vhmc
