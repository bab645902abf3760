// Tests of the gaussian family's group-level term integrated out (model/glm/marginal_gaussian.hpp):
// gradients against central differences; the value equals the dense marginal likelihood
// log N(y | X beta, sigma^2 I + Z Sigma Z') up to a constant; frequency weights equal
// duplicated rows; the effects' conditional (mean and covariance) is the dense one.
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

struct MarginalProblem {
  int n, k = 2, J = 5;
  std::vector<double> X, y, Z, w, off;
  std::vector<int> g;
};

// Rows spread unevenly over J levels (level j gets 2 + j rows per cycle), so levels differ.
MarginalProblem problem(int n, std::uint64_t seed) {
  vhmc::Rng rng(seed, 1);
  MarginalProblem p;
  p.n = n;
  for (int i = 0; i < n; ++i) p.g.push_back((i * i + 3 * i) % p.J);
  for (int i = 0; i < n * p.k; ++i) p.X.push_back(rng.normal() + (i < n ? 3.0 : 0.0));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < n; ++i) p.Z.push_back(c == 0 ? 1.0 : rng.normal());
  for (int i = 0; i < n; ++i) {
    p.w.push_back(1.0 + (i % 3 == 0 ? 1.0 : 0.0));
    p.off.push_back(0.1 * rng.normal());
    p.y.push_back(1.0 + 0.5 * p.X[i] - 0.3 * p.X[i + n] + 0.8 * (p.g[i] - 2.0) + rng.normal());
  }
  return p;
}

GroupTermData term(const MarginalProblem& p, int cols, CovPriorKind kind, bool marginal) {
  GroupTermData d = vt::group_term("(x | g)", p.J, cols, p.n, p.g.data(), p.Z.data(), kind, 1.5, 1.0, 1.0, 1.3, 2.0,
                                   kind == CovPriorKind::Decov);
  d.marginal = marginal;
  return d;
}

using vt::random_theta;

// -log N(y - offset - Z theta_head | 0, sigma^2 I + Zg Sigma Zg') + the term's covariance prior,
// densely (unit weights), minus log sigma (below).
double dense_u(GlmPotential& pot, const MarginalProblem& p, const Vec& theta, int cols) {
  pot.U(theta);  // prepares the term's covariance at theta
  const vhmc::GroupTerm& t = pot.group_terms()[0];
  Mat zb;
  pot.design().rows(0, p.n, zb);
  const Eigen::Index k = pot.design().size(), aux = pot.aux_offset();
  Vec r(p.n);
  for (int i = 0; i < p.n; ++i) r[i] = p.y[i] - p.off[i];
  r -= zb * theta.head(k);
  const Mat T = t.tau().asDiagonal() * t.L();
  Mat Zg = Mat::Zero(p.n, p.J * cols);
  for (int i = 0; i < p.n; ++i)
    for (int c = 0; c < cols; ++c) Zg(i, p.g[i] * cols + c) = p.Z[i + c * p.n];
  Mat S = Mat::Zero(p.J * cols, p.J * cols);
  for (int j = 0; j < p.J; ++j) S.block(j * cols, j * cols, cols, cols) = T * T.transpose();
  Mat V = Zg * S * Zg.transpose();
  V.diagonal().array() += std::exp(2.0 * theta[aux]);
  const Eigen::LLT<Mat> llt(V);
  const double logdet = 2.0 * Mat(llt.matrixL()).diagonal().array().log().sum();
  // The flat prior on sigma is flat on sigma: its log Jacobian, log sigma, is part of U.
  return 0.5 * logdet + 0.5 * r.dot(llt.solve(r)) + t.covariance_prior() - theta[aux];
}

}  // namespace

TEST_CASE("marginal gaussian term: gradients match differences", "[glm][groups][marginal]") {
  const MarginalProblem prob = problem(60, 3);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), prob.w.data(), prob.off.data());
  vhmc::Rng rng(5, 5);
  for (int cols = 1; cols <= 3; ++cols) {
    for (CovPriorKind kind : {CovPriorKind::Decov, CovPriorKind::Lkj}) {
      GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
      pot.add_group_term(term(prob, cols, kind, true));
      REQUIRE(pot.dim() == 1 + prob.k + 1 + cols * (cols + 1) / 2);
      // The marginal likelihood couples a level's rows: no minibatch gradients. With no
      // effects to shrink with a standard deviation, the posterior has a mode, but no
      // analytic Hessian for the Newton search.
      CHECK(std::string(pot.no_minibatch_by()) == "marginal");
      CHECK(std::string(pot.modeless_by()).empty());
      CHECK_FALSE(pot.has_hessian());
      for (int rep = 0; rep < 3; ++rep) {
        const Vec theta = random_theta(pot.dim(), rng);
        vt::check_gradient(pot, theta, "p=" + std::to_string(cols));
      }
    }
  }
}

TEST_CASE("marginal gaussian term: the dense marginal likelihood up to a constant", "[glm][groups][marginal]") {
  const MarginalProblem prob = problem(40, 11);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, prob.off.data());
  vhmc::Rng rng(6, 6);
  for (int cols = 1; cols <= 2; ++cols) {
    GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
    pot.add_group_term(term(prob, cols, CovPriorKind::Lkj, true));
    const Vec t0 = random_theta(pot.dim(), rng);
    const double c0 = pot.U(t0) - dense_u(pot, prob, t0, cols);
    for (int rep = 0; rep < 5; ++rep) {
      const Vec t = random_theta(pot.dim(), rng);
      CHECK(pot.U(t) - dense_u(pot, prob, t, cols) == Approx(c0).margin(1e-9));
    }
  }
}

TEST_CASE("marginal gaussian term: frequency weights equal duplicated rows", "[glm][groups][marginal]") {
  const MarginalProblem prob = problem(45, 13);
  MarginalProblem dup = prob;
  dup.X.clear();
  dup.y.clear();
  dup.Z.clear();
  dup.g.clear();
  dup.off.clear();
  std::vector<int> rows;
  for (int i = 0; i < prob.n; ++i)
    for (int c = 0; c < static_cast<int>(prob.w[i]); ++c) rows.push_back(i);
  dup.n = static_cast<int>(rows.size());
  for (int c = 0; c < prob.k; ++c)
    for (int i : rows) dup.X.push_back(prob.X[i + c * prob.n]);
  for (int c = 0; c < 3; ++c)
    for (int i : rows) dup.Z.push_back(prob.Z[i + c * prob.n]);
  for (int i : rows) {
    dup.y.push_back(prob.y[i]);
    dup.g.push_back(prob.g[i]);
    dup.off.push_back(prob.off[i]);
  }
  const GlmData dw(prob.X.data(), prob.n, prob.k, prob.y.data(), prob.w.data(), prob.off.data());
  const GlmData dd(dup.X.data(), dup.n, dup.k, dup.y.data(), nullptr, dup.off.data());
  GlmPotential pw(dw, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
  GlmPotential pd(dd, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
  pw.add_group_term(term(prob, 2, CovPriorKind::Lkj, true));
  pd.add_group_term(term(dup, 2, CovPriorKind::Lkj, true));
  vhmc::Rng rng(7, 7);
  const Vec t0 = random_theta(pw.dim(), rng);
  const double c0 = pw.U(t0) - pd.U(t0);
  for (int rep = 0; rep < 4; ++rep) {
    const Vec t = random_theta(pw.dim(), rng);
    CHECK(pw.U(t) - pd.U(t) == Approx(c0).margin(1e-9));
  }
}

TEST_CASE("marginal gaussian term: the effects' conditional is the dense one", "[glm][groups][marginal]") {
  const MarginalProblem prob = problem(50, 17);
  const GlmData data(prob.X.data(), prob.n, prob.k, prob.y.data(), nullptr, prob.off.data());
  const int cols = 2;
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(), Prior::flat());
  pot.add_group_term(term(prob, cols, CovPriorKind::Lkj, true));
  vhmc::Rng rng(8, 8);
  const Vec theta = random_theta(pot.dim(), rng);
  std::vector<Mat> means;
  pot.marginal_effects(theta, nullptr, means);
  const Mat& mean = means.front();
  // Dense: b_j | . ~ N(M^-1 Z_j' r_j / s2, M^-1), M = Sigma^-1 + Z_j'Z_j / s2.
  const vhmc::GroupTerm& t = pot.group_terms()[0];
  const Mat T = t.tau().asDiagonal() * t.L();
  const Mat Sinv = (T * T.transpose()).inverse();
  Mat zb;
  pot.design().rows(0, prob.n, zb);
  Vec r(prob.n);
  for (int i = 0; i < prob.n; ++i) r[i] = prob.y[i] - prob.off[i];
  r -= zb * theta.head(pot.design().size());
  const double s2 = std::exp(2.0 * theta[pot.aux_offset()]);
  const int draws = 40000;
  Mat sum = Mat::Zero(cols, prob.J), sq = Mat::Zero(cols, prob.J);
  vhmc::Rng draw_rng(9, 9);
  std::vector<Mat> b;
  for (int s = 0; s < draws; ++s) {
    pot.marginal_effects(theta, &draw_rng, b);
    sum += b.front();
    sq += b.front().cwiseProduct(b.front());
  }
  for (int j = 0; j < prob.J; ++j) {
    Mat M = Sinv;
    Vec u = Vec::Zero(cols);
    for (int i = 0; i < prob.n; ++i) {
      if (prob.g[i] != j) continue;
      Vec z(cols);
      for (int c = 0; c < cols; ++c) z[c] = prob.Z[i + c * prob.n];
      M += z * z.transpose() / s2;
      u += z * r[i] / s2;
    }
    const Mat C = M.inverse();
    const Vec m = C * u;
    for (int c = 0; c < cols; ++c) {
      CHECK(mean(c, j) == Approx(m[c]).epsilon(1e-9).margin(1e-12));
      const double se = std::sqrt(C(c, c) / draws);
      CHECK(std::fabs(sum(c, j) / draws - m[c]) < 4.5 * se);
      const double var = sq(c, j) / draws - std::pow(sum(c, j) / draws, 2);
      CHECK(var == Approx(C(c, c)).epsilon(0.05));
    }
  }
}
