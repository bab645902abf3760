#pragma once
// Stochastic-gradient samplers (SGHMC, Chen, Fox & Guestrin 2014, Algorithm 2; SGLD, Welling
// & Teh 2011) as samplers: no Metropolis step; each transition is `updates` updates of the
// rule (sghmc.hpp, sgld.hpp), each with one minibatch gradient from a BatchSchedule on the
// chain's own stream, optionally with a control variate (SGLD-CV, SGHMC-CV; Baker et al.
// 2019). Warmup iterations are burn-in (discarded); settings left to the sampler (step size,
// friction, updates) come from the largest Hessian eigenvalue of U estimated on a random
// batch (model/minibatch.hpp) at the start and at every tenth of warmup (the curvature
// changes as the chain leaves its initial values), and are frozen for sampling. With the
// diag metric the same estimate gives the scales s_j = 1 / sqrt(H_jj) (inverse metric s^2),
// so that step sizes are in natural units. With a control variate the defaults use its
// measured noise (cv_noise) instead of the plain estimator's model, which lets the step size
// grow to the discretisation limit near the mode. Counts: minibatch gradients and
// per-observation gradient terms (epochs = terms / N), curvature estimation included.
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../model/minibatch.hpp"
#include "sghmc.hpp"
#include "sgld.hpp"

namespace vhmc {

// State and kernel of one stochastic-gradient chain; Rule is Sghmc or Sgld.
template <class Rule, class P>
class SgChain {
 public:
  template <class RuleConfig>
  SgChain(P& potential, const RuleConfig& rc, long batch_size, const ControlVariate* cv, const Vec& init)
      : pot_(potential), rule_(rc, static_cast<int>(init.size())), batch_size_(batch_size), cv_(cv),
        init_(init), theta_(init), scale_(init.size()) {}

  int dim() const { return static_cast<int>(init_.size()); }
  void start(Rng& rng) {
    batches_ = std::make_unique<BatchSchedule>(pot_.n_obs(), batch_size_, rule_.fresh_batches());
    theta_ = init_;
    if (!theta_.allFinite()) throw std::runtime_error("the initial values are not finite");
    auto_scale_ = rule_.needs_scale();
    if (auto_scale_) rescale(rng);
    rule_.start(rng);
  }
  TransitionInfo transition(Rng& rng) {
    auto grad = [&](const Vec& th, Vec& g, Vec* noise_var) { minibatch_gradient(th, g, noise_var, rng); };
    const int updates = rule_.updates();
    for (int l = 0; l < updates; ++l) {
      if (!rule_.update(theta_, grad, rng)) {
        char buf[300];
        std::snprintf(buf, sizeof(buf),
                      "the state became non-finite {where}, with step size %.3g: the step size is too "
                      "large for this posterior; use a smaller step_size (or a larger batch_size)",
                      rule_.step_size());
        throw IterationError(buf);
      }
    }
    n_updates_ += updates;
    TransitionInfo info;
    info.accept_stat = std::numeric_limits<double>::quiet_NaN();
    info.step_size = rule_.step_size();
    info.energy = std::numeric_limits<double>::quiet_NaN();
    info.n_leapfrog = updates;
    return info;
  }
  const Vec& position() const { return theta_; }
  EvalCounts counts() const {
    EvalCounts c;
    c.grad = n_grad_;
    c.obs_grad = n_obs_grad_;
    return c;
  }
  unsigned columns() const { return kStepSize | kLeapfrog; }
  void adaptation(Report& r) const {
    r.add("step_size", rule_.step_size());
    r.add("inv_metric", Vec(rule_.scale().array().square()));
  }
  void report(Report& r) const {
    r.add("n_obs", static_cast<long>(pot_.n_obs()));
    r.add("batch_size", batch_size_);
    r.add("step_size", rule_.step_size());
    r.add("friction", rule_.friction());
    r.add("updates", rule_.updates());
    r.add("curvature", curvature_);
    r.add("n_updates", n_updates_);
    r.add("n_clamped", rule_.n_clamped());
  }

  bool auto_scale() const { return auto_scale_; }
  // The curvature behind the rule's defaults, at the current state (see the header).
  void rescale(Rng& rng) {
    const Eigen::Index n = pot_.n_obs();
    const Eigen::Index m_est = std::min<Eigen::Index>(n, std::max<Eigen::Index>(batch_size_, 500));
    const double lambda = estimate_curvature(pot_, theta_, m_est, rng, &n_obs_grad_, rule_.diag_metric(), scale_);
    if (!(lambda > 0) || !std::isfinite(lambda))
      throw std::runtime_error(
          "could not estimate the curvature of the log density at the current values (a gradient "
          "is not finite or zero); give step_size (and friction, steps) explicitly");
    curvature_ = lambda;
    double noise_b_over_n = static_cast<double>(batch_size_) / static_cast<double>(n);
    if (cv_) {
      // The rules' defaults assume noise variance lambda N / B (in the metric's
      // coordinates); pass the ratio that makes that model match the measured CV noise.
      const Vec probe = rule_.diag_metric() ? scale_ : Vec::Constant(dim(), 1.0 / std::sqrt(lambda));
      const double v = cv_noise(pot_, *cv_, scale_, probe, m_est, batch_size_, rng, &n_obs_grad_);
      if (!std::isfinite(v))
        throw std::runtime_error("the control-variate gradient is not finite near the posterior mode");
      noise_b_over_n = v > 0 ? std::min(1e300, lambda / v) : 1e300;
    }
    rule_.set_scale(lambda, noise_b_over_n, scale_);
  }

 private:
  void minibatch_gradient(const Vec& th, Vec& g, Vec* noise_var, Rng& rng) {
    const int* idx = batches_->next(rng);
    if (cv_) {
      (*cv_)(pot_, th, idx, batch_size_, g, noise_var);
      n_obs_grad_ += 2 * batch_size_;
    } else {
      pot_.minibatch_grad(th, idx, batch_size_, g, noise_var);
      n_obs_grad_ += batch_size_;
    }
    ++n_grad_;
  }

  P& pot_;
  Rule rule_;
  long batch_size_;
  const ControlVariate* cv_;
  Vec init_, theta_, scale_;
  std::unique_ptr<BatchSchedule> batches_;
  bool auto_scale_ = false;
  double curvature_ = 0.0;
  long n_grad_ = 0, n_obs_grad_ = 0, n_updates_ = 0;
};

// Burn-in with the curvature re-estimated at every tenth of warmup.
template <class Chain>
class CurvatureUpdates : public Phase {
 public:
  CurvatureUpdates(Chain& chain, int warmup) : chain_(chain), every_(warmup >= 10 ? warmup / 10 : 0) {}
  void before(int t, Rng& rng) override {
    if (chain_.auto_scale() && every_ > 0 && t > 0 && t % every_ == 0) chain_.rescale(rng);
  }

 private:
  Chain& chain_;
  int every_;
};

template <class Rule, class RuleConfig, class P>
ChainOutput run_sg(P& potential, const RuleConfig& rc, long batch_size, const ControlVariate* cv,
                   const ChainConfig& cfg, const Vec& init, Callbacks& cb) {
  using Chain = SgChain<Rule, P>;
  Chain chain(potential, rc, batch_size, cv, init);
  CurvatureUpdates<Chain> burn_in(chain, cfg.warmup);
  Schedule schedule;
  schedule.warmup = {{&burn_in, cfg.warmup}};
  ChainOutput out = run_chain(chain, schedule, cfg, cb);
  chain.report(out.report);
  return out;
}

// A stochastic-gradient sampler needs a potential with minibatch gradients (GLMs).
template <class P, class = void>
struct has_minibatch : std::false_type {};
template <class P>
struct has_minibatch<P, std::void_t<decltype(std::declval<P&>().n_obs())>> : std::true_type {};

template <class Rule, class RuleConfig>
struct SgSampler {
  struct Config {
    long batch_size = 1;
    RuleConfig rule{};
    static auto fields() {
      return std::make_tuple(field("batch_size", &Config::batch_size), field("rule", &Config::rule));
    }
  };
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& e, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    if constexpr (has_minibatch<P>::value) {
      ControlVariate cv;
      if (e.control_variate) {
        cv.theta_hat = e.control_variate->mode;
        cv.grad_hat = e.control_variate->gradient;
      }
      return run_sg<Rule>(potential, c.rule, c.batch_size, e.control_variate ? &cv : nullptr, cfg, init, cb);
    } else {
      throw std::logic_error("a stochastic-gradient sampler needs a potential with minibatch gradients");
    }
  }
};
using SghmcSampler = SgSampler<Sghmc, SghmcConfig>;
using SgldSampler = SgSampler<Sgld, SgldConfig>;

}  // namespace vhmc
