// Tests of the parts of the GLM potential (model/glm/): special functions, the family
// structs' densities and derivatives, the parameter layout, the reported-scale map, and
// which families have a Fisher metric. The potentials themselves (gradients, Hessians,
// weights, minibatches) are tested for every family in test_glm.cpp and test_sg.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

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
      const auto a = NB::aux(&t, 1);
      double total = 0.0;  // the dropped constant is -lgamma(y + 1)
      for (int y = 0; y < 20000; ++y) total += std::exp(NB::row(y, eta, a, nullptr, nullptr) - std::lgamma(y + 1.0));
      CHECK(total == Approx(1.0).epsilon(1e-10));
      const auto g = GA::aux(&t, 1);
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

TEST_CASE("the parameter layout names the blocks; the reported map inverts", "[glm][layout]") {
  const int n = 30, k = 2;
  std::vector<double> X(n * k), y(n), c = {0.4, -1.0}, s = {2.0, 0.5};
  vhmc::Rng rng(5, 5);
  for (auto& x : X) x = rng.normal();
  for (auto& v : y) v = 1.0 + std::floor(3 * rng.uniform());
  GlmData data(X.data(), n, k, y.data(), nullptr, nullptr, c.data(), s.data());
  data.y_center = 0.7;
  data.y_scale = 3.0;
  for (GlmFamily f : {vt::fam::GaussianIdentity, vt::fam::NegBinomial2Log, vt::fam::GammaLog,
                      vt::fam::PoissonLog}) {
    GlmPotential pot(data, f, true, Prior::flat(), Prior::flat(), Prior::exponential(1.0));
    const auto& blocks = pot.layout().blocks();
    const bool aux = f != vt::fam::PoissonLog;
    REQUIRE(blocks.size() == (aux ? 3u : 2u));
    CHECK(blocks[0].name == "intercept");
    CHECK(blocks[1].name == "coef");
    CHECK(blocks[1].offset == 1);
    CHECK(blocks[1].size == k);
    if (aux) {
      CHECK(blocks[2].transform == vhmc::Transform::Log);
      const std::string label = f == vt::fam::GaussianIdentity ? "sigma" : f == vt::fam::GammaLog ? "shape" : "reciprocal_dispersion";
      CHECK(blocks[2].label == label);
      CHECK(blocks[2].name == "aux:" + label);
    }
    const Vec theta = Vec::LinSpaced(pot.dim(), -0.4, 0.9);
    Vec rep, back;
    vhmc::to_reported(pot, theta, rep);
    vhmc::from_reported(pot, rep, back);
    for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-14).margin(1e-15));
    // The slopes on the data's scale (times y_scale), the intercept at x = 0; sigma in the
    // response's units, the other families' aux parameters unitless.
    CHECK(rep[1] == Approx(theta[1] / s[0] * 3.0));
    CHECK(rep[0] == Approx((theta[0] - c[0] * theta[1] / s[0] - c[1] * theta[2] / s[1]) * 3.0 + 0.7));
    if (aux) CHECK(rep[3] == Approx(std::exp(theta[3]) * (f == vt::fam::GaussianIdentity ? 3.0 : 1.0)));
  }
}

TEST_CASE("the Fisher metric exists for canonical links without a free dispersion", "[glm][fisher]") {
  std::vector<double> X = {0.1, 0.5, -0.3}, y = {1.0, 2.0, 3.0};
  const GlmData data(X.data(), 3, 1, y.data());
  auto fisher = [&](GlmFamily f, double precision = 0.0) {
    return GlmPotential(data, f, true, Prior::flat(), Prior::flat(), Prior::flat(), precision).has_fisher();
  };
  CHECK(fisher(vt::fam::BinomialLogit));
  CHECK(fisher(vt::fam::PoissonLog));
  CHECK(fisher(vt::fam::GaussianIdentity, 2.0));
  CHECK_FALSE(fisher(vt::fam::GaussianIdentity));
  CHECK_FALSE(fisher(vt::fam::BinomialProbit));
  CHECK_FALSE(fisher(vt::fam::NegBinomial2Log));
  CHECK_FALSE(fisher(vt::fam::GammaLog));
}
