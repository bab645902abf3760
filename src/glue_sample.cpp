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
  RPotential(Rcpp::Function f, int d)
      : f_(f), d_(d), no_grad_(Rcpp::LogicalVector::create(false)),
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

 private:
  SEXP call(const vhmc::Vec& theta, const Rcpp::LogicalVector& need_grad) {
    Rcpp::NumericVector th(theta.data(), theta.data() + theta.size());
    Rcpp::RObject r = f_(th, need_grad);
    if (TYPEOF(r) == STRSXP) throw std::runtime_error(Rcpp::as<std::string>(r));
    return r;
  }

  Rcpp::Function f_;
  int d_;
  Rcpp::LogicalVector no_grad_, with_grad_;
};

}  // namespace

// [[Rcpp::export]]
Rcpp::List vhmc_run_r_target(Rcpp::Function potential, Rcpp::NumericVector init, Rcpp::List config,
                             Rcpp::List extras, Rcpp::List run) {
  const vhmc::Vec theta0 = Rcpp::as<vhmc::Vec>(init);
  RPotential pot(potential, static_cast<int>(theta0.size()));
  return vhmc_glue::run_registered(pot, config, extras, theta0, run);
}
