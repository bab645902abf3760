// Tests of the parts of the GLM potential (model/glm/): special functions, the family
// structs' densities and derivatives, the parameter layout, the reported-scale map, and
// which families have a Fisher metric. The potentials themselves (gradients, Hessians,
// weights, minibatches) are tested for every family in test_glm.cpp and test_sg.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <vhmc/vhmc.hpp>

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Prior;
using vhmc::Vec;

constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286061;

}  // namespace

TEST_CASE("digamma and trigamma match their closed forms and recurrences", "[glm][special]") {
  CHECK(vhmc::digamma(1.0) == Approx(-kEulerGamma).epsilon(1e-15));
  CHECK(vhmc::digamma(0.5) == Approx(-kEulerGamma - 2 * std::log(2.0)).epsilon(1e-15));
  CHECK(vhmc::trigamma(1.0) == Approx(kPi * kPi / 6).epsilon(1e-15));
  CHECK(vhmc::trigamma(0.5) == Approx(kPi * kPi / 2).epsilon(1e-15));
  for (double x : {1e-3, 0.3, 2.5, 9.99, 10.0, 57.3, 1e4, 1e8}) {
    INFO("x = " << x);
    // The recurrences, to the rounding of the values themselves (the differences cancel).
    const double eps = 4e-16;
    CHECK(std::fabs(vhmc::digamma(x + 1) - vhmc::digamma(x) - 1 / x) <=
          eps * (std::fabs(vhmc::digamma(x)) + 1 / x));
    CHECK(std::fabs(vhmc::trigamma(x) - vhmc::trigamma(x + 1) - 1 / (x * x)) <= 5 * eps * vhmc::trigamma(x));
    // Derivatives of lgamma by central differences.
    const double h = 1e-5 * x;
    CHECK(vhmc::digamma(x) == Approx((std::lgamma(x + h) - std::lgamma(x - h)) / (2 * h)).epsilon(1e-7).margin(1e-7));
  }
}

TEST_CASE("negative binomial and Gamma rows are normalised densities", "[glm][family]") {
  using NB = vhmc::family::NegBinomial2Log;
  using GA = vhmc::family::GammaLog;
  for (double t : {-1.0, 0.3, 2.0}) {
    for (double eta : {-0.5, 1.0, 2.5}) {
      INFO("t = " << t << ", eta = " << eta);
      const auto a = NB::aux(t);
      double total = 0.0;  // the dropped constant is -lgamma(y + 1)
      for (int y = 0; y < 20000; ++y) total += std::exp(NB::row(y, eta, a, nullptr, nullptr) - std::lgamma(y + 1.0));
      CHECK(total == Approx(1.0).epsilon(1e-10));
      const auto g = GA::aux(t);
      // Integral over y by the midpoint rule on a log grid (y = e^u, dy = e^u du).
      double integral = 0.0;
      const double du = 1e-3;
      for (double u = -40.0; u < 12.0; u += du) {
        const double y = std::exp(u + du / 2);
        integral += std::exp(GA::row(y, eta, g, nullptr, nullptr)) * y * du;
      }
      CHECK(integral == Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("family rows' derivatives match differences of the row log likelihood", "[glm][family]") {
  auto check = [](auto fam, double y, double eta, double t) {
    using F = decltype(fam);
    const auto a = F::aux(t);
    double d = 0.0, dt = 0.0;
    F::row(y, eta, a, &d, &dt);
    const double h = 1e-5;
    auto ll = [&](double e, double tt) { return F::row(y, e, F::aux(tt), nullptr, nullptr); };
    // Central differences err by h^2 f''' / 6 plus rounding eps |ll| / h.
    const double noise = 1e-9 * std::max(1.0, std::fabs(ll(eta, t)));
    CHECK(d == Approx((ll(eta + h, t) - ll(eta - h, t)) / (2 * h)).epsilon(1e-7).margin(noise));
    CHECK(dt == Approx((ll(eta, t + h) - ll(eta, t - h)) / (2 * h)).epsilon(1e-7).margin(noise));
    double he = 0.0, het = 0.0, htt = 0.0;
    F::curvature(y, eta, a, he, het, htt);
    auto dd = [&](double e, double tt) {
      double r = 0.0, s = 0.0;
      F::row(y, e, F::aux(tt), &r, &s);
      return std::make_pair(r, s);
    };
    CHECK(-he == Approx((dd(eta + h, t).first - dd(eta - h, t).first) / (2 * h)).epsilon(1e-6).margin(1e-7));
    CHECK(-het == Approx((dd(eta, t + h).first - dd(eta, t - h).first) / (2 * h)).epsilon(1e-6).margin(1e-7));
    CHECK(-htt == Approx((dd(eta, t + h).second - dd(eta, t - h).second) / (2 * h)).epsilon(1e-6).margin(1e-7));
  };
  for (double t : {-2.0, 0.4, 3.0}) {
    for (double eta : {-3.0, 0.2, 4.0}) {
      INFO("t = " << t << ", eta = " << eta);
      for (double y : {0.0, 1.0, 7.0, 250.0}) check(vhmc::family::NegBinomial2Log{}, y, eta, t);
      for (double y : {1e-3, 0.8, 31.0}) check(vhmc::family::GammaLog{}, y, eta, t);
      for (double y : {-1.0, 0.8, 31.0}) check(vhmc::family::GaussianIdentity{}, y, eta, t);
    }
  }
}

TEST_CASE("the parameter layout names the blocks; the reported map inverts", "[glm][layout]") {
  const int n = 30, k = 2;
  std::vector<double> X(n * k), y(n), c = {0.4, -1.0}, s = {2.0, 0.5};
  vhmc::Rng rng(5, 5);
  for (auto& x : X) x = rng.normal();
  for (auto& v : y) v = 1.0 + std::floor(3 * rng.uniform());
  GlmData data(X.data(), n, k, y.data(), nullptr, nullptr, c.data(), s.data());
  data.y_center = 0.7;
  data.y_scale = 3.0;
  for (GlmFamily f : {GlmFamily::GaussianIdentity, GlmFamily::NegBinomial2Log, GlmFamily::GammaLog,
                      GlmFamily::PoissonLog}) {
    GlmPotential pot(data, f, true, Prior::flat(), Prior::flat(), Prior::exponential(1.0));
    const auto& blocks = pot.layout().blocks();
    const bool aux = f != GlmFamily::PoissonLog;
    REQUIRE(blocks.size() == (aux ? 3u : 2u));
    CHECK(blocks[0].name == "intercept");
    CHECK(blocks[1].name == "coef");
    CHECK(blocks[1].offset == 1);
    CHECK(blocks[1].size == k);
    if (aux) {
      CHECK(blocks[2].transform == vhmc::Transform::Log);
      CHECK(blocks[2].label == std::string(f == GlmFamily::GaussianIdentity ? "sigma"
                                           : f == GlmFamily::GammaLog ? "shape" : "reciprocal_dispersion"));
    }
    const Vec theta = Vec::LinSpaced(pot.dim(), -0.4, 0.9);
    Vec rep, back;
    vhmc::to_reported(pot, theta, rep);
    vhmc::from_reported(pot, rep, back);
    for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-14).margin(1e-15));
    // The slopes on the data's scale (times y_scale), the intercept at x = 0.
    CHECK(rep[1] == Approx(theta[1] / s[0] * 3.0));
    CHECK(rep[0] == Approx((theta[0] - c[0] * theta[1] / s[0] - c[1] * theta[2] / s[1]) * 3.0 + 0.7));
    if (aux) CHECK(rep[3] == Approx(std::exp(theta[3]) * 3.0));
  }
}

TEST_CASE("the Fisher metric exists for canonical links without a free dispersion", "[glm][fisher]") {
  std::vector<double> X = {0.1, 0.5, -0.3}, y = {1.0, 2.0, 3.0};
  const GlmData data(X.data(), 3, 1, y.data());
  auto fisher = [&](GlmFamily f, double precision = 0.0) {
    return GlmPotential(data, f, true, Prior::flat(), Prior::flat(), Prior::flat(), precision).has_fisher();
  };
  CHECK(fisher(GlmFamily::BinomialLogit));
  CHECK(fisher(GlmFamily::PoissonLog));
  CHECK(fisher(GlmFamily::GaussianIdentity, 2.0));
  CHECK_FALSE(fisher(GlmFamily::GaussianIdentity));
  CHECK_FALSE(fisher(GlmFamily::BinomialProbit));
  CHECK_FALSE(fisher(GlmFamily::NegBinomial2Log));
  CHECK_FALSE(fisher(GlmFamily::GammaLog));
}
