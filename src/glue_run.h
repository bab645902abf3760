// Runs one chain of any potential: picks the metric and the sampler named in the R sampler
// list, runs the core driver and converts its output to a plain R list. Potential-specific
// glue (R closures now, C++ GLM potentials later) only builds the potential and calls
// run_potential().
#pragma once
#include <R_ext/Utils.h>

#include "glue_config.h"

namespace vhmc_glue {

// R's pending-interrupt check without a longjmp through C++ frames.
inline void check_interrupt_fn(void*) { R_CheckUserInterrupt(); }
inline bool user_interrupted() { return R_ToplevelExec(check_interrupt_fn, nullptr) == FALSE; }

inline vhmc::Callbacks r_callbacks() {
  vhmc::Callbacks cb;
  cb.log = [](const std::string& s) { Rcpp::Rcout << s; };
  cb.interrupted = [] { return user_interrupted(); };
  return cb;
}

inline Rcpp::List to_r(const vhmc::ChainOutput& out, bool nuts) {
  using Rcpp::_;
  Rcpp::List diag = Rcpp::List::create(
      _["accept_stat__"] = Rcpp::wrap(out.accept_stat), _["stepsize__"] = Rcpp::wrap(out.step_size),
      _["n_leapfrog__"] = Rcpp::wrap(out.n_leapfrog), _["divergent__"] = Rcpp::wrap(out.divergent),
      _["energy__"] = Rcpp::wrap(out.energy));
  if (nuts) diag["treedepth__"] = Rcpp::wrap(out.treedepth);
  // Held by an RObject (protected) while the other elements are allocated.
  Rcpp::RObject inv_metric = out.inv_metric_dense.size() > 0 ? Rcpp::wrap(out.inv_metric_dense)
                                                             : Rcpp::wrap(out.inv_metric_diag);
  return Rcpp::List::create(
      _["draws"] = Rcpp::wrap(out.draws), _["diagnostics"] = diag,
      _["step_size"] = out.final_step_size, _["inv_metric"] = inv_metric,
      _["n_grad_warmup"] = static_cast<double>(out.n_grad_warmup),
      _["n_grad_sampling"] = static_cast<double>(out.n_grad_sampling),
      _["n_potential"] = static_cast<double>(out.n_potential),
      _["warmup_seconds"] = out.warmup_seconds, _["sampling_seconds"] = out.sampling_seconds,
      _["iterations_done"] = out.iterations_done, _["interrupted"] = out.interrupted,
      _["error"] = out.error);
}

template <class T, class M>
Rcpp::List run_sampler(T& target, M metric, const Rcpp::List& sampler, const Rcpp::List& run,
                       const vhmc::Vec& init) {
  vhmc::Hamiltonian<T, M> ham(target, std::move(metric));
  const vhmc::ChainConfig cfg = chain_config(sampler, run);
  vhmc::Callbacks cb = r_callbacks();
  const std::string name = Rcpp::as<std::string>(sampler["name"]);
  if (name == "nuts") {
    vhmc::Nuts<T, M> s(ham, nuts_config(sampler));
    return to_r(vhmc::run_chain<vhmc::Nuts<T, M>, M>(s, init, cfg, cb), true);
  }
  if (name == "hmc") {
    vhmc::StaticHmc<T, M> s(ham, hmc_config(sampler));
    return to_r(vhmc::run_chain<vhmc::StaticHmc<T, M>, M>(s, init, cfg, cb), false);
  }
  Rcpp::stop("unknown sampler '" + name + "'");
}

// Calls f with the metric named in the sampler list (identity to start; warmup adapts it).
template <class F>
Rcpp::List with_metric(const Rcpp::List& sampler, int d, F&& f) {
  const std::string metric = Rcpp::as<std::string>(sampler["metric"]);
  if (metric == "unit") return f(vhmc::UnitMetric(d));
  if (metric == "diag") return f(vhmc::DiagMetric(vhmc::Vec::Ones(d)));
  if (metric == "dense") return f(vhmc::DenseMetric(vhmc::Mat::Identity(d, d)));
  Rcpp::stop("unknown metric '" + metric + "'");
}

inline Rcpp::List surrogate_to_r(const vhmc::SurrogateReport& r) {
  using Rcpp::_;
  // Rcpp's create() takes at most 20 elements; the rest are appended by name.
  Rcpp::List res = Rcpp::List::create(
      _["hidden"] = r.hidden, _["activation"] = r.activation,
      _["train_on"] = r.train_on_gradient ? "gradient" : "value",
      _["n_train"] = static_cast<double>(r.n_train), _["n_holdout"] = static_cast<double>(r.n_holdout),
      _["n_seen"] = static_cast<double>(r.n_seen), _["lambda"] = r.lambda,
      _["train_seconds"] = r.train_seconds, _["grad_rmse"] = r.grad_rmse,
      _["grad_rel_error"] = r.grad_rel_error, _["steps"] = r.steps, _["explore"] = r.explore,
      _["integration_time"] = r.integration_time,
      _["max_integration_time"] = r.max_integration_time,
      _["explore_step_size"] = r.explore_step_size,
      _["n_surrogate_grad_warmup"] = static_cast<double>(r.n_surrogate_grad_warmup),
      _["n_surrogate_grad_sampling"] = static_cast<double>(r.n_surrogate_grad_sampling),
      _["n_refresh"] = static_cast<double>(r.n_refresh));
  res["predicted_ess_mean"] = r.predicted_ess_mean;
  res["predicted_ess_square"] = r.predicted_ess_square;
  res["metric_from_base"] = r.metric_from_base;
  return res;
}

inline Rcpp::List variational_to_r(const vhmc::VariationalReport& r) {
  using Rcpp::_;
  return Rcpp::List::create(
      _["hidden"] = r.hidden, _["activation"] = r.activation, _["lambda"] = r.lambda,
      _["refresh_every"] = r.refresh_every,
      _["n_train"] = static_cast<double>(r.n_train), _["n_holdout"] = static_cast<double>(r.n_holdout),
      _["update_seconds"] = r.update_seconds, _["grad_rmse"] = r.grad_rmse,
      _["grad_rel_error"] = r.grad_rel_error, _["score_distance"] = r.score_distance,
      _["mu_final"] = r.mu_final, _["schedule"] = r.schedule, _["steps"] = r.steps,
      _["train_until"] = r.train_until,
      _["n_surrogate_grad"] = static_cast<double>(r.n_surrogate_grad),
      _["n_outside"] = static_cast<double>(r.n_outside), _["train_radius"] = r.train_radius,
      _["draw_potential"] = Rcpp::NumericVector(r.draw_potential.data(),
                                                r.draw_potential.data() + r.draw_potential.size()),
      _["network"] = Rcpp::List::create(_["w_hat"] = r.w_hat, _["d_hat"] = r.d_hat,
                                        _["weights"] = r.weights, _["offset"] = r.offset,
                                        _["m"] = r.st_m, _["L"] = r.st_L,
                                        _["laplace_base"] = r.laplace_base));
}

template <class P>
Rcpp::List run_potential(P& potential, const Rcpp::List& sampler, const Rcpp::List& run,
                         const vhmc::Vec& init) {
  const int d = potential.dim();
  if (Rcpp::as<std::string>(sampler["name"]) == "surrogate_hmc") {
    const vhmc::ChainConfig cfg = chain_config(sampler, run);
    const vhmc::SurrogateConfig sc = surrogate_config(sampler);
    return with_metric(sampler, d, [&](auto metric) {
      vhmc::Callbacks cb = r_callbacks();
      const vhmc::SurrogateChainOutput out =
          vhmc::run_surrogate_chain(potential, std::move(metric), cfg, sc, init, cb);
      Rcpp::List res = to_r(out.chain, false);
      res["surrogate"] = surrogate_to_r(out.surrogate);
      return res;
    });
  }
  if (Rcpp::as<std::string>(sampler["name"]) == "variational_hmc") {
    const vhmc::ChainConfig cfg = chain_config(sampler, run);
    const vhmc::VariationalConfig vc = variational_config(sampler);
    const vhmc::Vec mode = Rcpp::as<vhmc::Vec>(sampler["laplace_mode"]);
    const vhmc::Mat hess = Rcpp::as<vhmc::Mat>(sampler["laplace_hessian"]);
    vhmc::Callbacks cb = r_callbacks();
    const vhmc::VariationalChainOutput out =
        vhmc::run_variational_chain(potential, mode, hess, cfg, vc, init, cb);
    Rcpp::List res = to_r(out.chain, false);
    res["variational"] = variational_to_r(out.variational);
    return res;
  }
  vhmc::Target<P> target(potential);
  return with_metric(sampler, d, [&](auto metric) {
    return run_sampler(target, std::move(metric), sampler, run, init);
  });
}

inline bool is_sg_sampler(const Rcpp::List& sampler) {
  const std::string name = Rcpp::as<std::string>(sampler["name"]);
  return name == "sghmc" || name == "sgld";
}

// A stochastic-gradient chain (potentials with minibatch gradients only: GLMs). The
// diagnostics are the step size and the number of updates (minibatch gradients) per saved
// iteration; `sg` reports B, N, the step size, friction, steps, the curvature estimate and
// the per-observation gradient evaluations (epochs = evaluations / N).
template <class P>
Rcpp::List run_sg(P& potential, const Rcpp::List& sampler, const Rcpp::List& run,
                  const vhmc::Vec& init) {
  using Rcpp::_;
  const vhmc::ChainConfig cfg = run_config(run);
  vhmc::Callbacks cb = r_callbacks();
  const std::string name = Rcpp::as<std::string>(sampler["name"]);
  const int d = static_cast<int>(init.size());
  // Control variate: mode and full gradient there, computed once per fit in R (R/sg.R).
  vhmc::ControlVariate cv_data;
  const vhmc::ControlVariate* cv = nullptr;
  if (sampler.containsElementNamed("cv_mode") && !Rf_isNull(sampler["cv_mode"])) {
    cv_data.theta_hat = Rcpp::as<vhmc::Vec>(sampler["cv_mode"]);
    cv_data.grad_hat = Rcpp::as<vhmc::Vec>(sampler["cv_gradient"]);
    if (cv_data.theta_hat.size() != d || cv_data.grad_hat.size() != d)
      Rcpp::stop("control variate: the mode and its gradient must have one value per parameter");
    cv = &cv_data;
  }
  vhmc::SgChainOutput out;
  if (name == "sghmc") {
    const vhmc::SghmcConfig c = sghmc_config(sampler);
    vhmc::Sghmc s(c, d);
    out = vhmc::run_sg_chain(potential, s, c.batch_size, cfg, init, cb, cv);
  } else if (name == "sgld") {
    const vhmc::SgldConfig c = sgld_config(sampler);
    vhmc::Sgld s(c, d);
    out = vhmc::run_sg_chain(potential, s, c.batch_size, cfg, init, cb, cv);
  } else {
    Rcpp::stop("unknown stochastic-gradient sampler '" + name + "'");
  }
  const vhmc::ChainOutput& ch = out.chain;
  Rcpp::List diag = Rcpp::List::create(_["stepsize__"] = Rcpp::wrap(ch.step_size),
                                       _["n_leapfrog__"] = Rcpp::wrap(ch.n_leapfrog));
  const vhmc::SgReport& r = out.sg;
  Rcpp::List sg = Rcpp::List::create(
      _["n_obs"] = static_cast<double>(r.n_obs), _["batch_size"] = static_cast<double>(r.batch_size),
      _["step_size"] = r.step_size, _["friction"] = r.friction, _["steps"] = r.steps,
      _["curvature"] = r.curvature,
      _["n_obs_grad_warmup"] = static_cast<double>(r.n_obs_grad_warmup),
      _["n_obs_grad_sampling"] = static_cast<double>(r.n_obs_grad_sampling),
      _["n_updates"] = static_cast<double>(r.n_updates),
      _["n_clamped"] = static_cast<double>(r.n_clamped));
  Rcpp::List res = Rcpp::List::create(
      _["draws"] = Rcpp::wrap(ch.draws), _["diagnostics"] = diag, _["step_size"] = ch.final_step_size,
      _["inv_metric"] = Rcpp::wrap(ch.inv_metric_diag),
      _["n_grad_warmup"] = static_cast<double>(ch.n_grad_warmup),
      _["n_grad_sampling"] = static_cast<double>(ch.n_grad_sampling),
      _["n_potential"] = static_cast<double>(ch.n_potential),
      _["warmup_seconds"] = ch.warmup_seconds, _["sampling_seconds"] = ch.sampling_seconds,
      _["iterations_done"] = ch.iterations_done, _["interrupted"] = ch.interrupted,
      _["error"] = ch.error);
  res["sg"] = sg;
  return res;
}

}  // namespace vhmc_glue
