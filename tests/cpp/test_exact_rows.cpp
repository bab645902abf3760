// Tests of the likelihood rows a surrogate keeps exact (surrogate/exact_rows.hpp) and their
// choice by held-out error (surrogate/choose_exact_rows.hpp), on a logistic regression where
// a rare category separates the responses: the rows' value, gradient and Hessian are the
// GLM's, the choice keeps the separating rows (and the quadratic then fits the rest far
// better), and a network with them adds them to every evaluation.
#include <catch2/catch.hpp>

#include <cmath>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Vec;

// The separated logistic regression (test_util.hpp) with its potential and mode.
struct SeparatedMode {
  vt::Separated s;
  GlmData data = s.data();
  GlmPotential pot = vt::separated_potential(data);
  vhmc::ModeResult mode = vhmc::newton_mode(pot, Vec::Zero(pot.dim()));
};

// The rows as a potential (check_gradient's interface).
struct RowsPotential {
  vhmc::ExactRows& rows;
  int d;
  int dim() const { return d; }
  double U(const Vec& th) { return rows.add_value_grad(th, nullptr); }
  double U_grad(const Vec& th, Vec& g) {
    g = Vec::Zero(d);
    return rows.add_value_grad(th, &g);
  }
};

// Points from N(mode, 2 H^-1) and the potential's gradients there.
void points(GlmPotential& pot, const vhmc::ModeResult& mode, int n, std::uint64_t seed, Mat& th, Mat& g) {
  const int d = pot.dim();
  const Mat Lc = Eigen::LLT<Mat>(mode.hessian).matrixL();
  vhmc::Rng rng(seed, 0);
  th.resize(n, d);
  g.resize(n, d);
  Vec z(d), gi(d);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) z[j] = std::sqrt(2.0) * rng.normal();
    const Vec t = mode.mode + Lc.transpose().triangularView<Eigen::Upper>().solve(z);
    pot.U_grad(t, gi);
    th.row(i) = t.transpose();
    g.row(i) = gi.transpose();
  }
}

}  // namespace

TEST_CASE("exact rows: the GLM's rows, with their gradient and Hessian", "[surrogate][exact_rows]") {
  SeparatedMode f;
  GlmPotential& pot = f.pot;
  const vhmc::ModeResult& mode = f.mode;
  REQUIRE(mode.converged);
  auto found = vhmc::find_stiff_rows(pot, mode.hessian, vhmc::SplitConfig{});
  REQUIRE(found);
  REQUIRE(found->stiffness.size() == 4);
  CHECK(found->stiffness.minCoeff() > 100.0);
  const Mat Z = found->Z;
  vhmc::ExactRows rows(std::move(*found));
  const Vec th = mode.mode + Vec::Constant(pot.dim(), 0.3);
  // U_rows = -sum of the 4 failures' log(1 - p): softplus(eta).
  const Vec eta = Z * th;
  double want = 0.0;
  for (int i = 0; i < 4; ++i) want += std::log1p(std::exp(eta[i]));
  CHECK(rows.add_value_grad(th, nullptr) == Approx(want).epsilon(1e-12));
  RowsPotential rp{rows, pot.dim()};
  vt::check_gradient(rp, th, "exact rows");
  // Hessian: Z' diag(p (1 - p)) Z.
  Mat H = Mat::Zero(pot.dim(), pot.dim());
  rows.add_hessian(th, H);
  const Vec p = (1.0 + (-eta.array()).exp()).inverse().matrix();
  const Mat want_H = Z.transpose() * (Z.array().colwise() * (p.array() * (1.0 - p.array()))).matrix();
  CHECK((H - want_H).cwiseAbs().maxCoeff() <= 1e-6 * want_H.cwiseAbs().maxCoeff());
}

TEST_CASE("exact rows: chosen by held-out error, added to every evaluation", "[surrogate][exact_rows]") {
  SeparatedMode f;
  GlmPotential& pot = f.pot;
  const vhmc::ModeResult& mode = f.mode;
  REQUIRE(mode.converged);
  Mat fit_th, fit_g, hold_th, hold_g;
  points(pot, mode, 300, 3, fit_th, fit_g);
  points(pot, mode, 60, 4, hold_th, hold_g);
  const vhmc::Standardizer st = vhmc::Standardizer::from_covariance(mode.mode, mode.hessian.inverse());
  vhmc::ExactRowSource source;
  source.n_rows = vhmc::likelihood_rows(pot);
  source.find = [&](double threshold, int max_rows) {
    return vhmc::find_stiff_rows(pot, mode.hessian, vhmc::SplitConfig{true, threshold, max_rows, 1.0});
  };
  REQUIRE(source.n_rows == f.s.n);
  vhmc::RandomBasisNetwork net;
  vhmc::Report rep;
  vhmc::choose_exact_rows(net, st, fit_th, fit_g, hold_th, hold_g, vhmc::ExactRowChoice{}, 0.01, source, rep);
  REQUIRE(net.has_exact_rows());
  CHECK(net.exact_rows().size() == 4);  // the separating category's rows, not the ordinary ones
  const Vec count = std::get<Vec>(rep.at("candidate_exact_rows")), err = std::get<Vec>(rep.at("candidate_exact_rows_error"));
  REQUIRE(count.size() >= 2);
  CHECK(count[0] == 0);
  CHECK(err[1] < 0.5 * err[0]);  // the quadratic fits what the rows leave far better
  // None offered, or too few allowed (at most max_share of the likelihood's rows, here
  // 0.125 x 16 = 2 of the 4): the network is unchanged, or takes the stiffest 2.
  vhmc::RandomBasisNetwork plain;
  vhmc::Report r2;
  vhmc::choose_exact_rows(plain, st, fit_th, fit_g, hold_th, hold_g, vhmc::ExactRowChoice{}, 0.01, {}, r2);
  CHECK_FALSE(plain.has_exact_rows());
  vhmc::ExactRowSource few = source;
  few.n_rows = 16;
  vhmc::RandomBasisNetwork capped;
  vhmc::choose_exact_rows(capped, st, fit_th, fit_g, hold_th, hold_g, vhmc::ExactRowChoice{}, 0.01, few, r2);
  CHECK((!capped.has_exact_rows() || capped.exact_rows().size() <= 2));
  CHECK(std::get<Vec>(r2.at("candidate_exact_rows")).maxCoeff() <= 2);
  // The network with rows: its quadratic base plus the rows, value, gradient and Hessian.
  net.set_bases(vhmc::Activation::Softplus, st, Mat::Zero(1, pot.dim()), Vec::Ones(1));
  net.truncate(0);
  net.set_quadratic(Mat::Identity(pot.dim(), pot.dim()), Vec::Zero(pot.dim()));
  const Vec th = hold_th.row(0).transpose();
  Vec g_net, g_base, g_rows = Vec::Zero(pot.dim());
  const double rows_u = net.exact_rows().add_value_grad(th, &g_rows);
  net.value_grad(th, g_net);
  net.base_grad(th, g_base);
  CHECK((g_net - g_base).cwiseAbs().maxCoeff() <= 1e-12 * g_net.cwiseAbs().maxCoeff());
  CHECK(net.base_value(th) == Approx(net.value(th) - net.offset()).epsilon(1e-12));
  Vec g_plain;
  net.grad(th, g_plain);
  CHECK((g_plain - g_net).cwiseAbs().maxCoeff() <= 1e-12 * g_net.cwiseAbs().maxCoeff());
  vhmc::Standardizer u = st;
  Vec gu(pot.dim());
  u.to_u(th, gu);
  CHECK(net.value(th) == Approx(0.5 * gu.squaredNorm() + rows_u).epsilon(1e-12));
  Mat H_rows = Mat::Zero(pot.dim(), pot.dim());
  net.exact_rows().add_hessian(th, H_rows);
  const Mat Linv = st.L.triangularView<Eigen::Lower>().solve(Mat::Identity(pot.dim(), pot.dim()));
  const Mat want = Linv.transpose() * Linv + H_rows;
  CHECK((net.hessian(th) - want).cwiseAbs().maxCoeff() <= 1e-9 * want.cwiseAbs().maxCoeff());
}

TEST_CASE("exact rows: a design of dummies is read from its index, with the dense product's values",
          "[surrogate][exact_rows]") {
  // 400 rows: an intercept, two continuous columns and the dummies of a 12-level factor.
  const int n = 400, levels = 12, d = 3 + levels - 1;
  vhmc::Rng rng(11, 0);
  Mat Z = Mat::Zero(n, d);
  for (int i = 0; i < n; ++i) {
    Z(i, 0) = 1.0;
    Z(i, 1) = rng.normal();
    Z(i, 2) = rng.normal();
    const int level = static_cast<int>(rng.uniform() * levels);
    if (level > 0) Z(i, 2 + level) = 1.0;
  }
  const auto make = [&](const Mat& design) {
    vhmc::StiffRows s;
    s.Z = design;
    s.offset = Vec::Constant(n, 0.25);
    s.loss = [](const Vec& eta, Vec& r) {  // softplus(eta), r = logistic(eta)
      r = (1.0 + (-eta.array()).exp()).inverse().matrix();
      return (1.0 + eta.array().exp()).log().sum();
    };
    return vhmc::ExactRows(std::move(s));
  };
  vhmc::ExactRows rows = make(Z);
  REQUIRE(rows.sparse());
  Vec th(d);
  for (int j = 0; j < d; ++j) th[j] = 0.5 * rng.normal();
  const Vec eta = (Z * th).array() + 0.25;
  const Vec r = (1.0 + (-eta.array()).exp()).inverse().matrix();
  Vec g = Vec::Constant(d, 1.0);
  CHECK(rows.add_value_grad(th, &g) == Approx((1.0 + eta.array().exp()).log().sum()).epsilon(1e-13));
  CHECK((g - (Z.transpose() * r).array().matrix() - Vec::Constant(d, 1.0)).cwiseAbs().maxCoeff() <= 1e-12 * n);
  Vec slopes(n);
  rows.row_slopes(th, slopes);
  CHECK((slopes - r).cwiseAbs().maxCoeff() <= 1e-14);
  // Continuous columns only: the dense product.
  CHECK_FALSE(make(Z.leftCols(3)).sparse());
}
