#pragma once
// Variational HMC (Zhang, Shahbaba & Zhao 2018, Algorithm 2) as a sampler, approximate by
// design. Its kernel is static HMC on
//   V(theta) = mu z(theta) + (1 - mu)/2 (theta - theta_L)' H_L (theta - theta_L)
// (variational_field.hpp), accepted with the surrogate Hamiltonian. Its warmup phase is the
// training: mu_t = 1 - exp(-t / schedule) rises and every accepted proposal's true gradient
// updates the output weights by the exact online score-matching (Woodbury) recursion, or by
// batched re-solves. After train_until, mu and the weights are frozen and the chain never
// touches the data: its draws follow q ~ exp(-V), not the posterior. The bases are drawn in
// coordinates standardised by the Laplace approximation (mean theta_L, covariance H_L^-1,
// which is also the metric); every tenth training gradient is held out to measure the
// score-matching error of the final V.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../adapt/dual_averaging.hpp"
#include "../base/fields.hpp"
#include "../driver/fit_extras.hpp"
#include "../driver/run_chain.hpp"
#include "../metric/metrics.hpp"
#include "../model/target.hpp"
#include "../surrogate/basis_count.hpp"
#include "../surrogate/network.hpp"
#include "../surrogate/trainer.hpp"
#include "static_hmc.hpp"
#include "variational_field.hpp"

namespace vhmc {

struct VariationalConfig {
  std::optional<int> hidden;    // nullopt: min(2000, max(50, 40 d))
  Activation activation = Activation::Softplus;
  double lambda = 1e-3;         // ridge penalty, standardised coordinates
  int train_until = 0;          // t0: iterations with online training
  double schedule = 1.0;        // n_s in mu_t = 1 - exp(-t / n_s)
  int steps = 20;               // maximum leapfrog steps, jittered 1..steps
  double adapt_delta = 0.7;     // step-size target while training
  std::optional<double> step_size;  // fixed by the user; nullopt: adapted from start_step_size
  double start_step_size = 0.5;
  bool final_mu_one = false;    // after t0: mu = 1 (the paper's literal variant)
  // z = Laplace quadratic + network, the network fitted to the residual gradients (package
  // default; false: the paper's network alone). See VariationalChain::start.
  bool laplace_base = true;
  // Start from a draw of the Laplace approximation instead of init (package default): the
  // mode is known before the chain starts, and a transient from a far init would feed the
  // trainer gradients from where the posterior has no mass.
  bool start_laplace = true;
  int refactor_every = 1000;
  BasisCount bases{};  // the number drawn without `hidden`
  // Training points per re-solve of the output weights. 1: the exact online Woodbury update
  // per point, O(s^2 d); k > 1: accumulate the normal equations (Hadamard form, O(s^2) per
  // point for additive nodes) and solve every k points and when training ends, O(s^3 / k)
  // per point. nullopt: variational_refresh_every().
  std::optional<int> refresh_every;
  static auto fields() {
    using C = VariationalConfig;
    return std::make_tuple(
        field("hidden", &C::hidden), field("activation", &C::activation), field("lambda", &C::lambda),
        field("train_until", &C::train_until), field("schedule", &C::schedule), field("steps", &C::steps),
        field("adapt_delta", &C::adapt_delta), field("step_size", &C::step_size),
        field("final_mu_one", &C::final_mu_one), field("laplace_base", &C::laplace_base),
        field("start_laplace", &C::start_laplace), field("refresh_every", &C::refresh_every),
        field("start_step_size", &C::start_step_size), field("refactor_every", &C::refactor_every),
        field("bases", &C::bases));
  }
};

// Woodbury while its per-point cost, about 3 s^2 d flops, stays under ~1e7 (a few ms);
// beyond, batches of ceil(s / d) points, which makes the amortised solve about s^2 d / 3
// per point, ~9x cheaper (at s = 2000, d = 51: 0.6 Gflop per point by Woodbury).
inline int variational_refresh_every(const std::optional<int>& configured, int s, int d) {
  if (configured) return *configured;
  const double woodbury = 3.0 * static_cast<double>(s) * s * d;
  if (woodbury <= 1e7) return 1;
  return std::max(1, (s + d - 1) / d);
}

namespace detail {
constexpr std::uint64_t kVariationalStream = 0x7a21ULL << 32;
}

// The score-matching fit of the output weights: exact Woodbury updates per point, or
// points accumulated and re-solved every `refresh` points.
class ScoreMatchingFit {
 public:
  ScoreMatchingFit(RandomBasisNetwork& net, const VariationalConfig& vc, int refresh)
      : net_(net), lambda_(vc.lambda), refresh_(refresh) {
    const int s = net.hidden(), d = net.dim();
    if (refresh == 1) {
      online_ = std::make_unique<OnlineRidge>(net, Mat::Zero(s, s), Vec::Zero(s), vc.lambda, vc.refactor_every);
      net.weights() = online_->weights();
    } else {
      batch_ = std::make_unique<RidgeTrainer>(net);
      net.weights().setZero();
      theta_.resize(refresh, d);
      grad_.resize(refresh, d);
    }
  }
  void add(const Vec& theta, const Vec& resid) {
    if (online_) {
      online_->add_gradient(theta, resid);
      net_.weights() = online_->weights();
      return;
    }
    theta_.row(n_) = theta.transpose();
    grad_.row(n_) = resid.transpose();
    if (++n_ == theta_.rows()) flush();
  }
  void flush() {
    if (!batch_ || n_ == 0) return;
    batch_->add_gradients(theta_.topRows(n_), grad_.topRows(n_));
    batch_->solve(lambda_);
    n_ = 0;
  }

 private:
  RandomBasisNetwork& net_;
  double lambda_;
  int refresh_;
  std::unique_ptr<OnlineRidge> online_;
  std::unique_ptr<RidgeTrainer> batch_;
  Mat theta_, grad_;  // training points not yet in the batch solve
  Eigen::Index n_ = 0;
};

// State, surrogate and kernel of one variational HMC chain.
template <class P>
class VariationalChain {
 public:
  VariationalChain(P& potential, const Vec& mode, const Mat& hessian, const VariationalConfig& vc, const Vec& init)
      : vc_(vc), mode_(mode), hessian_(hessian), init_(init), truth_(potential), z_(init.size()) {}

  int dim() const { return static_cast<int>(init_.size()); }
  // The Laplace standardisation and metric, the bases (from the chain's own surrogate
  // stream, which the chain loop hands out with the main one), and the initial state.
  // Laplace base: in the Laplace-standardised coordinates u the Laplace quadratic is u'u/2,
  // so z = u'u/2 + network and V = quadratic + mu network.
  // Why: a network of saturating bases trained on few gradients extrapolates linearly, so
  // exp(-V) can put its mass far outside the training states (measured on the probit
  // benchmark: RMSE 30-860 with 6-34 training points); with the base, the ridge shrinks an
  // undertrained network toward the Laplace approximation instead of toward a flat potential,
  // and the quadratic dominates far away (the bases' gradients are bounded), so q stays proper.
  void start(ChainStreams& streams) {
    srng_ = streams.stream(detail::kVariationalStream);
    Rng& rng = streams.main();
    const int d = dim();
    Eigen::LLT<Mat> hllt(hessian_);
    if (hllt.info() != Eigen::Success) throw std::runtime_error("the Laplace Hessian is not positive definite");
    const Mat cov = hllt.solve(Mat::Identity(d, d));
    st_ = Standardizer::from_covariance(mode_, 0.5 * (cov + cov.transpose()));
    hidden_ = vc_.hidden ? *vc_.hidden : static_cast<int>(vc_.bases(d));
    net_.draw(hidden_, vc_.activation, st_, srng_);
    if (vc_.laplace_base) net_.set_quadratic(Mat::Identity(d, d), Vec::Zero(d));
    refresh_every_ = variational_refresh_every(vc_.refresh_every, hidden_, d);
    fit_ = std::make_unique<ScoreMatchingFit>(net_, vc_, refresh_every_);
    field_ = std::make_unique<VariationalField>(net_, mode_, hessian_);
    ham_ = std::make_unique<Hamiltonian<VariationalField, DenseMetric>>(*field_, DenseMetric(0.5 * (cov + cov.transpose())));
    StaticHmcConfig hc;
    hc.steps = vc_.steps;
    hc.jitter = true;
    kernel_ = std::make_unique<StaticHmc<VariationalField, DenseMetric>>(*ham_, hc);
    z_.theta = init_;
    if (vc_.start_laplace) {
      Vec u(d);
      for (int j = 0; j < d; ++j) u[j] = rng.normal();
      z_.theta = mode_ + st_.L.template triangularView<Eigen::Lower>() * u;
    }
  }
  TransitionInfo transition(Rng& rng) { return kernel_->transition(z_, rng); }
  const Vec& position() const { return z_.theta; }
  EvalCounts counts() const {
    EvalCounts c = truth_.counts();
    c.surrogate_grad = field_ ? field_->n_grad() : 0;
    return c;
  }
  unsigned columns() const { return kHmcColumns; }
  void adaptation(Report& r) const {
    r.add("step_size", kernel_ ? kernel_->step_size() : 0.0);
    if (ham_) r.add("inv_metric", ham_->metric().W());
  }
  // The network that defines V, for evaluating it elsewhere.
  void report(Report& r) const {
    r.add("hidden", hidden_);
    r.add("refresh_every", refresh_every_);
    Report net;
    net.add("w_hat", net_.bases().w_hat());
    net.add("d_hat", net_.bases().d_hat());
    net.add("weights", net_.weights());
    net.add("offset", net_.offset());
    net.add("m", st_.m);
    net.add("L", st_.L);
    net.add("laplace_base", vc_.laplace_base);
    r.add("network", net);
  }

  // Re-evaluates V at the state after mu or the weights changed; false if not finite.
  bool refresh_state() { return ham_->init_point(z_); }
  PhasePoint& state() { return z_; }
  StaticHmc<VariationalField, DenseMetric>& kernel() { return *kernel_; }
  VariationalField& field() { return *field_; }
  ScoreMatchingFit& fit() { return *fit_; }
  Target<P>& truth() { return truth_; }
  const Standardizer& standardizer() const { return st_; }
  const Vec& mode() const { return mode_; }
  const Mat& hessian() const { return hessian_; }
  const VariationalConfig& config() const { return vc_; }

 private:
  const VariationalConfig& vc_;
  Vec mode_;
  Mat hessian_;
  Vec init_;
  Target<P> truth_;
  Rng srng_;
  PhasePoint z_;
  Standardizer st_;
  RandomBasisNetwork net_;
  int hidden_ = 0, refresh_every_ = 1;
  std::unique_ptr<ScoreMatchingFit> fit_;
  std::unique_ptr<VariationalField> field_;
  std::unique_ptr<Hamiltonian<VariationalField, DenseMetric>> ham_;
  std::unique_ptr<StaticHmc<VariationalField, DenseMetric>> kernel_;
};

// The training phase (t0 iterations): mu rises along the schedule, the step size is dual-
// averaged toward adapt_delta, and the true gradient at every accepted proposal trains the
// network (one in ten held out). At its end mu, the weights and the step size freeze, and
// the held-out score-matching error of the final V is measured.
template <class Chain>
class VariationalTraining : public Phase {
 public:
  VariationalTraining(Chain& chain, int t0, double schedule)
      : chain_(chain), t0_(t0), n_s_(schedule), adapt_(!chain.config().step_size), g_(chain.dim()),
        u_(chain.dim()), resid_(chain.dim()) {
    DualAveragingConfig dac;
    dac.delta = chain.config().adapt_delta;
    da_ = DualAveraging(dac);
  }
  const char* label() const override { return "warmup: training"; }
  void start(Rng&) override {
    eps_ = chain_.config().step_size.value_or(chain_.config().start_step_size);
    da_.restart(eps_);
  }
  void before(int t, Rng&) override {
    chain_.field().mu() = 1.0 - std::exp(-(t + 1) / n_s_);
    refresh(t == 0);
    chain_.kernel().step_size() = eps_;
    prev_ = chain_.state().theta;
  }
  void observe(int, const TransitionInfo& info, Rng&) override {
    if (adapt_) eps_ = da_.learn(info.accept_stat);
    if (chain_.state().theta != prev_) learn(chain_.state().theta);
  }
  void finish(Rng&) override {
    const double t = seconds();
    chain_.fit().flush();
    update_seconds_ += seconds() - t;
    const VariationalConfig& vc = chain_.config();
    chain_.field().mu() = vc.final_mu_one ? 1.0 : 1.0 - std::exp(-std::max(t0_, 1) / n_s_);
    if (adapt_ && t0_ > 0) eps_ = da_.final_step_size();
    refresh(t0_ == 0);
    chain_.kernel().step_size() = eps_;
    holdout_error();
  }
  void report(Report& r) const override;
  double train_radius() const { return train_radius_; }

 private:
  void refresh(bool first) {
    if (chain_.refresh_state()) return;
    if (first) throw std::runtime_error("the Laplace approximation is not finite at the initial values");
    throw std::runtime_error("the variational potential became non-finite at the chain's state; "
                             "raise `lambda` or the number of hidden units");
  }
  // The only data access of variational HMC: the true gradient at an accepted proposal.
  void learn(const Vec& theta) {
    chain_.truth().U_grad(theta, g_);
    chain_.standardizer().to_u(theta, u_);
    train_radius_ = std::max(train_radius_, u_.norm());
    if (!g_.allFinite()) return;
    if (++n_accepted_ % 10 == 0) {
      hold_theta_.push_back(theta);
      hold_grad_.push_back(g_);
      return;
    }
    resid_ = g_;
    if (chain_.config().laplace_base) resid_.noalias() -= chain_.hessian() * (theta - chain_.mode());
    const double t = seconds();
    chain_.fit().add(theta, resid_);
    update_seconds_ += seconds() - t;
    ++n_train_;
  }
  void holdout_error();

  Chain& chain_;
  int t0_;
  double n_s_;
  bool adapt_;
  DualAveraging da_;
  double eps_ = 0.5;
  Vec g_, u_, resid_, prev_;
  std::vector<Vec> hold_theta_, hold_grad_;
  long n_accepted_ = 0, n_train_ = 0;
  double train_radius_ = 0.0, update_seconds_ = 0.0;  // seconds of the fit's updates (the chain's clock)
  double grad_rmse_ = NAN, grad_rel_error_ = NAN, score_distance_ = NAN;
};

// Score-matching error of the final V on the held-out training states (u-space).
template <class Chain>
void VariationalTraining<Chain>::holdout_error() {
  if (hold_theta_.empty()) return;
  const int d = chain_.dim();
  const Standardizer& st = chain_.standardizer();
  Vec gv(d), e(d), eu(d), tu(d);
  double se = 0.0, ref = 0.0;
  for (std::size_t k = 0; k < hold_theta_.size(); ++k) {
    chain_.field().U_grad(hold_theta_[k], gv);
    e = gv - hold_grad_[k];
    st.grad_to_u(e, eu);
    st.grad_to_u(hold_grad_[k], tu);
    se += eu.squaredNorm();
    ref += tu.squaredNorm();
  }
  const double n = static_cast<double>(hold_theta_.size());
  grad_rmse_ = std::sqrt(se / (n * d));
  grad_rel_error_ = std::sqrt(se / ref);
  score_distance_ = 0.5 * se / n;
}

template <class Chain>
void VariationalTraining<Chain>::report(Report& r) const {
  r.add("n_train", n_train_);
  r.add("n_holdout", static_cast<long>(hold_theta_.size()));
  r.add("update_seconds", update_seconds_);
  r.add("grad_rmse", grad_rmse_);
  r.add("grad_rel_error", grad_rel_error_);
  r.add("score_distance", score_distance_);
  r.add("mu_final", chain_.field().mu());
  r.add("train_radius", train_radius_);
}

// While sampling: the value of V at every saved draw (for importance weights) and the
// draws beyond 1.5 times the training states' largest standardised radius plus 3, where the
// network was never fitted (q may be wrong there, or even improper).
template <class Chain>
class VariationalDraws : public Phase {
 public:
  VariationalDraws(Chain& chain, const VariationalTraining<Chain>& training)
      : chain_(chain), training_(training) {}
  const char* label() const override { return "sampling"; }
  void saved(int) override {
    potential_.push_back(chain_.state().U);
    chain_.standardizer().to_u(chain_.state().theta, u_);
    if (u_.norm() > 1.5 * training_.train_radius() + 3.0) ++n_outside_;
  }
  void report(Report& r) const override {
    r.add("n_outside", n_outside_);
    r.add("draw_potential", Vec(Eigen::Map<const Vec>(potential_.data(), static_cast<Eigen::Index>(potential_.size()))));
  }

 private:
  Chain& chain_;
  const VariationalTraining<Chain>& training_;
  std::vector<double> potential_;
  Vec u_;
  long n_outside_ = 0;
};

template <class P>
ChainOutput run_variational_hmc(P& potential, const Vec& mode, const Mat& hessian, const VariationalConfig& vc,
                                const ChainConfig& cfg, const Vec& init, Callbacks& cb) {
  using Chain = VariationalChain<P>;
  Chain chain(potential, mode, hessian, vc, init);
  const int t0 = std::min(vc.train_until, cfg.warmup);
  VariationalTraining<Chain> training(chain, t0, vc.schedule);
  Phase frozen;  // warmup after training: the chain runs on the frozen V
  VariationalDraws<Chain> draws(chain, training);
  Schedule schedule;
  schedule.warmup = {{&training, t0}, {&frozen, cfg.warmup - t0}};
  schedule.sampling = &draws;
  ChainOutput out = run_chain(chain, schedule, cfg, cb);
  chain.report(out.report);
  out.report.add("activation", activation_name(vc.activation));
  out.report.add("lambda", vc.lambda);
  out.report.add("schedule", vc.schedule);
  out.report.add("steps", vc.steps);
  out.report.add("train_until", t0);
  out.report.add("n_surrogate_grad", out.counts_total.surrogate_grad);
  return out;
}

struct VariationalHmcSampler {
  using Config = VariationalConfig;
  template <class P>
  static ChainOutput run(P& potential, const Config& c, const FitExtras& e, const ChainConfig& cfg,
                         const Vec& init, Callbacks& cb) {
    if (!e.laplace) throw std::logic_error("variational HMC needs the Laplace anchor of the fit");
    return run_variational_hmc(potential, e.laplace->mode, e.laplace->hessian, c, cfg, init, cb);
  }
};

}  // namespace vhmc
