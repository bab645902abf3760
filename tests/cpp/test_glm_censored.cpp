// Tests of censored rows (model/glm/family/censored.hpp, normal_cdf.hpp, base/incomplete.hpp):
// log cdfs against R's pt(), pgamma(), pnorm() and a quadrature of the inverse Gaussian
// density; every censorable family's potential with left, right and interval rows (gradient
// against differences, Newton Hessian); a censored row's term equals its probability;
// refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Vec;
namespace fm = vhmc::family;

std::string code_of(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return vhmc::family_code<decltype(g)>(); });
}
bool censorable(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return decltype(g)::kCensored; });
}

// n rows, one predictor, positive responses near 1; rows cycle through none, right, left and
// interval (upper bound 1.6 y).
struct CensProblem {
  int n = 24;
  std::vector<double> X, y, y2;
  std::vector<int> cens;
  explicit CensProblem(std::uint64_t seed) {
    vhmc::Rng rng(seed, 1);
    const int codes[4] = {0, 1, -1, 2};
    for (int i = 0; i < n; ++i) {
      X.push_back(rng.normal());
      y.push_back(std::exp(0.2 * X.back() + 0.4 * rng.normal()));
      y2.push_back(1.6 * y.back());
      cens.push_back(codes[i % 4]);
    }
  }
  vhmc::GlmData data(bool censored) const {
    vhmc::GlmData d(X.data(), n, 1, y.data());
    if (censored) {
      new (&d.cens) Eigen::Map<const Eigen::VectorXi>(cens.data(), n);
      new (&d.y2) Eigen::Map<const Vec>(y2.data(), n);
    }
    return d;
  }
};

GlmPotential cens_potential(GlmFamily f, const vhmc::GlmData& d) {
  return GlmPotential(d, f, true, vhmc::Prior::normal(0.0, 5.0), vhmc::Prior::normal(0.0, 2.0),
                      vhmc::Prior::exponential(1.0));
}

// theta with the mean near 1 whatever the link: the intercept that gives a finite U.
Vec cens_theta(GlmPotential& pot, vhmc::Rng& rng) {
  Vec theta(pot.dim());
  for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.3 * (2.0 * rng.uniform() - 1.0);
  theta[1] *= 0.2;
  for (double a : {1.0, 0.6, 0.1}) {
    theta[0] = a;
    if (std::isfinite(pot.U(theta))) break;
  }
  return theta;
}

}  // namespace

TEST_CASE("censoring: log cdfs match R's", "[glm][censored]") {
  const double nu = 3.5;
  fm::StudentDist::Aux st = fm::StudentDist::aux(std::array<double, 2>{0.0, std::log(nu - 1.0)}.data());
  CHECK(fm::StudentDist::log_cdf(-1.3, 0.0, st, false) == Approx(-1.99291375698609041).epsilon(1e-12));
  CHECK(fm::StudentDist::log_cdf(2.1, 0.0, st, true) == Approx(-2.86887211351777793).epsilon(1e-12));
  st = fm::StudentDist::aux(std::array<double, 2>{0.0, std::log(6.0)}.data());
  CHECK(fm::StudentDist::log_cdf(0.4, 0.0, st, false) == Approx(-0.43161531410911952).epsilon(1e-12));
  st = fm::StudentDist::aux(std::array<double, 2>{0.0, std::log(1.5)}.data());
  CHECK(fm::StudentDist::log_cdf(-40.0, 0.0, st, false) == Approx(-9.55313817252510589).epsilon(1e-12));
  fm::GammaAux ga = fm::GammaAux::at(std::log(2.2));
  CHECK(fm::GammaDist::log_cdf(2.5, 1.7, ga, false) == Approx(-0.22703778888794468).epsilon(1e-12));
  CHECK(fm::GammaDist::log_cdf(2.5, 1.7, ga, true) == Approx(-1.59401086417901872).epsilon(1e-12));
  CHECK(fm::GammaDist::log_cdf(40.0, 30.0, fm::GammaAux::at(std::log(30.0)), true) ==
        Approx(-3.14125106534427800).epsilon(1e-12));
  CHECK(fm::GammaDist::log_cdf(0.01, 3.0, fm::GammaAux::at(std::log(3.0)), false) ==
        Approx(-15.61476815115060823).epsilon(1e-12));
  const fm::InverseGaussianDist::Aux ig{2.0};
  CHECK(fm::InverseGaussianDist::log_cdf(0.8, 1.5, ig, false) == Approx(-1.07694346069481228).epsilon(1e-10));
  CHECK(fm::InverseGaussianDist::log_cdf(0.8, 1.5, ig, true) == Approx(-0.41647818096930994).epsilon(1e-10));
  CHECK(fm::InverseGaussianDist::log_cdf(6.0, 1.5, ig, true) == Approx(-4.29602598070221298).epsilon(1e-10));
  CHECK(fm::InverseGaussianDist::log_cdf(0.2, 1.5, ig, false) == Approx(-5.20270107153159422).epsilon(1e-10));
  // The normal's interval (both tails) and a far right tail, sigma = 0.8.
  fm::DistTerms d;
  fm::normal_cens_terms(1.2, 1.7, fm::kCensInterval, 0.3, std::log(0.8), 0, d);
  CHECK(d.v == Approx(-2.4053339079687479).epsilon(1e-12));
  fm::normal_cens_terms(-2.5, -1.1, fm::kCensInterval, 0.3, std::log(0.8), 0, d);
  CHECK(d.v == Approx(-3.2232220614665636).epsilon(1e-12));
  fm::normal_cens_terms(9.0, 9.0, fm::kCensRight, 0.3, std::log(0.8), 0, d);
  CHECK(d.v == Approx(-62.4465014491567061).epsilon(1e-12));
}

TEST_CASE("censoring: every censorable family's gradient and Newton Hessian", "[glm][censored]") {
  const CensProblem prob(5);
  const vhmc::GlmData data = prob.data(true);
  int families = 0;
  for (int i = 0; i < vhmc::kFamilyCount; ++i) {
    const GlmFamily f{i};
    if (!censorable(f)) continue;
    ++families;
    GlmPotential pot = cens_potential(f, data);
    REQUIRE(pot.censored());
    vhmc::Rng rng(11 + i, 2);
    const Vec theta = cens_theta(pot, rng);
    INFO(code_of(f));
    REQUIRE(std::isfinite(pot.U(theta)));
    vt::check_gradient(pot, theta, code_of(f), 1e-12);
    vt::check_hessian(pot, theta);
  }
  CHECK(families == 13);  // gaussian 3 links, student 3, Gamma 3, inverse.gaussian 4
}

TEST_CASE("censoring: a censored row adds its probability, others as before", "[glm][censored]") {
  // Row 1 right-censored at y: U with it minus U without it is -log P(Y > y).
  const CensProblem prob(9);
  std::vector<int> cens(prob.n, 0);
  cens[1] = 1;
  vhmc::GlmData with(prob.X.data(), prob.n, 1, prob.y.data());
  new (&with.cens) Eigen::Map<const Eigen::VectorXi>(cens.data(), prob.n);
  std::vector<double> w(prob.n, 1.0);
  w[1] = 0.0;
  const vhmc::GlmData without(prob.X.data(), prob.n, 1, prob.y.data(), w.data());
  const GlmFamily f = vhmc::family_named("gaussian_identity");
  GlmPotential a = cens_potential(f, with), b = cens_potential(f, without);
  const Vec theta = (Vec(3) << 0.9, 0.1, std::log(0.7)).finished();
  const double eta = 0.9 + 0.1 * prob.X[1];
  const double log_s = vhmc::log_Phi(-(prob.y[1] - eta) / 0.7);
  CHECK(a.U(theta) - b.U(theta) == Approx(-log_s).epsilon(1e-12));
  // Codes all 0: the uncensored potential, bit for bit.
  std::vector<int> none(prob.n, 0);
  vhmc::GlmData zero(prob.X.data(), prob.n, 1, prob.y.data());
  new (&zero.cens) Eigen::Map<const Eigen::VectorXi>(none.data(), prob.n);
  const vhmc::GlmData plain = prob.data(false);
  GlmPotential c = cens_potential(f, zero), d = cens_potential(f, plain);
  CHECK_FALSE(c.censored());
  CHECK(c.U(theta) == d.U(theta));
}

TEST_CASE("censoring: refusals", "[glm][censored]") {
  const CensProblem prob(3);
  const vhmc::GlmData data = prob.data(true);
  CHECK_THROWS_AS(cens_potential(vhmc::family_named("poisson_log"), data), std::invalid_argument);
  std::vector<double> low(prob.y);
  for (auto& v : low) v *= 0.5;
  vhmc::GlmData bad(prob.X.data(), prob.n, 1, prob.y.data());
  new (&bad.cens) Eigen::Map<const Eigen::VectorXi>(prob.cens.data(), prob.n);
  new (&bad.y2) Eigen::Map<const Vec>(low.data(), prob.n);
  CHECK_THROWS_AS(cens_potential(vhmc::family_named("gaussian_identity"), bad), std::invalid_argument);
  GlmPotential pot = cens_potential(vhmc::family_named("Gamma_log"), data);
  CHECK_FALSE(pot.has_fisher());
  std::vector<int> idx = {0, 1, 2};
  Vec g;
  CHECK_THROWS_AS(pot.minibatch_grad(Vec::Zero(pot.dim()), idx.data(), 3, g), std::logic_error);
}
