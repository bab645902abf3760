// Tests of the per-chain random stream vhmc::Rng (base/rng.hpp): reproducibility, stream
// independence, and the distributions of uniform(), normal() and below(n). Statistical
// checks use 4 standard errors of the exact sampling distribution of the statistic.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "test_util.hpp"

using vhmc::Rng;
using vhmc::Vec;

namespace {
constexpr int kN = 1000000;
}

TEST_CASE("Rng: the same seed and stream reproduce the sequence", "[rng]") {
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xFFFFFFFFFFFFFFFFULL}) {
    for (std::uint64_t stream : {0ULL, 1ULL, 7ULL}) {
      Rng a(seed, stream), b(seed, stream);
      bool same = true;
      for (int i = 0; i < 1000; ++i) {
        same = same && a.next() == b.next();
        same = same && a.uniform() == b.uniform();
        same = same && a.normal() == b.normal();
        same = same && a.below(13) == b.below(13);
      }
      INFO("seed " << seed << " stream " << stream);
      CHECK(same);
    }
  }
}

TEST_CASE("Rng: different streams and different seeds give different sequences", "[rng]") {
  constexpr int n = 1000;
  std::vector<std::vector<std::uint64_t>> seqs;
  for (std::uint64_t stream = 0; stream < 8; ++stream) {
    Rng r(1, stream);
    std::vector<std::uint64_t> s(n);
    for (auto& x : s) x = r.next();
    seqs.push_back(s);
  }
  for (std::uint64_t seed : {2ULL, 3ULL}) {  // nearby seeds, stream 0
    Rng r(seed, 0);
    std::vector<std::uint64_t> s(n);
    for (auto& x : s) x = r.next();
    seqs.push_back(s);
  }
  for (size_t a = 0; a < seqs.size(); ++a) {
    for (size_t b = a + 1; b < seqs.size(); ++b) {
      int equal = 0;
      for (int i = 0; i < n; ++i) equal += seqs[a][i] == seqs[b][i];
      INFO("sequences " << a << " and " << b);
      CHECK(equal == 0);
    }
  }

  // Neighbouring streams are uncorrelated: |r| < 4 / sqrt(n) for uniforms, also at lag 1.
  const int m = 200000;
  Rng r0(vt::seed(5), 0), r1(vt::seed(5), 1);
  Vec u0(m), u1(m);
  for (int i = 0; i < m; ++i) {
    u0[i] = r0.uniform();
    u1[i] = r1.uniform();
  }
  const Vec c0 = (u0.array() - u0.mean()).matrix(), c1 = (u1.array() - u1.mean()).matrix();
  const double corr = c0.dot(c1) / (c0.norm() * c1.norm());
  const double corr_lag = c0.head(m - 1).dot(c1.tail(m - 1)) / (c0.norm() * c1.norm());
  CHECK(std::abs(corr) < 4.0 / std::sqrt(static_cast<double>(m)));
  CHECK(std::abs(corr_lag) < 4.0 / std::sqrt(static_cast<double>(m)));
}

TEST_CASE("Rng: uniform() lies in (0, 1) with the moments of U(0, 1)", "[rng]") {
  Rng rng(vt::seed(2024), 3);
  double s = 0.0, s2 = 0.0, lo = 1.0, hi = 0.0, lag = 0.0, prev = 0.5;
  int below_quarter = 0;
  for (int i = 0; i < kN; ++i) {
    const double u = rng.uniform();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    s += u;
    s2 += (u - 0.5) * (u - 0.5);
    lag += (u - 0.5) * (prev - 0.5);
    prev = u;
    below_quarter += u < 0.25;
  }
  const double n = kN;
  CHECK(lo > 0.0);
  CHECK(hi < 1.0);
  // mean: Var(u) = 1/12.
  CHECK(std::abs(s / n - 0.5) < 4.0 * std::sqrt(1.0 / 12.0 / n));
  // E(u - 1/2)^2 = 1/12, Var((u - 1/2)^2) = 1/80 - 1/144 = 1/180.
  CHECK(std::abs(s2 / n - 1.0 / 12.0) < 4.0 * std::sqrt(1.0 / 180.0 / n));
  // lag-1 autocovariance 0, sd 1/12 / sqrt(n).
  CHECK(std::abs(lag / n) < 4.0 * (1.0 / 12.0) / std::sqrt(n));
  // P(u < 1/4) = 1/4.
  CHECK(std::abs(below_quarter / n - 0.25) < 4.0 * std::sqrt(0.25 * 0.75 / n));
  // log(u) is always finite (u is never exactly 0).
  Rng r2(1, 0);
  bool finite = true;
  for (int i = 0; i < 1000; ++i) finite = finite && std::isfinite(std::log(r2.uniform()));
  CHECK(finite);
}

TEST_CASE("Rng: normal() has the moments and CDF of N(0, 1)", "[rng]") {
  Rng rng(vt::seed(7), 11);
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0, lag = 0, prev = 0;
  int below_one = 0, below_m2 = 0;
  bool finite = true;
  for (int i = 0; i < kN; ++i) {
    const double z = rng.normal();
    finite = finite && std::isfinite(z);
    s1 += z;
    s2 += z * z;
    s3 += z * z * z;
    s4 += z * z * z * z;
    lag += z * prev;  // pairs of the polar method are independent too
    prev = z;
    below_one += z < 1.0;
    below_m2 += z < -2.0;
  }
  const double n = kN;
  CHECK(finite);
  // Exact sampling sds for N(0,1): mean 1/sqrt(n); mean z^2: sqrt(2/n); mean z^3: sqrt(15/n);
  // mean z^4 (truth 3): sqrt(96/n); lag-1 product: 1/sqrt(n).
  CHECK(std::abs(s1 / n) < 4.0 / std::sqrt(n));
  CHECK(std::abs(s2 / n - 1.0) < 4.0 * std::sqrt(2.0 / n));
  CHECK(std::abs(s3 / n) < 4.0 * std::sqrt(15.0 / n));
  CHECK(std::abs(s4 / n - 3.0) < 4.0 * std::sqrt(96.0 / n));
  CHECK(std::abs(lag / n) < 4.0 / std::sqrt(n));
  const double p1 = 0.8413447460685429, pm2 = 0.022750131948179195;  // Phi(1), Phi(-2)
  CHECK(std::abs(below_one / n - p1) < 4.0 * std::sqrt(p1 * (1 - p1) / n));
  CHECK(std::abs(below_m2 / n - pm2) < 4.0 * std::sqrt(pm2 * (1 - pm2) / n));
}

TEST_CASE("Rng: below(n) is in range and uniform", "[rng]") {
  Rng rng(vt::seed(99), 2);
  CHECK(rng.below(0) == 0);
  CHECK(rng.below(1) == 0);

  for (std::uint64_t k : {2ULL, 3ULL, 7ULL, 10ULL, 1000ULL}) {
    const long draws = 1000 * static_cast<long>(std::max<std::uint64_t>(k, 700));
    std::vector<long> counts(k, 0);
    bool in_range = true;
    for (long i = 0; i < draws; ++i) {
      const std::uint64_t x = rng.below(k);
      in_range = in_range && x < k;
      if (x < k) ++counts[x];
    }
    const double e = static_cast<double>(draws) / static_cast<double>(k);
    double chi2 = 0.0;
    for (long c : counts) chi2 += (c - e) * (c - e) / e;
    const double df = static_cast<double>(k - 1);
    INFO("n = " << k << ", chi-square " << chi2 << " on " << df << " df");
    CHECK(in_range);
    // Loose: mean df, sd sqrt(2 df); reject only beyond df + 6 sd (+ 10 for tiny df).
    CHECK(chi2 < df + 6.0 * std::sqrt(2.0 * df) + 10.0);
  }

  // Huge n = 3 * 2^62, where a plain modulo would be badly biased (values below 2^62 would be
  // twice as likely): P(x < 2^63) must be 2/3.
  const std::uint64_t big = 3ULL << 62;
  const int m = 300000;
  int low = 0;
  bool in_range = true;
  for (int i = 0; i < m; ++i) {
    const std::uint64_t x = rng.below(big);
    in_range = in_range && x < big;
    low += x < (1ULL << 63);
  }
  CHECK(in_range);
  CHECK(std::abs(low / static_cast<double>(m) - 2.0 / 3.0) < 4.0 * std::sqrt(2.0 / 9.0 / m));
}
