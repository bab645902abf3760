// Conversions between R and the core, in both directions, in one place: R lists (the
// sampler configs that R/sampler-*.R resolves, the run settings) to the core's config
// structs; the core's chain output and reports back to plain R lists; and the callbacks
// that let the core print and poll for Ctrl-C through R. Every value arrives validated and
// with its defaults settled (R decides them); NULL means "chosen during the run".
#pragma once
#include <R_ext/Utils.h>
#include <Rcpp.h>
#include <RcppEigen.h>

#include <optional>
#include <string>

#include <vhmc/vhmc.hpp>

namespace vhmc_glue {

// ---- R -> core ------------------------------------------------------------------------

template <class T>
std::optional<T> optional_of(SEXP v) {
  if (Rf_isNull(v)) return std::nullopt;
  return Rcpp::as<T>(v);
}

inline vhmc::ChainConfig chain_config(const Rcpp::List& run) {
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

inline vhmc::HmcWarmupConfig warmup_config(const Rcpp::List& c) {
  vhmc::HmcWarmupConfig w;
  w.step_size = optional_of<double>(c["step_size"]);
  const Rcpp::List a = c["adapt"];
  w.adapt.step_size = Rcpp::as<bool>(a["step_size"]);
  w.adapt.metric = Rcpp::as<bool>(a["metric"]);
  w.adapt.dual.delta = Rcpp::as<double>(a["delta"]);
  w.adapt.init_accept = Rcpp::as<double>(a["init_accept"]);
  return w;
}

inline vhmc::NutsConfig nuts_config(const Rcpp::List& c) {
  vhmc::NutsConfig n;
  n.max_depth = Rcpp::as<int>(c["max_treedepth"]);
  return n;
}

inline vhmc::StaticHmcConfig hmc_config(const Rcpp::List& c) {
  vhmc::StaticHmcConfig h;
  h.steps = optional_of<int>(c["steps"]);
  h.jitter = Rcpp::as<bool>(c["jitter"]);
  return h;
}

inline vhmc::SurrogateConfig surrogate_config(const Rcpp::List& c) {
  vhmc::SurrogateConfig s;
  s.explore = Rcpp::as<int>(c["explore"]);
  s.train.hidden = optional_of<int>(c["hidden"]);
  s.train.activation = vhmc::activation_from_name(Rcpp::as<std::string>(c["activation"]));
  s.train.train_on_gradient = Rcpp::as<bool>(c["train_on_gradient"]);
  s.train.lambda = optional_of<double>(c["lambda"]);
  s.steps = optional_of<int>(c["steps"]);
  s.trajectory_accept = Rcpp::as<double>(c["trajectory_accept"]);
  s.adaptive = Rcpp::as<bool>(c["adaptive"]);
  s.max_train = static_cast<long>(Rcpp::as<double>(c["max_train"]));
  s.nuts.max_depth = Rcpp::as<int>(c["max_treedepth"]);
  return s;
}

inline vhmc::VariationalConfig variational_config(const Rcpp::List& c) {
  vhmc::VariationalConfig v;
  v.hidden = optional_of<int>(c["hidden"]);
  v.activation = vhmc::activation_from_name(Rcpp::as<std::string>(c["activation"]));
  v.lambda = Rcpp::as<double>(c["lambda"]);
  v.train_until = Rcpp::as<int>(c["train_until"]);
  v.schedule = Rcpp::as<double>(c["schedule"]);
  v.steps = Rcpp::as<int>(c["steps"]);
  v.adapt_delta = Rcpp::as<double>(c["adapt_delta"]);
  v.step_size = optional_of<double>(c["step_size"]);
  v.final_mu_one = Rcpp::as<bool>(c["final_mu_one"]);
  v.laplace_base = Rcpp::as<bool>(c["laplace_base"]);
  v.start_laplace = Rcpp::as<bool>(c["start_laplace"]);
  v.refresh_every = optional_of<int>(c["refresh_every"]);
  return v;
}

inline vhmc::SghmcConfig sghmc_config(const Rcpp::List& c) {
  vhmc::SghmcConfig s;
  s.step_size = optional_of<double>(c["step_size"]);
  s.friction = optional_of<double>(c["friction"]);
  s.noise_estimate = Rcpp::as<double>(c["noise_estimate"]);
  s.estimate_noise = Rcpp::as<bool>(c["estimate_noise"]);
  s.updates = optional_of<int>(c["updates"]);
  s.resample = Rcpp::as<int>(c["resample"]);
  s.diag_metric = Rcpp::as<bool>(c["diag_metric"]);
  s.fresh_batches = Rcpp::as<bool>(c["fresh_batches"]);
  return s;
}

inline vhmc::SgldConfig sgld_config(const Rcpp::List& c) {
  vhmc::SgldConfig s;
  s.step_size = optional_of<double>(c["step_size"]);
  s.decay = Rcpp::as<double>(c["decay"]);
  s.decay_offset = Rcpp::as<double>(c["decay_offset"]);
  s.updates = optional_of<int>(c["updates"]);
  s.diag_metric = Rcpp::as<bool>(c["diag_metric"]);
  s.fresh_batches = Rcpp::as<bool>(c["fresh_batches"]);
  return s;
}

// ---- host callbacks ---------------------------------------------------------------------

// R's pending-interrupt check without a longjmp through C++ frames.
inline void check_interrupt_fn(void*) { R_CheckUserInterrupt(); }
inline bool user_interrupted() { return R_ToplevelExec(check_interrupt_fn, nullptr) == FALSE; }

inline vhmc::Callbacks r_callbacks() {
  vhmc::Callbacks cb;
  cb.log = [](const std::string& s) { Rcpp::Rcout << s; };
  cb.interrupted = [] { return user_interrupted(); };
  return cb;
}

// ---- core -> R --------------------------------------------------------------------------

inline SEXP report_value_to_r(const vhmc::Report::Value& v);

// A report as a named list (integers of the core become doubles: counts can exceed int).
inline Rcpp::List report_to_r(const vhmc::Report& r) {
  Rcpp::List out(r.items().size());
  Rcpp::CharacterVector names(r.items().size());
  for (std::size_t k = 0; k < r.items().size(); ++k) {
    names[k] = r.items()[k].first;
    out[k] = report_value_to_r(r.items()[k].second);
  }
  out.attr("names") = names;
  return out;
}

inline SEXP report_value_to_r(const vhmc::Report::Value& v) {
  struct Visit {
    SEXP operator()(double x) const { return Rcpp::wrap(x); }
    SEXP operator()(long x) const { return Rcpp::wrap(static_cast<double>(x)); }
    SEXP operator()(bool x) const { return Rcpp::wrap(x); }
    SEXP operator()(const std::string& x) const { return Rcpp::wrap(x); }
    SEXP operator()(const vhmc::Vec& x) const {
      return Rcpp::NumericVector(x.data(), x.data() + x.size());
    }
    SEXP operator()(const vhmc::Mat& x) const { return Rcpp::wrap(x); }
    SEXP operator()(const std::shared_ptr<const vhmc::Report>& x) const { return report_to_r(*x); }
  };
  return std::visit(Visit{}, v);
}

// The Stan-style columns a kernel fills, in the order the fit shows them.
inline Rcpp::List diagnostics_to_r(const vhmc::ChainOutput& out) {
  Rcpp::List d;
  if (out.columns & vhmc::kAcceptStat) d["accept_stat__"] = Rcpp::wrap(out.accept_stat);
  if (out.columns & vhmc::kStepSize) d["stepsize__"] = Rcpp::wrap(out.step_size);
  if (out.columns & vhmc::kLeapfrog) d["n_leapfrog__"] = Rcpp::wrap(out.n_leapfrog);
  if (out.columns & vhmc::kDivergent) d["divergent__"] = Rcpp::wrap(out.divergent);
  if (out.columns & vhmc::kEnergy) d["energy__"] = Rcpp::wrap(out.energy);
  if (out.columns & vhmc::kTreedepth) d["treedepth__"] = Rcpp::wrap(out.treedepth);
  return d;
}

inline Rcpp::List counts_to_r(const vhmc::ChainOutput& out) {
  using Rcpp::_;
  const vhmc::EvalCounts& w = out.counts_warmup;
  const vhmc::EvalCounts& t = out.counts_total;
  auto num = [](long x) { return static_cast<double>(x); };
  return Rcpp::List::create(
      _["n_grad_warmup"] = num(w.grad), _["n_grad_sampling"] = num(t.grad - w.grad),
      _["n_potential"] = num(t.potential),
      _["n_surrogate_grad_warmup"] = num(w.surrogate_grad),
      _["n_surrogate_grad_sampling"] = num(t.surrogate_grad - w.surrogate_grad),
      _["n_obs_grad_warmup"] = num(w.obs_grad), _["n_obs_grad_sampling"] = num(t.obs_grad - w.obs_grad));
}

inline Rcpp::List output_to_r(const vhmc::ChainOutput& out) {
  using Rcpp::_;
  // Held by RObjects (protected) while the other elements are allocated.
  Rcpp::RObject adaptation = report_to_r(out.adaptation);
  Rcpp::RObject report = report_to_r(out.report);
  Rcpp::RObject diagnostics = diagnostics_to_r(out);
  Rcpp::RObject counts = counts_to_r(out);
  return Rcpp::List::create(
      _["draws"] = Rcpp::wrap(out.draws), _["diagnostics"] = diagnostics, _["adaptation"] = adaptation,
      _["counts"] = counts, _["warmup_seconds"] = out.warmup_seconds,
      _["sampling_seconds"] = out.sampling_seconds, _["iterations_done"] = out.iterations_done,
      _["interrupted"] = out.interrupted, _["error"] = out.error, _["report"] = report);
}

}  // namespace vhmc_glue
