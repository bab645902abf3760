// Conversions between R and the core, in both directions, in one place: R lists (the
// sampler configs that R/sampler-*.R resolves, the run settings, the fit's shared results)
// to the core's config structs, by the names the structs give their fields; the core's chain
// output and reports back to plain R lists; and the callbacks that let the core print and
// poll for Ctrl-C through R. Every value arrives validated and with its defaults settled
// (R decides them); NULL means "chosen during the run".
#pragma once
#include <R_ext/Utils.h>
#include <Rcpp.h>
#include <RcppEigen.h>

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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
  cfg.refresh_seconds = Rcpp::as<double>(run["refresh_seconds"]);
  cfg.warmup_auto = Rcpp::as<bool>(run["warmup_auto"]);
  if (run.containsElementNamed("max_runs") && !Rf_isNull(run["max_runs"])) {
    cfg.max_runs = Rcpp::as<double>(run["max_runs"]);
    cfg.runs_per_gradient = Rcpp::as<double>(run["runs_per_gradient"]);
  }
  return cfg;
}

// One value of a config, by its type: numbers, flags, optional numbers (NULL: chosen during
// the run), and the names of a metric or an activation.
inline void read_value(SEXP v, int& x) { x = Rcpp::as<int>(v); }
inline void read_value(SEXP v, long& x) { x = static_cast<long>(Rcpp::as<double>(v)); }
inline void read_value(SEXP v, double& x) { x = Rcpp::as<double>(v); }
inline void read_value(SEXP v, bool& x) { x = Rcpp::as<bool>(v); }
inline void read_value(SEXP v, vhmc::MetricKind& x) { x = vhmc::metric_from_name(Rcpp::as<std::string>(v)); }
inline void read_value(SEXP v, vhmc::Activation& x) { x = vhmc::activation_from_name(Rcpp::as<std::string>(v)); }
template <class T>
void read_value(SEXP v, std::optional<T>& x) {
  x = optional_of<T>(v);
}

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(T::fields())>> : std::true_type {};

template <class C, class T>
void fill_field(const Rcpp::List& l, C& c, const vhmc::Field<C, T>& f);

// Fills a config from the R list `l` by its fields() (base/fields.hpp); a field that is a
// config itself is filled from the same list. Every name must be there: R settles every
// default (R/sampler-*.R), so a missing one is a bug.
template <class C>
void fill_config(const Rcpp::List& l, C& c) {
  std::apply([&](const auto&... f) { (fill_field(l, c, f), ...); }, C::fields());
}

template <class C, class T>
void fill_field(const Rcpp::List& l, C& c, const vhmc::Field<C, T>& f) {
  if constexpr (has_fields<T>::value) {
    fill_config(l, c.*(f.member));
  } else {
    if (!l.containsElementNamed(f.name)) Rcpp::stop(std::string("internal: the sampler config lacks '") + f.name + "'");
    read_value(l[f.name], c.*(f.member));
  }
}

// The horseshoe's arguments (R/priors-horseshoe.R, horseshoe_for_core()).
inline vhmc::HorseshoeSpec horseshoe_spec(const Rcpp::List& p) {
  vhmc::HorseshoeSpec s;
  s.df = Rcpp::as<double>(p["df"]);
  s.df2 = Rcpp::as<double>(p["df2"]);
  s.global_df = Rcpp::as<double>(p["global_df"]);
  s.global_scale = Rcpp::as<double>(p["global_scale"]);
  s.slab_df = Rcpp::as<double>(p["slab_df"]);
  s.slab_scale = Rcpp::as<double>(p["slab_scale"]);
  s.relative_to_sigma = Rcpp::as<bool>(p["relative_to_sigma"]);
  return s;
}

// A prior as expanded by R (R/priors.R, prior_for_core(): validated, vectors recycled).
inline vhmc::Prior prior_of(const Rcpp::List& p) {
  const std::string kind = Rcpp::as<std::string>(p["dist"]);
  if (kind == "flat") return vhmc::Prior::flat();
  if (kind == "horseshoe") return vhmc::Prior::horseshoe(horseshoe_spec(p));
  if (kind == "exponential") return vhmc::Prior::exponential(Rcpp::as<double>(p["rate"]));
  if (kind == "gamma") return vhmc::Prior::gamma(Rcpp::as<double>(p["shape"]), Rcpp::as<double>(p["rate"]));
  if (kind == "beta") return vhmc::Prior::beta(Rcpp::as<double>(p["shape1"]), Rcpp::as<double>(p["shape2"]));
  const vhmc::Vec loc = Rcpp::as<vhmc::Vec>(p["location"]);
  const vhmc::Vec scale = Rcpp::as<vhmc::Vec>(p["scale"]);
  if (kind == "normal") return vhmc::Prior::normal(loc, scale);
  if (kind == "cauchy") return vhmc::Prior::cauchy(loc, scale);
  if (kind == "laplace") return vhmc::Prior::laplace(loc, scale);
  if (kind == "student_t") return vhmc::Prior::student_t(Rcpp::as<vhmc::Vec>(p["df"]), loc, scale);
  Rcpp::stop("internal: unknown prior '" + kind + "'");
}

// ---- a config's values -> R (its defaults, for the test that R and C++ agree) -----------

inline SEXP write_value(int x) { return Rcpp::wrap(x); }
inline SEXP write_value(long x) { return Rcpp::wrap(static_cast<double>(x)); }
inline SEXP write_value(double x) { return Rcpp::wrap(x); }
inline SEXP write_value(bool x) { return Rcpp::wrap(x); }
inline SEXP write_value(vhmc::MetricKind x) { return Rcpp::wrap(std::string(vhmc::metric_name(x))); }
inline SEXP write_value(vhmc::Activation x) { return Rcpp::wrap(std::string(vhmc::activation_name(x))); }
template <class T>
SEXP write_value(const std::optional<T>& x) {
  return x ? write_value(*x) : R_NilValue;
}

// Every field of c (nested configs flattened, as fill_config() reads them) as (name, value).
template <class C>
void config_values(const C& c, std::vector<std::pair<std::string, Rcpp::RObject>>& out) {
  std::apply([&](const auto&... f) {
    auto one = [&](const auto& fl) {
      using T = std::decay_t<decltype(c.*(fl.member))>;
      if constexpr (has_fields<T>::value) {
        config_values(c.*(fl.member), out);
      } else {
        out.emplace_back(fl.name, write_value(c.*(fl.member)));
      }
    };
    (one(f), ...);
  }, C::fields());
}

// A default-constructed config of sampler S as a named list.
template <class S>
Rcpp::List config_defaults() {
  const typename S::Config c{};
  std::vector<std::pair<std::string, Rcpp::RObject>> v;
  config_values(c, v);
  Rcpp::List out(v.size());
  Rcpp::CharacterVector names(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    names[k] = v[k].first;
    out[k] = v[k].second;
  }
  out.attr("names") = names;
  return out;
}

// The fit's results for this chain: list(laplace = list(mode, hessian), control_variate =
// list(mode, gradient), inv_metric = a matrix, or a vector for a diagonal one), each possibly
// absent.
inline std::optional<vhmc::Anchor> anchor_of(const Rcpp::List& extras, const char* name) {
  if (!extras.containsElementNamed(name) || Rf_isNull(extras[name])) return std::nullopt;
  const Rcpp::List a = extras[name];
  vhmc::Anchor out;
  out.mode = Rcpp::as<vhmc::Vec>(a["mode"]);
  if (a.containsElementNamed("hessian")) out.hessian = Rcpp::as<vhmc::Mat>(a["hessian"]);
  if (a.containsElementNamed("gradient")) out.gradient = Rcpp::as<vhmc::Vec>(a["gradient"]);
  return out;
}

inline vhmc::FitExtras fit_extras(const Rcpp::List& extras) {
  vhmc::FitExtras e;
  e.laplace = anchor_of(extras, "laplace");
  e.control_variate = anchor_of(extras, "control_variate");
  if (extras.containsElementNamed("inv_metric") && !Rf_isNull(extras["inv_metric"])) {
    const SEXP m = extras["inv_metric"];
    // A vector is a diagonal inverse metric, kept as one column (no d x d matrix).
    e.inv_metric = Rf_isMatrix(m) ? Rcpp::as<vhmc::Mat>(m) : vhmc::Mat(Rcpp::as<vhmc::Vec>(m));
  }
  if (extras.containsElementNamed("scatter") && !Rf_isNull(extras["scatter"]))
    e.scatter = Rcpp::as<vhmc::Vec>(extras["scatter"]);
  return e;
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
      _["warmup_iterations"] = out.warmup_iterations,
      _["interrupted"] = out.interrupted, _["budget_spent"] = out.budget_spent, _["error"] = out.error,
      _["report"] = report);
}

}  // namespace vhmc_glue
