// Tests of nested gaussian group-level terms integrated out (model/glm/nested_tree.hpp,
// marginal_gaussian.hpp, small_blocks.hpp; one term: test_glm_marginal.cpp): gradients
// against central differences; the value equals the dense marginal likelihood
// log N(y | X beta, sigma^2 W^-1 + Z Sigma Z') up to a constant; the effects' conditional
// mean and variances are the dense ones; terms that do not nest are refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::CovPriorKind;
using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::GroupTermData;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::Vec;

// Three nested factors: 3 outer levels, 3 middle levels in each, 2 inner levels in each
// middle one (18 inner levels; the last has no rows), a crossed factor, columns (1, x, u).
struct NestProblem {
  int n = 140, k = 2;
  std::vector<int> levels = {3, 9, 18, 4};
  std::vector<double> X, y, Z, w, off;
  std::vector<std::vector<int>> g;  // outer, middle, inner, crossed
};

NestProblem nest_problem(std::uint64_t seed) {
  vhmc::Rng rng(seed, 6);
  NestProblem p;
  p.g.resize(4);
  for (int i = 0; i < p.n * p.k; ++i) p.X.push_back(rng.normal() + (i < p.n ? 1.0 : 0.0));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < p.n; ++i) p.Z.push_back(c == 0 ? 1.0 : (c == 1 ? p.X[i] : rng.uniform()));
  for (int i = 0; i < p.n; ++i) {
    const int inner = (i * 5 + i / 7) % 17, middle = inner / 2, outer = middle / 3;
    p.g[0].push_back(outer);
    p.g[1].push_back(middle);
    p.g[2].push_back(inner);
    p.g[3].push_back(i % 4);
    p.w.push_back(1.0 + (i % 4 == 0 ? 1.0 : 0.0));
    p.off.push_back(0.1 * rng.normal());
    p.y.push_back(0.5 + 0.4 * p.X[i] + 0.7 * (outer - 1.0) + 0.4 * ((middle % 3) - 1.0) + 0.3 * (inner % 2) +
                  0.6 * rng.normal());
  }
  return p;
}

GroupTermData nest_term(const NestProblem& p, int factor, int cols, CovPriorKind kind) {
  GroupTermData d = vt::group_term("term" + std::to_string(factor), p.levels[factor], cols, p.n, p.g[factor].data(),
                                   p.Z.data(), kind, 1.3, 1.0, 1.2, 1.5, 3.0, kind == CovPriorKind::Decov);
  d.marginal = true;
  return d;
}

// (factor, p) of each term, in the order given to the potential.
using Terms = std::vector<std::pair<int, int>>;

void add_terms(GlmPotential& pot, const NestProblem& p, const Terms& terms, CovPriorKind kind) {
  for (size_t i = 0; i < terms.size(); ++i) {
    GroupTermData d = nest_term(p, terms[i].first, terms[i].second, kind);
    d.name += "_" + std::to_string(i);
    pot.add_group_term(d);
  }
}

using vt::random_theta;

// The terms' effects' design Zg (n x sum J p) and prior covariance blockdiag(T T') at theta.
void dense_terms(GlmPotential& pot, const NestProblem& p, const Terms& terms, const Vec& theta, Mat& Zg, Mat& S) {
  pot.U(theta);  // prepares the terms' covariances at theta
  Eigen::Index cols = 0;
  for (const auto& t : terms) cols += p.levels[t.first] * t.second;
  Zg = Mat::Zero(p.n, cols);
  S = Mat::Zero(cols, cols);
  Eigen::Index at = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    const int f = terms[t].first, q = terms[t].second;
    const vhmc::GroupTerm& term = pot.group_terms()[t];
    const Mat T = term.tau().asDiagonal() * term.L();
    for (int i = 0; i < p.n; ++i)
      for (int c = 0; c < q; ++c) Zg(i, at + p.g[f][i] * q + c) = q == 1 ? 1.0 : p.Z[i + c * p.n];
    for (int j = 0; j < p.levels[f]; ++j) S.block(at + j * q, at + j * q, q, q) = T * T.transpose();
    at += p.levels[f] * q;
  }
}

// -log N(y - offset - X theta_head | 0, sigma^2 I + Zg S Zg') + the covariance priors - log sigma
// (the flat prior on sigma, below, carries the Jacobian log sigma), unit weights.
double dense_u(GlmPotential& pot, const NestProblem& p, const Terms& terms, const Vec& theta) {
  Mat Zg, S;
  dense_terms(pot, p, terms, theta, Zg, S);
  Mat zb;
  pot.design().rows(0, p.n, zb);
  const Eigen::Index aux = pot.aux_offset();
  Vec r(p.n);
  for (int i = 0; i < p.n; ++i) r[i] = p.y[i] - p.off[i];
  r -= zb * theta.head(pot.design().size());
  Mat V = Zg * S * Zg.transpose();
  V.diagonal().array() += std::exp(2.0 * theta[aux]);
  const Eigen::LLT<Mat> llt(V);
  double u = Mat(llt.matrixL()).diagonal().array().log().sum() + 0.5 * r.dot(llt.solve(r)) - theta[aux];
  for (const vhmc::GroupTerm& t : pot.group_terms()) u += t.covariance_prior();
  return u;
}

const std::vector<Terms> kNested = {
    {{2, 1}, {1, 1}},                 // (1 | middle/inner) in lme4's order
    {{1, 1}, {2, 2}},                 // given outer first
    {{2, 1}, {1, 1}, {0, 1}},         // three levels of nesting
    {{2, 2}, {1, 1}, {0, 3}},         // several effects per level
    {{0, 1}, {0, 2}}};                // two terms on one factor, as (x || g)

}  // namespace

TEST_CASE("nested marginal: gradients match differences", "[glm][groups][nested]") {
  const NestProblem prob = nest_problem(3);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), prob.w.data(), prob.off.data());
  vhmc::Rng rng(5, 5);
  for (const Terms& terms : kNested) {
    for (CovPriorKind kind : {CovPriorKind::Decov, CovPriorKind::Lkj}) {
      GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
      add_terms(pot, prob, terms, kind);
      for (int rep = 0; rep < 2; ++rep) {
        const Vec theta = random_theta(pot.dim(), rng);
        vt::check_gradient(pot, theta, "terms " + std::to_string(terms.size()));
      }
    }
  }
}

TEST_CASE("nested marginal: the dense marginal likelihood up to a constant", "[glm][groups][nested]") {
  const NestProblem prob = nest_problem(4);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, prob.off.data());
  vhmc::Rng rng(6, 6);
  for (const Terms& terms : kNested) {
    GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
    add_terms(pot, prob, terms, CovPriorKind::Lkj);
    const Vec t0 = random_theta(pot.dim(), rng);
    const double c0 = pot.U(t0) - dense_u(pot, prob, terms, t0);
    for (int rep = 0; rep < 4; ++rep) {
      const Vec t = random_theta(pot.dim(), rng);
      CHECK(pot.U(t) - dense_u(pot, prob, terms, t) == Approx(c0).margin(1e-9));
    }
  }
}

TEST_CASE("nested marginal: the effects' conditional is the dense one", "[glm][groups][nested]") {
  const NestProblem prob = nest_problem(8);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, prob.off.data());
  const Terms terms = {{2, 2}, {1, 1}, {0, 1}};
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
  add_terms(pot, prob, terms, CovPriorKind::Lkj);
  vhmc::Rng rng(9, 9);
  const Vec theta = random_theta(pot.dim(), rng);
  Mat Zg, S;
  dense_terms(pot, prob, terms, theta, Zg, S);
  // Dense: b | . ~ N(M^-1 Zg' r / s2, M^-1), M = S^-1 + Zg'Zg / s2.
  Mat zb;
  pot.design().rows(0, prob.n, zb);
  Vec r(prob.n);
  for (int i = 0; i < prob.n; ++i) r[i] = prob.y[i] - prob.off[i];
  r -= zb * theta.head(pot.design().size());
  const double s2 = std::exp(2.0 * theta[pot.aux_offset()]);
  const Mat C = (Mat(S.inverse()) + Zg.transpose() * Zg / s2).inverse();
  const Vec m = C * Zg.transpose() * r / s2;
  auto stacked = [&](const std::vector<Mat>& b) {
    Vec out(m.size());
    Eigen::Index at = 0;
    for (const Mat& bt : b) {
      out.segment(at, bt.size()) = Eigen::Map<const Vec>(bt.data(), bt.size());
      at += bt.size();
    }
    return out;
  };
  std::vector<Mat> b;
  pot.marginal_effects(theta, nullptr, b);
  const Vec mean = stacked(b);
  for (Eigen::Index j = 0; j < m.size(); ++j) CHECK(mean[j] == Approx(m[j]).epsilon(1e-8).margin(1e-10));
  const int draws = 20000;
  Vec sum = Vec::Zero(m.size()), sq = Vec::Zero(m.size());
  vhmc::Rng draw_rng(10, 10);
  for (int s = 0; s < draws; ++s) {
    pot.marginal_effects(theta, &draw_rng, b);
    const Vec x = stacked(b);
    sum += x;
    sq += x.cwiseProduct(x);
  }
  for (Eigen::Index j = 0; j < m.size(); ++j) {
    CHECK(std::fabs(sum[j] / draws - m[j]) < 4.5 * std::sqrt(C(j, j) / draws));
    CHECK(sq[j] / draws - std::pow(sum[j] / draws, 2) == Approx(C(j, j)).epsilon(0.06));
  }
}

TEST_CASE("nested marginal: terms that do not nest are refused", "[glm][groups][nested]") {
  const NestProblem prob = nest_problem(11);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  const GroupTermData middle = nest_term(prob, 1, 1, CovPriorKind::Lkj), crossed = nest_term(prob, 3, 1, CovPriorKind::Lkj);
  auto nests = [](const std::vector<const GroupTermData*>& terms) {
    vhmc::NestedTree tree;
    return vhmc::nested_structure(vhmc::group_cells(terms), terms, tree);
  };
  CHECK_FALSE(nests({&middle, &crossed}));
  const GroupTermData inner = nest_term(prob, 2, 1, CovPriorKind::Lkj), outer = nest_term(prob, 0, 1, CovPriorKind::Lkj);
  CHECK(nests({&outer, &inner, &middle}));
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat());
  pot.add_group_term(middle);
  CHECK_THROWS_AS(pot.add_group_term(crossed), std::invalid_argument);
}

TEST_CASE("marginal terms far out in the tails: an infinite potential, not a crash", "[glm][groups][nested]") {
  const NestProblem prob = nest_problem(12);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data());
  for (const Terms& terms : {Terms{{1, 2}}, Terms{{2, 1}, {1, 1}}}) {
    GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
    add_terms(pot, prob, terms, CovPriorKind::Lkj);
    Vec theta = Vec::Constant(pot.dim(), 0.1), g;
    theta[pot.group_terms().front().sd_offset()] = 800.0;  // tau = exp(800) overflows
    const double u = pot.U_grad(theta, g);
    CHECK_FALSE((std::isfinite(u) && u < 1e300));
    CHECK(g.size() == pot.dim());
  }
}
