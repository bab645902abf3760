#pragma once
// One chain of a stochastic-gradient sampler (SGHMC, SGLD; SPEC A5): no Metropolis step,
// warmup iterations are burn-in (discarded), each saved iteration is `steps` updates, each
// update one minibatch gradient from a BatchSchedule on the chain's own Rng stream.
// Defaults left to the driver (step size, friction, steps) come from the largest Hessian
// eigenvalue of U estimated on a random batch (model/minibatch.hpp) at the start and at
// every tenth of warmup (the curvature changes as the chain leaves its initial values);
// they are frozen for sampling. With the diag metric the same estimate gives the scales
// s_j = 1 / sqrt(H_jj) (inverse metric s^2), so that step sizes are in natural units. Counts: minibatch gradients and per-observation gradient
// evaluations (epochs = evaluations / N), curvature estimation included. A non-finite
// state ends the chain with an error suggesting a smaller step size; no NaN draw is saved.
// With a control variate (SGLD-CV, SGHMC-CV) every update uses g_cv (2B per-observation
// gradients), and the defaults use its measured noise (cv_noise) instead of the plain
// estimator's model, which lets the step size grow to the discretisation limit near the mode.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "../model/minibatch.hpp"
#include "run_chain.hpp"

namespace vhmc {

struct SgReport {
  long n_obs = 0;            // N
  long batch_size = 0;       // B
  double step_size = 0.0;    // eps (SGHMC) or a (SGLD, base of the schedule)
  double friction = 0.0;     // C (SGHMC)
  int steps = 0;             // updates per saved iteration
  double curvature = 0.0;    // last estimate of lambda_max (0 if none was needed)
  long n_obs_grad_warmup = 0, n_obs_grad_sampling = 0;
  long n_updates = 0;
  long n_clamped = 0;        // SGHMC updates whose estimated B_hat was clamped to C
};

struct SgChainOutput {
  ChainOutput chain;
  SgReport sg;
};

template <class P, class S>
SgChainOutput run_sg_chain(P& pot, S& s, long batch_size, const ChainConfig& cfg, const Vec& init,
                           Callbacks& cb, const ControlVariate* cv = nullptr) {
  const int d = static_cast<int>(init.size());
  const int n_save = saved_count(cfg);
  SgChainOutput res;
  ChainOutput& out = res.chain;
  out = allocate_output(cfg, d);
  SgReport& rep = res.sg;
  rep.n_obs = static_cast<long>(pot.n_obs());
  rep.batch_size = batch_size;

  Rng rng(cfg.seed, static_cast<std::uint64_t>(cfg.chain));
  Vec theta = init;
  long n_grad = 0, n_obs_grad = 0;
  ChainClock timer;
  long grad_at_warm_end = 0, obs_at_warm_end = 0;
  auto close_warmup = [&]() {
    if (!timer.close_warmup()) return;
    grad_at_warm_end = n_grad;
    obs_at_warm_end = n_obs_grad;
  };

  int saved = 0;
  try {
    BatchSchedule batches(pot.n_obs(), batch_size, s.fresh_batches());
    auto grad = [&](const Vec& th, Vec& g, Vec* noise_var) {
      const int* idx = batches.next(rng);
      if (cv) {
        (*cv)(pot, th, idx, batch_size, g, noise_var);
        n_obs_grad += 2 * batch_size;
      } else {
        pot.minibatch_grad(th, idx, batch_size, g, noise_var);
        n_obs_grad += batch_size;
      }
      ++n_grad;
    };
    const double b_over_n = static_cast<double>(batch_size) / static_cast<double>(pot.n_obs());
    const Eigen::Index m_est = std::min<Eigen::Index>(pot.n_obs(), std::max<Eigen::Index>(batch_size, 500));
    Vec scale(d);
    auto rescale = [&]() {
      const double lambda = estimate_curvature(pot, theta, m_est, rng, &n_obs_grad, s.diag_metric(), scale);
      if (!(lambda > 0) || !std::isfinite(lambda))
        throw std::runtime_error(
            "could not estimate the curvature of the log density at the current values (a gradient "
            "is not finite or zero); give step_size (and friction, steps) explicitly");
      rep.curvature = lambda;
      double noise_b_over_n = b_over_n;
      if (cv) {
        // The samplers' defaults assume noise variance lambda N / B (in the metric's
        // coordinates); pass the ratio that makes that model match the measured CV noise.
        const Vec probe = s.diag_metric() ? scale : Vec::Constant(d, 1.0 / std::sqrt(lambda));
        const double v = cv_noise(pot, *cv, scale, probe, m_est, batch_size, rng, &n_obs_grad);
        if (!std::isfinite(v))
          throw std::runtime_error("the control-variate gradient is not finite near the posterior mode");
        noise_b_over_n = v > 0 ? std::min(1e300, lambda / v) : 1e300;
      }
      s.set_scale(lambda, noise_b_over_n, scale);
    };
    if (!theta.allFinite()) throw std::runtime_error("the initial values are not finite");
    const bool auto_scale = s.needs_scale();
    if (auto_scale) rescale();
    s.start(rng);
    const int every = cfg.warmup >= 10 ? cfg.warmup / 10 : 0;
    for (int i = 0; i < cfg.iter; ++i) {
      if (cfg.interrupt_every > 0 && i % cfg.interrupt_every == 0 && cb.interrupted()) {
        out.interrupted = true;
        break;
      }
      if (i == cfg.warmup) close_warmup();
      if (auto_scale && every > 0 && i > 0 && i < cfg.warmup && i % every == 0) rescale();
      const int steps = s.steps();
      for (int l = 0; l < steps; ++l) {
        if (!s.update(theta, grad, rng)) {
          char buf[400];
          std::snprintf(buf, sizeof(buf),
                        "the state became non-finite at iteration %d (%s, step size %.3g): the "
                        "step size is too large for this posterior; use a smaller step_size "
                        "(or a larger batch_size)",
                        i + 1, i < cfg.warmup ? "warmup" : "sampling", s.step_size());
          throw std::runtime_error(buf);
        }
      }
      rep.n_updates += steps;
      if (i >= cfg.warmup && (i - cfg.warmup) % cfg.thin == 0) {
        TransitionInfo info;
        info.accept_stat = std::numeric_limits<double>::quiet_NaN();
        info.step_size = s.step_size();
        info.energy = std::numeric_limits<double>::quiet_NaN();
        info.n_leapfrog = steps;
        info.treedepth = 0;
        info.divergent = false;
        save_transition(out, saved++, theta, info);
      }
      out.iterations_done = i + 1;
      log_progress(cfg, i, i < cfg.warmup ? "warmup" : "sampling", cb);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (saved < n_save) shrink(out, saved);
  close_warmup();
  timer.finish(out);
  out.n_grad_warmup = grad_at_warm_end;
  out.n_grad_sampling = n_grad - grad_at_warm_end;
  out.n_potential = 0;
  out.final_step_size = s.step_size();
  rep.n_obs_grad_warmup = obs_at_warm_end;
  rep.n_obs_grad_sampling = n_obs_grad - obs_at_warm_end;
  rep.step_size = s.step_size();
  rep.friction = s.friction();
  rep.steps = s.steps();
  rep.n_clamped = s.n_clamped();
  out.inv_metric_diag = s.scale().array().square();
  return res;
}

}  // namespace vhmc
