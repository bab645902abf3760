// Tests of group-level terms in the GLM potential (model/glm/group_term.hpp,
// model/glm/covariance.hpp): gradients against central differences for every prior,
// parameterisation, number of effects and family; the centred and non-centred forms differ
// by exactly the log Jacobian of b = D L z; the correlation transform gives a valid Cholesky
// factor; the reported map gives b and Sigma.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::CovPrior;
using vhmc::CovPriorKind;
using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::GroupTermData;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::Vec;

struct GroupProblem {
  int n = 72, k = 2, J = 6;
  std::vector<double> X, y, Z;
  std::vector<int> g;
};

GroupProblem group_problem(GlmFamily f, std::uint64_t seed) {
  vhmc::Rng rng(seed, 3);
  GroupProblem p;
  p.X.resize(p.n * p.k);
  p.Z.resize(p.n * 3);
  for (auto& x : p.X) x = rng.normal();
  for (int i = 0; i < p.n; ++i) {
    p.g.push_back(i % p.J);
    p.Z[i] = 1.0;
    p.Z[i + p.n] = rng.normal();
    p.Z[i + 2 * p.n] = rng.uniform();
    const double eta = 0.3 + 0.4 * p.X[i] + 0.2 * (p.g.back() - 2.5) / 3.0;
    if (f == vt::fam::BinomialLogit) {
      p.y.push_back(rng.uniform() < 1 / (1 + std::exp(-eta)) ? 1.0 : 0.0);
    } else if (f == vt::fam::PoissonLog) {
      p.y.push_back(std::floor(std::exp(eta) + rng.uniform()));
    } else if (f == vt::fam::GammaLog) {
      p.y.push_back(std::exp(eta) * (0.5 + rng.uniform()));
    } else {
      p.y.push_back(eta + 0.7 * rng.normal());
    }
  }
  return p;
}

GroupTermData term(const GroupProblem& p, int cols, bool centred, CovPriorKind kind, bool rel) {
  GroupTermData d = vt::group_term("(term | g)", p.J, cols, p.n, p.g.data(), p.Z.data(), kind, 2.0, 1.5, 1.2, 1.7,
                                   3.0, rel);
  d.centred = centred;
  return d;
}

}  // namespace

TEST_CASE("group-level terms: gradients match differences (priors, forms, p, families)", "[glm][groups]") {
  vhmc::Rng rng(8, 8);
  int combos = 0;
  const std::pair<GlmFamily, int> families[] = {
      {vt::fam::GaussianIdentity, 0}, {vt::fam::BinomialLogit, 1}, {vt::fam::PoissonLog, 3}, {vt::fam::GammaLog, 5}};
  for (const auto& [f, id] : families) {
    const GroupProblem prob = group_problem(f, 40 + id);
    const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
    for (int cols = 1; cols <= 3; ++cols) {
      for (bool centred : {false, true}) {
        for (CovPriorKind kind : {CovPriorKind::Decov, CovPriorKind::Lkj}) {
          GlmPotential pot(data, f, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0), Prior::exponential(1.0));
          // decov relative to sigma: the gaussian family's (as R decides, R/glmer-priors.R)
          const bool rel = kind == CovPriorKind::Decov && f == vt::fam::GaussianIdentity;
          pot.add_group_term(term(prob, cols, centred, kind, rel));
          GroupTermData second = term(prob, 1, !centred, CovPriorKind::Decov, false);
          second.name = "(1 | g2)";
          pot.add_group_term(second);
          Vec theta(pot.dim());
          for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.6 * rng.normal();
          vt::check_gradient(pot, theta, std::to_string(id) + " p=" + std::to_string(cols) +
                                         (centred ? " centred " : " noncentred ") +
                                         (kind == CovPriorKind::Decov ? "decov" : "lkj"));
          ++combos;
        }
      }
    }
  }
  CHECK(combos == 4 * 3 * 2 * 2);
}

TEST_CASE("centred and non-centred forms differ by the log Jacobian of b = D L z", "[glm][groups]") {
  const GroupProblem prob = group_problem(vt::fam::PoissonLog, 5);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  vhmc::Rng rng(2, 2);
  for (int cols = 1; cols <= 3; ++cols) {
    GlmPotential nc(data, vt::fam::PoissonLog, true, Prior::flat(), Prior::flat());
    GlmPotential c(data, vt::fam::PoissonLog, true, Prior::flat(), Prior::flat());
    nc.add_group_term(term(prob, cols, false, CovPriorKind::Lkj, false));
    c.add_group_term(term(prob, cols, true, CovPriorKind::Lkj, false));
    Vec theta(nc.dim());
    for (int j = 0; j < nc.dim(); ++j) theta[j] = 0.5 * rng.normal();
    const vhmc::GroupTerm& t = nc.group_terms()[0];
    Vec tau;
    Mat L, b;
    t.effects_at(theta, tau, L, b);
    Vec theta_c = theta;
    theta_c.segment(t.effects_offset(), b.size()) = Eigen::Map<const Vec>(b.data(), b.size());
    const double log_jac = prob.J * (tau.array().log().sum() + L.diagonal().array().log().sum());
    CHECK(c.U(theta_c) - nc.U(theta) == Approx(log_jac).epsilon(1e-10));
    // L is a Cholesky factor of a correlation matrix.
    const Mat Omega = L * L.transpose();
    for (int k = 0; k < cols; ++k) CHECK(Omega(k, k) == Approx(1.0).epsilon(1e-14));
    CHECK((L.array() != L.array()).count() == 0);
  }
}

TEST_CASE("the reported map gives the effects and Sigma of each term", "[glm][groups]") {
  const GroupProblem prob = group_problem(vt::fam::GaussianIdentity, 7);
  GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  data.y_scale = 2.0;
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
  pot.add_group_term(term(prob, 2, false, CovPriorKind::Decov, true));
  vhmc::Rng rng(4, 4);
  Vec theta(pot.dim()), rep;
  for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.4 * rng.normal();
  vhmc::to_reported(pot, theta, rep);
  const vhmc::GroupTerm& t = pot.group_terms()[0];
  Vec tau;
  Mat L, b;
  t.effects_at(theta, tau, L, b);
  CHECK(rep[t.effects_offset() + 3] == Approx(2.0 * b(1, 1)));
  const Mat S = tau.asDiagonal() * L * L.transpose() * tau.asDiagonal();
  const Eigen::Index s0 = t.sd_offset();
  CHECK(rep[s0] == Approx(4.0 * S(0, 0)));
  CHECK(rep[s0 + 1] == Approx(4.0 * S(1, 0)));
  CHECK(rep[s0 + 2] == Approx(4.0 * S(1, 1)));
  // decov relative to sigma: the sds scale with sigma = exp(theta[aux]).
  Vec theta2 = theta;
  theta2[3] += std::log(3.0);
  Vec tau2;
  t.effects_at(theta2, tau2, L, b);
  CHECK(tau2[0] == Approx(3.0 * tau[0]));
}

TEST_CASE("a group-level term takes the joint mode away, not a local anchor or minibatch gradients, and says so", "[glm][groups]") {
  const GroupProblem prob = group_problem(vt::fam::PoissonLog, 5);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  GlmPotential pot(data, vt::fam::PoissonLog, true, Prior::flat(), Prior::flat());
  CHECK(std::string(pot.modeless_by()).empty());
  CHECK(std::string(pot.no_minibatch_by()).empty());
  CHECK_FALSE(pot.hierarchical());
  pot.add_group_term(term(prob, 1, false, CovPriorKind::Decov, false));
  CHECK(std::string(pot.modeless_by()) == "group");
  CHECK(std::string(pot.anchorless_by()).empty());
  CHECK(std::string(pot.no_minibatch_by()).empty());
  CHECK(std::string(pot.no_minibatch_noise_by()) == "group");
  CHECK(pot.hierarchical());
  CHECK_FALSE(pot.has_hessian());
  Vec g, v;
  const std::vector<int> idx{0, 1};
  CHECK_NOTHROW(pot.minibatch_grad(Vec::Zero(pot.dim()), idx.data(), 2, g, nullptr));
  // The per-coordinate noise estimate (sghmc(noise_estimate = "auto")) has no group form.
  CHECK_THROWS_AS(pot.minibatch_grad(Vec::Zero(pot.dim()), idx.data(), 2, g, &v), std::logic_error);
}

// Over the batches of one epoch that partition the rows, minibatch estimates average to the
// full gradient exactly (each is linear in its rows' terms, the priors' part whole), with and
// without the control variate: the estimates are unbiased with group-level terms too.
TEST_CASE("with group-level terms minibatch gradients average to the full gradient over a partition", "[glm][groups][sg]") {
  vhmc::Rng rng(11, 3);
  const std::pair<GlmFamily, int> families[] = {
      {vt::fam::GaussianIdentity, 0}, {vt::fam::BinomialLogit, 1}, {vt::fam::PoissonLog, 3}};
  for (const auto& [f, id] : families) {
    const GroupProblem prob = group_problem(f, 60 + id);
    const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
    for (int cols = 1; cols <= 2; ++cols) {
      for (bool centred : {false, true}) {
        GlmPotential pot(data, f, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0), Prior::exponential(1.0));
        const bool rel = f == vt::fam::GaussianIdentity;
        pot.add_group_term(term(prob, cols, centred, CovPriorKind::Decov, rel));
        GroupTermData second = term(prob, 1, !centred, CovPriorKind::Lkj, false);
        second.name = "(1 | g2)";
        pot.add_group_term(second);
        Vec theta(pot.dim()), theta_hat(pot.dim()), full, full_hat;
        for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.5 * rng.normal();
        for (int j = 0; j < pot.dim(); ++j) theta_hat[j] = theta[j] + 0.2 * rng.normal();
        pot.U_grad(theta, full);
        pot.U_grad(theta_hat, full_hat);
        std::vector<int> perm(prob.n);
        for (int i = 0; i < prob.n; ++i) perm[i] = (i * 7) % prob.n;  // 7 and 72 coprime: a permutation
        const int B = 8;
        Vec mean = Vec::Zero(pot.dim()), mean_cv = Vec::Zero(pot.dim()), g;
        for (int b = 0; b < prob.n / B; ++b) {
          pot.minibatch_grad(theta, perm.data() + b * B, B, g, nullptr);
          mean += g / (prob.n / B);
          pot.minibatch_grad_diff(theta, theta_hat, perm.data() + b * B, B, g, nullptr);
          mean_cv += (g + full_hat) / (prob.n / B);
        }
        const std::string what = std::to_string(id) + " p=" + std::to_string(cols) + (centred ? " centred" : " noncentred");
        INFO(what);
        for (int j = 0; j < pot.dim(); ++j) {
          CHECK(mean[j] == Approx(full[j]).margin(1e-9).epsilon(1e-9));
          CHECK(mean_cv[j] == Approx(full[j]).margin(1e-9).epsilon(1e-9));
        }
        // One batch of every row is the full gradient itself.
        pot.minibatch_grad(theta, perm.data(), prob.n, g, nullptr);
        CHECK((g - full).lpNorm<Eigen::Infinity>() < 1e-9 * (1.0 + full.lpNorm<Eigen::Infinity>()));
      }
    }
  }
}
