// GLM potentials evaluated in C++ (vhmc_glm, vhmc_ardl). R builds the model matrix once
// (R/model-glm.R) and a GlmModel once per fit (vhmc_glm_model), which every chain in this
// process, the initial-value checks and the mode search share: for the gaussian family its
// construction is an O(N k^2) pass over the data. Chains in other processes rebuild it
// from the spec (an external pointer does not survive serialisation). The model views R's
// memory, with no copy per chain or per iteration: the intercept column of ones is skipped
// by pointer arithmetic and centring happens inside the potential.
#include <memory>
#include <optional>
#include <vector>

#include "glue_threads.h"

namespace {

// The random stream of the effects' conditional draws, apart from every chain's.
constexpr std::uint64_t kEffectsStream = 0x9E3779B97F4A7C15ULL;

vhmc::GlmFamily glm_family(const std::string& code) {
  try {
    return vhmc::family_named(code);
  } catch (const std::invalid_argument& e) {
    Rcpp::stop(std::string("internal: ") + e.what());
  }
}

const double* optional(SEXP v) { return Rf_isNull(v) ? nullptr : REAL(v); }

// The priors of the family's auxiliary parameters, one per parameter in the family's order
// (R/glm-spec.R).
std::vector<vhmc::Prior> aux_priors(const Rcpp::List& priors) {
  std::vector<vhmc::Prior> out;
  for (R_xlen_t i = 0; i < priors.size(); ++i) out.push_back(vhmc_glue::prior_of(priors[i]));
  return out;
}

// A group-level term's prior on its covariance (R/glmer-priors.R, covariance_prior_for_core()).
vhmc::CovPrior cov_prior(const Rcpp::List& p) {
  vhmc::CovPrior c;
  c.kind = Rcpp::as<std::string>(p["kind"]) == "lkj" ? vhmc::CovPriorKind::Lkj : vhmc::CovPriorKind::Decov;
  c.regularization = Rcpp::as<double>(p["regularization"]);
  c.concentration = Rcpp::as<double>(p["concentration"]);
  c.shape = Rcpp::as<double>(p["shape"]);
  c.scale = Rcpp::as<double>(p["scale"]);
  c.df = Rcpp::as<double>(p["df"]);
  c.relative_to_sigma = Rcpp::as<bool>(p["relative_to_sigma"]);
  return c;
}

// The smooths' penalty blocks (R/smooth-terms.R, smooth_spec_for_core()): columns per block
// and the prior of their standard deviations; none without `smooths`.
vhmc::SmoothSpec smooth_spec(const Rcpp::List& spec) {
  vhmc::SmoothSpec s;
  if (!spec.containsElementNamed("smooths")) return s;
  const Rcpp::List sm = spec["smooths"];
  for (int n : Rcpp::IntegerVector(sm["sizes"])) s.sizes.push_back(n);
  s.prior = vhmc_glue::prior_of(sm["prior"]);
  if (sm.containsElementNamed("centred"))
    for (int c : Rcpp::LogicalVector(sm["centred"])) s.centred.push_back(c == TRUE);
  return s;
}

// The distributional predictors of R/dpars.R (spec$dpars): each one's aux parameter
// (0-based, in the family's order), columns X (rows x non-intercept columns, its smooths'
// last), their centres and scales, its priors and smooths; GlmData views of R's memory,
// kept with the R objects.
struct DparStore {
  std::vector<Rcpp::RObject> keep;
  std::vector<std::unique_ptr<vhmc::GlmData>> data;
  vhmc::DparSpec spec;
  DparStore(const Rcpp::List& model_spec, const double* y) {
    if (!model_spec.containsElementNamed("dpars")) return;
    const Rcpp::List dpars = model_spec["dpars"];
    for (R_xlen_t j = 0; j < dpars.size(); ++j) {
      const Rcpp::List p = dpars[j];
      const Rcpp::NumericMatrix X = p["X"];
      const SEXP center = p["center"], scale = p["scale"];
      keep.insert(keep.end(), {X, center, scale});
      data.push_back(std::make_unique<vhmc::GlmData>(REAL(X), X.nrow(), X.ncol(), y, nullptr, nullptr, optional(center),
                                                     optional(scale)));
      spec.dpars.push_back({Rcpp::as<int>(p["aux"]), data.back().get(), vhmc_glue::prior_of(p["prior_intercept"]),
                            vhmc_glue::prior_of(p["prior"]), smooth_spec(p)});
    }
  }
};

// The R spec list's vectors stay referenced (protected) by the Rcpp members for as long as
// the potential views them.
struct GlmModel {
  explicit GlmModel(const Rcpp::List& spec)
      : X(spec["X"]), y(spec["y"]), weights(spec["weights"]), offset(spec["offset"]),
        center(spec["center"]), scale(spec["scale"]), cens(element(spec, "cens")), y2(element(spec, "y2")),
        skip(Rcpp::as<int>(spec["skip"])),
        data(REAL(X) + static_cast<std::ptrdiff_t>(skip) * X.nrow(), X.nrow(), X.ncol() - skip,
             REAL(y), optional(weights), optional(offset), optional(center), optional(scale)),
        dpars(spec, REAL(y)), potential(make_potential(spec, with_response_scale(data, spec), dpars.spec)) {
    if (spec.containsElementNamed("groups")) add_group_terms(spec["groups"]);
    if (spec.containsElementNamed("cells") && Rcpp::as<bool>(spec["cells"])) use_cells();
    if (spec.containsElementNamed("prior_only")) potential.set_prior_only(Rcpp::as<bool>(spec["prior_only"]));
  }

  Rcpp::NumericMatrix X;
  Rcpp::NumericVector y;
  Rcpp::RObject weights, offset, center, scale, cens, y2;
  int skip;
  vhmc::GlmData data;
  DparStore dpars;
  vhmc::GlmPotential potential;
  std::vector<Rcpp::RObject> term_data;  // each term's levels and columns, viewed in place

 private:
  // The group-level terms of R/glmer-terms.R: levels (0-based integers), the columns left of
  // the bar (NULL for a lone intercept) and the parameterisation and prior of each.
  void add_group_terms(const Rcpp::List& groups) {
    for (R_xlen_t t = 0; t < groups.size(); ++t) {
      const Rcpp::List g = groups[t];
      vhmc::GroupTermData d;
      const Rcpp::IntegerVector group = g["group"];
      const SEXP Z = g["Z"];
      term_data.push_back(group);
      term_data.push_back(Z);
      d.name = Rcpp::as<std::string>(g["name"]);
      d.levels = Rcpp::as<int>(g["levels"]);
      d.p = Rcpp::as<int>(g["p"]);
      d.n = group.size();
      d.group = INTEGER(group);
      d.Z = optional(Z);
      d.centred = Rcpp::as<bool>(g["centred"]);
      d.marginal = g.containsElementNamed("marginal") && Rcpp::as<bool>(g["marginal"]);
      if (g.containsElementNamed("dpar")) d.dpar = Rcpp::as<int>(g["dpar"]);
      d.prior = cov_prior(g["prior"]);
      try {
        potential.add_group_term(d);
      } catch (const std::invalid_argument& e) {
        Rcpp::stop(std::string("internal: ") + e.what());
      }
    }
  }
  void use_cells() {
    try {
      potential.use_cells();
    } catch (const std::invalid_argument& e) {
      Rcpp::stop(std::string("internal: ") + e.what());
    }
  }
  // The response's scale, and the censored rows' codes (integers) and upper bounds, if any.
  const vhmc::GlmData& with_response_scale(vhmc::GlmData& data, const Rcpp::List& spec) {
    data.y_center = Rcpp::as<double>(spec["y_center"]);
    data.y_scale = Rcpp::as<double>(spec["y_scale"]);
    if (!Rf_isNull(cens)) new (&data.cens) Eigen::Map<const Eigen::VectorXi>(INTEGER(cens), Rf_xlength(cens));
    if (!Rf_isNull(y2)) new (&data.y2) Eigen::Map<const vhmc::Vec>(REAL(y2), Rf_xlength(y2));
    return data;
  }
  static SEXP element(const Rcpp::List& spec, const char* name) {
    return spec.containsElementNamed(name) ? static_cast<SEXP>(spec[name]) : R_NilValue;
  }
  static vhmc::GlmPotential make_potential(const Rcpp::List& spec, const vhmc::GlmData& data,
                                          const vhmc::DparSpec& dpars) {
    try {
      return vhmc::GlmPotential(data, glm_family(Rcpp::as<std::string>(spec["family"])),
                                Rcpp::as<bool>(spec["intercept"]),
                                vhmc_glue::prior_of(spec["prior_intercept"]), vhmc_glue::prior_of(spec["prior"]),
                                aux_priors(spec["prior_aux"]), Rcpp::as<double>(spec["noise_precision"]),
                                Rcpp::as<int>(spec["n_cutpoints"]), smooth_spec(spec), dpars);
    } catch (const std::invalid_argument& e) {
      Rcpp::stop(std::string("internal: ") + e.what());
    }
  }
};

using ModelPtr = Rcpp::XPtr<GlmModel>;

// Rows of draws (`rows` of them, coordinate j at `stride` j) mapped to the reported scale
// (to) or back (model/glm/reported.hpp), from `in` into `out`: the same memory maps in place.
void map_rows(const vhmc::GlmPotential& pot, const double* in, double* out, Eigen::Index rows,
              Eigen::Index stride, bool to) {
  vhmc::Vec row(pot.dim()), mapped(pot.dim());
  for (Eigen::Index s = 0; s < rows; ++s) {
    for (Eigen::Index j = 0; j < row.size(); ++j) row[j] = in[s + j * stride];
    if (to) vhmc::to_reported(pot, row, mapped); else vhmc::from_reported(pot, row, mapped);
    for (Eigen::Index j = 0; j < row.size(); ++j) out[s + j * stride] = mapped[j];
  }
}

// The model behind an external pointer, or (in a process the pointer did not survive to,
// where it reads as null) a model rebuilt from the spec into `local`.
GlmModel& model_of(SEXP ptr, const Rcpp::List& spec, std::unique_ptr<GlmModel>& local) {
  if (TYPEOF(ptr) == EXTPTRSXP && R_ExternalPtrAddr(ptr) != nullptr) return *ModelPtr(ptr);
  local = std::make_unique<GlmModel>(spec);
  return *local;
}

}  // namespace

// The GLM potential of a spec (from glm_spec() in R), built once per fit.
// [[Rcpp::export]]
SEXP vhmc_glm_model(Rcpp::List spec) { return ModelPtr(new GlmModel(spec), true); }

// One chain of a GLM with the sampler `config` (class = the sampler's) and fit-time `extras`.
// [[Rcpp::export]]
Rcpp::List vhmc_run_glm(SEXP model, Rcpp::List spec, Rcpp::NumericVector init, Rcpp::List config,
                        Rcpp::List extras, Rcpp::List run) {
  std::unique_ptr<GlmModel> local;
  GlmModel& m = model_of(model, spec, local);
  return vhmc_glue::run_registered(m.potential, config, extras, Rcpp::as<vhmc::Vec>(init), run);
}

// The chains of a GLM on `workers` threads of this process (glue_threads.h): the first uses
// the fit's potential, the others one each built from the spec. Unless its effects are drawn
// afterwards (a marginal term) or a budget may cut the chains, the draws go straight into
// one R array of saved iterations x chains x d, mapped there to the reported scale by each
// chain's thread: attribute "reported_draws" of the result, the only copy of the draws.
// [[Rcpp::export]]
Rcpp::List vhmc_run_glm_threads(SEXP model, Rcpp::List spec, Rcpp::List inits, Rcpp::List config,
                                Rcpp::List extras, Rcpp::List runs, int workers) {
  std::unique_ptr<GlmModel> local;
  std::vector<std::unique_ptr<GlmModel>> more;
  std::vector<vhmc::GlmPotential*> potentials{&model_of(model, spec, local).potential};
  for (int w = 1; w < workers; ++w) {
    more.push_back(std::make_unique<GlmModel>(spec));
    potentials.push_back(&more.back()->potential);
  }
  const vhmc::ChainConfig first = vhmc_glue::chain_config(runs[0]);
  if (potentials[0]->has_marginal_term() || first.max_runs > 0)
    return vhmc_glue::run_registered_threads(potentials, config, extras, inits, runs);
  // Not zero-filled: every saved draw of every chain is written (a chain that fails or is
  // interrupted returns no fit), and pages of a large array are backed only once written, so
  // the draws (1.5 GB for 2 chains x 1,000 draws of 100,000 parameters) do not sit in memory
  // beside the warmup's buffers, which each chain frees before sampling.
  const R_xlen_t saved = vhmc::saved_count(first), chains = runs.size(), dim = potentials[0]->dim();
  // Before draws of hundreds of MB: R's garbage from building the model (100,000 levels'
  // names, the mode search's vectors) collected, and the pages glibc keeps after freeing it
  // handed back, so that they do not stay in the fit's peak beside the draws.
  if (saved * chains * dim > (R_xlen_t{1} << 25)) {
    R_gc();
    vhmc::return_free_memory();
  }
  Rcpp::NumericVector draws(Rcpp::no_init(saved * chains * dim));
  draws.attr("dim") = Rcpp::Dimension(saved, chains, dim);
  auto reported = [](const vhmc::GlmPotential& pot, double* x, Eigen::Index rows, Eigen::Index stride) {
    map_rows(pot, x, x, rows, stride, true);
  };
  Rcpp::List out = vhmc_glue::run_registered_threads<vhmc::GlmPotential>(potentials, config, extras, inits, runs,
                                                                        draws.begin(), reported);
  out.attr("reported_draws") = draws;
  return out;
}

// U and grad U at each row of `theta` (internal parameterisation), for checks at the initial
// values and for optimisation in R.
// [[Rcpp::export]]
Rcpp::List vhmc_glm_potential(SEXP model, Rcpp::NumericMatrix theta) {
  GlmModel& m = *ModelPtr(model);
  const int d = m.potential.dim();
  if (theta.ncol() != d) Rcpp::stop("internal: theta must have one column per parameter");
  Rcpp::NumericVector value(theta.nrow());
  Rcpp::NumericMatrix grad(theta.nrow(), d);
  vhmc::Vec th(d), g(d);
  for (int s = 0; s < theta.nrow(); ++s) {
    for (int j = 0; j < d; ++j) th[j] = theta(s, j);
    value[s] = m.potential.U_grad(th, g);
    for (int j = 0; j < d; ++j) grad(s, j) = g[j];
  }
  return Rcpp::List::create(Rcpp::_["value"] = value, Rcpp::_["gradient"] = grad);
}

// Posterior mode and the analytic Hessian there by damped Newton (the Laplace anchor of
// variational_hmc() and the control-variate anchor); internal parameterisation.
// [[Rcpp::export]]
Rcpp::List vhmc_glm_mode(SEXP model, Rcpp::NumericVector init) {
  GlmModel& m = *ModelPtr(model);
  if (init.size() != m.potential.dim()) Rcpp::stop("internal: init must have one value per parameter");
  const vhmc::ModeResult r = vhmc::newton_mode(m.potential, Rcpp::as<vhmc::Vec>(init));
  return Rcpp::List::create(
      Rcpp::_["mode"] = Rcpp::wrap(r.mode), Rcpp::_["hessian"] = Rcpp::wrap(r.hessian),
      Rcpp::_["value"] = r.value, Rcpp::_["gradient"] = Rcpp::wrap(r.gradient),
      Rcpp::_["iterations"] = r.iterations, Rcpp::_["converged"] = r.converged,
      Rcpp::_["message"] = r.message,
      Rcpp::_["evaluations"] = r.n_value + r.n_gradient, Rcpp::_["hessians"] = r.n_hessian);
}

// The family registry of the core (model/glm/families.hpp), one row per family and link:
// its code, names, traits, and its auxiliary parameters (one row each in `aux`, by code).
// R's family registry (R/family-registry.R) derives its lists and checks from it.
// [[Rcpp::export]]
Rcpp::List vhmc_family_table() {
  const int n = vhmc::kFamilyCount;
  Rcpp::CharacterVector code(n), family(n), link(n);
  Rcpp::LogicalVector fisher(n), stats(n), thresholds(n), censoring(n);
  Rcpp::NumericVector curvature(n);
  std::vector<std::string> a_code, a_name, a_transform;
  std::vector<double> a_lower;
  std::vector<int> a_scales, a_sized;
  for (int i = 0; i < n; ++i) {
    vhmc::with_family(vhmc::GlmFamily{i}, [&](auto f) {
      using F = decltype(f);
      code[i] = vhmc::family_code<F>();
      family[i] = F::kFamily;
      link[i] = F::kLink;
      fisher[i] = F::kHasFisher && vhmc::family::aux_count<F>() == 0;
      stats[i] = F::kGaussianStats;
      thresholds[i] = F::kThresholds;
      censoring[i] = F::kCensored;
      curvature[i] = F::kMaxCurvature;
      for (const auto& a : F::kAux) {
        a_code.push_back(vhmc::family_code<F>());
        a_name.push_back(a.name);
        a_transform.push_back(vhmc::transform_name(a.transform));
        a_lower.push_back(a.lower);
        a_scales.push_back(a.scales_with_y);
        a_sized.push_back(a.sized_by_data);
      }
    });
  }
  using Rcpp::_;
  return Rcpp::List::create(
      _["families"] = Rcpp::DataFrame::create(_["code"] = code, _["family"] = family, _["link"] = link,
                                              _["has_fisher"] = fisher, _["gaussian_stats"] = stats,
                                              _["thresholds"] = thresholds, _["censoring"] = censoring,
                                              _["max_curvature"] = curvature,
                                              _["stringsAsFactors"] = false),
      _["aux"] = Rcpp::DataFrame::create(_["code"] = Rcpp::wrap(a_code), _["name"] = Rcpp::wrap(a_name),
                                         _["transform"] = Rcpp::wrap(a_transform), _["lower"] = Rcpp::wrap(a_lower),
                                         _["scales_with_y"] = Rcpp::LogicalVector(Rcpp::wrap(a_scales)),
                                         _["sized_by_data"] = Rcpp::LogicalVector(Rcpp::wrap(a_sized)),
                                         _["stringsAsFactors"] = false));
}

// The parameter layout of the model's potential (model/glm/layout.hpp): one element per
// block with its name, label, offset (0-based), size, transform and lower bound; and whether
// the family has rmhmc()'s Fisher metric. R names the parameters from it (R/glm-spec.R).
// [[Rcpp::export]]
Rcpp::List vhmc_glm_layout(SEXP model) {
  const vhmc::GlmPotential& pot = ModelPtr(model)->potential;
  const auto& blocks = pot.layout().blocks();
  Rcpp::CharacterVector name(blocks.size()), label(blocks.size()), transform(blocks.size());
  Rcpp::IntegerVector offset(blocks.size()), size(blocks.size());
  Rcpp::NumericVector lower(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    name[b] = blocks[b].name;
    label[b] = blocks[b].label;
    transform[b] = vhmc::transform_name(blocks[b].transform);
    offset[b] = static_cast<int>(blocks[b].offset);
    size[b] = static_cast<int>(blocks[b].size);
    lower[b] = blocks[b].lower;
  }
  return Rcpp::List::create(
      Rcpp::_["blocks"] = Rcpp::DataFrame::create(Rcpp::_["name"] = name, Rcpp::_["label"] = label,
                                                  Rcpp::_["offset"] = offset, Rcpp::_["size"] = size,
                                                  Rcpp::_["transform"] = transform, Rcpp::_["lower"] = lower,
                                                  Rcpp::_["stringsAsFactors"] = false),
      Rcpp::_["dim"] = pot.dim(), Rcpp::_["has_fisher"] = pot.has_fisher(), Rcpp::_["has_hessian"] = pot.has_hessian(),
      Rcpp::_["no_mode"] = std::string(pot.modeless_by()),
      Rcpp::_["no_anchor"] = std::string(pot.anchorless_by()), Rcpp::_["no_minibatch"] = std::string(pot.no_minibatch_by()),
      Rcpp::_["no_minibatch_noise"] = std::string(pot.no_minibatch_noise_by()));
}

// Rows of theta mapped to the reported scale (to = TRUE) or from it (model/glm/reported.hpp).
// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_glm_reported(SEXP model, Rcpp::NumericMatrix theta, bool to) {
  const vhmc::GlmPotential& pot = ModelPtr(model)->potential;
  const int d = pot.dim();
  if (theta.ncol() != d) Rcpp::stop("internal: theta must have one column per parameter");
  Rcpp::NumericMatrix out(theta.nrow(), d);
  map_rows(pot, theta.begin(), out.begin(), theta.nrow(), theta.nrow(), to);
  return out;
}

// Rows of theta of a model whose one group-level term is integrated out, mapped to the
// reported scale with the term's effects: drawn from their conditional (one stream of the
// fit's seed, row after row, so the same on any number of cores) or, with seed NULL, its
// mean (model/glm/marginal_gaussian.hpp).
// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_glm_reported_marginal(SEXP model, Rcpp::NumericMatrix theta, SEXP seed) {
  vhmc::GlmPotential& pot = ModelPtr(model)->potential;
  const int d = pot.dim();
  if (!pot.has_marginal_term() || theta.ncol() != d) Rcpp::stop("internal: a marginal model and one column per parameter");
  std::optional<vhmc::Rng> rng;
  if (!Rf_isNull(seed)) rng.emplace(static_cast<std::uint64_t>(Rcpp::as<double>(seed)), kEffectsStream);
  vhmc::Vec row(d), mapped;
  Rcpp::NumericMatrix out;
  for (int s = 0; s < theta.nrow(); ++s) {
    for (int j = 0; j < d; ++j) row[j] = theta(s, j);
    vhmc::to_reported_marginal(pot, row, rng ? &*rng : nullptr, mapped);
    if (s == 0) out = Rcpp::NumericMatrix(theta.nrow(), mapped.size());
    for (Eigen::Index j = 0; j < mapped.size(); ++j) out(s, j) = mapped[j];
  }
  return out;
}

// The cells of the grouping factors of R/glmer-terms.R's terms (their distinct combinations
// of levels among the rows; model/glm/group_cells.hpp) and whether the terms are nested
// (model/glm/nested_tree.hpp), for R's choice of how the gaussian likelihood is computed.
// [[Rcpp::export]]
Rcpp::List vhmc_group_cells(Rcpp::List terms) {
  std::vector<vhmc::GroupTermData> data(terms.size());
  std::vector<const vhmc::GroupTermData*> ptrs;
  std::vector<Rcpp::IntegerVector> groups;
  for (R_xlen_t t = 0; t < terms.size(); ++t) {
    const Rcpp::List g = terms[t];
    groups.push_back(g["group"]);
    data[t].levels = Rcpp::as<Rcpp::CharacterVector>(g["levels"]).size();
    data[t].n = groups.back().size();
    data[t].group = INTEGER(groups.back());
    ptrs.push_back(&data[t]);
  }
  try {
    const vhmc::GroupCells cells = vhmc::group_cells(ptrs);
    vhmc::NestedTree tree;
    const bool nested = vhmc::nested_structure(cells, ptrs, tree);
    return Rcpp::List::create(Rcpp::_["cells"] = static_cast<double>(cells.count()), Rcpp::_["nested"] = nested);
  } catch (const std::invalid_argument& e) {
    Rcpp::stop(std::string("internal: ") + e.what());
  }
}

// Weighted Gram matrix of the design in the sampler's coordinates (centred, scaled columns),
// for the identifiability check in R (no copy of the design is made there).
// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_glm_gram(SEXP model) {
  vhmc::Mat G;
  ModelPtr(model)->potential.design_gram(G);
  return Rcpp::wrap(G);
}

// Per-column statistics of a design matrix (R/glm-frame.R), computed without copying it.
// [[Rcpp::export]]
Rcpp::List vhmc_column_summary(Rcpp::NumericMatrix X, SEXP weights) {
  const int k = X.ncol();
  const Eigen::Index n = X.nrow();
  Rcpp::NumericVector mean(k), sd(k), wsd(k), min(k), max(k);
  Rcpp::IntegerVector distinct(k);
  Rcpp::LogicalVector finite(k), zero(k);
  const double* w = Rf_isNull(weights) ? nullptr : REAL(weights);
  for (int j = 0; j < k; ++j) {
    const vhmc::ColumnSummary s = vhmc::summarise_column(REAL(X) + static_cast<std::ptrdiff_t>(j) * n, n, w);
    mean[j] = s.mean;
    sd[j] = n > 1 ? s.sd : NA_REAL;
    wsd[j] = s.weighted_sd;
    distinct[j] = s.n_distinct;
    min[j] = s.min;
    max[j] = s.max;
    finite[j] = s.all_finite;
    zero[j] = s.all_zero;
  }
  return Rcpp::List::create(Rcpp::_["mean"] = mean, Rcpp::_["sd"] = sd, Rcpp::_["weighted_sd"] = wsd,
                            Rcpp::_["n_distinct"] = distinct, Rcpp::_["min"] = min, Rcpp::_["max"] = max,
                            Rcpp::_["finite"] = finite, Rcpp::_["zero"] = zero);
}

// Drops the row names of a model matrix in place. model.matrix() spells out 1..n as strings
// (64 MiB at N = 1e6), and dimnames<- would copy the whole matrix, because the value
// model.matrix() returns is still referenced by its (not yet collected) frame. Only for a
// matrix the caller has just made and nothing else holds.
// [[Rcpp::export]]
void vhmc_drop_row_names(SEXP X) {
  SEXP dn = Rf_getAttrib(X, R_DimNamesSymbol);
  if (!Rf_isNull(dn)) SET_VECTOR_ELT(dn, 0, R_NilValue);
}
