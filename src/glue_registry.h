// The one place where a sampler's class (as R's S3 class, e.g. "vhmc_nuts") is mapped to the
// core: a registry from class to runner. A runner builds the sampler's config from the R
// list, runs one chain on the potential and converts the output. Adding a sampler is one
// runner and one line of the table.
#pragma once
#include <string>
#include <type_traits>
#include <utility>

#include "glue_convert.h"

namespace vhmc_glue {

// Fit-time results the chains share (computed once in R): the Laplace anchor of
// variational HMC, the control-variate anchor of SGLD-CV / SGHMC-CV.
inline bool has_extra(const Rcpp::List& extras, const char* name) {
  return extras.containsElementNamed(name) && !Rf_isNull(extras[name]);
}

// Calls f with the initial metric the config names (identity; warmup adapts it).
template <class F>
auto with_metric(const Rcpp::List& config, int d, F&& f) {
  const std::string metric = Rcpp::as<std::string>(config["metric"]);
  if (metric == "unit") return f(vhmc::UnitMetric(d));
  if (metric == "diag") return f(vhmc::DiagMetric(vhmc::Vec::Ones(d)));
  return f(vhmc::DenseMetric(vhmc::Mat::Identity(d, d)));
}

template <class P>
using Runner = vhmc::ChainOutput (*)(P&, const Rcpp::List&, const Rcpp::List&, const vhmc::Vec&,
                                     const vhmc::ChainConfig&, vhmc::Callbacks&);

template <class P>
vhmc::ChainOutput run_nuts(P& pot, const Rcpp::List& c, const Rcpp::List&, const vhmc::Vec& init,
                           const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  return with_metric(c, pot.dim(), [&](auto m) {
    return vhmc::run_hmc_family<vhmc::Nuts>(pot, std::move(m), nuts_config(c), warmup_config(c), cfg, init, cb);
  });
}

template <class P>
vhmc::ChainOutput run_hmc(P& pot, const Rcpp::List& c, const Rcpp::List&, const vhmc::Vec& init,
                          const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  return with_metric(c, pot.dim(), [&](auto m) {
    return vhmc::run_hmc_family<vhmc::StaticHmc>(pot, std::move(m), hmc_config(c), warmup_config(c), cfg, init, cb);
  });
}

template <class P>
vhmc::ChainOutput run_surrogate(P& pot, const Rcpp::List& c, const Rcpp::List&, const vhmc::Vec& init,
                                const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  return with_metric(c, pot.dim(), [&](auto m) {
    return vhmc::run_surrogate_hmc(pot, std::move(m), surrogate_config(c), warmup_config(c), cfg, init, cb);
  });
}

template <class P>
vhmc::ChainOutput run_variational(P& pot, const Rcpp::List& c, const Rcpp::List& extras, const vhmc::Vec& init,
                                  const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  const Rcpp::List la = extras["laplace"];
  const vhmc::Vec mode = Rcpp::as<vhmc::Vec>(la["mode"]);
  const vhmc::Mat hessian = Rcpp::as<vhmc::Mat>(la["hessian"]);
  return vhmc::run_variational_hmc(pot, mode, hessian, variational_config(c), cfg, init, cb);
}

// Stochastic-gradient samplers need a potential with minibatch gradients (GLMs); R never
// sends them another (R/sampler-sg.R), so the others get a runner that says so.
template <class P, class = void>
struct has_minibatch : std::false_type {};
template <class P>
struct has_minibatch<P, std::void_t<decltype(std::declval<P&>().n_obs())>> : std::true_type {};

template <class P, class Rule, class RuleConfig>
vhmc::ChainOutput run_sg_rule(P& pot, const RuleConfig& rc, const Rcpp::List& c, const Rcpp::List& extras,
                              const vhmc::Vec& init, const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  if constexpr (has_minibatch<P>::value) {
    vhmc::ControlVariate cv;
    const bool use_cv = has_extra(extras, "control_variate");
    if (use_cv) {
      const Rcpp::List a = extras["control_variate"];
      cv.theta_hat = Rcpp::as<vhmc::Vec>(a["mode"]);
      cv.grad_hat = Rcpp::as<vhmc::Vec>(a["gradient"]);
    }
    const long batch = static_cast<long>(Rcpp::as<double>(c["batch_size"]));
    return vhmc::run_sg<Rule>(pot, rc, batch, use_cv ? &cv : nullptr, cfg, init, cb);
  } else {
    Rcpp::stop("internal: a stochastic-gradient sampler needs a potential with minibatch gradients");
  }
}

template <class P>
vhmc::ChainOutput run_sghmc(P& pot, const Rcpp::List& c, const Rcpp::List& extras, const vhmc::Vec& init,
                            const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  return run_sg_rule<P, vhmc::Sghmc>(pot, sghmc_config(c), c, extras, init, cfg, cb);
}

template <class P>
vhmc::ChainOutput run_sgld(P& pot, const Rcpp::List& c, const Rcpp::List& extras, const vhmc::Vec& init,
                           const vhmc::ChainConfig& cfg, vhmc::Callbacks& cb) {
  return run_sg_rule<P, vhmc::Sgld>(pot, sgld_config(c), c, extras, init, cfg, cb);
}

// The registry: the sampler config's S3 class -> its runner.
template <class P>
Runner<P> find_runner(const std::string& cls) {
  static const std::pair<const char*, Runner<P>> table[] = {
      {"vhmc_nuts", &run_nuts<P>},
      {"vhmc_hmc", &run_hmc<P>},
      {"vhmc_surrogate_hmc", &run_surrogate<P>},
      {"vhmc_variational_hmc", &run_variational<P>},
      {"vhmc_sghmc", &run_sghmc<P>},
      {"vhmc_sgld", &run_sgld<P>},
  };
  for (const auto& entry : table)
    if (cls == entry.first) return entry.second;
  Rcpp::stop("internal: no sampler is registered for class '" + cls + "'");
}

// One chain of the sampler `config` (an R list whose class names the sampler) on potential.
template <class P>
Rcpp::List run_registered(P& potential, const Rcpp::List& config, const Rcpp::List& extras,
                          const vhmc::Vec& init, const Rcpp::List& run) {
  const Rcpp::CharacterVector cls = config.attr("class");
  const vhmc::ChainConfig cfg = chain_config(run);
  vhmc::Callbacks cb = r_callbacks();
  const vhmc::ChainOutput out =
      find_runner<P>(Rcpp::as<std::string>(cls[0]))(potential, config, extras, init, cfg, cb);
  return output_to_r(out);
}

}  // namespace vhmc_glue
