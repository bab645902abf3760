// The one place where a sampler's class (R's S3 class, e.g. "vhmc_nuts") is mapped to the
// core: a registry from class to sampler. A sampler of the core (its config with fields()
// and a run(); see sampler/hmc_family.hpp) needs nothing else here: adding one is one line
// of the table.
#pragma once
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <string>
#include <utility>

#include "glue_convert.h"

namespace vhmc_glue {

// A sampler's chain with its config read: all it needs besides the potential and the chain's
// own inputs. Reading the config (R's API) happens on R's thread, in the Preparer; the chain
// itself touches no R object, so it may run on another thread (glue_threads.h).
template <class P>
using ChainRunner = std::function<vhmc::ChainOutput(P&, const vhmc::FitExtras&, const vhmc::ChainConfig&,
                                                    const vhmc::Vec&, vhmc::Callbacks&)>;
template <class P>
using Preparer = ChainRunner<P> (*)(const Rcpp::List&);

// Whether sampler S runs on potential P: a population sampler (S::kPopulation) only on a
// potential that hosts one (P::kHostsPopulation, targets written in R), whose chains R runs
// as a population; elsewhere R refuses it by the target's capabilities, and its code is not
// instantiated (every sampler x potential adds to the shared library).
template <class T, class = void>
struct HostsPopulation : std::false_type {};
template <class T>
struct HostsPopulation<T, std::void_t<decltype(T::kHostsPopulation)>> : std::bool_constant<T::kHostsPopulation> {};

template <class S, class P>
constexpr bool runs_on() {
  return !HostsPopulation<S>::value || HostsPopulation<P>::value;
}

template <class P, class S>
ChainRunner<P> prepare_sampler(const Rcpp::List& config) {
  if constexpr (runs_on<S, P>()) {
    typename S::Config c;
    fill_config(config, c);
    return [c](P& potential, const vhmc::FitExtras& x, const vhmc::ChainConfig& cfg, const vhmc::Vec& init,
               vhmc::Callbacks& cb) { return S::run(potential, c, x, cfg, init, cb); };
  } else {
    Rcpp::stop("internal: this sampler does not run on this target");
  }
}

template <class P>
Preparer<P> lookup(const std::string& cls, std::initializer_list<std::pair<const char*, Preparer<P>>> table) {
  for (const auto& entry : table)
    if (cls == entry.first) return entry.second;
  Rcpp::stop("internal: no sampler is registered for class '" + cls + "'");
}

template <class S>
struct SamplerTag {
  using type = S;
};

template <class S, class F>
bool visit_if(const char* name, const std::string& cls, F& f) {
  if (cls != name) return false;
  f(SamplerTag<S>{});
  return true;
}

// The registry: the sampler config's S3 class -> its sampler in the core; f is called with
// the sampler's SamplerTag.
template <class F>
void with_registered(const std::string& cls, F&& f) {
  const bool found = visit_if<vhmc::NutsSampler>("vhmc_nuts", cls, f) ||
                     visit_if<vhmc::StaticHmcSampler>("vhmc_hmc", cls, f) ||
                     visit_if<vhmc::SurrogateHmcSampler>("vhmc_surrogate_hmc", cls, f) ||
                     visit_if<vhmc::SurrogateRmhmcSampler>("vhmc_surrogate_rmhmc", cls, f) ||
                     visit_if<vhmc::VariationalHmcSampler>("vhmc_variational_hmc", cls, f) ||
                     visit_if<vhmc::SghmcSampler>("vhmc_sghmc", cls, f) ||
                     visit_if<vhmc::SgldSampler>("vhmc_sgld", cls, f) ||
                     visit_if<vhmc::RwmSampler>("vhmc_rwm", cls, f) ||
                     visit_if<vhmc::DemcSampler>("vhmc_demc", cls, f) ||
                     visit_if<vhmc::SurrogateTransitionSampler>("vhmc_surrogate_mh", cls, f) ||
                     visit_if<vhmc::RmhmcSampler>("vhmc_rmhmc", cls, f);
  if (!found) Rcpp::stop("internal: no sampler is registered for class '" + cls + "'");
}

template <class P>
struct AllSamplers {
  static Preparer<P> find(const std::string& cls) {
    Preparer<P> r = nullptr;
    with_registered(cls, [&](auto tag) { r = &prepare_sampler<P, typename decltype(tag)::type>; });
    return r;
  }
};

// The core's default config of a registered sampler class, as a named list: what R's
// sampler_config() must agree with (tests/testthat/test-config-defaults.R).
inline Rcpp::List sampler_defaults(const std::string& cls) {
  Rcpp::List out;
  with_registered(cls, [&](auto tag) { out = config_defaults<typename decltype(tag)::type>(); });
  return out;
}

// NUTS alone, for potentials that only benchmark the engine: every sampler instantiated
// for a potential adds its code to the shared library.
template <class P>
struct NutsOnly {
  static Preparer<P> find(const std::string& cls) {
    return lookup<P>(cls, {{"vhmc_nuts", &prepare_sampler<P, vhmc::NutsSampler>}});
  }
};

// One chain of the sampler `config` (an R list whose class names the sampler) on potential.
// `phase_end`: called with each phase's label after it (nullptr: nothing to call).
template <class P, template <class> class Samplers = AllSamplers>
Rcpp::List run_registered(P& potential, const Rcpp::List& config, const Rcpp::List& extras,
                          const vhmc::Vec& init, const Rcpp::List& run,
                          std::function<void(const char*)> phase_end = nullptr) {
  const Rcpp::CharacterVector cls = config.attr("class");
  const vhmc::ChainConfig cfg = chain_config(run);
  vhmc::Callbacks cb = r_callbacks();
  if (phase_end) cb.phase_end = std::move(phase_end);
  const ChainRunner<P> chain = Samplers<P>::find(Rcpp::as<std::string>(cls[0]))(config);
  return output_to_r(chain(potential, fit_extras(extras), cfg, init, cb));
}

}  // namespace vhmc_glue
