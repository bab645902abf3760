// A fingerprint of this build's floating point: hashes of the results of the scalar and
// Eigen kernels the core's chains rely on (libm's exp, log, tanh, ... and Eigen's packet
// math and products), computed with this package's compiler and flags on fixed arguments.
// Two platforms with equal fingerprints compute the golden fits' draws bit for bit alike
// (tests/testthat/test-golden-draws.R); where they differ, the last bits of a draw may
// differ too. glibc chooses among several implementations of exp, log, pow, sin, ... by
// the processor's features (FMA, AVX2), so the same binary can round differently on two
// x86-64 machines; those kernels are exactly what this catches.
#include <Rcpp.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "vhmc/base/blocking.hpp"

namespace {

// FNV-1a (64 bit) over the bytes of the doubles, as 16 hex digits.
std::string hash_doubles(const double* x, std::size_t n) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char b[sizeof(double)];
    std::memcpy(b, x + i, sizeof(double));
    for (unsigned char c : b) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  }
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// n arguments spread over [lo, hi] by the golden-ratio sequence (no RNG, no libm).
std::vector<double> arguments(double lo, double hi, int n = 4096) {
  std::vector<double> x(n);
  double u = 0.5;
  for (int i = 0; i < n; ++i) {
    u += 0.6180339887498949;
    u -= static_cast<double>(static_cast<long>(u));
    x[i] = lo + (hi - lo) * u;
  }
  return x;
}

std::string scalar_kernel(const std::function<double(double)>& f, double lo, double hi) {
  std::vector<double> x = arguments(lo, hi);
  for (double& v : x) v = f(v);
  return hash_doubles(x.data(), x.size());
}

// Eigen's vectorised exp and log, and a product and Cholesky solve of a fixed matrix.
Rcpp::CharacterVector eigen_kernels() {
  const std::vector<double> a = arguments(-30.0, 30.0), b = arguments(1e-6, 1e6);
  const Eigen::Map<const Eigen::ArrayXd> xa(a.data(), static_cast<Eigen::Index>(a.size()));
  const Eigen::Map<const Eigen::ArrayXd> xb(b.data(), static_cast<Eigen::Index>(b.size()));
  const Eigen::ArrayXd ea = xa.exp(), lb = xb.log();
  const Eigen::Map<const Eigen::MatrixXd> M(a.data(), 64, 64);
  const Eigen::MatrixXd S = M.transpose() * M + 64.0 * Eigen::MatrixXd::Identity(64, 64);
  const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(b.data(), 64);
  const Eigen::VectorXd s = S.llt().solve(v);
  // A product long enough in its inner dimension to be split into blocks (base/blocking.hpp).
  const std::vector<double> c = arguments(-1.0, 1.0, 64 * 2048);
  const Eigen::Map<const Eigen::MatrixXd> A(c.data(), 64, 2048);
  const Eigen::MatrixXd AAt = A * A.transpose();
  return Rcpp::CharacterVector::create(
      Rcpp::_["eigen_gemm_blocked"] = hash_doubles(AAt.data(), AAt.size()),
      Rcpp::_["eigen_exp"] = hash_doubles(ea.data(), ea.size()),
      Rcpp::_["eigen_log"] = hash_doubles(lb.data(), lb.size()),
      Rcpp::_["eigen_gemm"] = hash_doubles(S.data(), S.size()),
      Rcpp::_["eigen_llt"] = hash_doubles(s.data(), s.size()));
}

}  // namespace

// The C++ side of the platform fingerprint (R/platform.R): one hash per kernel, and the
// compiler and Eigen versions the package was built with.
// [[Rcpp::export]]
Rcpp::CharacterVector vhmc_float_kernels() {
  Rcpp::CharacterVector out = Rcpp::CharacterVector::create(
      Rcpp::_["exp"] = scalar_kernel([](double x) { return std::exp(x); }, -700.0, 700.0),
      Rcpp::_["log"] = scalar_kernel([](double x) { return std::log(x); }, 1e-300, 1e6),
      Rcpp::_["log_near1"] = scalar_kernel([](double x) { return std::log(x); }, 0.5, 2.0),
      Rcpp::_["log1p"] = scalar_kernel([](double x) { return std::log1p(x); }, -0.99, 100.0),
      Rcpp::_["expm1"] = scalar_kernel([](double x) { return std::expm1(x); }, -40.0, 40.0),
      Rcpp::_["tanh"] = scalar_kernel([](double x) { return std::tanh(x); }, -20.0, 20.0),
      Rcpp::_["sin"] = scalar_kernel([](double x) { return std::sin(x); }, -100.0, 100.0),
      Rcpp::_["cos"] = scalar_kernel([](double x) { return std::cos(x); }, -100.0, 100.0),
      Rcpp::_["pow"] = scalar_kernel([](double x) { return std::pow(x, -0.6); }, 1.0, 1e5),
      Rcpp::_["erfc"] = scalar_kernel([](double x) { return std::erfc(x); }, -6.0, 27.0),
      Rcpp::_["lgamma"] = scalar_kernel([](double x) { return std::lgamma(x); }, 0.01, 1e4),
      Rcpp::_["sqrt"] = scalar_kernel([](double x) { return std::sqrt(x); }, 0.0, 1e6));
  Rcpp::CharacterVector eig = eigen_kernels();
  Rcpp::CharacterVector names = out.names(), eig_names = eig.names();
  for (R_xlen_t i = 0; i < eig.size(); ++i) {
    out.push_back(eig[i]);
    names.push_back(eig_names[i]);
  }
  out.push_back(__VERSION__);
  names.push_back("compiler");
  out.push_back(std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                std::to_string(EIGEN_MINOR_VERSION));
  names.push_back("eigen");
  out.names() = names;
  return out;
}

// The same hash of a double vector computed in R (the R side's kernels: BLAS, LAPACK, R's
// own arithmetic).
// [[Rcpp::export]]
std::string vhmc_hash_doubles(Rcpp::NumericVector x) { return hash_doubles(x.begin(), x.size()); }

// Fixes Eigen's product blocking (base/blocking.hpp); R/zzz.R calls it when the package is
// loaded. With `sizes` (L1, L2, L3 in bytes), other sizes, for the test that the fixed sizes
// matter. Returns the sizes in effect.
// [[Rcpp::export]]
Rcpp::NumericVector vhmc_fix_product_blocking(Rcpp::Nullable<Rcpp::NumericVector> sizes = R_NilValue) {
  if (sizes.isNull()) {
    vhmc::fix_product_blocking();
  } else {
    Rcpp::NumericVector s(sizes.get());
    vhmc::fix_product_blocking(static_cast<std::ptrdiff_t>(s[0]), static_cast<std::ptrdiff_t>(s[1]),
                               static_cast<std::ptrdiff_t>(s[2]));
  }
  return Rcpp::NumericVector::create(Eigen::l1CacheSize(), Eigen::l2CacheSize(), Eigen::l3CacheSize());
}
