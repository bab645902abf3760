// A Gaussian target evaluated in C++ (model/gaussian.hpp). It lets benchmarks and tests
// measure the engine itself, without the cost of calling an R function per gradient; they
// use NUTS only, so only NUTS is compiled for it.
#include "glue_registry.h"

// [[Rcpp::export]]
Rcpp::List vhmc_run_gaussian(Rcpp::NumericVector mean, Rcpp::NumericMatrix cov, Rcpp::NumericVector init,
                             Rcpp::List config, Rcpp::List extras, Rcpp::List run) {
  const vhmc::Vec m = Rcpp::as<vhmc::Vec>(mean);
  const vhmc::Mat S = Rcpp::as<vhmc::Mat>(cov);
  vhmc::GaussianPotential pot = S.isDiagonal() ? vhmc::GaussianPotential(m, vhmc::Vec(S.diagonal()))
                                               : vhmc::GaussianPotential(m, S);
  return vhmc_glue::run_registered<vhmc::GaussianPotential, vhmc_glue::NutsOnly>(pot, config, extras,
                                                                              Rcpp::as<vhmc::Vec>(init), run);
}
