#pragma once
// One chain of exact surrogate-accelerated HMC (RNS-HMC / ARNS-HMC, SPEC B3):
//   1. exploration: NUTS with Stan's warmup on the true potential for `explore` iterations;
//      every gradient it computes after the first 20 % is a training point (they are free);
//   2. training: standardise by the mean and covariance of the second half of the exploration
//      draws (its highest potential also bounds the training points), draw the
//      random bases from the chain's own stream, fit the output weights (SPEC B2);
//   3. tuning: the rest of warmup runs surrogate HMC with the NUTS metric and step size; the
//      longest trajectory comes from the surrogate's frequencies (trajectory_length.hpp) and
//      the integration time is adapted below it toward an acceptance rate;
//   4. sampling: surrogate leapfrog, Metropolis with the true potential (one evaluation per
//      iteration, no true gradient). With `adaptive`, ARNS-HMC: every new state's potential
//      updates the output weights by exact ridge recursion, and the surrogate is refreshed
//      with probability min(1, (t + 1)^(-1/2)) (diminishing adaptation).
// eps and L are frozen for sampling and never depend on the state, as exactness requires.
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "../adapt/adapter.hpp"
#include "../adapt/welford.hpp"
#include "../sampler/nuts.hpp"
#include "../sampler/surrogate_hmc.hpp"
#include "../sampler/trajectory_length.hpp"
#include "../surrogate/network.hpp"
#include "../surrogate/trainer.hpp"
#include "../surrogate/training_set.hpp"
#include "run_chain.hpp"

namespace vhmc {

struct SurrogateConfig {
  int explore = 500;             // exploration (NUTS) iterations, part of warmup
  int hidden = 0;                // 0: min(max_hidden, 40 d, data limit), at least 50 when the data allow
  int max_hidden = 2000;
  Activation activation = Activation::Softplus;
  bool train_on_gradient = true;
  double lambda = 0.0;           // 0: 1e-3 (gradients, standardised) or 1e-6 tr(G)/s (values)
  int steps = 0;                 // 0: from the step size and the exploration's trajectory lengths
  int max_steps = 1024;
  double adapt_delta = 0.8;      // exploration NUTS step-size target
  // Acceptance the integration time is tuned to: 0.65, near the optimum for HMC trajectories
  // (Beskos et al. 2013); longer trajectories at lower acceptance pay here because the
  // cost of an iteration is its one true log density, not its cheap surrogate steps.
  double trajectory_accept = 0.65;
  bool adaptive = false;
  long max_train = 50000;
  NutsConfig nuts{};
};

struct SurrogateReport {
  int hidden = 0;
  std::string activation;
  bool train_on_gradient = true;
  long n_train = 0, n_holdout = 0, n_seen = 0;
  double lambda = 0.0;
  double train_seconds = 0.0;
  double grad_rmse = NAN;        // held-out RMS error of grad z vs grad U, standardised coordinates
  double grad_rel_error = NAN;   // held-out ||grad z - grad U|| / ||grad U|| (pooled)
  int steps = 0;
  double explore_step_size = 0.0;
  double integration_time = 0.0, max_integration_time = 0.0;  // steps * eps, and its cap
  // ESS per iteration of the coordinates and of their squares that the Gaussian approximation
  // predicts at the cap (0 when the cap came from the NUTS trajectories or the user).
  double predicted_ess_mean = 0.0, predicted_ess_square = 0.0;
  bool metric_from_base = false;  // sampling metric: the quadratic base's (else exploration's)
  long n_surrogate_grad_warmup = 0, n_surrogate_grad_sampling = 0;
  long n_refresh = 0;
  int explore = 0;
};

struct SurrogateChainOutput {
  ChainOutput chain;
  SurrogateReport surrogate;
};

// Squared frequencies of the surrogate dynamics at theta: eigenvalues of A H, H the
// surrogate's Hessian there and A the inverse metric (applied column by column through
// sharp(), so that every metric works). A H is similar to the symmetric A^1/2 H A^1/2, so its
// eigenvalues are real; rounding's imaginary parts are dropped.
template <class M>
Vec surrogate_frequencies(RandomBasisNetwork& net, const Vec& theta, const M& metric) {
  const Mat H = net.hessian(theta);
  const Eigen::Index d = H.rows();
  Mat AH(d, d);
  Vec col(d), v(d);
  for (Eigen::Index j = 0; j < d; ++j) {
    col = H.col(j);
    metric.sharp(col, v);
    AH.col(j) = v;
  }
  if (!AH.allFinite()) return Vec();
  Eigen::EigenSolver<Mat> es(AH, false);
  if (es.info() != Eigen::Success) return Vec();
  return es.eigenvalues().real();
}

// The inverse metric as a matrix (columns sharp(e_j)), for any metric type.
template <class M>
Mat inverse_metric_matrix(const M& metric, int d) {
  Mat A(d, d);
  Vec e = Vec::Zero(d), v(d);
  for (int j = 0; j < d; ++j) {
    e[j] = 1.0;
    metric.sharp(e, v);
    A.col(j) = v;
    e[j] = 0.0;
  }
  return 0.5 * (A + A.transpose());
}

// Inverse of the quadratic base's theta-space Hessian, L Q^{-1} L' (Q in u-space). False when
// Q is not positive definite (the base is not a Gaussian approximation there).
inline bool inverse_of_base(const RandomBasisNetwork& net, Mat& A) {
  const Mat& Q = net.quadratic_Q();
  Eigen::LLT<Mat> llt(Q);
  if (llt.info() != Eigen::Success) return false;
  const Vec ev = Eigen::SelfAdjointEigenSolver<Mat>(Q, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(ev.minCoeff() > 1e-8 * ev.maxCoeff())) return false;
  const Mat& L = net.standardizer().L;
  const Mat L_dense = L.triangularView<Eigen::Lower>();
  A = L_dense * llt.solve(Mat(L_dense.transpose()));
  A = 0.5 * (A + A.transpose());
  return A.allFinite();
}

namespace detail {
constexpr std::uint64_t kSurrogateStream = 0x5a17ULL << 32;  // separate stream family

inline int auto_hidden(const SurrogateConfig& sc, int d, long n_train) {
  if (sc.hidden > 0) return sc.hidden;
  const long per_point = sc.train_on_gradient ? d : 1;
  // SPEC B6: s = min(2000, max(50, 40 d)); and at least 2 observations per output weight.
  long s = std::min<long>(sc.max_hidden, std::max<long>(50, 40L * d));
  s = std::min<long>(s, std::max<long>(1, n_train * per_point / 2));
  return static_cast<int>(std::max<long>(1, s));
}
}  // namespace detail

template <class P, class M>
SurrogateChainOutput run_surrogate_chain(P& potential, M metric, const ChainConfig& cfg,
                                         const SurrogateConfig& sc, const Vec& init,
                                         Callbacks& cb) {
  using clock = std::chrono::steady_clock;
  const int d = potential.dim();
  SurrogateChainOutput res;
  ChainOutput& out = res.chain;
  SurrogateReport& rep = res.surrogate;
  out = allocate_output(cfg, d);
  const int n_save = saved_count(cfg);
  const int explore = std::min(sc.explore, cfg.warmup);
  rep.explore = explore;
  rep.activation = activation_name(sc.activation);
  rep.train_on_gradient = sc.train_on_gradient;

  Rng rng(cfg.seed, static_cast<std::uint64_t>(cfg.chain));
  Rng srng(cfg.seed, detail::kSurrogateStream + static_cast<std::uint64_t>(cfg.chain));
  TrainingSet set(d, sc.max_train, Rng(cfg.seed, detail::kSurrogateStream + 1000003ULL +
                                                     static_cast<std::uint64_t>(cfg.chain)));
  RecordingPotential<P> recorder(potential, set);
  Target<RecordingPotential<P>> explore_target(recorder);
  Target<P> true_target(potential);
  Hamiltonian<Target<RecordingPotential<P>>, M> ham(explore_target, metric);
  RandomBasisNetwork net;
  SurrogateField<RandomBasisNetwork> field(net);
  std::unique_ptr<Hamiltonian<SurrogateField<RandomBasisNetwork>, DenseMetric>> sham;

  ChainClock timer;
  long surr_at_warm_end = 0;
  auto close_warmup = [&]() {
    if (!timer.close_warmup()) return;
    surr_at_warm_end = field.n_grad();
  };
  int saved = 0;
  int i = 0;
  try {
    // ---- 1. exploration -------------------------------------------------------------
    PhasePoint z(d);
    z.theta = init;
    if (!ham.init_point(z))
      throw std::runtime_error("the log density or its gradient is not finite at the initial values");
    Nuts<Target<RecordingPotential<P>>, M> nuts(ham, sc.nuts);
    nuts.step_size() = cfg.step_size;
    AdaptConfig acfg = cfg.adapt;
    Adapter<Nuts<Target<RecordingPotential<P>>, M>, M> adapter(explore, d, acfg);
    adapter.start(nuts, z, rng);
    WelfordDense moments(d);
    double traj_sum = 0.0;
    long traj_n = 0;
    const int burn = explore / 5;
    double U_state_max = -kInf;
    for (; i < explore; ++i) {
      if (cfg.interrupt_every > 0 && i % cfg.interrupt_every == 0 && cb.interrupted()) {
        out.interrupted = true;
        break;
      }
      recorder.record(i >= burn);
      const TransitionInfo info = nuts.transition(z, rng);
      adapter.learn(i, info.accept_stat, z, nuts, rng);
      // The standardisation and the potential cut come from the second half only: a chain
      // still in its transient at 20% (measured: log sigma of a gaussian GLM at N = 1e5)
      // would otherwise stretch the standardisation and keep the transient's huge gradients
      // in the fit (held-out gradient error 45%, acceptance 0).
      if (2 * i >= explore) {
        moments.add(z.theta);
        U_state_max = std::max(U_state_max, z.U);
      }
      if (2 * i >= explore) {
        traj_sum += info.n_leapfrog * info.step_size;
        ++traj_n;
      }
      out.iterations_done = i + 1;
      log_progress(cfg, i, "warmup: exploration", cb);
    }
    recorder.record(false);
    if (out.interrupted) throw std::runtime_error("");
    rep.explore_step_size = nuts.step_size();
    if (set.size() < 10 || moments.n() < 2)
      throw std::runtime_error("too few exploration iterations to train a surrogate; increase `explore`");

    // ---- 2. training ------------------------------------------------------------------
    const auto t_train = clock::now();
    const Standardizer st = Standardizer::from_covariance(moments.mean(), moments.regularized());

    // Leapfrog states far above every visited state come from divergent trajectories: the
    // sampler never needs the surrogate there, and their huge gradients would dominate the
    // least-squares fit. Keep points up to the highest visited potential plus max(10, d).
    const double U_cut = U_state_max + std::max(10.0, static_cast<double>(d));
    std::vector<long> keep;
    for (long k = 0; k < set.size(); ++k)
      if (set.U()[k] <= U_cut) keep.push_back(k);
    const long n_all = static_cast<long>(keep.size());
    const bool holdout = n_all >= 50;
    long n_hold = 0;
    for (long k = 0; k < n_all; ++k) n_hold += (holdout && k % 10 == 9) ? 1 : 0;
    const long n_fit = n_all - n_hold;
    if (n_fit < 10) throw std::runtime_error("too few training points for the surrogate; increase `explore`");
    Mat fit_theta(n_fit, d), fit_grad(n_fit, d), hold_theta(n_hold, d), hold_grad(n_hold, d);
    Vec fit_U(n_fit);
    {
      long a = 0, b = 0;
      for (long j = 0; j < n_all; ++j) {
        const long k = keep[j];
        if (holdout && j % 10 == 9) {
          hold_theta.row(b) = set.theta().row(k);
          hold_grad.row(b++) = set.grad().row(k);
        } else {
          fit_theta.row(a) = set.theta().row(k);
          fit_grad.row(a) = set.grad().row(k);
          fit_U[a++] = set.U()[k];
        }
      }
    }
    rep.n_train = n_fit;
    rep.n_holdout = n_hold;
    rep.n_seen = set.seen();
    const int s = detail::auto_hidden(sc, d, n_fit);
    net.draw(s, sc.activation, st, srng);
    RidgeTrainer trainer(net);
    const double U_ref = fit_U.minCoeff();
    if (sc.train_on_gradient) {
      // Quadratic part first, the bases on what it leaves (network.hpp set_quadratic).
      Mat Q;
      Vec qb, gq(d);
      fit_quadratic_gradients(st, fit_theta, fit_grad, Q, qb);
      net.set_quadratic(Q, qb);
      Mat resid = fit_grad;
      for (long k = 0; k < n_fit; ++k) {
        net.base_grad(fit_theta.row(k).transpose(), gq);
        resid.row(k) -= gq.transpose();
      }
      trainer.add_gradients(fit_theta, resid);
    } else {
      trainer.add_values(fit_theta, (fit_U.array() - U_ref).matrix());
    }
    double lambda = sc.lambda;
    if (!(lambda > 0)) lambda = sc.train_on_gradient ? 1e-3 : 1e-6 * trainer.gram().trace() / s;
    rep.lambda = trainer.solve(lambda);
    rep.hidden = s;
    // Offset so that z + b matches U on average (reporting and value updates only; the
    // dynamics never see it).
    {
      double acc = 0.0;
      for (long k = 0; k < n_fit; ++k) acc += fit_U[k] - net.value(fit_theta.row(k).transpose());
      net.offset() = acc / static_cast<double>(n_fit);
    }
    if (n_hold > 0) {
      Vec g(d), gu(d), tu(d);
      double se = 0.0, ref = 0.0;
      for (long k = 0; k < n_hold; ++k) {
        net.value_grad(hold_theta.row(k).transpose(), g);
        st.grad_to_u(g - hold_grad.row(k).transpose(), gu);
        st.grad_to_u(hold_grad.row(k).transpose(), tu);
        se += gu.squaredNorm();
        ref += tu.squaredNorm();
      }
      rep.grad_rmse = std::sqrt(se / static_cast<double>(n_hold * d));
      rep.grad_rel_error = std::sqrt(se / ref);
    }
    std::unique_ptr<OnlineRidge> online;
    if (sc.adaptive) online.reset(new OnlineRidge(net, trainer.gram(), trainer.rhs(), rep.lambda));
    rep.train_seconds = std::chrono::duration<double>(clock::now() - t_train).count();

    // ---- 3. tuning and 4. sampling -----------------------------------------------------
    // Metric, step size and longest trajectory of the surrogate dynamics. With automatic
    // trajectories (no `steps`, no `step_size`) and a quadratic base, the metric becomes
    // dense: the inverse of the base's Hessian, the least-squares slope of all the training
    // gradients, far better determined than a covariance of a few hundred draws; on a near-
    // Gaussian posterior it makes every frequency ~1, so that one trajectory length is
    // antithetic in every direction. The step size keeps the exploration's stability margin
    // in the fastest direction (w_max eps), halved: surrogate steps cost a small fraction of
    // the one true evaluation, and the smaller discretisation error raises acceptance. The
    // longest trajectory T_max comes from the frequencies of the surrogate dynamics around
    // the exploration mean (sampler/trajectory_length.hpp: most effective samples per
    // iteration); without usable frequencies, from the exploration's mean NUTS trajectory
    // (at least pi). What the surrogate's error costs grows with the trajectory's length, so
    // tuning then adapts T toward the acceptance rate trajectory_accept, between one step and
    // T_max. Shrinking eps instead would buy acceptance only by hitting max_steps, at the cost
    // of many surrogate steps. Robbins-Monro in log T, with the state kept inside
    // [log eps, log T_max] (a target that one step cannot reach must not drive it off to
    // -inf, from where it could not return), and the final value the average over the second
    // half of tuning. Steps are drawn uniformly in {ceil(L/2)..L}; with user-fixed steps in
    // {1..L}, with the exploration's metric and step size, as in the papers.
    const bool auto_traj = sc.steps == 0;
    const bool auto_eps = cfg.adapt.step_size;
    const Mat A_explore = inverse_metric_matrix(ham.metric(), d);
    Mat A = A_explore;
    if (auto_traj && auto_eps && net.has_quadratic()) {
      Mat A_q;
      if (inverse_of_base(net, A_q)) {
        A = A_q;
        rep.metric_from_base = true;
      }
    }
    double eps = rep.explore_step_size;
    Vec omega2;
    if (auto_traj) {
      omega2 = surrogate_frequencies(net, moments.mean(), DenseMetric(A));
      if (auto_eps) {
        const Vec w_old = surrogate_frequencies(net, moments.mean(), DenseMetric(A_explore));
        const double r_old = w_old.size() ? w_old.maxCoeff() : 0.0;
        const double r_new = omega2.size() ? omega2.maxCoeff() : 0.0;
        if (r_old > 0 && r_new > 0) eps *= std::sqrt(r_old / r_new);
        eps *= 0.5;
      }
    }
    sham.reset(new Hamiltonian<SurrogateField<RandomBasisNetwork>, DenseMetric>(field, DenseMetric(A)));
    SurrogateHmcConfig hcfg;
    hcfg.max_delta_H = sc.nuts.max_delta_H;
    SurrogateHmc<Target<P>, RandomBasisNetwork, DenseMetric> shmc(true_target, *sham, hcfg);
    SurrogateState state;
    state.z = PhasePoint(d);
    state.z.theta = z.theta;
    state.U_true = z.U;
    if (!shmc.refresh(state))
      throw std::runtime_error("the trained surrogate is not finite at the chain's position");
    const TrajectoryChoice choice =
        auto_traj ? choose_trajectory(omega2, eps, sc.max_steps) : TrajectoryChoice{};
    const double T_max = choice.steps > 0
        ? choice.steps * eps
        : std::max(kPi, traj_n > 0 ? 4.0 / 3.0 * traj_sum / traj_n : 0.0);
    rep.predicted_ess_mean = choice.ess_mean;
    rep.predicted_ess_square = choice.ess_square;
    auto steps_for = [&](double T) {
      if (sc.steps > 0) return sc.steps;
      return static_cast<int>(std::clamp(std::ceil(T / eps - 1e-9), 1.0, static_cast<double>(sc.max_steps)));
    };
    const double x_lo = std::log(eps), x_hi = std::log(std::max(T_max, eps));
    double x = x_hi, x_sum = 0.0;
    long x_n = 0;
    double T = T_max;
    const bool tune = sc.steps == 0 && cfg.warmup > explore;
    const int n_tune = cfg.warmup - explore;
    rep.max_integration_time = T_max;
    long t_adapt = 0;
    for (; i < cfg.iter; ++i) {
      if (cfg.interrupt_every > 0 && i % cfg.interrupt_every == 0 && cb.interrupted()) {
        out.interrupted = true;
        break;
      }
      if (i == cfg.warmup) {
        if (tune && x_n > 0) T = std::exp(x_sum / static_cast<double>(x_n));
        close_warmup();
      }
      shmc.step_size() = eps;
      shmc.steps() = steps_for(T);
      shmc.min_steps() = auto_traj ? jitter_low(shmc.steps()) : 1;
      const TransitionInfo info = shmc.transition(state, rng);
      if (i < cfg.warmup) {
        if (tune) {
          const double t = static_cast<double>(i - explore);
          const double gain = 2.0 / std::pow(t + 10.0, 0.6);
          x = std::clamp(x + gain * (std::min(1.0, info.accept_stat) - sc.trajectory_accept), x_lo, x_hi);
          T = std::exp(x);
          if (2 * (i - explore) >= n_tune) {
            x_sum += x;
            ++x_n;
          }
        }
      } else {
        if ((i - cfg.warmup) % cfg.thin == 0) save_transition(out, saved++, state.z.theta, info);
        if (online) {
          online->add_value(state.z.theta, state.U_true - net.offset() - net.base_value(state.z.theta));
          const double a = std::min(1.0, 1.0 / std::sqrt(static_cast<double>(++t_adapt)));
          if (srng.uniform() < a) {
            net.weights() = online->weights();
            ++rep.n_refresh;
            if (!shmc.refresh(state))
              throw std::runtime_error("the refreshed surrogate is not finite at the chain's position");
          }
        }
      }
      out.iterations_done = i + 1;
      log_progress(cfg, i, i < cfg.warmup ? "warmup: surrogate" : "sampling", cb);
    }
    rep.steps = steps_for(T);
    rep.integration_time = rep.steps * eps;
    out.final_step_size = eps;
  } catch (const std::exception& e) {
    if (!out.interrupted) out.error = e.what();
  }
  if (saved < n_save) shrink(out, saved);
  close_warmup();
  timer.finish(out);
  out.n_grad_warmup = explore_target.counts().grad;
  out.n_grad_sampling = 0;
  out.n_potential = explore_target.counts().potential + true_target.counts().potential;
  rep.n_surrogate_grad_warmup = surr_at_warm_end;
  rep.n_surrogate_grad_sampling = field.n_grad() - surr_at_warm_end;
  report_metric(ham.metric(), out);
  return res;
}

}  // namespace vhmc
