// R list -> core config structs. The R constructors (R/samplers.R) own the defaults and
// validate every value; this file only copies fields across.
#pragma once
#include <Rcpp.h>
#include <RcppEigen.h>

#include <vhmc/vhmc.hpp>
#include <vhmc/driver/run_surrogate_chain.hpp>
#include <vhmc/driver/run_variational_chain.hpp>
#include <vhmc/driver/run_sg_chain.hpp>
#include <vhmc/sampler/sghmc.hpp>
#include <vhmc/sampler/sgld.hpp>

namespace vhmc_glue {

// The run's settings only (iterations, seed, chain, progress); no adaptation.
inline vhmc::ChainConfig run_config(const Rcpp::List& run) {
  vhmc::ChainConfig cfg;
  cfg.iter = Rcpp::as<int>(run["iter"]);
  cfg.warmup = Rcpp::as<int>(run["warmup"]);
  cfg.thin = Rcpp::as<int>(run["thin"]);
  // Seeds travel from R as doubles holding integers below 2^53.
  cfg.seed = static_cast<std::uint64_t>(Rcpp::as<double>(run["seed"]));
  cfg.chain = Rcpp::as<int>(run["chain"]);
  cfg.refresh = Rcpp::as<int>(run["refresh"]);
  return cfg;
}

inline vhmc::ChainConfig chain_config(const Rcpp::List& sampler, const Rcpp::List& run) {
  vhmc::ChainConfig cfg = run_config(run);
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

inline vhmc::SurrogateConfig surrogate_config(const Rcpp::List& sampler) {
  vhmc::SurrogateConfig c;
  c.explore = Rcpp::as<int>(sampler["explore"]);
  const SEXP hidden = sampler["hidden"];
  c.hidden = Rf_isNull(hidden) ? 0 : Rcpp::as<int>(hidden);
  c.activation = vhmc::activation_from_name(Rcpp::as<std::string>(sampler["activation"]));
  c.train_on_gradient = Rcpp::as<std::string>(sampler["train_on"]) == "gradient";
  const SEXP lambda = sampler["lambda"];
  c.lambda = Rf_isNull(lambda) ? 0.0 : Rcpp::as<double>(lambda);
  const SEXP steps = sampler["steps"];
  c.steps = Rf_isNull(steps) ? 0 : Rcpp::as<int>(steps);
  c.adapt_delta = Rcpp::as<double>(sampler["adapt_delta"]);
  c.trajectory_accept = std::min(c.adapt_delta, 0.65);
  c.adaptive = Rcpp::as<bool>(sampler["adaptive"]);
  c.max_train = static_cast<long>(Rcpp::as<double>(sampler["max_train"]));
  c.nuts.max_depth = Rcpp::as<int>(sampler["max_treedepth"]);
  return c;
}

inline vhmc::VariationalConfig variational_config(const Rcpp::List& sampler) {
  vhmc::VariationalConfig c;
  const SEXP hidden = sampler["hidden"];
  c.hidden = Rf_isNull(hidden) ? 0 : Rcpp::as<int>(hidden);
  c.activation = vhmc::activation_from_name(Rcpp::as<std::string>(sampler["activation"]));
  c.lambda = Rcpp::as<double>(sampler["lambda_value"]);
  c.train_until = Rcpp::as<int>(sampler["train_until"]);
  c.schedule = Rcpp::as<double>(sampler["schedule_value"]);
  c.steps = Rcpp::as<int>(sampler["steps"]);
  c.adapt_delta = Rcpp::as<double>(sampler["adapt_delta"]);
  c.final_mu_one = Rcpp::as<std::string>(sampler["final_mu"]) == "one";
  c.laplace_base = Rcpp::as<std::string>(sampler["base"]) == "laplace";
  c.start_laplace = Rcpp::as<std::string>(sampler["start"]) == "laplace";
  const SEXP refresh = sampler["refresh_every"];
  c.refresh_every = Rf_isNull(refresh) ? 0 : Rcpp::as<int>(refresh);
  return c;
}

// NULL (R's "choose automatically") travels as 0 for the SG configs.
inline double num_or_zero(SEXP v) { return Rf_isNull(v) ? 0.0 : Rcpp::as<double>(v); }

inline vhmc::SghmcConfig sghmc_config(const Rcpp::List& sampler) {
  vhmc::SghmcConfig c;
  c.batch_size = Rcpp::as<int>(sampler["batch_size"]);
  c.step_size = num_or_zero(sampler["step_size"]);
  c.friction = num_or_zero(sampler["friction"]);
  c.noise_estimate = Rcpp::as<double>(sampler["noise_estimate"]);
  c.steps = static_cast<int>(num_or_zero(sampler["steps"]));
  c.resample = Rcpp::as<int>(sampler["resample"]);
  c.diag_metric = Rcpp::as<std::string>(sampler["metric"]) == "diag";
  c.estimate_noise = Rcpp::as<bool>(sampler["estimate_noise"]);
  c.fresh_batches = Rcpp::as<std::string>(sampler["batches"]) == "fresh";
  return c;
}

inline vhmc::SgldConfig sgld_config(const Rcpp::List& sampler) {
  vhmc::SgldConfig c;
  c.batch_size = Rcpp::as<int>(sampler["batch_size"]);
  c.step_size = num_or_zero(sampler["step_size"]);
  c.decay = Rcpp::as<double>(sampler["decay"]);
  c.decay_offset = Rcpp::as<double>(sampler["decay_offset"]);
  c.steps = static_cast<int>(num_or_zero(sampler["steps"]));
  c.diag_metric = Rcpp::as<std::string>(sampler["metric"]) == "diag";
  c.fresh_batches = Rcpp::as<std::string>(sampler["batches"]) == "fresh";
  return c;
}

}  // namespace vhmc_glue
