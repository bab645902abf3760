// A Gaussian target evaluated in C++ (model/gaussian.hpp). It lets benchmarks and tests
// measure the engine itself, without the cost of calling an R function per gradient.
#include "glue_run.h"

// [[Rcpp::export]]
Rcpp::List vhmc_chain_gaussian(Rcpp::NumericVector mean, Rcpp::NumericMatrix cov,
                               Rcpp::NumericVector init, Rcpp::List sampler, Rcpp::List run) {
  const vhmc::Vec m = Rcpp::as<vhmc::Vec>(mean);
  const vhmc::Mat S = Rcpp::as<vhmc::Mat>(cov);
  const bool diagonal = S.isDiagonal();
  vhmc::GaussianPotential pot = diagonal ? vhmc::GaussianPotential(m, vhmc::Vec(S.diagonal()))
                                         : vhmc::GaussianPotential(m, S);
  return vhmc_glue::run_potential(pot, sampler, run, Rcpp::as<vhmc::Vec>(init));
}
