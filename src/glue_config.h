// R list -> core config structs. The R constructors (R/samplers.R) own the defaults and
// validate every value; this file only copies fields across.
#pragma once
#include <Rcpp.h>
#include <RcppEigen.h>

#include <vhmc/vhmc.hpp>

namespace vhmc_glue {

inline vhmc::ChainConfig chain_config(const Rcpp::List& sampler, const Rcpp::List& run) {
  vhmc::ChainConfig cfg;
  cfg.iter = Rcpp::as<int>(run["iter"]);
  cfg.warmup = Rcpp::as<int>(run["warmup"]);
  cfg.thin = Rcpp::as<int>(run["thin"]);
  // Seeds travel from R as doubles holding integers below 2^53.
  cfg.seed = static_cast<std::uint64_t>(Rcpp::as<double>(run["seed"]));
  cfg.chain = Rcpp::as<int>(run["chain"]);
  cfg.refresh = Rcpp::as<int>(run["refresh"]);
  const SEXP eps = sampler["step_size"];
  const bool user_eps = !Rf_isNull(eps);
  cfg.step_size = user_eps ? Rcpp::as<double>(eps) : 1.0;
  cfg.adapt.step_size = !user_eps && cfg.warmup > 0;
  cfg.adapt.metric = Rcpp::as<std::string>(sampler["metric"]) != "unit" && cfg.warmup > 0;
  cfg.adapt.dual.delta = Rcpp::as<double>(sampler["adapt_delta"]);
  cfg.adapt.init_accept = Rcpp::as<double>(sampler["init_accept"]);
  return cfg;
}

inline vhmc::NutsConfig nuts_config(const Rcpp::List& sampler) {
  vhmc::NutsConfig c;
  c.max_depth = Rcpp::as<int>(sampler["max_treedepth"]);
  return c;
}

inline vhmc::StaticHmcConfig hmc_config(const Rcpp::List& sampler) {
  vhmc::StaticHmcConfig c;
  const SEXP steps = sampler["steps"];
  c.steps = Rf_isNull(steps) ? 0 : Rcpp::as<int>(steps);
  c.jitter = Rcpp::as<bool>(sampler["jitter"]);
  return c;
}

}  // namespace vhmc_glue
