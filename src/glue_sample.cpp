// Targets written as R functions (vhmc_sample). R/vhmc_sample.R wraps the user's functions
// into one closure f(theta, need_grad) returning U or c(U, grad U), already negated, with
// errors and non-finite values turned into NaN there, so no R error unwinds through C++.
#include "glue_run.h"

namespace {

class RPotential {
 public:
  RPotential(Rcpp::Function f, int d) : f_(f), d_(d) {}
  int dim() const { return d_; }
  double value(const vhmc::Vec& theta) {
    Rcpp::NumericVector r = f_(Rcpp::wrap(theta), false);
    return r.size() >= 1 ? r[0] : NAN;
  }
  double value_grad(const vhmc::Vec& theta, vhmc::Vec& g) {
    Rcpp::NumericVector r = f_(Rcpp::wrap(theta), true);
    if (r.size() != d_ + 1) return NAN;
    for (int i = 0; i < d_; ++i) g[i] = r[i + 1];
    return r[0];
  }

 private:
  Rcpp::Function f_;
  int d_;
};

}  // namespace

// [[Rcpp::export]]
Rcpp::List vhmc_chain_r_target(Rcpp::Function potential, Rcpp::NumericVector init,
                               Rcpp::List sampler, Rcpp::List run) {
  const vhmc::Vec theta0 = Rcpp::as<vhmc::Vec>(init);
  RPotential pot(potential, static_cast<int>(theta0.size()));
  return vhmc_glue::run_potential(pot, sampler, run, theta0);
}
