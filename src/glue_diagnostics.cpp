// Convergence diagnostics and posterior summaries of a draws array (iterations x chains x
// variables), variable by variable in the core (diagnostics/variable_summary.hpp), with R's
// own normal and beta quantile functions so that the results agree with posterior's.
#include <Rcpp.h>

#include <vector>

#include "vhmc/diagnostics/variable_summary.hpp"

namespace {

double r_qnorm(double p) { return R::qnorm(p, 0.0, 1.0, 1, 0); }
double r_qbeta(double p, double a, double b) { return R::qbeta(p, a, b, 1, 0); }

// The draws are read through REAL_RO(): a fit's draws may be a wrapper sharing the chains'
// array (R/fit-chains.R), which a writable pointer (an Rcpp::NumericVector's) would copy.
vhmc::diagnostics::NormalScores scores_for(SEXP draws) {
  const Rcpp::IntegerVector dim = Rf_getAttrib(draws, R_DimSymbol);
  return vhmc::diagnostics::NormalScores(vhmc::diagnostics::split_size(dim[0], dim[1]), r_qnorm);
}

// f(x, v) for each variable v of the array, its draws x as an iterations x chains matrix;
// each row of the result is one variable's values.
template <class F>
Rcpp::NumericMatrix by_variable(SEXP draws, int width, F f) {
  const Rcpp::IntegerVector dim = Rf_getAttrib(draws, R_DimSymbol);
  const double* first = REAL_RO(draws);
  const Eigen::Index n = dim[0], m = dim[1], V = dim[2];
  Rcpp::NumericMatrix out(static_cast<int>(V), width);
  for (Eigen::Index v = 0; v < V; ++v) {
    if (v % 256 == 0) Rcpp::checkUserInterrupt();
    const vhmc::Mat x = Eigen::Map<const vhmc::Mat>(first + v * n * m, n, m);
    const vhmc::Vec row = f(x);
    for (int j = 0; j < width; ++j) out(static_cast<int>(v), j) = row[j];
  }
  return out;
}

}  // namespace

// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_convergence(SEXP draws) {
  const vhmc::diagnostics::NormalScores z = scores_for(draws);
  return by_variable(draws, 3, [&](const vhmc::Mat& x) {
    vhmc::Vec out = vhmc::Vec::Constant(3, vhmc::diagnostics::kNA);
    if (!x.allFinite()) return out;
    const vhmc::diagnostics::SortedDraws s = vhmc::diagnostics::sorted_draws(x);
    vhmc::diagnostics::QuantileEss ess_q(x, s.all);
    const vhmc::diagnostics::Convergence c = vhmc::diagnostics::convergence(s, ess_q, z);
    out << c.rhat, c.ess_bulk, c.ess_tail;
    return out;
  });
}

// [[Rcpp::export]]
Rcpp::NumericMatrix vhmc_draws_summary(SEXP draws, std::vector<double> probs) {
  const vhmc::diagnostics::NormalScores z = scores_for(draws);
  return by_variable(draws, 10 + 2 * static_cast<int>(probs.size()), [&](const vhmc::Mat& x) {
    return vhmc::diagnostics::variable_summary(x, probs, z, r_qbeta);
  });
}
