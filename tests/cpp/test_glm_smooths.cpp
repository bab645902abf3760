// Tests of smooth terms' penalty blocks on a GLM (model/glm/smooths.hpp): gradients against
// central differences (families, non-centred and partly centred smooths, centred and scaled columns, a standardised response, with a
// group-level term, prior alone); the prior's density in the natural parameters; the
// likelihood evaluated at the coefficients z sd; the layout; the reported map and its inverse;
// refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

// Two fixed columns and five smooth columns in two penalty blocks (3 + 2); responses of the
// family's kind.
struct SmoothProblem {
  int n = 60, k = 7;
  std::vector<double> X, y, center, scale;
  std::vector<int> g;
};

SmoothProblem smooth_problem(vhmc::GlmFamily f, std::uint64_t seed) {
  vhmc::Rng rng(seed, 3);
  SmoothProblem p;
  p.X.resize(p.n * p.k);
  for (auto& x : p.X) x = rng.normal();
  for (int i = 0; i < p.n; ++i) {
    const double eta = 0.2 + 0.5 * p.X[i] + 0.4 * p.X[i + 2 * p.n] - 0.3 * p.X[i + 5 * p.n];
    p.g.push_back(i % 6);
    p.y.push_back(vt::draw_response(f, eta, rng));
  }
  for (int j = 0; j < p.k; ++j) {
    p.center.push_back(0.1 * j);
    p.scale.push_back(0.5 + 0.2 * j);
  }
  return p;
}

vhmc::SmoothSpec smooth_spec(bool mixed = false) {
  vhmc::SmoothSpec s;
  s.sizes = {3, 2};
  s.prior = vhmc::Prior::student_t(3.0, 0.0, 1.5);
  if (mixed) s.centred = {true, false, true, false, true};
  return s;
}

// log of the half-t(nu) density at x with scale s, its constant included.
double log_half_t(double x, double nu, double s) {
  return std::log(2.0 / s) + std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) - 0.5 * std::log(nu * M_PI) -
         (nu + 1) / 2 * std::log1p(x * x / (nu * s * s));
}

}  // namespace

TEST_CASE("smooths: gradients match differences (families, group terms, prior alone)", "[glm][smooths]") {
  vhmc::Rng rng(17, 17);
  int cases = 0;
  for (vhmc::GlmFamily f : {vt::fam::GaussianIdentity, vt::fam::BinomialLogit, vt::fam::PoissonLog}) {
    const SmoothProblem prob = smooth_problem(f, 3);
    vhmc::GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
    if (f == vt::fam::GaussianIdentity) data.y_scale = 1.7;
    for (bool group : {false, true}) {
      for (bool prior_only : {false, true}) {
        vhmc::GlmPotential pot(data, f, true, vhmc::Prior::normal(0.0, 5.0), vhmc::Prior::normal(0.0, 2.0),
                         std::vector<vhmc::Prior>(1, vhmc::Prior::exponential(1.0)), 0.0, 0, smooth_spec(group));
        if (group) {
          pot.add_group_term(vt::group_term("(1 | g)", 6, 1, prob.n, prob.g.data(), nullptr,
                                            vhmc::CovPriorKind::Decov, 1.0, 1.0, 1.0, 1.0, 1.0, false));
        }
        pot.set_prior_only(prior_only);
        for (int rep = 0; rep < 3; ++rep) {
          const vhmc::Vec theta = vt::random_theta(pot.dim(), rng, 0.8);
          vt::check_gradient(pot, theta, std::string(group ? "group " : "") + (prior_only ? "prior " : "") +
                                             std::to_string(rep));
          ++cases;
        }
      }
    }
  }
  CHECK(cases == 3 * 2 * 2 * 3);
}

TEST_CASE("smooths: layout, the likelihood at b = z sd, the prior's density", "[glm][smooths]") {
  const SmoothProblem prob = smooth_problem(vt::fam::GaussianIdentity, 4);
  vhmc::GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
  data.y_scale = 2.0;
  const vhmc::SmoothSpec spec = smooth_spec();
  const std::vector<vhmc::Prior> flat_aux(1, vhmc::Prior::flat());
  vhmc::GlmPotential sm(data, vt::fam::GaussianIdentity, true, vhmc::Prior::flat(), vhmc::Prior::flat(), flat_aux, 0.0, 0, spec);
  vhmc::GlmPotential prior(data, vt::fam::GaussianIdentity, true, vhmc::Prior::flat(), vhmc::Prior::flat(), flat_aux, 0.0, 0, spec);
  prior.set_prior_only(true);
  vhmc::GlmPotential flat(data, vt::fam::GaussianIdentity, true, vhmc::Prior::flat(), vhmc::Prior::flat(), vhmc::Prior::flat());
  const auto& b = sm.layout().blocks();
  REQUIRE(b.size() == 5u);
  CHECK(b[1].name == "coef");
  CHECK(b[1].size == 2);
  CHECK(b[2].name == "smooth");
  CHECK(b[2].label == "noncentred");
  CHECK(b[2].size == 5);
  CHECK(b[3].name == "aux:sigma");
  CHECK(b[4].name == "sm:sd");
  CHECK(b[4].label == "sds");
  CHECK(b[4].size == 2);
  CHECK(sm.dim() == 1 + 7 + 1 + 2);
  CHECK(sm.hierarchical());
  vhmc::Rng rng(5, 5);
  for (int rep = 0; rep < 4; ++rep) {
    const vhmc::Vec theta = vt::random_theta(sm.dim(), rng, 0.7);
    vhmc::Vec eff;
    sm.smooths()->effective(theta, eff);
    for (int j = 0; j < 5; ++j) {
      const double sd = std::exp(theta[9 + (j < 3 ? 0 : 1)]);
      CHECK(eff[3 + j] == Approx(theta[3 + j] * sd * prob.scale[2 + j] / data.y_scale).epsilon(1e-14));
    }
    // The prior-only potential: -log N(z; 0, 1) + -log half-t(sd) - log sd (Jacobian), up to
    // constants, plus the flat prior on sigma's log Jacobian -log sigma.
    double lp = 0.0;
    for (int j = 0; j < 5; ++j) lp += -0.5 * theta[3 + j] * theta[3 + j];
    for (int s = 0; s < 2; ++s) lp += log_half_t(std::exp(theta[9 + s]), 3.0, 1.5) + theta[9 + s];
    const vhmc::Vec ref = vhmc::Vec::Zero(sm.dim());
    const double lp0 = 2 * log_half_t(1.0, 3.0, 1.5);
    CHECK(prior.U(theta) - prior.U(ref) == Approx(-(lp - lp0) - theta[8]).epsilon(1e-11).margin(1e-11));
    const double expected = flat.U(eff.head(flat.dim())) + prior.U(theta) + theta[8];
    CHECK(sm.U(theta) == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("smooths: centred columns take N(0, (sd unit)^2) and keep their coefficients", "[glm][smooths]") {
  const SmoothProblem prob = smooth_problem(vt::fam::PoissonLog, 5);
  vhmc::GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
  const std::vector<vhmc::Prior> none;
  vhmc::GlmPotential mixed(data, vt::fam::PoissonLog, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, smooth_spec(true));
  vhmc::GlmPotential prior(data, vt::fam::PoissonLog, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, smooth_spec(true));
  prior.set_prior_only(true);
  vhmc::GlmPotential flat(data, vt::fam::PoissonLog, true, vhmc::Prior::flat(), vhmc::Prior::flat());
  CHECK(mixed.layout().blocks()[2].label == "partly centred");
  vhmc::Rng rng(8, 2);
  const vhmc::Vec ref = vhmc::Vec::Zero(mixed.dim());
  for (int rep = 0; rep < 4; ++rep) {
    const vhmc::Vec theta = vt::random_theta(mixed.dim(), rng, 0.7);
    vhmc::Vec eff;
    mixed.smooths()->effective(theta, eff);
    double lp = 0.0, lp0 = 0.0;
    for (int j = 0; j < 5; ++j) {
      const int s = j < 3 ? 0 : 1;
      const double sd = std::exp(theta[8 + s]), a = sd * prob.scale[2 + j];
      if (j % 2 == 0) {
        CHECK(eff[3 + j] == theta[3 + j]);
        lp += -0.5 * theta[3 + j] * theta[3 + j] / (a * a) - std::log(sd);
        lp0 += 0.0;
      } else {
        CHECK(eff[3 + j] == Approx(theta[3 + j] * a).epsilon(1e-14));
        lp += -0.5 * theta[3 + j] * theta[3 + j];
      }
    }
    for (int s = 0; s < 2; ++s) {
      lp += log_half_t(std::exp(theta[8 + s]), 3.0, 1.5) + theta[8 + s];
      lp0 += log_half_t(1.0, 3.0, 1.5);
    }
    CHECK(prior.U(theta) - prior.U(ref) == Approx(-(lp - lp0)).epsilon(1e-11).margin(1e-11));
    CHECK(mixed.U(theta) == Approx(flat.U(eff.head(flat.dim())) + prior.U(theta)).epsilon(1e-12));
    vhmc::Vec rep_theta, back;
    vhmc::to_reported(mixed, theta, rep_theta);
    vhmc::from_reported(mixed, rep_theta, back);
    for (int j = 0; j < mixed.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-12).margin(1e-13));
  }
}

TEST_CASE("smooths: the reported map gives b = z sd and the sds, and inverts", "[glm][smooths]") {
  const SmoothProblem prob = smooth_problem(vt::fam::GaussianIdentity, 8);
  vhmc::GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, nullptr, prob.center.data(), prob.scale.data());
  data.y_center = 0.3;
  data.y_scale = 2.5;
  vhmc::GlmPotential pot(data, vt::fam::GaussianIdentity, true, vhmc::Prior::flat(), vhmc::Prior::flat(),
                   std::vector<vhmc::Prior>(1, vhmc::Prior::flat()), 0.0, 0, smooth_spec());
  vhmc::Rng rng(3, 1);
  const vhmc::Vec theta = vt::random_theta(pot.dim(), rng, 0.9);
  vhmc::Vec rep, back;
  vhmc::to_reported(pot, theta, rep);
  for (int s = 0; s < 2; ++s) CHECK(rep[9 + s] == Approx(std::exp(theta[9 + s])));
  for (int j = 0; j < 5; ++j) {
    const double sd = std::exp(theta[9 + (j < 3 ? 0 : 1)]);
    CHECK(rep[3 + j] == Approx(theta[3 + j] * sd).epsilon(1e-12));  // b on the data's scale
  }
  CHECK(rep[8] == Approx(std::exp(theta[8]) * data.y_scale));
  vhmc::from_reported(pot, rep, back);
  for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-12).margin(1e-13));
}

TEST_CASE("smooths: bad settings and unavailable paths are refused", "[glm][smooths]") {
  const SmoothProblem prob = smooth_problem(vt::fam::BinomialLogit, 2);
  const vhmc::GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  const std::vector<vhmc::Prior> none;
  vhmc::SmoothSpec too_many;
  too_many.sizes = {8};
  CHECK_THROWS_AS(vhmc::GlmPotential(data, vt::fam::BinomialLogit, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, too_many),
                  std::invalid_argument);
  vhmc::SmoothSpec bad_flags = smooth_spec();
  bad_flags.centred = {true};
  CHECK_THROWS_AS(vhmc::GlmPotential(data, vt::fam::BinomialLogit, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, bad_flags),
                  std::invalid_argument);
  vhmc::SmoothSpec bad_prior = smooth_spec();
  bad_prior.prior = vhmc::Prior::normal(1.0, 1.0);
  CHECK_THROWS_AS(vhmc::GlmPotential(data, vt::fam::BinomialLogit, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, bad_prior),
                  std::invalid_argument);
  vhmc::HorseshoeSpec hs;
  CHECK_THROWS_AS(vhmc::GlmPotential(data, vt::fam::BinomialLogit, true, vhmc::Prior::flat(), vhmc::Prior::horseshoe(hs), none, 0.0, 0,
                               smooth_spec()),
                  std::invalid_argument);
  vhmc::GlmPotential pot(data, vt::fam::BinomialLogit, true, vhmc::Prior::flat(), vhmc::Prior::flat(), none, 0.0, 0, smooth_spec());
  CHECK_FALSE(pot.has_fisher());
  vhmc::Mat H;
  CHECK_THROWS_AS(pot.hessian(vhmc::Vec::Zero(pot.dim()), H), std::logic_error);
}
