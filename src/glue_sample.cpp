// Targets written as R functions (vhmc_sample). R/model-r-target.R wraps the user's
// functions into one closure f(theta, need_grad) returning U or c(U, grad U), already
// negated, with errors and non-finite values turned into NaN there, so no R error unwinds
// through C++; a malformed value comes back as a message that ends the chain.
#include "glue_registry.h"

namespace {

// Every R object handed to the closure is held by an Rcpp object (hence protected) while
// the call's other arguments are allocated: a bare SEXP from wrap() could be collected.
class RPotential {
 public:
  static constexpr bool kHostsPopulation = true;  // R runs demc()'s chains as one population
  RPotential(Rcpp::Function f, int d, Rcpp::Nullable<Rcpp::Function> metric = R_NilValue)
      : f_(f), metric_(metric), d_(d), no_grad_(Rcpp::LogicalVector::create(false)),
        with_grad_(Rcpp::LogicalVector::create(true)) {}
  int dim() const { return d_; }
  double U(const vhmc::Vec& theta) {
    Rcpp::NumericVector r = call(theta, no_grad_);
    return r.size() >= 1 ? r[0] : NAN;
  }
  double U_grad(const vhmc::Vec& theta, vhmc::Vec& g) {
    Rcpp::NumericVector r = call(theta, with_grad_);
    if (r.size() != d_ + 1) return NAN;
    for (int i = 0; i < d_; ++i) g[i] = r[i + 1];
    return r[0];
  }
  // The user's metric tensor (vhmc_sample(metric_tensor = )): R returns c(G, dG) flattened
  // column-major, d^2 + d^3 numbers, or NaN where it cannot be evaluated.
  bool metric(const vhmc::Vec& theta, vhmc::Mat& G, vhmc::Mat& dG) {
    if (metric_.isNull()) throw std::runtime_error("internal: no metric tensor was supplied");
    Rcpp::NumericVector th(theta.data(), theta.data() + theta.size());
    Rcpp::RObject r = Rcpp::Function(metric_.get())(th);
    if (TYPEOF(r) == STRSXP) throw std::runtime_error(Rcpp::as<std::string>(r));
    Rcpp::NumericVector v(r);
    const long d2 = static_cast<long>(d_) * d_;
    if (v.size() != d2 + d2 * d_) return false;
    G = Eigen::Map<const vhmc::Mat>(v.begin(), d_, d_);
    dG = Eigen::Map<const vhmc::Mat>(v.begin() + d2, d_, d2);
    return true;
  }

 private:
  SEXP call(const vhmc::Vec& theta, const Rcpp::LogicalVector& need_grad) {
    Rcpp::NumericVector th(theta.data(), theta.data() + theta.size());
    Rcpp::RObject r = f_(th, need_grad);
    if (TYPEOF(r) == STRSXP) throw std::runtime_error(Rcpp::as<std::string>(r));
    return r;
  }

  Rcpp::Function f_;
  Rcpp::Nullable<Rcpp::Function> metric_;
  int d_;
  Rcpp::LogicalVector no_grad_, with_grad_;
};

}  // namespace

// rmhmc() on an R target uses the metric tensor supplied with it.
namespace vhmc {
template <>
struct GeometryFor<RPotential> {
  using type = MetricGeometry<RPotential>;
};
}  // namespace vhmc

// `phase_end`: an R function called with each phase's label after it (R/r-target.R reads its
// counter of model runs there), or NULL.
// [[Rcpp::export]]
Rcpp::List vhmc_run_r_target(Rcpp::Function potential, Rcpp::NumericVector init, Rcpp::List config,
                             Rcpp::List extras, Rcpp::List run, Rcpp::Nullable<Rcpp::Function> metric_tensor,
                             Rcpp::Nullable<Rcpp::Function> phase_end) {
  const vhmc::Vec theta0 = Rcpp::as<vhmc::Vec>(init);
  RPotential pot(potential, static_cast<int>(theta0.size()), metric_tensor);
  std::function<void(const char*)> on_phase;
  if (phase_end.isNotNull()) {
    Rcpp::Function f(phase_end.get());
    on_phase = [f](const char* label) { f(Rcpp::CharacterVector::create(label)); };
  }
  return vhmc_glue::run_registered(pot, config, extras, theta0, run, on_phase);
}

// The posterior mode of a target by L-BFGS (inst/include/vhmc/model/lbfgs.hpp), for the
// mode-and-curvature start and the Laplace anchors of targets without an analytic Hessian.
// `potential` is a closure f(theta, need_grad) as above, made by R/laplace.R, that returns
// NaN where the target cannot be evaluated. The inverse-Hessian estimate of the final
// L-BFGS pairs comes back as well (a fallback curvature when differences are too costly).
// [[Rcpp::export]]
Rcpp::List vhmc_lbfgs(Rcpp::Function potential, Rcpp::NumericVector init, int max_iterations) {
  const vhmc::Vec theta0 = Rcpp::as<vhmc::Vec>(init);
  const int d = static_cast<int>(theta0.size());
  RPotential pot(potential, d);
  vhmc::LbfgsOptions opt;
  opt.max_iterations = max_iterations;
  const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(pot, theta0, opt);
  return Rcpp::List::create(
      Rcpp::_["mode"] = Rcpp::wrap(r.theta), Rcpp::_["value"] = r.value,
      Rcpp::_["gradient"] = Rcpp::wrap(r.gradient), Rcpp::_["iterations"] = r.iterations,
      Rcpp::_["evaluations"] = r.n_evals, Rcpp::_["converged"] = r.converged,
      Rcpp::_["message"] = r.message, Rcpp::_["inv_hessian_diag"] = Rcpp::wrap(r.history.inverse_hessian_diag(d)));
}

// The core's default config of a sampler class (fields() of a default-constructed config).
// [[Rcpp::export]]
Rcpp::List vhmc_config_defaults(std::string cls) { return vhmc_glue::sampler_defaults(cls); }
