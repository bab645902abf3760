#pragma once
// One chain of variational HMC (VHMC, SPEC B4, [VHMC] Algorithm 2), approximate by design:
//   HMC on V_t = mu_t z + (1 - mu_t)/2 (theta - theta_L)' H_L (theta - theta_L), with
//   mu_t = 1 - exp(-t / schedule), Metropolis with the SURROGATE Hamiltonian; while
//   t < train_until every accepted proposal's true gradient updates the output weights by the
//   exact online score-matching (Woodbury) recursion. After train_until, mu and the weights are
//   frozen and the chain never touches the data: its draws follow q ~ exp(-V), not the
//   posterior. The bases are drawn in coordinates standardised by the Laplace approximation
//   (mean theta_L, covariance H_L^{-1}, which is also the metric); every tenth training
//   gradient is held out to measure the score-matching error of the final V.
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../adapt/dual_averaging.hpp"
#include "../metric/metrics.hpp"
#include "../model/target.hpp"
#include "../sampler/static_hmc.hpp"
#include "../sampler/variational_field.hpp"
#include "../surrogate/network.hpp"
#include "../surrogate/trainer.hpp"
#include "run_chain.hpp"

namespace vhmc {

struct VariationalConfig {
  int hidden = 0;               // 0: min(2000, max(50, 40 d)) (SPEC B6)
  Activation activation = Activation::Softplus;
  double lambda = 1e-3;         // ridge penalty, standardised coordinates (SPEC B6)
  int train_until = 0;          // t0: iterations with online training
  double schedule = 0.0;        // n_s in mu_t = 1 - exp(-t / n_s); 0: train_until / 10
  int steps = 20;               // maximum leapfrog steps, jittered 1..steps (SPEC B6)
  double adapt_delta = 0.7;     // step-size target while training (SPEC B6)
  bool final_mu_one = false;    // after t0: mu = 1 (the paper's literal variant)
  // z = Laplace quadratic + network, the network fitted to the residual gradients (package
  // default; false: the paper's network alone). See run_variational_chain.
  bool laplace_base = true;
  // Start from a draw of the Laplace approximation instead of init (package default): the
  // mode is known before the chain starts, and a transient from a far init would feed the
  // trainer gradients from where the posterior has no mass.
  bool start_laplace = true;
  int refactor_every = 1000;
  // Training points per re-solve of the output weights. 1: the exact online Woodbury update
  // per point, O(s^2 d); k > 1: accumulate the normal equations (Hadamard form, O(s^2) per
  // point for additive nodes) and solve every k points and when training ends, O(s^3 / k)
  // per point. 0: automatic, see variational_refresh_every().
  int refresh_every = 0;
};

// Woodbury while its per-point cost, about 3 s^2 d flops, stays under ~1e7 (a few ms);
// beyond, batches of ceil(s / d) points, which makes the amortised solve about s^2 d / 3
// per point, ~9x cheaper (at s = 2000, d = 51: 0.6 Gflop per point by Woodbury).
inline int variational_refresh_every(int configured, int s, int d) {
  if (configured > 0) return configured;
  const double woodbury = 3.0 * static_cast<double>(s) * s * d;
  if (woodbury <= 1e7) return 1;
  return std::max(1, (s + d - 1) / d);
}

struct VariationalReport {
  int hidden = 0;
  std::string activation;
  double lambda = 0.0;
  int refresh_every = 1;
  long n_train = 0, n_holdout = 0;
  double update_seconds = 0.0;
  double grad_rmse = NAN, grad_rel_error = NAN;  // held-out, final V vs grad U (u-space)
  double score_distance = NAN;  // held-out mean of ||grad V - grad U||^2 / 2 in u-space
  double mu_final = 0.0, schedule = 0.0;
  int steps = 0, train_until = 0;
  long n_surrogate_grad = 0;
  Vec draw_potential;           // V at each saved draw (for importance weights)
  // Extrapolation check: the largest standardised radius ||L^{-1}(theta - mode)|| of the
  // training states, and the saved draws beyond 1.5 times it plus 3 (where the network was
  // never fitted, so q may be wrong there or even improper).
  double train_radius = 0.0;
  long n_outside = 0;
  bool laplace_base = false;
  // The final V, for evaluating it elsewhere: u-space bases (s x d) and their biases (or RBF
  // widths), output weights and offset, the standardisation (m, L) and the Laplace part.
  Mat w_hat, st_L;
  Vec d_hat, weights, st_m;
  double offset = 0.0;
};

struct VariationalChainOutput {
  ChainOutput chain;
  VariationalReport variational;
};

namespace detail {
constexpr std::uint64_t kVariationalStream = 0x7a21ULL << 32;
}

template <class P>
VariationalChainOutput run_variational_chain(P& potential, const Vec& mode, const Mat& hessian,
                                             const ChainConfig& cfg, const VariationalConfig& vc,
                                             const Vec& init, Callbacks& cb) {
  using clock = std::chrono::steady_clock;
  const int d = potential.dim();
  VariationalChainOutput res;
  ChainOutput& out = res.chain;
  VariationalReport& rep = res.variational;
  out = allocate_output(cfg, d);
  const int n_save = saved_count(cfg);
  rep.draw_potential.resize(n_save);
  rep.activation = activation_name(vc.activation);
  rep.lambda = vc.lambda;
  rep.steps = vc.steps;
  const int t0 = std::min(vc.train_until, cfg.warmup);
  rep.train_until = t0;
  const double n_s = vc.schedule > 0 ? vc.schedule : std::max(1.0, t0 / 10.0);
  rep.schedule = n_s;

  Rng rng(cfg.seed, static_cast<std::uint64_t>(cfg.chain));
  Rng srng(cfg.seed, detail::kVariationalStream + static_cast<std::uint64_t>(cfg.chain));
  Target<P> truth(potential);

  ChainClock timer;
  long grad_warm = 0;
  auto close_warmup = [&]() {
    if (timer.close_warmup()) grad_warm = truth.counts().grad;
  };
  int saved = 0;
  try {
    Eigen::LLT<Mat> hllt(hessian);
    if (hllt.info() != Eigen::Success)
      throw std::runtime_error("the Laplace Hessian is not positive definite");
    const Mat cov = hllt.solve(Mat::Identity(d, d));
    const Standardizer st = Standardizer::from_covariance(mode, 0.5 * (cov + cov.transpose()));
    RandomBasisNetwork net;
    const int s = vc.hidden > 0 ? vc.hidden : std::min(2000, std::max(50, 40 * d));
    net.draw(s, vc.activation, st, srng);
    rep.hidden = s;
    // Laplace base: in the Laplace-standardised coordinates u the Laplace quadratic is u'u/2,
    // so z = u'u/2 + network and V = quadratic + mu * network. Why: a network of saturating
    // bases trained on few gradients extrapolates linearly, so exp(-V) can put its mass far
    // outside the training states (measured on the probit benchmark: RMSE 30-860 with 6-34
    // training points); with the base, the ridge shrinks an undertrained network toward the
    // Laplace approximation instead of toward a flat potential, and the quadratic dominates
    // far away (the bases' gradients are bounded), so q stays proper.
    rep.laplace_base = vc.laplace_base;
    if (vc.laplace_base) net.set_quadratic(Mat::Identity(d, d), Vec::Zero(d));
    const int refresh = variational_refresh_every(vc.refresh_every, s, d);
    rep.refresh_every = refresh;
    std::unique_ptr<OnlineRidge> online;
    std::unique_ptr<RidgeTrainer> batch;
    Mat pend_theta, pend_grad;  // training points not yet in the batch solve
    Eigen::Index n_pend = 0;
    if (refresh == 1) {
      online = std::make_unique<OnlineRidge>(net, Mat::Zero(s, s), Vec::Zero(s), vc.lambda,
                                             vc.refactor_every);
      net.weights() = online->weights();
    } else {
      batch = std::make_unique<RidgeTrainer>(net);
      net.weights().setZero();
      pend_theta.resize(refresh, d);
      pend_grad.resize(refresh, d);
    }
    auto flush = [&]() {
      if (!batch || n_pend == 0) return;
      const auto tu = clock::now();
      batch->add_gradients(pend_theta.topRows(n_pend), pend_grad.topRows(n_pend));
      batch->solve(vc.lambda);
      n_pend = 0;
      rep.update_seconds += std::chrono::duration<double>(clock::now() - tu).count();
    };

    VariationalField field(net, mode, hessian);
    Hamiltonian<VariationalField, DenseMetric> ham(field, DenseMetric(0.5 * (cov + cov.transpose())));
    StaticHmcConfig hc;
    hc.steps = vc.steps;
    hc.jitter = true;
    StaticHmc<VariationalField, DenseMetric> hmc(ham, hc);
    DualAveragingConfig dac;
    dac.delta = vc.adapt_delta;
    DualAveraging da(dac);
    // In the Laplace metric the Gaussian part has unit frequencies: start near a stable step.
    double eps = cfg.adapt.step_size ? 0.5 : cfg.step_size;
    da.restart(eps);

    Vec g(d), prev(d), ubuf(d), resid(d);
    PhasePoint z(d);
    z.theta = init;
    if (vc.start_laplace) {
      for (int j = 0; j < d; ++j) ubuf[j] = rng.normal();
      z.theta = mode + st.L.template triangularView<Eigen::Lower>() * ubuf;
    }
    std::vector<Vec> hold_theta, hold_grad;
    long n_accepted_train = 0;
    for (int i = 0; i < cfg.iter; ++i) {
      if (cfg.interrupt_every > 0 && i % cfg.interrupt_every == 0 && cb.interrupted()) {
        out.interrupted = true;
        break;
      }
      if (i == cfg.warmup) close_warmup();
      const bool training = i < t0;
      if (training) {
        field.mu() = 1.0 - std::exp(-(i + 1) / n_s);
      } else if (i == t0) {
        flush();
        field.mu() = vc.final_mu_one ? 1.0 : 1.0 - std::exp(-std::max(t0, 1) / n_s);
        if (cfg.adapt.step_size && t0 > 0) eps = da.final_step_size();
      }
      // mu and v change between iterations: refresh the cached V and grad V at the state.
      if (training || i == t0 || i == 0) {
        if (!ham.init_point(z)) {
          if (i == 0)
            throw std::runtime_error("the Laplace approximation is not finite at the initial values");
          throw std::runtime_error("the variational potential became non-finite at the chain's state; "
                                   "raise `lambda` or the number of hidden units");
        }
      }
      hmc.step_size() = eps;
      prev = z.theta;
      const TransitionInfo info = hmc.transition(z, rng);
      if (training) {
        if (cfg.adapt.step_size) eps = da.learn(info.accept_stat);
        if (z.theta != prev) {
          // The only data access of VHMC: the true gradient at the accepted proposal.
          truth.U_grad(z.theta, g);
          st.to_u(z.theta, ubuf);
          rep.train_radius = std::max(rep.train_radius, ubuf.norm());
          if (g.allFinite()) {
            if (++n_accepted_train % 10 == 0) {
              hold_theta.push_back(z.theta);
              hold_grad.push_back(g);
            } else {
              resid = g;
              if (vc.laplace_base) resid.noalias() -= hessian * (z.theta - mode);
              if (online) {
                const auto tu = clock::now();
                online->add_gradient(z.theta, resid);
                net.weights() = online->weights();
                rep.update_seconds += std::chrono::duration<double>(clock::now() - tu).count();
              } else {
                pend_theta.row(n_pend) = z.theta.transpose();
                pend_grad.row(n_pend) = resid.transpose();
                if (++n_pend == pend_theta.rows()) flush();
              }
              ++rep.n_train;
            }
          }
        }
      }
      if (i >= cfg.warmup && (i - cfg.warmup) % cfg.thin == 0) {
        rep.draw_potential[saved] = z.U;
        st.to_u(z.theta, ubuf);
        if (ubuf.norm() > 1.5 * rep.train_radius + 3.0) ++rep.n_outside;
        save_transition(out, saved++, z.theta, info);
      }
      out.iterations_done = i + 1;
      log_progress(cfg, i, training ? "warmup: training" : (i < cfg.warmup ? "warmup" : "sampling"), cb);
    }
    flush();  // training ran to the end of the chain (iter <= train_until) or was interrupted
    rep.mu_final = field.mu();
    rep.n_holdout = static_cast<long>(hold_theta.size());
    if (!hold_theta.empty() && !out.interrupted) {
      // Score-matching error of the final V on held-out training states (u-space).
      Vec gv(d), e(d), eu(d), tu(d);
      double se = 0.0, ref = 0.0;
      for (std::size_t k = 0; k < hold_theta.size(); ++k) {
        field.U_grad(hold_theta[k], gv);
        e = gv - hold_grad[k];
        st.grad_to_u(e, eu);
        st.grad_to_u(hold_grad[k], tu);
        se += eu.squaredNorm();
        ref += tu.squaredNorm();
      }
      const double n = static_cast<double>(hold_theta.size());
      rep.grad_rmse = std::sqrt(se / (n * d));
      rep.grad_rel_error = std::sqrt(se / ref);
      rep.score_distance = 0.5 * se / n;
    }
    rep.n_surrogate_grad = field.n_grad();
    rep.w_hat = net.w_hat();
    rep.d_hat = net.d_hat();
    rep.weights = net.weights();
    rep.offset = net.offset();
    rep.st_m = st.m;
    rep.st_L = st.L;
    out.final_step_size = eps;
    report_metric(ham.metric(), out);
  } catch (const std::exception& e) {
    if (!out.interrupted) out.error = e.what();
  }
  if (saved < n_save) {
    shrink(out, saved);
    rep.draw_potential.conservativeResize(saved);
  }
  close_warmup();
  timer.finish(out);
  out.n_grad_warmup = grad_warm;
  out.n_grad_sampling = truth.counts().grad - grad_warm;
  out.n_potential = truth.counts().potential;
  return res;
}

}  // namespace vhmc
