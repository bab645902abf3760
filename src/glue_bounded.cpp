// Bounds and priors declared for a target written in R (R/bounded-target.R): the natural
// values of the sampler's unconstrained coordinates and what the transforms and the priors
// add to the potential (inst/include/vhmc/model/bounded.hpp). Called from the target's R
// closure at every evaluation, so the spec is small and read anew (an external pointer would
// not survive the trip to a socket cluster's workers).
#include <vector>

#include "glue_convert.h"

namespace {

std::vector<vhmc::BoundedParameter> bounded_parameters(const Rcpp::List& spec) {
  const Rcpp::NumericVector lower = spec["lower"], upper = spec["upper"];
  const Rcpp::List priors = spec["priors"];
  std::vector<vhmc::BoundedParameter> ps(static_cast<std::size_t>(lower.size()));
  for (R_xlen_t j = 0; j < lower.size(); ++j) {
    ps[j].lower = lower[j];
    ps[j].upper = upper[j];
    ps[j].prior = vhmc_glue::prior_of(priors[j]);
  }
  return ps;
}

}  // namespace

// list(x, u, grad, dx_dt): x the natural values of t; u = -log prior(x) - log |dx/dt| summed;
// grad = du/dt and dx_dt per coordinate.
// [[Rcpp::export]]
Rcpp::List vhmc_bounded_eval(Rcpp::List spec, Rcpp::NumericVector t) {
  const std::vector<vhmc::BoundedParameter> ps = bounded_parameters(spec);
  if (static_cast<R_xlen_t>(ps.size()) != t.size()) Rcpp::stop("internal: bounded spec and theta differ in length");
  Rcpp::NumericVector x(t.size()), dx(t.size()), g(t.size());
  const double u = vhmc::bounded_eval(ps, t.begin(), x.begin(), dx.begin(), g.begin());
  return Rcpp::List::create(Rcpp::_["x"] = x, Rcpp::_["u"] = u, Rcpp::_["grad"] = g, Rcpp::_["dx_dt"] = dx);
}

// The unconstrained coordinates of natural values x (strictly inside their bounds): rows of
// a matrix, one parameter per column.
// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_bounded_unconstrain(Rcpp::List spec, Rcpp::NumericMatrix x) {
  const std::vector<vhmc::BoundedParameter> ps = bounded_parameters(spec);
  Rcpp::NumericMatrix t(x.nrow(), x.ncol());
  for (int j = 0; j < x.ncol(); ++j)
    for (int i = 0; i < x.nrow(); ++i) t(i, j) = vhmc::bounded_from_natural(ps[j], x(i, j));
  return t;
}

// Natural values of rows of unconstrained coordinates (the draws, all chains at once).
// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_bounded_constrain(Rcpp::List spec, Rcpp::NumericMatrix t) {
  const std::vector<vhmc::BoundedParameter> ps = bounded_parameters(spec);
  Rcpp::NumericMatrix x(t.nrow(), t.ncol());
  for (int j = 0; j < t.ncol(); ++j)
    for (int i = 0; i < t.nrow(); ++i) x(i, j) = vhmc::bounded_to_natural(ps[j], t(i, j)).x;
  return x;
}
