// Tests of the horseshoe prior on a GLM's coefficients (model/glm/horseshoe.hpp): gradients
// against central differences (hs and hs+, families, global scale relative to sigma or not,
// centred and scaled predictors, a standardised response, prior alone); the prior's density
// and log Jacobians against the closed forms of its distributions in the natural parameters;
// the likelihood evaluated at the coefficients z m the horseshoe gives; the layout and the
// reported map and its inverse.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::HorseshoeSpec;
using vhmc::Prior;
using vhmc::Vec;

struct SparseProblem {
  int n = 50, k = 5;
  std::vector<double> X, y, center, scale;
};

// Two of k predictors matter; responses of the family's kind.
SparseProblem sparse_problem(GlmFamily f, std::uint64_t seed) {
  vhmc::Rng rng(seed, 7);
  SparseProblem p;
  p.X.resize(p.n * p.k);
  for (auto& x : p.X) x = rng.normal();
  for (int i = 0; i < p.n; ++i) {
    const double eta = 0.2 + 0.8 * p.X[i] - 0.5 * p.X[i + p.n];
    p.y.push_back(vt::draw_response(f, eta, rng));
  }
  for (int j = 0; j < p.k; ++j) {
    p.center.push_back(0.1 * j);
    p.scale.push_back(0.5 + 0.3 * j);
  }
  return p;
}

HorseshoeSpec hs_spec(bool plus, bool rel) {
  HorseshoeSpec s;
  s.df = 3.0;
  s.df2 = plus ? 2.0 : 0.0;
  s.global_df = 1.5;
  s.global_scale = 0.1;
  s.slab_df = 4.0;
  s.slab_scale = 2.5;
  s.relative_to_sigma = rel;
  return s;
}

// log of the half-t(nu) density at x (scale 1), its constant included.
double log_half_t(double x, double nu) {
  return std::log(2.0) + std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) - 0.5 * std::log(nu * M_PI) -
         (nu + 1) / 2 * std::log1p(x * x / nu);
}

// log of the inverse gamma(a, b) density at v.
double log_inv_gamma(double v, double a, double b) {
  return a * std::log(b) - std::lgamma(a) - (a + 1) * std::log(v) - b / v;
}

}  // namespace

TEST_CASE("horseshoe: gradients match differences (hs, hs+, families, relative to sigma)", "[glm][horseshoe]") {
  vhmc::Rng rng(11, 11);
  int cases = 0;
  for (GlmFamily f : {vt::fam::GaussianIdentity, vt::fam::BinomialLogit, vt::fam::PoissonLog}) {
    const SparseProblem prob = sparse_problem(f, 3);
    GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
    const bool gaussian = f == vt::fam::GaussianIdentity;
    if (gaussian) data.y_scale = 1.7;
    for (bool plus : {false, true}) {
      for (bool rel : {false, true}) {
        if (rel && !gaussian) continue;
        for (bool prior_only : {false, true}) {
          GlmPotential pot(data, f, true, Prior::normal(0.0, 5.0), Prior::horseshoe(hs_spec(plus, rel)),
                           Prior::exponential(1.0));
          pot.set_prior_only(prior_only);
          for (int rep = 0; rep < 3; ++rep) {
            const Vec theta = vt::random_theta(pot.dim(), rng, 0.8);
            vt::check_gradient(pot, theta, std::string(plus ? "hs+ " : "hs ") + (rel ? "rel " : "") +
                                               (prior_only ? "prior " : "") + std::to_string(rep));
            ++cases;
          }
        }
      }
    }
  }
  CHECK(cases == (4 + 2 + 2) * 2 * 3);
}

TEST_CASE("horseshoe: layout, and the likelihood at the coefficients z m", "[glm][horseshoe]") {
  const SparseProblem prob = sparse_problem(vt::fam::GaussianIdentity, 4);
  GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
  data.y_scale = 2.0;
  for (bool plus : {false, true}) {
    GlmPotential hs(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::horseshoe(hs_spec(plus, true)),
                    Prior::flat());
    GlmPotential prior(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::horseshoe(hs_spec(plus, true)),
                       Prior::flat());
    prior.set_prior_only(true);
    GlmPotential flat(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
    const auto& b = hs.layout().blocks();
    const int k = prob.k;
    REQUIRE(b.size() == (plus ? 7u : 6u));
    CHECK(b[1].name == "coef");
    CHECK(b[1].label == "noncentred");
    CHECK(b[2].name == "aux:sigma");
    CHECK(b[3].name == "hs:lambda");
    CHECK(b[3].label == "hs_lambda");
    CHECK(b[3].size == k);
    if (plus) CHECK(b[4].name == "hs:eta");
    CHECK(b[b.size() - 2].name == "hs:tau");
    CHECK(b.back().name == "hs:c");
    CHECK(hs.dim() == 1 + k + 1 + (plus ? 2 : 1) * k + 2);
    CHECK_FALSE(hs.has_fisher());
    vhmc::Rng rng(5, 5);
    for (int rep = 0; rep < 4; ++rep) {
      const Vec theta = vt::random_theta(hs.dim(), rng, 0.7);
      Vec eff;
      hs.horseshoe()->effective(theta, eff);
      // U = likelihood at the effective coefficients + the horseshoe's prior; the flat prior on
      // sigma is its log Jacobian -log sigma in both flat() and prior-only potentials.
      const double expected = flat.U(eff.head(flat.dim())) + prior.U(theta) + theta[1 + k];
      CHECK(hs.U(theta) == Approx(expected).epsilon(1e-12));
    }
  }
}

TEST_CASE("horseshoe: the prior's density and log Jacobians in the natural parameters", "[glm][horseshoe]") {
  // U(theta) - U(theta') against -log p(z, lambda, eta, tau0, c) - log |Jacobian| from the
  // closed forms: z ~ N(0, 1), lambda ~ half-t(df), eta ~ half-t(df2), tau0 ~ half-t(global_df),
  // c^2 ~ InvGamma(slab_df / 2, slab_df slab_scale^2 / 2), each scale x = exp(t) (Jacobian x;
  // for c^2 = exp(2 t), 2 c^2).
  const SparseProblem prob = sparse_problem(vt::fam::PoissonLog, 6);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  for (bool plus : {false, true}) {
    const HorseshoeSpec s = hs_spec(plus, false);
    GlmPotential pot(data, vt::fam::PoissonLog, true, Prior::flat(), Prior::horseshoe(s));
    pot.set_prior_only(true);
    const int k = prob.k;
    auto minus_log_density = [&](const Vec& th) {
      double lp = 0.0;
      for (int j = 0; j < k; ++j) {
        lp += -0.5 * th[1 + j] * th[1 + j] - 0.5 * std::log(2 * M_PI);
        lp += log_half_t(std::exp(th[1 + k + j]), s.df) + th[1 + k + j];
        if (plus) lp += log_half_t(std::exp(th[1 + 2 * k + j]), s.df2) + th[1 + 2 * k + j];
      }
      const int tau = 1 + (plus ? 3 : 2) * k, c = tau + 1;
      lp += log_half_t(std::exp(th[tau]), s.global_df) + th[tau];
      const double c2 = std::exp(2 * th[c]);
      lp += log_inv_gamma(c2, s.slab_df / 2, s.slab_df * s.slab_scale * s.slab_scale / 2) + std::log(2 * c2);
      return -lp;
    };
    vhmc::Rng rng(9, 9);
    const Vec ref = vt::random_theta(pot.dim(), rng, 1.0);
    for (int rep = 0; rep < 5; ++rep) {
      const Vec theta = vt::random_theta(pot.dim(), rng, 1.5);
      CHECK(pot.U(theta) - pot.U(ref) ==
            Approx(minus_log_density(theta) - minus_log_density(ref)).epsilon(1e-11).margin(1e-11));
    }
  }
}

TEST_CASE("horseshoe: the reported map gives beta = z m and the scales, and inverts", "[glm][horseshoe]") {
  const SparseProblem prob = sparse_problem(vt::fam::GaussianIdentity, 8);
  GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
  data.y_center = 0.3;
  data.y_scale = 2.5;
  const int k = prob.k;
  for (bool plus : {false, true}) {
    for (bool rel : {false, true}) {
      const HorseshoeSpec s = hs_spec(plus, rel);
      GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::horseshoe(s), Prior::flat());
      vhmc::Rng rng(plus ? 3 : 4, rel ? 1 : 2);
      const Vec theta = vt::random_theta(pot.dim(), rng, 0.9);
      Vec rep, back;
      vhmc::to_reported(pot, theta, rep);
      const double sigma = std::exp(theta[1 + k]) * data.y_scale;
      CHECK(rep[1 + k] == Approx(sigma));
      const int lam = 2 + k, tau_at = lam + (plus ? 2 : 1) * k, c_at = tau_at + 1;
      const double tau = s.global_scale * std::exp(theta[tau_at]) * (rel ? sigma : 1.0), c = std::exp(theta[c_at]);
      CHECK(rep[tau_at] == Approx(tau));
      CHECK(rep[c_at] == Approx(c));
      for (int j = 0; j < k; ++j) {
        const double L = std::exp(theta[lam + j]) * (plus ? std::exp(theta[lam + k + j]) : 1.0);
        CHECK(rep[lam + j] == Approx(std::exp(theta[lam + j])));
        const double lt = std::sqrt(c * c * L * L / (c * c + tau * tau * L * L));
        CHECK(rep[1 + j] == Approx(theta[1 + j] * lt * tau).epsilon(1e-12));  // beta on the data's scale
      }
      vhmc::from_reported(pot, rep, back);
      for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-12).margin(1e-13));
    }
  }
}

TEST_CASE("horseshoe: bad settings and unavailable paths are refused", "[glm][horseshoe]") {
  const SparseProblem prob = sparse_problem(vt::fam::BinomialLogit, 2);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  HorseshoeSpec bad = hs_spec(false, false);
  bad.global_scale = 0.0;
  CHECK_THROWS_AS(GlmPotential(data, vt::fam::BinomialLogit, true, Prior::flat(), Prior::horseshoe(bad)),
                  std::invalid_argument);
  // Relative to sigma without one; the horseshoe on the intercept.
  CHECK_THROWS_AS(GlmPotential(data, vt::fam::BinomialLogit, true, Prior::flat(), Prior::horseshoe(hs_spec(false, true))),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, vt::fam::BinomialLogit, true, Prior::horseshoe(hs_spec(false, false)), Prior::flat()),
                  std::invalid_argument);
  GlmPotential pot(data, vt::fam::BinomialLogit, true, Prior::flat(), Prior::horseshoe(hs_spec(false, false)));
  vhmc::Mat H;
  CHECK_THROWS_AS(pot.hessian(Vec::Zero(pot.dim()), H), std::logic_error);
  // No joint mode, and no local one is searched (the samplers that start from one refuse it).
  CHECK(std::string(pot.modeless_by()) == "horseshoe");
  CHECK(std::string(pot.anchorless_by()) == "horseshoe");
}
