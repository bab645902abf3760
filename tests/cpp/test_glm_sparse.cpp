// Tests of the sparse-column index of the GLM design (base/sparse_columns.hpp): which
// columns it takes, its products against the dense ones, and a GLM potential whose row pass
// uses it against one that cannot (the same design with the rows' values jittered).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::SparseColumns;
using vhmc::Vec;

// n x 6 columns: a continuous one, a 0/1 dummy (5% ones), a standardised dummy, a column
// that is 3 except in 2% of rows (values drawn), a dummy of 40% ones (dense) and a constant.
Mat mixed_design(int n, vhmc::Rng& rng) {
  Mat X(n, 6);
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    X(i, 0) = rng.normal();
    X(i, 1) = u < 0.05 ? 1.0 : 0.0;
    X(i, 2) = u > 0.9 ? 2.5 : -0.3;
    X(i, 3) = rng.uniform() < 0.02 ? rng.normal() : 3.0;
    X(i, 4) = rng.uniform() < 0.4 ? 1.0 : 0.0;
    X(i, 5) = 7.0;
  }
  return X;
}

}  // namespace

TEST_CASE("sparse columns: the majority value and its exceptions give X beta and X'r", "[glm][sparse]") {
  vhmc::Rng rng(11, 0);
  const int n = 3000;
  const Mat X = mixed_design(n, rng);
  const Eigen::Map<const Mat> Xm(X.data(), n, X.cols());
  const SparseColumns s(Xm, 0.125);
  CHECK(s.sparse_columns() == 4);  // the dummies, the mostly-3 column and the constant
  Vec beta(6), r(n), eta(n), out(6);
  for (int j = 0; j < 6; ++j) beta[j] = rng.normal();
  for (int i = 0; i < n; ++i) r[i] = rng.normal();
  s.times(Xm, beta, eta);
  s.transpose_times(Xm, r, out);
  const Vec eta_dense = X * beta, out_dense = X.transpose() * r;
  for (int i = 0; i < n; ++i) CHECK(eta[i] == Approx(eta_dense[i]).epsilon(1e-12).margin(1e-12));
  for (int j = 0; j < 6; ++j) CHECK(out[j] == Approx(out_dense[j]).epsilon(1e-12).margin(1e-10));
  // Its exceptions: 5% + 10% + 2% of the rows (and none for the constant), within chance.
  CHECK(s.exceptions() > 0.12 * n);
  CHECK(s.exceptions() < 0.22 * n);
}

TEST_CASE("sparse columns are used only where they repay the index", "[glm][sparse]") {
  vhmc::Rng rng(12, 0);
  const int n = 500;
  Mat dense(n, 3), dummies(n, 20);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) dense(i, j) = rng.normal();
    dummies.row(i).setZero();
    dummies(i, static_cast<int>(rng.uniform() * 20)) = 1.0;  // one-hot of a 20-level factor
  }
  const Eigen::Map<const Mat> Dm(dense.data(), n, 3), Hm(dummies.data(), n, 20);
  CHECK(SparseColumns(Dm, 0.125).empty());
  CHECK_FALSE(SparseColumns(Dm, 0.125).pays(n, 3));
  CHECK(SparseColumns(Hm, 0.125).sparse_columns() == 20);
  CHECK(SparseColumns(Hm, 0.125).pays(n, 20));
}

TEST_CASE("a GLM's row pass through sparse columns gives the dense pass's U and gradient", "[glm][sparse]") {
  vhmc::Rng rng(13, 0);
  const int n = 2000, k = 12;
  Mat X(n, k);
  X.leftCols(6) = mixed_design(n, rng);
  X.col(5).setConstant(0.0);
  for (int i = 0; i < n; i += 97) X(i, 5) = 1.0;  // a rare dummy in place of the constant
  for (int i = 0; i < n; ++i) {                   // and dummies of a 10-level factor
    X.row(i).tail(6).setZero();
    const int level = static_cast<int>(rng.uniform() * 10);
    if (level < 6) X(i, 6 + level) = 1.0;
  }
  Vec y(n), w(n), off(n), centre(k), scale(k);
  for (int i = 0; i < n; ++i) {
    y[i] = rng.uniform() < 0.3 ? 1.0 : 0.0;
    w[i] = 1.0 + (i % 3);
    off[i] = 0.1 * rng.normal();
  }
  for (int j = 0; j < k; ++j) {
    centre[j] = X.col(j).mean();
    scale[j] = 1.0 + 0.5 * j;
  }
  for (GlmFamily fam : {vt::fam::BinomialLogit, vt::fam::PoissonLog, vt::fam::GammaLog}) {
    Vec yy = y;
    if (fam == vt::fam::GammaLog) yy.array() += 0.5;
    const GlmData data(X.data(), n, k, yy.data(), w.data(), off.data(), centre.data(), scale.data());
    GlmPotential sparse(data, fam, true, Prior::normal(0, 5), Prior::normal(0, 2.5));
    REQUIRE(sparse.design().sparse_columns() != nullptr);
    // The same potential with the index dropped: the dense product.
    GlmPotential dense(data, fam, true, Prior::normal(0, 5), Prior::normal(0, 2.5));
    dense.use_sparse_columns(0.0);
    REQUIRE(dense.design().sparse_columns() == nullptr);
    for (int rep = 0; rep < 5; ++rep) {
      Vec theta(sparse.dim());
      for (int j = 0; j < theta.size(); ++j) theta[j] = 0.3 * rng.normal();
      Vec gs, gd;
      const double us = sparse.U_grad(theta, gs), ud = dense.U_grad(theta, gd);
      CHECK(us == Approx(ud).epsilon(1e-12));
      for (int j = 0; j < theta.size(); ++j) CHECK(gs[j] == Approx(gd[j]).epsilon(1e-10).margin(1e-9));
    }
  }
}
