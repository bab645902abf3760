// Tests of the draws' diagnostics (diagnostics/): the radix order against a comparison sort,
// the folded order by merging against sorting the distances, and the ESS and R-hat of chains
// whose values are known: independent draws (ESS near S), AR(1) chains (ESS near
// S (1 - rho) / (1 + rho)), and chains around different means (R-hat well above 1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "test_util.hpp"
#include "vhmc/diagnostics/variable_summary.hpp"

using vhmc::Mat;
using vhmc::Rng;
namespace dg = vhmc::diagnostics;

namespace {
Mat ar_chains(Eigen::Index n, Eigen::Index m, double rho, std::uint64_t seed) {
  Rng rng(seed, 0);
  Mat x(n, m);
  for (Eigen::Index c = 0; c < m; ++c) {
    x(0, c) = rng.normal();
    for (Eigen::Index i = 1; i < n; ++i) x(i, c) = rho * x(i - 1, c) + std::sqrt(1 - rho * rho) * rng.normal();
  }
  return x;
}
// The probit by bisection of erfc: enough for normal scores in a test.
double test_qnorm(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}
}  // namespace

TEST_CASE("diagnostics: the radix order and the folded order agree with sorting", "[diagnostics]") {
  Mat x = ar_chains(101, 3, 0.3, 5);
  x(0, 0) = 0.0;
  x(1, 0) = -0.0;
  x(2, 0) = x(3, 0) = -1.5;
  x(4, 1) = 1e300;
  x(5, 1) = -1e-300;
  const dg::Order v = dg::order_of(x);
  std::vector<double> sorted(x.data(), x.data() + x.size());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    REQUIRE(v[i].first == sorted[i]);
    REQUIRE(x(v[i].second) == v[i].first);
  }
  const double median = dg::median_of(sorted);
  const dg::Order f = dg::fold_order(v, median);
  std::vector<double> dist(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) dist[i] = std::abs(sorted[i] - median);
  std::sort(dist.begin(), dist.end());
  for (std::size_t i = 0; i < dist.size(); ++i) {
    REQUIRE(f[i].first == dist[i]);
    REQUIRE(std::abs(x(f[i].second) - median) == f[i].first);
  }
}

TEST_CASE("diagnostics: ESS and R-hat of chains with known behaviour", "[diagnostics]") {
  const dg::NormalScores z(4000, test_qnorm);
  for (double rho : {0.0, 0.5, 0.9}) {
    const Mat x = ar_chains(1000, 4, rho, 11);
    const dg::SortedDraws s = dg::sorted_draws(x);
    dg::QuantileEss ess_q(x, s.all);
    const dg::Convergence c = dg::convergence(s, ess_q, z);
    const double expected = 4000 * (1 - rho) / (1 + rho);
    CHECK(c.ess_bulk == Approx(expected).epsilon(0.2));
    CHECK(c.rhat < 1.05);  // at an ESS of 200 (rho = 0.9) R-hat itself varies by about 0.01
    CHECK(c.ess_tail > 0.3 * expected);
  }
  Mat apart = ar_chains(1000, 4, 0.5, 12);
  for (Eigen::Index c = 0; c < 4; ++c) apart.col(c).array() += static_cast<double>(c);
  const dg::SortedDraws s = dg::sorted_draws(apart);
  dg::QuantileEss ess_q(apart, s.all);
  CHECK(dg::convergence(s, ess_q, z).rhat > 1.5);
  CHECK(std::isnan(dg::ess_basic(Mat::Constant(100, 2, 3.0))));
}
