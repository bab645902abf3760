// Tests of the random-basis network surrogate and its trainers (surrogate/*.hpp; Zhang,
// Shahbaba & Zhao 2017):
// activation derivatives, network value/gradient/Hessian against central differences for every
// activation under a dense standardization, recovery of a quadratic potential from gradients
// (score matching) and from values (ELM), online ridge (RLS and Woodbury) = batch ridge, the
// Hadamard gradient Gram = the generic stacked one, and a hidden timing benchmark at the target
// size (run with `vhmc_core_tests "[.bench]"`).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include <vhmc/vhmc.hpp>
#include <vhmc/surrogate/activation.hpp>
#include <vhmc/surrogate/network.hpp>
#include <vhmc/surrogate/trainer.hpp>
#include <vhmc/sampler/trajectory_length.hpp>
#include <vhmc/sampler/variational_field.hpp>

namespace {

using vhmc::Activation;
using vhmc::Mat;
using vhmc::OnlineRidge;
using vhmc::RandomBasisNetwork;
using vhmc::RidgeTrainer;
using vhmc::Rng;
using vhmc::Standardizer;
using vhmc::Vec;

const Activation kAll[] = {Activation::Softplus, Activation::Sigmoid, Activation::Tanh, Activation::Rbf};
const Activation kAdditive[] = {Activation::Softplus, Activation::Sigmoid, Activation::Tanh};

Vec normal_vec(Rng& rng, int n) {
  Vec x(n);
  for (int i = 0; i < n; ++i) x[i] = rng.normal();
  return x;
}

// A random SPD matrix with correlations and unequal scales.
Mat random_spd(Rng& rng, int d, double ridge = 0.3) {
  Mat B(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) B(i, j) = rng.normal();
  Mat S = B * B.transpose() / d;
  S.diagonal().array() += ridge;
  return S;
}

// A non-trivial standardizer: dense L, nonzero m.
Standardizer dense_standardizer(Rng& rng, int d) {
  Vec m = normal_vec(rng, d);
  return Standardizer::from_covariance(m, random_spd(rng, d));
}

double rel_err(const Mat& a, const Mat& b) { return (a - b).norm() / std::max(b.norm(), 1e-300); }

// Sample mean and covariance (divisor n - 1) of the rows of X.
void mean_cov(const Mat& X, Vec& m, Mat& S) {
  m = X.colwise().mean().transpose();
  const Mat C = X.rowwise() - m.transpose();
  S = C.transpose() * C / static_cast<double>(X.rows() - 1);
}

// A network of s softplus bases drawn in the coordinates standardised by the draws X.
RandomBasisNetwork softplus_net_for(const Mat& X, int s, Rng& rng) {
  Vec m;
  Mat S;
  mean_cov(X, m, S);
  RandomBasisNetwork net;
  net.draw(s, Activation::Softplus, Standardizer::from_covariance(m, S), rng);
  return net;
}

// Gaussian potential U = 1/2 (theta - mu)' P (theta - mu), draws from N(mu, P^{-1}).
struct Quadratic {
  Vec mu;
  Mat P, Lcov;  // Lcov Lcov' = P^{-1}
  Quadratic(Rng& rng, int d) {
    mu = normal_vec(rng, d);
    P = random_spd(rng, d, 0.2);
    Lcov = Eigen::LLT<Mat>(P.inverse()).matrixL();
  }
  double U(const Vec& th) const { return 0.5 * (th - mu).dot(P * (th - mu)); }
  Vec grad(const Vec& th) const { return P * (th - mu); }
  Mat draws(Rng& rng, int n) const {
    const int d = static_cast<int>(mu.size());
    Mat X(n, d);
    for (int i = 0; i < n; ++i) X.row(i) = (mu + Lcov * normal_vec(rng, d)).transpose();
    return X;
  }
  Mat grads(const Mat& X) const { return (X.rowwise() - mu.transpose()) * P; }  // P symmetric
  Vec values(const Mat& X) const {
    Vec u(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) u[i] = U(X.row(i).transpose());
    return u;
  }
};

}  // namespace

TEST_CASE("activations: names, stable evaluation, derivatives", "[surrogate]") {
  for (Activation a : kAll) CHECK(vhmc::activation_from_name(vhmc::activation_name(a)) == a);
  CHECK_THROWS_AS(vhmc::activation_from_name("relu"), std::invalid_argument);

  namespace act = vhmc::act;
  // Far tails: finite and accurate (no log(1 + exp(x)) overflow, no 1 - l cancellation). The
  // softplus activation is vhmc::softplus (base/math.hpp).
  CHECK(vhmc::softplus(1000.0) == Approx(1000.0));
  CHECK(vhmc::softplus(-1000.0) == 0.0);
  CHECK(vhmc::softplus(-30.0) == Approx(std::exp(-30.0)).epsilon(1e-12));
  for (double x : {-1000.0, -30.0, -0.7, 0.0, 2.5, 1000.0}) {
    CHECK(act::value(Activation::Softplus, x) == vhmc::softplus(x));
    // The logistic pair: l = 1 / (1 + e^-x) and its complement, each accurate in its tail.
    double l, lc;
    vhmc::logistic_pair(x, l, lc);
    CHECK(l == Approx(vhmc::logistic(x)).epsilon(1e-15));
    CHECK(lc == Approx(vhmc::logistic(-x)).epsilon(1e-15));
    CHECK(act::d1(Activation::Softplus, x) == Approx(vhmc::logistic(x)).epsilon(1e-15));
  }
  {
    double l, lc;
    vhmc::logistic_pair(40.0, l, lc);
    CHECK(lc == Approx(std::exp(-40.0)).epsilon(1e-12));
    vhmc::logistic_pair(-40.0, l, lc);
    CHECK(l == Approx(std::exp(-40.0)).epsilon(1e-12));
  }
  CHECK(act::d1(Activation::Sigmoid, 40.0) == Approx(std::exp(-40.0)).epsilon(1e-12));
  CHECK(act::d1(Activation::Tanh, 20.0) == Approx(4.0 * std::exp(-40.0)).epsilon(1e-12));
  CHECK(act::d2(Activation::Softplus, -40.0) == Approx(std::exp(-40.0)).epsilon(1e-12));
  for (double x : {-800.0, -50.0, 50.0, 800.0})
    for (Activation a : kAdditive) {
      CHECK(std::isfinite(act::value(a, x)));
      CHECK(std::isfinite(act::d1(a, x)));
      CHECK(std::isfinite(act::d2(a, x)));
      CHECK(std::isfinite(act::d3(a, x)));
    }
  // Derivative chain against central differences.
  const double h = 1e-5;
  for (Activation a : kAdditive)
    for (double x : {-3.1, -0.7, 0.0, 0.4, 2.5}) {
      INFO(vhmc::activation_name(a) << " x = " << x);
      double f, f1;
      act::value_d1(a, x, f, f1);
      CHECK(f == Approx(act::value(a, x)));
      CHECK(f1 == Approx(act::d1(a, x)));
      CHECK(act::d1(a, x) == Approx((act::value(a, x + h) - act::value(a, x - h)) / (2 * h)).margin(1e-9));
      CHECK(act::d2(a, x) == Approx((act::d1(a, x + h) - act::d1(a, x - h)) / (2 * h)).margin(1e-9));
      CHECK(act::d3(a, x) == Approx((act::d2(a, x + h) - act::d2(a, x - h)) / (2 * h)).margin(1e-9));
    }
  // The vectorised derivative used by surrogate trajectories equals the scalar one, tails
  // included.
  Vec xs(9);
  xs << -800.0, -40.0, -3.1, -0.7, 0.0, 0.4, 2.5, 40.0, 800.0;
  for (Activation a : kAdditive) {
    INFO(vhmc::activation_name(a));
    Vec out;
    act::d1_array(a, xs, out);
    for (int i = 0; i < xs.size(); ++i) CHECK(out[i] == Approx(act::d1(a, xs[i])).epsilon(1e-14).margin(1e-300));
  }
}

TEST_CASE("Standardizer: round trip, gradient maps, jitter", "[surrogate]") {
  Rng rng(11, 0);
  const int d = 4;
  const Standardizer st = dense_standardizer(rng, d);
  const Vec th = normal_vec(rng, d);
  Vec u(d), back(d), g(d), gu(d);
  st.to_u(th, u);
  st.to_theta(u, back);
  CHECK(rel_err(back, th) < 1e-13);
  CHECK(rel_err(st.L * u + st.m, th) < 1e-13);
  const Vec gth = normal_vec(rng, d);
  st.grad_to_u(gth, gu);
  st.grad_to_theta(gu, g);
  CHECK(rel_err(g, gth) < 1e-13);
  CHECK(rel_err(gu, st.L.transpose() * gth) < 1e-13);
  // Singular covariance: jitter makes it factorizable.
  Mat S = Mat::Ones(3, 3);
  const Standardizer sj = Standardizer::from_covariance(Vec::Zero(3), S);
  CHECK(sj.L.allFinite());
  CHECK((sj.L.diagonal().array() > 0).all());
  CHECK_THROWS_AS(Standardizer::from_covariance(Vec::Zero(3), Mat::Identity(2, 2)), std::invalid_argument);
  const Standardizer sd = Standardizer::from_diagonal(Vec::Ones(2), Vec::Constant(2, 4.0));
  CHECK(sd.L.isApprox(2.0 * Mat::Identity(2, 2)));
  CHECK_THROWS_AS(Standardizer::from_diagonal(Vec::Ones(2), Vec::Zero(2)), std::invalid_argument);
}

TEST_CASE("network: value, gradient and Hessian match central differences", "[surrogate]") {
  Rng rng(2024, 1);
  const int d = 4, s = 40;
  const Standardizer st = dense_standardizer(rng, d);
  for (Activation a : kAll) {
    INFO(vhmc::activation_name(a));
    RandomBasisNetwork net;
    net.draw(s, a, st, rng);
    REQUIRE(net.hidden() == s);
    REQUIRE(net.dim() == d);
    REQUIRE(net.dim_for_target() == d);
    CHECK(net.weights().isZero());
    net.weights() = normal_vec(rng, s);
    net.offset() = 0.3;
    for (int rep = 0; rep < 3; ++rep) {
      // Points around the standardization's location (about one standardized unit away).
      Vec z = normal_vec(rng, d);
      Vec th(d);
      st.to_theta(z, th);
      Vec g;  // resized by value_grad
      const double z0 = net.value_grad(th, g);
      REQUIRE(g.size() == d);
      CHECK(z0 == Approx(net.value(th)).epsilon(1e-14));
      Vec g_only;
      net.grad(th, g_only);
      CHECK(rel_err(g_only, g) < 1e-13);
      const Mat H = net.hessian(th);
      CHECK(rel_err(H, Mat(H.transpose())) < 1e-14);
      const double hstep = 1e-5;
      Vec fd_g(d);
      Mat fd_H(d, d);
      for (int j = 0; j < d; ++j) {
        Vec tp = th, tm = th;
        tp[j] += hstep;
        tm[j] -= hstep;
        fd_g[j] = (net.value(tp) - net.value(tm)) / (2 * hstep);
        Vec gp(d), gm(d);
        net.value_grad(tp, gp);
        net.value_grad(tm, gm);
        fd_H.col(j) = (gp - gm) / (2 * hstep);
      }
      CHECK(rel_err(g, fd_g) < 1e-7);
      CHECK(rel_err(H, fd_H) < 1e-6);
      // Features and Jacobian agree with the evaluation.
      Vec hf(s);
      net.features(th, hf);
      CHECK(hf.dot(net.weights()) + net.offset() == Approx(z0).epsilon(1e-13));
      Mat A(d, s);
      net.jacobian_u(th, A);
      Vec gu;
      st.grad_to_u(g, gu);
      CHECK(rel_err(A * net.weights(), gu) < 1e-12);
      // Additive nodes: the equivalent theta-space parameters (network.hpp) give the same z.
      if (vhmc::is_additive(a)) {
        Mat W;
        Vec dv;
        net.bases().theta_space_bases(st, W, dv);
        const Vec pre = W * th + dv;
        double zz = net.offset();
        for (int i = 0; i < s; ++i) zz += net.weights()[i] * vhmc::act::value(a, pre[i]);
        CHECK(zz == Approx(z0).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("network: draws follow their law in u-space and are reproducible", "[surrogate]") {
  const int d = 5, s = 4000;
  Rng r1(5, 2), r2(5, 2);
  const Standardizer st = Standardizer::identity(d);
  RandomBasisNetwork a, b;
  a.draw(s, Activation::Softplus, st, r1);
  b.draw(s, Activation::Softplus, st, r2);
  CHECK(a.bases().w_hat() == b.bases().w_hat());
  CHECK(a.bases().d_hat() == b.bases().d_hat());
  // w_hat entries ~ N(0, 1/d), d_hat ~ N(0, 1)
  const double wvar = a.bases().w_hat().squaredNorm() / (double(s) * d);
  CHECK(wvar == Approx(1.0 / d).epsilon(0.05));
  CHECK(a.bases().d_hat().squaredNorm() / s == Approx(1.0).epsilon(0.08));
  RandomBasisNetwork r;
  r.draw(s, Activation::Rbf, st, r1);
  CHECK(r.bases().w_hat().squaredNorm() / (double(s) * d) == Approx(1.0).epsilon(0.05));
  // ell^2 = d / chi2_1: median of chi2_1 is 0.4549
  Vec ell2 = r.bases().d_hat();
  std::sort(ell2.data(), ell2.data() + s);
  CHECK(ell2[s / 2] == Approx(d / 0.4549).epsilon(0.1));
  CHECK_THROWS_AS(a.draw(0, Activation::Softplus, st, r1), std::invalid_argument);
}

TEST_CASE("trainer: a quadratic potential is recovered from gradients and from values", "[surrogate]") {
  Rng rng(77, 3);
  const int d = 3, s = 300, n = 2000, n_test = 500;
  const Quadratic q(rng, d);
  const Mat X = q.draws(rng, n);
  const Mat G = q.grads(X);
  RandomBasisNetwork net = softplus_net_for(X, s, rng);

  const Mat Xt = q.draws(rng, n_test);
  const Mat Gt = q.grads(Xt);
  const Vec Ut = q.values(Xt);
  auto grad_rel_rmse = [&]() {
    double num = 0.0;
    Vec g;
    for (int i = 0; i < n_test; ++i) {
      net.value_grad(Xt.row(i).transpose(), g);
      num += (g - Gt.row(i).transpose()).squaredNorm();
    }
    return std::sqrt(num / Gt.squaredNorm());
  };
  // Value differences over random pairs, relative to the sd of U-differences.
  auto diff_rel_rmse = [&]() {
    double num = 0.0, den = 0.0;
    for (int i = 0; i + 1 < n_test; i += 2) {
      const double dz = net.value(Xt.row(i).transpose()) - net.value(Xt.row(i + 1).transpose());
      const double du = Ut[i] - Ut[i + 1];
      num += (dz - du) * (dz - du);
      den += du * du;
    }
    return std::sqrt(num / den);
  };

  SECTION("quadratic base shrunk toward a prior quadratic: between least squares and the prior") {
    Mat Q, Qp, Qs;
    Vec b, bp, bs;
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Q, b);
    // A prior whose curvature is off by a factor 3 in every direction.
    const Mat Q0 = 3.0 * Q;
    const Vec b0 = Vec::Zero(d);
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Qs, bs, vhmc::QuadraticPrior{&Q0, &b0, 1e-12});
    CHECK(rel_err(Qs, Q) < 1e-8);  // no shrinkage: the least-squares fit (exact here)
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Qp, bp, vhmc::QuadraticPrior{&Q0, &b0, 1e12});
    CHECK(rel_err(Qp, Q0) < 1e-8);  // all shrinkage: the prior's curvature
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Qs, bs, vhmc::QuadraticPrior{&Q0, &b0, 0.3});
    CHECK((Qs - Q).norm() < (Q0 - Q).norm());  // in between: closer to the data than the prior is
    CHECK((Qs - Q).norm() > 1e-6 * Q.norm());
    // An exact prior stays exact whatever the shrinkage.
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Qs, bs, vhmc::QuadraticPrior{&Q, &b, 3.0});
    CHECK(rel_err(Qs, Q) < 1e-8);
    CHECK((bs - b).norm() < 1e-8 * (1.0 + b.norm()));
  }

  SECTION("quadratic base: exact for a quadratic potential, the bases get a zero residual") {
    Mat Q;
    Vec b;
    vhmc::fit_quadratic_gradients(net.standardizer(), X, G, Q, b);
    net.set_quadratic(Q, b);
    CHECK(grad_rel_rmse() < 1e-9);
    CHECK(diff_rel_rmse() < 1e-9);
    // The Hessian includes the base; the residual gradients are zero.
    Vec gq(d);
    double res = 0.0;
    for (int i = 0; i < 50; ++i) {
      net.base_grad(X.row(i).transpose(), gq);
      res = std::max(res, (gq - G.row(i).transpose()).norm() / G.row(i).norm());
    }
    CHECK(res < 1e-9);
    const Vec x0 = X.row(0).transpose();
    Vec gfull, gonly;
    net.value_grad(x0, gfull);
    net.grad(x0, gonly);
    CHECK(rel_err(gfull, gonly) < 1e-13);
    // Quadratic U: the Hessian is constant and equals the base's (v = 0 here).
    CHECK(rel_err(net.hessian(x0), net.hessian(X.row(1).transpose())) < 1e-10);
    // Frequencies along rows (wall_frequencies()): with the unit metric along e_j, H_jj; with
    // the inverse Hessian as metric, 1 along any row.
    const Mat H = net.hessian(x0);
    const Vec unit = vhmc::wall_frequencies(H, Mat::Identity(d, d), Mat::Identity(d, d));
    CHECK(rel_err(unit, Vec(H.diagonal())) < 1e-12);
    Mat Z(5, d);
    for (int i = 0; i < 5; ++i) Z.row(i) = normal_vec(rng, d).transpose();
    const Vec w2 = vhmc::wall_frequencies(H, Mat(H.inverse()), Z);
    CHECK(rel_err(w2, Vec::Ones(5)) < 1e-8);
    CHECK(vhmc::wall_frequencies(H, Mat::Identity(d, d), Mat(0, d)).size() == 0);
  }

  SECTION("score matching on gradients") {
    RidgeTrainer tr(net);
    tr.add_gradients(X, G);
    CHECK(tr.n_points() == n);
    // The default lambda = 1e-3 (standardized residuals), then a small one.
    CHECK(tr.solve(1e-3) == 1e-3);
    double ge = grad_rel_rmse(), de = diff_rel_rmse();
    INFO("lambda 1e-3: gradient relative RMSE " << ge << ", value-difference relative RMSE " << de);
    CHECK(ge < 5e-3);
    CHECK(de < 2e-3);
    CHECK(tr.solve(1e-8) == 1e-8);
    ge = grad_rel_rmse();
    de = diff_rel_rmse();
    INFO("lambda 1e-8: gradient relative RMSE " << ge << ", value-difference relative RMSE " << de);
    CHECK(ge < 2e-4);
    CHECK(de < 1e-4);
    // Non-finite rows are skipped.
    Mat Xb = X.topRows(3), Gb = G.topRows(3);
    Gb(1, 0) = std::nan("");
    tr.add_gradients(Xb, Gb);
    CHECK(tr.n_skipped() == 1);
    CHECK(tr.n_points() == n + 2);
  }
  SECTION("ELM on values, targets U - min U, with and without an output offset") {
    const Vec U = q.values(X);
    const Vec t = U.array() - U.minCoeff();
    RidgeTrainer tr(net);
    tr.add_values(X, t);
    const double tr_s = tr.gram().trace() / s;
    tr.solve(1e-6 * tr_s);  // the value-training default lambda
    double ge = grad_rel_rmse(), de = diff_rel_rmse();
    INFO("lambda 1e-6 tr/s: gradient relative RMSE " << ge << ", value-difference relative RMSE " << de);
    CHECK(ge < 2e-2);
    CHECK(de < 1e-2);
    tr.solve(1e-10 * tr_s);
    ge = grad_rel_rmse();
    de = diff_rel_rmse();
    INFO("lambda 1e-10 tr/s: gradient relative RMSE " << ge << ", value-difference relative RMSE " << de);
    CHECK(ge < 2e-3);
    CHECK(de < 1e-3);
    // With an unpenalized offset the values themselves match U - min U.
    tr.solve(1e-10 * tr_s, true);
    double num = 0.0;
    for (int i = 0; i < n_test; ++i) {
      const double e = net.value(Xt.row(i).transpose()) - (Ut[i] - U.minCoeff());
      num += e * e;
    }
    const double sdU = std::sqrt((Ut.array() - Ut.mean()).square().mean());
    INFO("offset: value relative RMSE " << std::sqrt(num / n_test) / sdU);
    CHECK(std::sqrt(num / n_test) / sdU < 1e-3);
    CHECK(diff_rel_rmse() < 1e-3);
  }
}

TEST_CASE("trainer: Hadamard gradient Gram equals the generic stacked Gram", "[surrogate]") {
  Rng rng(31, 4);
  const int d = 5, s = 60, n = 700;  // n > one block of 512 points
  const Standardizer st = dense_standardizer(rng, d);
  Mat X(n, d), G(n, d);
  for (int i = 0; i < n; ++i) {
    Vec th;
    st.to_theta(normal_vec(rng, d), th);
    X.row(i) = th.transpose();
    G.row(i) = normal_vec(rng, d).transpose();
  }
  for (Activation a : kAdditive) {
    INFO(vhmc::activation_name(a));
    RandomBasisNetwork net;
    net.draw(s, a, st, rng);
    RidgeTrainer had(net), gen(net);
    gen.use_generic_gradient_path(true);
    had.add_gradients(X, G);
    gen.add_gradients(X, G);
    // explicit sum of A_n' A_n and A_n' L' g_n
    Mat Gram = Mat::Zero(s, s);
    Vec r = Vec::Zero(s);
    Mat A(d, s);
    Vec gu;
    for (int i = 0; i < n; ++i) {
      net.jacobian_u(X.row(i).transpose(), A);
      st.grad_to_u(G.row(i).transpose(), gu);
      Gram += A.transpose() * A;
      r += A.transpose() * gu;
    }
    CHECK(rel_err(had.gram(), Gram) < 1e-12);
    CHECK(rel_err(gen.gram(), Gram) < 1e-12);
    CHECK(rel_err(had.rhs(), r) < 1e-12);
    CHECK(rel_err(gen.rhs(), r) < 1e-12);
    had.solve(1e-3);
    const Vec vh = net.weights();
    gen.solve(1e-3);
    CHECK(rel_err(vh, net.weights()) < 1e-9);
  }
}

TEST_CASE("online ridge equals the batch ridge solution", "[surrogate]") {
  Rng rng(404, 5);
  const int d = 4;
  const Quadratic q(rng, d);
  const Mat Xe = q.draws(rng, 1000);
  Vec m;
  Mat S;
  mean_cov(Xe, m, S);
  const Standardizer st = Standardizer::from_covariance(m, S);

  SECTION("ridge RLS on values, 1000 updates across refactorizations") {
    const int s = 150, n0 = 200, n1 = 1000;
    RandomBasisNetwork net;
    net.draw(s, Activation::Softplus, st, rng);
    const Mat X = q.draws(rng, n0 + n1);
    Vec t = q.values(X);
    for (int i = 0; i < t.size(); ++i) t[i] += std::sin(X(i, 0));  // not exactly representable
    RidgeTrainer b0(net), all(net);
    b0.add_values(X.topRows(n0), t.head(n0));
    all.add_values(X, t);
    // Both the batch and the online solutions carry rounding errors of order
    // cond(G + lambda I) x eps; lambda = 1e-4 tr(G)/s keeps cond ~ 1e6 so that 1e-8 tests the
    // recursion, not the conditioning.
    const double lam = 1e-4 * b0.gram().trace() / s;
    OnlineRidge on(net, b0.gram(), b0.rhs(), lam, 400);  // refactorizes after 400 and 800
    for (int i = n0; i < n0 + n1; ++i) on.add_value(X.row(i).transpose(), t[i]);
    CHECK(on.updates() == n1);
    CHECK(on.lambda() == lam);
    CHECK(all.solve(lam) == lam);
    const Vec vb = net.weights();
    INFO("relative difference " << rel_err(on.weights(), vb));
    CHECK(rel_err(on.weights(), vb) < 1e-8);
    // Without refactorization the recursion alone stays exact too.
    OnlineRidge raw(net, b0.gram(), b0.rhs(), lam, 0);
    for (int i = n0; i < n0 + n1; ++i) raw.add_value(X.row(i).transpose(), t[i]);
    INFO("no refactorization: relative difference " << rel_err(raw.weights(), vb));
    CHECK(rel_err(raw.weights(), vb) < 1e-8);
    // Starting from no data (gram = 0, v = 0, C = I/lambda).
    OnlineRidge empty(net, Mat::Zero(s, s), Vec::Zero(s), lam, 400);
    for (int i = 0; i < n0 + n1; ++i) empty.add_value(X.row(i).transpose(), t[i]);
    CHECK(rel_err(empty.weights(), vb) < 1e-8);

    // At the value-training default lambda = 1e-6 tr(G)/s (cond ~ 1e8-1e9) the online solution is as
    // accurate as the batch one, both measured against a long-double solve.
    const double lam6 = 1e-6 * b0.gram().trace() / s;
    OnlineRidge on6(net, b0.gram(), b0.rhs(), lam6, 400);
    for (int i = n0; i < n0 + n1; ++i) on6.add_value(X.row(i).transpose(), t[i]);
    all.solve(lam6);
    using MatL = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
    using VecL = Eigen::Matrix<long double, Eigen::Dynamic, 1>;
    MatL Gl = all.gram().cast<long double>();
    Gl.diagonal().array() += static_cast<long double>(lam6);
    const Vec vref = VecL(Gl.llt().solve(VecL(all.rhs().cast<long double>()))).cast<double>();
    const double e_batch = rel_err(net.weights(), vref), e_online = rel_err(on6.weights(), vref);
    INFO("lambda 1e-6 tr/s: batch error " << e_batch << ", online error " << e_online);
    CHECK(e_online < std::max(20.0 * e_batch, 1e-10));
    CHECK(e_online < 1e-6);
    // The differences lie in near-null directions of G: the fitted values agree far better.
    Mat H(s, n0 + n1);
    for (int i = 0; i < n0 + n1; ++i) net.features(X.row(i).transpose(), H.col(i));
    const Vec fit_b = H.transpose() * vref, fit_o = H.transpose() * on6.weights();
    INFO("fitted values: relative difference " << rel_err(fit_o, fit_b));
    CHECK(rel_err(fit_o, fit_b) < 1e-9);
  }

  SECTION("Woodbury on gradients, 300 updates across a refactorization") {
    for (Activation a : {Activation::Softplus, Activation::Rbf}) {
      INFO(vhmc::activation_name(a));
      const int s = 150, n0 = 100, n1 = 300;
      RandomBasisNetwork net;
      net.draw(s, a, st, rng);
      const Mat X = q.draws(rng, n0 + n1);
      const Mat G = q.grads(X);
      RidgeTrainer b0(net);
      b0.add_gradients(X.topRows(n0), G.topRows(n0));
      const double lam = 1e-3;
      OnlineRidge on(net, b0.gram(), b0.rhs(), lam, 200);
      for (int i = n0; i < n0 + n1; ++i) on.add_gradient(X.row(i).transpose(), G.row(i).transpose());
      CHECK(on.updates() == n1);
      RidgeTrainer all(net);
      all.add_gradients(X, G);
      all.solve(lam);
      INFO("relative difference " << rel_err(on.weights(), net.weights()));
      CHECK(rel_err(on.weights(), net.weights()) < 1e-8);
      on.copy_to_network();
      CHECK(net.weights() == on.weights());
    }
  }

  SECTION("mixed value and gradient updates") {
    const int s = 80;
    RandomBasisNetwork net;
    net.draw(s, Activation::Tanh, st, rng);
    const Mat X = q.draws(rng, 300);
    const Mat G = q.grads(X);
    const Vec t = q.values(X);
    const double lam = 1e-3;
    OnlineRidge on(net, Mat::Zero(s, s), Vec::Zero(s), lam, 100);
    for (int i = 0; i < 300; ++i) {
      if (i % 2) on.add_value(X.row(i).transpose(), t[i]);
      else on.add_gradient(X.row(i).transpose(), G.row(i).transpose());
    }
    on.add_value(X.row(0).transpose(), std::nan(""));
    CHECK(on.skipped() == 1);
    RidgeTrainer all(net);
    Mat Xo(150, d), Go(150, d), Xe2(150, d);
    Vec te(150);
    for (int k = 0; k < 150; ++k) {
      Xe2.row(k) = X.row(2 * k);
      Go.row(k) = G.row(2 * k);
      Xo.row(k) = X.row(2 * k + 1);
      te[k] = t[2 * k + 1];
    }
    all.add_gradients(Xe2, Go);
    all.add_values(Xo, te);
    all.solve(lam);
    CHECK(rel_err(on.weights(), net.weights()) < 1e-8);
  }
}

TEST_CASE("trainer: lambda escalates when Cholesky fails", "[surrogate]") {
  Rng rng(9, 6);
  const int d = 2, s = 10;
  RandomBasisNetwork net;
  net.draw(s, Activation::Softplus, Standardizer::identity(d), rng);
  RidgeTrainer tr(net);
  Mat X(1, d);
  X << 0.1, -0.2;
  tr.add_values(X, Vec::Constant(1, 1.0));  // rank-1 Gram
  CHECK(tr.solve(0.0) > 0.0);
  CHECK(net.weights().allFinite());
  CHECK_THROWS_AS(tr.solve(-1.0), std::invalid_argument);
}

TEST_CASE("bench: s = 2000, d = 50, N = 20000 gradient points", "[.bench]") {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  Rng rng(1, 0);
  const int d = 50, s = 2000, n = 20000;
  const Quadratic q(rng, d);
  const Mat X = q.draws(rng, n);
  const Mat G = q.grads(X);
  RandomBasisNetwork net = softplus_net_for(X, s, rng);

  auto t0 = clock::now();
  RidgeTrainer tr(net);
  tr.add_gradients(X, G);
  auto t1 = clock::now();
  const double lam = tr.solve(1e-3);
  auto t2 = clock::now();
  std::printf("[bench] gradient training s=%d d=%d N=%d: accumulate %.2f s, solve %.2f s, total %.2f s (lambda %g)\n",
              s, d, n, secs(t0, t1), secs(t1, t2), secs(t0, t2), lam);

  // held-out accuracy
  const Mat Xt = q.draws(rng, 2000);
  const Mat Gt = q.grads(Xt);
  double num = 0.0;
  Vec g;
  for (int i = 0; i < Xt.rows(); ++i) {
    net.value_grad(Xt.row(i).transpose(), g);
    num += (g - Gt.row(i).transpose()).squaredNorm();
  }
  std::printf("[bench] held-out gradient relative RMSE %.3g\n", std::sqrt(num / Gt.squaredNorm()));

  // generic path on a subset, for comparison
  {
    RidgeTrainer gen(net);
    gen.use_generic_gradient_path(true);
    auto a = clock::now();
    gen.add_gradients(X.topRows(1000), G.topRows(1000));
    auto b = clock::now();
    std::printf("[bench] generic stacked path: %.2f s per 1000 points (Hadamard: %.2f s per 1000)\n", secs(a, b),
                secs(t0, t1) * 1000.0 / n);
  }
  // value training on the same points
  {
    RidgeTrainer val(net);
    const Vec t = q.values(X);
    auto a = clock::now();
    val.add_values(X, t);
    auto b = clock::now();
    val.solve(1e-6 * val.gram().trace() / s);
    auto c = clock::now();
    std::printf("[bench] value training N=%d: accumulate %.2f s, solve %.2f s\n", n, secs(a, b), secs(b, c));
  }
  // online updates from the batch state
  {
    auto a = clock::now();
    OnlineRidge on(net, tr.gram(), tr.rhs(), lam, 0);
    auto b = clock::now();
    const int k = 100;
    for (int i = 0; i < k; ++i) on.add_gradient(Xt.row(i).transpose(), Gt.row(i).transpose());
    auto c = clock::now();
    for (int i = 0; i < k; ++i) on.add_value(Xt.row(i).transpose(), q.U(Xt.row(i).transpose()));
    auto e = clock::now();
    std::printf("[bench] online: refactorization %.2f s, Woodbury gradient update %.2f ms, RLS value update %.2f ms\n",
                secs(a, b), 1e3 * secs(b, c) / k, 1e3 * secs(c, e) / k);
  }
  // evaluation
  {
    Vec th = Xt.row(0).transpose();
    const int k = 2000;
    double acc = 0.0;
    auto a = clock::now();
    for (int i = 0; i < k; ++i) acc += net.value_grad(th, g);
    auto b = clock::now();
    std::printf("[bench] value_grad: %.1f us per call (%g)\n", 1e6 * secs(a, b) / k, acc / k);
  }
  SUCCEED();
}

TEST_CASE("trajectory length: closed-form sums and the ESS rule", "[surrogate]") {
  using vhmc::choose_trajectory;
  // Closed-form sum of cosines against the loop.
  for (double phi : {0.01, 0.3, 1.7, 3.1})
    for (int a : {1, 3})
      for (int b : {a, a + 5, a + 40}) {
        double ref = 0.0;
        for (int k = a; k <= b; ++k) ref += std::cos(k * phi);
        CHECK(vhmc::detail::cos_sum(a, b, phi) == Approx(ref).margin(1e-10));
      }
  // One frequency, small steps: the rule reaches antithetic trajectories (ESS of the
  // coordinate > 1 per iteration) while the squares keep ESS >= 1/3; its predictions equal
  // the direct averages over the jittered step counts.
  const double eps = 0.01;
  Vec w2(1);
  w2 << 1.0;
  const auto c = choose_trajectory(w2, eps, 2000);
  REQUIRE(c.steps > 0);
  CHECK(c.ess_mean > 3.0);
  CHECK(c.ess_square >= 1.0 / 3.0);
  CHECK(c.steps * eps > 0.8 * vhmc::kPi);
  CHECK(c.steps * eps < 1.2 * vhmc::kPi);
  const double phi = std::acos(1.0 - 0.5 * eps * eps);
  double c1 = 0.0, c2 = 0.0;
  const int lo = vhmc::jitter_low(c.steps);
  for (int k = lo; k <= c.steps; ++k) {
    c1 += std::cos(k * phi);
    c2 += std::pow(std::cos(k * phi), 2);
  }
  c1 /= (c.steps - lo + 1);
  c2 /= (c.steps - lo + 1);
  CHECK(c.ess_mean == Approx((1 - c1) / (1 + c1)).epsilon(1e-8));
  CHECK(c.ess_square == Approx((1 - c2) / (1 + c2)).epsilon(1e-8));
  // Scaling every frequency by 2 halves the trajectory.
  w2 << 4.0;
  const auto c4 = choose_trajectory(w2, eps, 2000);
  CHECK(c4.steps == Approx(c.steps / 2.0).margin(1.0));
  // A spread of frequencies is served by the slowest and fastest together: a valid choice
  // whose predictions hold for every direction.
  Vec spread(3);
  spread << 0.5, 1.0, 2.0;
  const auto cs = choose_trajectory(spread, eps, 2000);
  CHECK(cs.steps > 0);
  CHECK(cs.ess_square >= 1.0 / 3.0);
  // No oscillatory direction: no choice.
  Vec none(2);
  none << -1.0, 0.0;
  CHECK(choose_trajectory(none, eps, 100).steps == 0);
  // Unstable at this step size (w eps >= 2): ignored.
  Vec unstable(1);
  unstable << 1e6;
  CHECK(choose_trajectory(unstable, eps, 100).steps == 0);
}

TEST_CASE("trajectory length along a wall: the reflected coordinate's correlation and a shorter L", "[surrogate]") {
  using vhmc::choose_trajectory;
  using vhmc::detail::abs_corr;
  // g(rho) = corr(|X|, |Y|) for standard normals of correlation rho, against simulation
  // (200,000 pairs: a correlation's standard error is at most 1 / sqrt(n) = 0.0022, so 0.01
  // is 4.5 of them).
  CHECK(abs_corr(0.0) == Approx(0.0).margin(1e-15));
  CHECK(abs_corr(1.0) == Approx(1.0));
  CHECK(abs_corr(-1.0) == Approx(1.0));
  Rng rng(77, 0);
  for (double rho : {-0.9, -0.4, 0.3, 0.8}) {
    const int n = 200000;
    double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; ++i) {
      const double a = rng.normal(), b = rng.normal();
      const double x = std::fabs(a), y = std::fabs(rho * a + std::sqrt(1 - rho * rho) * b);
      sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
    }
    const double cov = sxy / n - (sx / n) * (sy / n);
    const double corr = cov / std::sqrt((sxx / n - std::pow(sx / n, 2)) * (syy / n - std::pow(sy / n, 2)));
    INFO("rho " << rho);
    CHECK(abs_corr(rho) == Approx(corr).margin(0.01));
    CHECK(abs_corr(rho) >= 0.0);
  }
  // A Gaussian direction alone: the antithetic length near half a period. A wall's
  // direction of the same frequency pulls L down toward a quarter period, where |x| forgets
  // its start; the prediction is the direct average over the jitter.
  const double eps = 0.01;
  Vec w2(1), none(0), wall(1);
  w2 << 1.0;
  wall << 1.0;
  const auto free = choose_trajectory(w2, eps, 2000);
  CHECK(choose_trajectory(w2, eps, 2000, none).steps == free.steps);
  const auto walled = choose_trajectory(w2, eps, 2000, wall);
  REQUIRE(walled.steps > 0);
  CHECK(walled.steps < free.steps);
  CHECK(walled.steps * eps > 0.3 * vhmc::kPi);
  CHECK(walled.steps * eps < 0.8 * vhmc::kPi);
  const double phi = std::acos(1.0 - 0.5 * eps * eps);
  const int lo = vhmc::jitter_low(walled.steps);
  double g = 0.0, c = 0.0;
  for (int k = lo; k <= walled.steps; ++k) {
    g += abs_corr(std::cos(k * phi));
    c += std::cos(k * phi);
  }
  g /= (walled.steps - lo + 1);
  c /= (walled.steps - lo + 1);
  const double ess_wall = (1 - g) / (1 + g), ess_free = (1 - c) / (1 + c);
  CHECK(walled.ess_mean == Approx(std::min(ess_wall, ess_free)).epsilon(1e-8));
  CHECK(walled.ess_mean > 0.5);
  // At the Gaussian rule's length the wall's direction would have kept far fewer.
  double g_free = 0.0;
  for (int k = vhmc::jitter_low(free.steps); k <= free.steps; ++k) g_free += abs_corr(std::cos(k * phi));
  g_free /= (free.steps - vhmc::jitter_low(free.steps) + 1);
  CHECK((1 - g_free) / (1 + g_free) < 0.5 * walled.ess_mean);
}

TEST_CASE("variational field: V blends the network with the Laplace quadratic", "[surrogate]") {
  Rng rng(404, 2);
  const int d = 3, s = 25;
  const Standardizer st = dense_standardizer(rng, d);
  RandomBasisNetwork net;
  net.draw(s, Activation::Softplus, st, rng);
  net.weights() = normal_vec(rng, s);
  const Vec mode = normal_vec(rng, d);
  Mat B = Mat::Random(d, d);
  const Mat H = B * B.transpose() + Mat::Identity(d, d);
  vhmc::VariationalField field(net, mode, H);
  const Vec th = normal_vec(rng, d);
  for (double mu : {0.0, 0.3, 1.0}) {
    field.mu() = mu;
    Vec g;
    const double v = field.U_grad(th, g);
    const Vec diff = th - mode;
    CHECK(v == Approx(mu * net.value(th) + 0.5 * (1 - mu) * diff.dot(H * diff)).epsilon(1e-13));
    CHECK(field.U(th) == Approx(v).epsilon(1e-14));
    Vec fd(d);
    for (int j = 0; j < d; ++j) {
      Vec tp = th, tm = th;
      tp[j] += 1e-5;
      tm[j] -= 1e-5;
      fd[j] = (field.U(tp) - field.U(tm)) / 2e-5;
    }
    CHECK(rel_err(g, fd) < 1e-7);
  }
}

TEST_CASE("network: prefixes of the bases, their ridge fit, and the quadratic from a Hessian",
          "[surrogate]") {
  Rng rng(91, 3);
  const int d = 3, s = 40, n = 400;
  const Quadratic q(rng, d);
  const Mat X = q.draws(rng, n);
  Mat G = q.grads(X);
  for (Eigen::Index i = 0; i < n; ++i) G(i, 0) += std::sin(X(i, 1));  // a non-quadratic part
  RandomBasisNetwork net = softplus_net_for(X, s, rng);
  vhmc::RidgeTrainer trainer(net);
  trainer.add_gradients(X, G);
  SECTION("the prefix solve of all bases is the full solve") {
    const Vec all = trainer.solve_prefix(s, 1e-3);
    trainer.solve(1e-3);
    CHECK((all - net.weights()).norm() <= 1e-10 * all.norm());
    CHECK(trainer.solve_prefix(0, 1e-3).size() == 0);
  }
  SECTION("truncate keeps the first bases and their weights") {
    trainer.solve(1e-3);
    const Vec x0 = X.row(3).transpose();
    net.weights().tail(s - 10).setZero();
    Vec g_full, g_cut;
    const double z_full = net.value_grad(x0, g_full);
    net.truncate(10);
    CHECK(net.hidden() == 10);
    const double z_cut = net.value_grad(x0, g_cut);
    CHECK(z_cut == Approx(z_full).epsilon(1e-12));
    CHECK((g_cut - g_full).norm() <= 1e-12 * g_full.norm());
    net.truncate(0);  // the quadratic base alone (here none: zero)
    CHECK(net.value_grad(x0, g_cut) == Approx(net.offset()));
    CHECK(g_cut.norm() == 0.0);
  }
  SECTION("the quadratic base from the Hessian at the mode is exact for a Gaussian") {
    Mat Q;
    Vec b;
    const vhmc::LaplaceBase lb{&q.mu, &q.P};
    vhmc::quadratic_from_hessian(net.standardizer(), lb, Q, b);
    net.weights().setZero();
    net.set_quadratic(Q, b);
    Vec g;
    for (int i = 0; i < 5; ++i) {
      net.value_grad(X.row(i).transpose(), g);
      CHECK((g - q.grad(X.row(i).transpose())).norm() <= 1e-9 * q.grad(X.row(i).transpose()).norm());
    }
  }
}

TEST_CASE("train_surrogate chooses the number of bases by held-out error", "[surrogate]") {
  Rng rng(92, 3);
  const int d = 4;
  const Quadratic q(rng, d);
  auto train = [&](bool curved, vhmc::Report& rep) {
    vhmc::TrainingSet set(d, 100000);
    set.draw_from(Rng(93, 1));
    const Mat X = q.draws(rng, 1500);
    Vec g(d);
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const Vec x = X.row(i).transpose();
      g = q.grad(x);
      // A conservative non-quadratic part, U += 1.5 sin(2 x0), so that a potential's gradient can fit it.
      if (curved) g[0] += 3.0 * std::cos(2.0 * x[0]);
      set.add(x, q.U(x) + (curved ? 1.5 * std::sin(2.0 * x[0]) : 0.0), g);
    }
    Vec m;
    Mat S;
    mean_cov(X, m, S);
    vhmc::SurrogateTrainConfig tc;
    tc.select_hidden = true;
    RandomBasisNetwork net;
    Rng srng(94, 1);
    const vhmc::SurrogateFit fit = vhmc::train_surrogate(net, set, Standardizer::from_covariance(m, S), 1e300, tc, srng, rep);
    fit.report(rep, 0.0);
    return net.hidden();
  };
  vhmc::Report gaussian, curved;
  CHECK(train(false, gaussian) == 0);  // the quadratic alone is exact: no Gram matrix at all
  CHECK(std::get<std::string>(gaussian.at("quadratic")) == "least squares");
  CHECK(std::get<double>(gaussian.at("grad_rel_error")) < 1e-8);
  const int s = train(true, curved);
  CHECK(s > 0);  // the sine needs bases
  const Vec err = std::get<Vec>(curved.at("candidate_error"));
  const Vec size = std::get<Vec>(curved.at("candidate_hidden"));
  CHECK(size[size.size() - 1] == 0);
  // The candidates: all s drawn bases, s/2, s/4, s/16 and none.
  REQUIRE(size.size() == 5);
  CHECK(size[1] == std::floor(size[0] / 2));
  CHECK(size[2] == std::floor(size[0] / 4));
  CHECK(size[3] == std::floor(size[0] / 16));
  CHECK(err[err.size() - 1] > 1.25 * err.minCoeff());  // beyond the selection tolerance
}
