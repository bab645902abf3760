// Tests of the standalone pieces of the draw/gradient warmup ("[warmup-math]"):
// the Fisher-divergence diagonal estimator (adapt/draw_grad_diag.hpp), the low-rank
// estimator (adapt/fisher_low_rank.hpp), LowRankMetric (metric/low_rank_metric.hpp) and
// L-BFGS with its line search and inverse-Hessian estimate (model/lbfgs.hpp). Gaussian
// targets with known covariance give exact draws and exact gradients g = A (x - mu),
// A = Sigma^{-1}, so the estimators can be checked against the truth, not against MCMC.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <vhmc/adapt/draw_grad_diag.hpp>
#include <vhmc/adapt/fisher_low_rank.hpp>
#include <vhmc/adapt/switching_estimator.hpp>
#include <vhmc/metric/low_rank_metric.hpp>
#include <vhmc/metric/metrics.hpp>
#include <vhmc/model/glm.hpp>
#include <vhmc/model/lbfgs.hpp>
#include <vhmc/model/mode.hpp>

using vhmc::Mat;
using vhmc::Rng;
using vhmc::Vec;

namespace {

Vec normals(Rng& rng, Eigen::Index d) {
  Vec z(d);
  for (Eigen::Index i = 0; i < d; ++i) z[i] = rng.normal();
  return z;
}

Mat random_orthonormal(Rng& rng, Eigen::Index d, Eigen::Index k) {
  Mat Z(d, k);
  for (Eigen::Index j = 0; j < k; ++j) Z.col(j) = normals(rng, d);
  Eigen::HouseholderQR<Mat> qr(Z);
  return qr.householderQ() * Mat::Identity(d, k);
}

// A Gaussian N(mu, Sigma): exact draws x = mu + L z and their gradients of U = -log p.
struct Gaussian {
  Vec mu;
  Mat Sigma, A, L;
  Gaussian(const Vec& m, const Mat& S) : mu(m), Sigma(S), A(S.inverse()), L(S.llt().matrixL()) {}
  Vec draw(Rng& rng) const { return mu + L * normals(rng, mu.size()); }
  Vec grad(const Vec& x) const { return A * (x - mu); }
};

// Largest / smallest eigenvalue of W^{-1/2} Sigma W^{-1/2}: 1 for a perfect metric.
double condition_after(const Mat& W, const Mat& Sigma) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Mat> es(Sigma, W);
  const Vec ev = es.eigenvalues();
  return ev.maxCoeff() / ev.minCoeff();
}

// Sigma = D0 (I + V diag(spikes - 1) V') D0 with V orthonormal d x k.
Mat spiked_covariance(Rng& rng, const Vec& d0, const Vec& spikes) {
  const Mat V = random_orthonormal(rng, d0.size(), spikes.size());
  Mat B = V * (spikes.array() - 1.0).matrix().asDiagonal() * V.transpose();
  B.diagonal().array() += 1.0;
  return d0.asDiagonal() * B * d0.asDiagonal();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Diagonal draw/gradient estimator

TEST_CASE("Draw/gradient diagonal: exact from two points on a diagonal Gaussian",
          "[warmup-math][diag]") {
  // g_i = (x_i - mu_i) / s_i^2 is affine in x_i alone, so var(g_i) = var(x_i) / s_i^4 for the
  // sample variances of ANY point set: two distinct points already give s_i^2 exactly.
  const Vec s = (Vec(5) << 1e-3, 0.5, 1.0, 3.0, 1e3).finished();
  const Vec mu = (Vec(5) << 1.0, -2.0, 0.0, 40.0, -1e4).finished();
  const Gaussian gauss(mu, Mat(s.cwiseAbs2().asDiagonal()));
  Rng rng(11);
  vhmc::DrawGradDiag est(5);
  for (int n = 0; n < 2; ++n) {
    const Vec x = gauss.draw(rng);
    est.add(x, gauss.grad(x));
  }
  const Vec w = est.inv_metric(Vec::Ones(5));
  for (int i = 0; i < 5; ++i) {
    CHECK(w[i] == Approx(s[i] * s[i]).epsilon(1e-10));
    CHECK(est.location(w)[i] == Approx(mu[i]).epsilon(1e-10).margin(1e-9 * s[i]));
  }
}

TEST_CASE("Draw/gradient diagonal: recovers a diagonal Gaussian and is the geometric mean "
          "of the covariance and inverse-precision diagonals on a correlated one",
          "[warmup-math][diag]") {
  Rng rng(12);
  const int d = 4;
  SECTION("diagonal Gaussian, many exact draws") {
    const Vec s = (Vec(d) << 0.1, 1.0, 7.0, 50.0).finished();
    const Gaussian gauss(Vec::Constant(d, 3.0), Mat(s.cwiseAbs2().asDiagonal()));
    vhmc::DrawGradDiag est(d);
    for (int n = 0; n < 1000; ++n) {
      const Vec x = gauss.draw(rng);
      est.add(x, gauss.grad(x));
    }
    const Vec w = est.inv_metric(Vec::Ones(d));
    for (int i = 0; i < d; ++i) CHECK(w[i] == Approx(s[i] * s[i]).epsilon(1e-10));
  }
  SECTION("correlated Gaussian: w_i -> sqrt(Sigma_ii / A_ii)") {
    Mat S(d, d);
    S << 4.0, 1.8, 0.0, 0.0, 1.8, 1.0, 0.3, 0.0, 0.0, 0.3, 2.0, -0.5, 0.0, 0.0, -0.5, 0.5;
    const Gaussian gauss(Vec::Zero(d), S);
    vhmc::DrawGradDiag est(d);
    for (int n = 0; n < 40000; ++n) {
      const Vec x = gauss.draw(rng);
      est.add(x, gauss.grad(x));
    }
    const Vec w = est.inv_metric(Vec::Ones(d));
    for (int i = 0; i < d; ++i) {
      const double truth = std::sqrt(S(i, i) / gauss.A(i, i));
      CHECK(w[i] == Approx(truth).epsilon(0.03));  // Monte Carlo error ~ 1/sqrt(2 n) each
      CHECK(w[i] < S(i, i));                         // between 1/A_ii and Sigma_ii
      CHECK(w[i] > 1.0 / gauss.A(i, i));
    }
  }
}

TEST_CASE("Draw/gradient diagonal: Welford accuracy with a large common offset",
          "[warmup-math][diag]") {
  // Draws 1e8 + O(1e-3): a two-pass or sum-of-squares formula would lose every digit.
  vhmc::DrawGradDiag est(1);
  const double s = 1e-3, mu = 1e8;
  std::vector<double> xs = {mu - s, mu, mu + s, mu + 2 * s};
  for (double x : xs) est.add(Vec::Constant(1, x), Vec::Constant(1, (x - mu) / (s * s)));
  CHECK(est.inv_metric(Vec::Ones(1))[0] == Approx(s * s).epsilon(1e-6));
}

TEST_CASE("Draw/gradient diagonal: clamping, fallbacks and the one-gradient start",
          "[warmup-math][diag]") {
  SECTION("from one gradient: 1/|g|, clamped; 0 and NaN take the others' geometric mean") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Vec g = (Vec(5) << 2.0, -0.25, 0.0, 1e30, nan).finished();
    const Vec w = vhmc::inv_metric_from_gradient(g);
    CHECK(w[0] == Approx(0.5));
    CHECK(w[1] == Approx(4.0));
    CHECK(w[3] == Approx(1e-20));  // 1/1e30 clamped up to 1e-20
    const double geo = std::cbrt(0.5 * 4.0 * 1e-20);
    CHECK(w[2] == Approx(geo));    // not 1/1e-20 = 1e20 (a velocity of sd 1e10)
    CHECK(w[4] == Approx(geo));
  }
  SECTION("a start at the mode (every component 0 or NaN): the unit metric") {
    const Vec w = vhmc::inv_metric_from_gradient((Vec(3) << 0.0, -0.0, 0.0).finished());
    CHECK(w == Vec::Ones(3));
  }
  SECTION("constant draws or gradients keep the previous value") {
    vhmc::DrawGradDiag est(3);
    const Vec fallback = (Vec(3) << 7.0, 8.0, 9.0).finished();
    CHECK(est.inv_metric(fallback) == fallback);  // n < 2
    est.add((Vec(3) << 1.0, 1.0, 3.0).finished(), (Vec(3) << 1.0, 2.0, 3.0).finished());
    est.add((Vec(3) << 2.0, 2.0, 3.0).finished(), (Vec(3) << 2.0, 2.0, 5.0).finished());
    const Vec w = est.inv_metric(fallback);
    CHECK(w[0] == Approx(1.0));  // var x = var g
    CHECK(w[1] == 8.0);          // var g = 0: ratio inf
    CHECK(w[2] == 9.0);          // var x = 0: ratio 0
  }
}

TEST_CASE("Switching estimator: foreground replaced by the background at a switch",
          "[warmup-math][diag]") {
  vhmc::SwitchingEstimator<vhmc::DrawGradDiag> sw(1);
  for (int i = 0; i < 5; ++i) sw.add(Vec::Constant(1, i), Vec::Constant(1, -i));
  CHECK(sw.foreground_count() == 5);
  CHECK(sw.background_count() == 5);
  sw.switch_window();
  CHECK(sw.foreground_count() == 5);
  CHECK(sw.background_count() == 0);
  for (int i = 0; i < 3; ++i) sw.add(Vec::Constant(1, 10 + i), Vec::Constant(1, i));
  CHECK(sw.foreground_count() == 8);
  sw.switch_window();
  CHECK(sw.foreground_count() == 3);  // only the pairs since the last switch
  CHECK(sw.foreground().draw_mean()[0] == Approx(11.0));
}

// ---------------------------------------------------------------------------------------
// Low-rank estimator

TEST_CASE("Fisher mean: S B S = A, and sqrt(a / b) for diagonal matrices",
          "[warmup-math][lowrank]") {
  Rng rng(21);
  const int d = 6;
  Mat Za(d, 2 * d), Zb(d, 2 * d);
  for (int j = 0; j < 2 * d; ++j) {
    Za.col(j) = normals(rng, d);
    Zb.col(j) = normals(rng, d);
  }
  const Mat A = Za * Za.transpose(), B = Zb * Zb.transpose();
  const Mat S = vhmc::spd_fisher_mean(A, B);
  CHECK((S * B * S - A).norm() <= 1e-10 * A.norm());
  CHECK(S.llt().info() == Eigen::Success);
  const Vec a = (Vec(3) << 4.0, 1.0, 9.0).finished(), b = (Vec(3) << 1.0, 4.0, 0.25).finished();
  const Mat Sd = vhmc::spd_fisher_mean(Mat(a.asDiagonal()), Mat(b.asDiagonal()));
  for (int i = 0; i < 3; ++i) CHECK(Sd(i, i) == Approx(std::sqrt(a[i] / b[i])));
}

TEST_CASE("Low-rank estimator: exact dense recovery when every eigenvector is kept",
          "[warmup-math][lowrank]") {
  // With exact gradients C_g = S^-1 C_x S^-1 for the sample covariances, so the Fisher mean
  // is S itself as soon as the n pairs span R^d; cutoff 1 and max_rank d keep everything.
  Rng rng(22);
  const int d = 8;
  const Vec d0 = (Vec(d) << 0.1, 0.5, 1, 2, 5, 10, 0.01, 3).finished();
  const Mat Sigma = spiked_covariance(rng, d0, (Vec(3) << 30.0, 0.05, 4.0).finished());
  const Gaussian gauss(Vec::LinSpaced(d, -1.0, 1.0), Sigma);
  vhmc::DrawGradBuffer buf(d);
  for (int n = 0; n < 3 * d; ++n) {
    const Vec x = gauss.draw(rng);
    buf.add(x, gauss.grad(x));
  }
  vhmc::LowRankConfig cfg;
  cfg.cutoff = 1.0;
  cfg.max_rank = d;
  cfg.gamma = 1e-12;
  const vhmc::LowRankFactors f = vhmc::fisher_low_rank(buf, Vec::Ones(d), cfg);
  const vhmc::LowRankMetric metric(f);
  CHECK(metric.rank() >= d - 1);
  CHECK((metric.inv_metric_dense() - Sigma).norm() <= 1e-8 * Sigma.norm());
  CHECK((f.location - gauss.mu).norm() <= 1e-8);
}

TEST_CASE("Low-rank estimator: diagonal plus rank-k covariance, default settings",
          "[warmup-math][lowrank]") {
  Rng rng(23);
  const int d = 40;
  Vec d0(d);
  for (int i = 0; i < d; ++i) d0[i] = std::exp(0.25 * normals(rng, 1)[0]) * (i % 2 ? 1.0 : 10.0);
  const Vec spikes = (Vec(3) << 100.0, 25.0, 0.02).finished();
  const Mat Sigma = spiked_covariance(rng, d0, spikes);
  const Gaussian gauss(Vec::Zero(d), Sigma);
  vhmc::DrawGradBuffer buf(d);
  vhmc::DrawGradDiag diag(d);
  for (int n = 0; n < 200; ++n) {
    const Vec x = gauss.draw(rng);
    buf.add(x, gauss.grad(x));
    diag.add(x, gauss.grad(x));
  }
  const vhmc::LowRankMetric metric(vhmc::fisher_low_rank(buf, Vec::Ones(d)));
  const double kappa_lr = condition_after(metric.inv_metric_dense(), Sigma);
  const double kappa_diag = condition_after(Mat(diag.inv_metric(Vec::Ones(d)).asDiagonal()), Sigma);
  INFO("rank " << metric.rank() << ", condition number: low-rank " << kappa_lr << ", diagonal "
               << kappa_diag);
  CHECK(metric.rank() >= 3);
  CHECK(metric.rank() <= 10);
  // Eigenvalues left out lie in [1/2, 2] of the diagonal-rescaled covariance: kappa <= 4.
  CHECK(kappa_lr < 4.0);
  CHECK(kappa_diag > 100.0);
  CHECK(metric.inv_metric_diag().isApprox(metric.inv_metric_dense().diagonal(), 1e-12));
}

TEST_CASE("Low-rank estimator: few pairs, rank cap and degenerate windows",
          "[warmup-math][lowrank]") {
  Rng rng(24);
  const int d = 50;
  const Mat Sigma = spiked_covariance(rng, Vec::Ones(d), (Vec(2) << 50.0, 10.0).finished());
  const Gaussian gauss(Vec::Zero(d), Sigma);
  SECTION("10 pairs in 50 dimensions: positive definite, rank <= cap") {
    vhmc::DrawGradBuffer buf(d);
    for (int n = 0; n < 10; ++n) {
      const Vec x = gauss.draw(rng);
      buf.add(x, gauss.grad(x));
    }
    vhmc::LowRankConfig cfg;
    cfg.max_rank = 4;
    const vhmc::LowRankMetric metric(vhmc::fisher_low_rank(buf, Vec::Ones(d), cfg));
    CHECK(metric.rank() <= 4);
    CHECK(metric.rank() >= 1);
    CHECK(metric.inv_metric_dense().llt().info() == Eigen::Success);
    INFO("condition number " << condition_after(metric.inv_metric_dense(), Sigma));
    CHECK(condition_after(metric.inv_metric_dense(), Sigma) < 60.0);  // identity: 50
  }
  SECTION("fewer than two pairs, or identical pairs: the fallback diagonal") {
    vhmc::DrawGradBuffer buf(d);
    const Vec fallback = Vec::Constant(d, 2.0);
    CHECK(vhmc::fisher_low_rank(buf, fallback).U.cols() == 0);
    for (int n = 0; n < 3; ++n) buf.add(Vec::Ones(d), Vec::Zero(d));
    const vhmc::LowRankFactors f = vhmc::fisher_low_rank(buf, fallback);
    CHECK(f.U.cols() == 0);
    CHECK(f.sigma.isApprox(fallback.cwiseSqrt()));
  }
}

TEST_CASE("Low-rank estimator: no spurious directions from few pairs in many dimensions",
          "[warmup-math][lowrank]") {
  // Independent standard logistic coordinates (U = x + 2 log(1 + e^-x), grad tanh(x / 2)):
  // the Fisher-optimal metric is diagonal. With 40 exact draws in 5,000 or 50,000 dimensions
  // the full span gave eigenvalues of 1e-9 and 6-90; the leading 20 directions give none.
  // A real block of 10 correlated coordinates (correlation 0.9) stays found.
  auto fill = [](int d, int n, double s, std::uint64_t seed) {
    Rng rng(seed);
    vhmc::DrawGradBuffer buf(d);
    const int B = std::min(10, d);
    const double kappa = s * s / (1.0 + B * s * s);  // Sigma^-1 = I - kappa 1 1' on the block
    for (int t = 0; t < n; ++t) {
      Vec x(d), g(d);
      for (int i = 0; i < d; ++i) {
        const double u = rng.uniform();  // in (0, 1)
        x[i] = std::log(u / (1.0 - u));
        g[i] = std::tanh(0.5 * x[i]);
      }
      if (s > 0) {
        const Vec z = normals(rng, B + 1);
        for (int i = 0; i < B; ++i) x[i] = z[i] + s * z[B];
        const double sum = x.head(B).sum();
        for (int i = 0; i < B; ++i) g[i] = x[i] - kappa * sum;
      }
      buf.add(x, g);
    }
    return vhmc::fisher_low_rank(buf, Vec::Ones(d));
  };
  CHECK(fill(5000, 40, 0.0, 31).lambda.size() == 0);
  CHECK(fill(500, 500, 0.0, 32).lambda.size() == 0);
  for (const int d : {100, 500}) {
    const vhmc::LowRankFactors f = fill(d, d == 100 ? 40 : 500, 3.0, 33);
    REQUIRE(f.lambda.size() >= 1);
    INFO("d = " << d << ", largest eigenvalue " << f.lambda[0]);
    CHECK(f.lambda[0] > 5.0);
    CHECK(std::fabs(f.U.col(0).head(10).sum()) / std::sqrt(10.0) > 0.9);  // along the block
  }
}

TEST_CASE("Pair buffer: a window above its capacity keeps an evenly thinned subsample",
          "[warmup-math][lowrank]") {
  // The capacity binds only where d times the window is large: 100,000 levels store 20
  // pairs per window, a model of 100 coordinates every pair of any default window.
  CHECK(vhmc::pair_capacity(100000) == 20);
  CHECK(vhmc::pair_capacity(100) > 10000);
  CHECK(vhmc::pair_capacity(10000000) == vhmc::min_pair_capacity);
  const int d = 3;
  vhmc::DrawGradBuffer buf(d, 8);
  vhmc::DrawGradDiag all(d);
  for (int j = 0; j < 41; ++j) {
    const Vec x = Vec::Constant(d, j), g = Vec::Constant(d, -j);
    buf.add(x, g);
    all.add(x, g);
    CHECK(buf.stored() <= 8);
  }
  CHECK(buf.n() == 41);
  CHECK(buf.thinned());
  const Mat z = buf.pairs();  // offered pairs 0, 8, 16, 24, 32, 40 at stride 8
  REQUIRE(z.cols() == 2 * buf.stored());
  for (Eigen::Index j = 0; j < buf.stored(); ++j) {
    CHECK(z(0, j) == 8.0 * j);
    CHECK(z(0, buf.stored() + j) == -8.0 * j);
  }
  CHECK(buf.moments().draw_mean().isApprox(all.draw_mean()));
  CHECK(buf.moments().n() == 41);
  buf.reset();
  CHECK(buf.n() == 0);
  CHECK_FALSE(buf.thinned());
}

TEST_CASE("Low-rank estimator: a chain's reused scratch gives the estimate of a fresh one, "
          "window after window (reset, smaller, thinned)",
          "[warmup-math][lowrank]") {
  // Windows of 30, then 9, then 50 pairs (thinned to at most 24): the scratch is grown,
  // then read through fewer columns, then grown again; each estimate must equal, bit for
  // bit, the one made with a scratch of its own.
  Rng rng(41);
  const int d = 12;
  const Mat Sigma = spiked_covariance(rng, Vec::LinSpaced(d, 0.2, 3.0), (Vec(2) << 25.0, 0.04).finished());
  const Gaussian gauss(Vec::Zero(d), Sigma);
  vhmc::DrawGradBuffer buf(d, 24);
  vhmc::LowRankWork work;
  for (int pairs : {30, 9, 50}) {
    buf.reset();
    for (int n = 0; n < pairs; ++n) {
      const Vec x = gauss.draw(rng);
      buf.add(x, gauss.grad(x));
    }
    const Vec w = Vec::LinSpaced(d, 0.5, 1.5);
    const vhmc::LowRankFactors reused = vhmc::fisher_low_rank(buf, w, {}, &work);
    const vhmc::LowRankFactors fresh = vhmc::fisher_low_rank(buf, w);
    REQUIRE(fresh.lambda.size() > 0);
    CHECK(reused.sigma == fresh.sigma);
    CHECK(reused.U == fresh.U);
    CHECK(reused.lambda == fresh.lambda);
    CHECK(reused.location == fresh.location);
    CHECK(work.z.cols() <= 2 * (buf.capacity() + 1));
  }
  CHECK(buf.thinned());
}

TEST_CASE("Low-rank estimator: a thinned window takes its diagonal from every pair and "
          "still recovers a Gaussian exactly",
          "[warmup-math][lowrank]") {
  // Centred by the window's means over every pair, the stored gradients are still exactly
  // S^-1 times the stored draws (the gradient is affine in x), so the span's Fisher mean is S.
  Rng rng(25);
  const int d = 8;
  const Vec d0 = (Vec(d) << 0.1, 0.5, 1, 2, 5, 10, 0.01, 3).finished();
  const Mat Sigma = spiked_covariance(rng, d0, (Vec(3) << 30.0, 0.05, 4.0).finished());
  const Gaussian gauss(Vec::LinSpaced(d, -1.0, 1.0), Sigma);
  vhmc::DrawGradBuffer buf(d, 40);
  for (int n = 0; n < 100; ++n) {
    const Vec x = gauss.draw(rng);
    buf.add(x, gauss.grad(x));
  }
  REQUIRE(buf.thinned());
  REQUIRE(buf.stored() >= 2 * d);  // pairs_per_direction = 2: the whole span is informed
  vhmc::LowRankConfig cfg;
  cfg.cutoff = 1.0;
  cfg.max_rank = d;
  cfg.gamma = 1e-12;
  const vhmc::LowRankFactors f = vhmc::fisher_low_rank(buf, Vec::Ones(d), cfg);
  CHECK(f.sigma.cwiseAbs2().isApprox(buf.moments().inv_metric(Vec::Ones(d)), 1e-12));
  const vhmc::LowRankMetric metric(f);
  CHECK((metric.inv_metric_dense() - Sigma).norm() <= 1e-8 * Sigma.norm());
  CHECK((f.location - gauss.mu).norm() <= 1e-8);
}

// ---------------------------------------------------------------------------------------
// LowRankMetric against its dense equivalent

TEST_CASE("LowRankMetric: sharp and sample_momentum agree with the dense metric",
          "[warmup-math][metric]") {
  Rng rng(31);
  const int d = 7, k = 3;
  vhmc::LowRankFactors f;
  f.sigma = (Vec(d) << 0.5, 1, 2, 0.1, 3, 1, 10).finished();
  f.U = random_orthonormal(rng, d, k);
  f.lambda = (Vec(k) << 20.0, 0.05, 3.0).finished();
  const vhmc::LowRankMetric metric(f);
  const Mat W = metric.inv_metric_dense(), Minv = metric.metric_dense();
  CHECK((W * Minv - Mat::Identity(d, d)).norm() <= 1e-12);
  SECTION("v = W p") {
    Vec v(d);
    for (int rep = 0; rep < 5; ++rep) {
      const Vec p = normals(rng, d);
      metric.sharp(p, v);
      CHECK((v - W * p).norm() <= 1e-13 * (W * p).norm());
    }
  }
  SECTION("p = A z with A A' = W^{-1}, z the same normals") {
    // The factor the metric applies: A = D^-1 (I + U (Lambda^-1/2 - I) U').
    Mat A = f.U * (f.lambda.array().rsqrt() - 1.0).matrix().asDiagonal() * f.U.transpose();
    A.diagonal().array() += 1.0;
    A = f.sigma.cwiseInverse().asDiagonal() * A;
    CHECK((A * A.transpose() - Minv).norm() <= 1e-12 * Minv.norm());
    Rng r1(5), r2(5);
    Vec p(d);
    for (int rep = 0; rep < 5; ++rep) {
      metric.sample_momentum(r1, p);
      const Vec z = normals(r2, d);
      CHECK((p - A * z).norm() <= 1e-13 * (A * z).norm());
    }
  }
  SECTION("Monte Carlo covariance of p") {
    Vec p(d);
    Mat C = Mat::Zero(d, d);
    const int n = 40000;
    for (int rep = 0; rep < n; ++rep) {
      metric.sample_momentum(rng, p);
      C += p * p.transpose();
    }
    C /= n;
    // Whitened: W^{1/2} C W^{1/2} ~ I up to O(1/sqrt n) noise.
    Eigen::GeneralizedSelfAdjointEigenSolver<Mat> es(C, Minv);
    CHECK(es.eigenvalues().minCoeff() > 0.95);
    CHECK(es.eigenvalues().maxCoeff() < 1.05);
  }
}

TEST_CASE("LowRankMetric: rank 0 is the diagonal metric", "[warmup-math][metric]") {
  const Vec w = (Vec(4) << 0.25, 4.0, 1.0, 9.0).finished();
  const vhmc::LowRankMetric lr(w);
  const vhmc::DiagMetric dm(w);
  Rng r1(3), r2(3);
  Vec p1(4), p2(4), v1(4), v2(4);
  for (int rep = 0; rep < 3; ++rep) {
    lr.sample_momentum(r1, p1);
    dm.sample_momentum(r2, p2);
    CHECK((p1 - p2).norm() <= 1e-15 * p2.norm());
    lr.sharp(p1, v1);
    dm.sharp(p1, v2);
    CHECK((v1 - v2).norm() <= 1e-15 * v2.norm());
  }
  CHECK(lr.rank() == 0);
  CHECK(lr.inv_metric_diag().isApprox(w));
}

TEST_CASE("LowRankMetric: set() from a window, and invalid factors are refused",
          "[warmup-math][metric]") {
  Rng rng(33);
  const int d = 10;
  const Mat Sigma = spiked_covariance(rng, Vec::Ones(d), (Vec(1) << 30.0).finished());
  const Gaussian gauss(Vec::Zero(d), Sigma);
  vhmc::LowRankMetric metric(Vec::Ones(d));
  vhmc::DrawGradBuffer buf(d);
  for (int n = 0; n < 100; ++n) {
    const Vec x = gauss.draw(rng);
    buf.add(x, gauss.grad(x));
  }
  metric.set(buf);
  CHECK(metric.rank() >= 1);
  CHECK(condition_after(metric.inv_metric_dense(), Sigma) < 4.0);
  vhmc::LowRankFactors bad{Vec::Ones(d), random_orthonormal(rng, d, 1), Vec::Constant(1, -1.0), Vec()};
  CHECK_THROWS(metric.set(bad));
}

// ---------------------------------------------------------------------------------------
// L-BFGS

namespace {

struct LbfgsQuadratic {  // U = x'Ax/2 - b'x, mode A^{-1} b
  Mat A;
  Vec b;
  int evals = 0;
  double U_grad(const Vec& x, Vec& g) {
    ++evals;
    g.noalias() = A * x;
    const double u = 0.5 * x.dot(g) - b.dot(x);
    g -= b;
    return u;
  }
};

struct Rosenbrock {  // sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, mode (1, ..., 1)
  double U_grad(const Vec& x, Vec& g) {
    g = Vec::Zero(x.size());
    double u = 0.0;
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
      u += 100.0 * a * a + b * b;
      g[i] += -400.0 * a * x[i] - 2.0 * b;
      g[i + 1] += 200.0 * a;
    }
    return u;
  }
};

struct LogBarrier {  // sum_i x_i - log x_i, +inf outside x > 0, mode (1, ..., 1)
  double U_grad(const Vec& x, Vec& g) {
    g = Vec::Ones(x.size()) - x.cwiseInverse();
    if ((x.array() <= 0.0).any()) return vhmc::kInf;
    return (x.array() - x.array().log()).sum();
  }
};

struct NanWall {  // ||x - c||^2 / 2 inside the ball ||x|| < 2, NaN outside
  Vec c;
  double U_grad(const Vec& x, Vec& g) {
    g = x - c;
    if (x.norm() >= 2.0) return std::numeric_limits<double>::quiet_NaN();
    return 0.5 * (x - c).squaredNorm();
  }
};

}  // namespace

TEST_CASE("Strong Wolfe line search: both conditions hold at the accepted step",
          "[warmup-math][lbfgs]") {
  Rosenbrock ros;
  const Vec x0 = (Vec(2) << -1.2, 1.0).finished();
  Vec g0;
  const double f0 = ros.U_grad(x0, g0);
  const Vec p = -g0;
  for (double a0 : {1e-6, 1e-3, 1.0, 10.0}) {
    const vhmc::LineSearchResult ls = vhmc::wolfe_line_search(ros, x0, f0, g0, p, a0);
    INFO("alpha0 " << a0 << " -> " << ls.alpha << " in " << ls.evals << " evaluations");
    REQUIRE(ls.ok);
    CHECK(ls.wolfe);
    CHECK(ls.value <= f0 + 1e-4 * ls.alpha * g0.dot(p));
    CHECK(std::fabs(ls.gradient.dot(p)) <= 0.9 * std::fabs(g0.dot(p)));
    CHECK((ls.theta - (x0 + ls.alpha * p)).norm() <= 1e-14);
  }
}

TEST_CASE("L-BFGS: quadratic mode and inverse-Hessian estimate", "[warmup-math][lbfgs]") {
  Rng rng(41);
  const int d = 12;
  const Mat Q = random_orthonormal(rng, d, d);
  const Vec ev = Vec::LinSpaced(d, 0.0, std::log(1e3)).array().exp();  // condition 1000
  LbfgsQuadratic quad{Q * ev.asDiagonal() * Q.transpose(), normals(rng, d)};
  const Vec mode = quad.A.ldlt().solve(quad.b);
  const Mat Ainv = quad.A.inverse();
  SECTION("default line search") {
    vhmc::LbfgsOptions opt;
    opt.history = d;
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(quad, Vec::Zero(d), opt);
    INFO(r.message << " after " << r.iterations << " iterations, " << r.n_evals << " evaluations");
    REQUIRE(r.converged);
    const Vec delta = r.theta - mode;
    CHECK(std::sqrt(delta.dot(quad.A * delta)) < 1e-6);  // in posterior sd (Laplace) units
    CHECK(r.n_evals == quad.evals);
    const vhmc::LbfgsHistory& h = r.history;
    REQUIRE(h.size() >= 2);
    const Mat H = h.inverse_hessian(d);
    // Compact form = two-loop recursion; its diagonal = the dense diagonal.
    for (int rep = 0; rep < 3; ++rep) {
      const Vec v = normals(rng, d);
      CHECK((H * v - h.apply(v)).norm() <= 1e-10 * h.apply(v).norm());
    }
    CHECK((h.inverse_hessian_diag(d) - H.diagonal()).norm() <= 1e-12 * H.diagonal().norm());
    CHECK(H.llt().info() == Eigen::Success);
    // Secant equation for the newest pair: H y = s exactly (y = A s on a quadratic).
    CHECK((H * h.y().back() - h.s().back()).norm() <= 1e-8 * h.s().back().norm());
    // Inexact (Wolfe) steps break BFGS's hereditary property, so older pairs hold only
    // approximately: the curvature of H along every explored direction y_j = A s_j is
    // within a factor 2 of that of A^{-1} (y'Hy / y'A^{-1}y, with y'A^{-1}y = y's), while
    // H as a whole can be far from A^{-1} (the m pairs need not span R^d).
    for (int j = 0; j < h.size(); ++j) {
      const Vec& s = h.s()[static_cast<std::size_t>(j)];
      const Vec& y = h.y()[static_cast<std::size_t>(j)];
      const double rq = y.dot(H * y) / y.dot(s);
      INFO("pair " << j << ": y'Hy / y's = " << rq);
      CHECK(rq > 0.5);
      CHECK(rq < 2.0);
    }
  }
  SECTION("exact line search: H = A^{-1} after d steps") {
    // With c2 = 1e-8 each step is the exact minimiser along p (the cubic interpolation of a
    // quadratic phi is exact), the steps are A-conjugate and BFGS terminates in d steps with
    // H = A^{-1} (quadratic termination).
    // H is taken when the d-th pair arrives (later pairs are rounding noise at the mode).
    vhmc::LbfgsOptions opt;
    opt.history = d;
    opt.line_search.c2 = 1e-8;
    Mat H_d;
    auto hook = [&](const Vec&, double, const Vec&, const vhmc::LbfgsHistory& h) {
      if (h.size() == d && H_d.size() == 0) H_d = h.inverse_hessian(d);
    };
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(quad, Vec::Zero(d), opt, hook);
    INFO(r.message << " after " << r.iterations << " iterations");
    REQUIRE(r.converged);
    CHECK(r.iterations <= d + 1);
    CHECK((r.theta - mode).norm() <= 1e-10 * mode.norm());
    REQUIRE(H_d.size() == d * d);
    CHECK((H_d - Ainv).norm() <= 1e-8 * Ainv.norm());
  }
}

TEST_CASE("L-BFGS: Rosenbrock in 2 and 10 dimensions", "[warmup-math][lbfgs]") {
  Rosenbrock ros;
  for (int d : {2, 10}) {
    Vec x0 = Vec::Constant(d, 1.0);
    for (int i = 0; i < d; i += 2) x0[i] = -1.2;
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(ros, x0);
    INFO("d = " << d << ": " << r.message << " after " << r.iterations << " iterations, "
                << r.n_evals << " evaluations");
    CHECK(r.converged);
    CHECK((r.theta - Vec::Ones(d)).lpNorm<Eigen::Infinity>() < 1e-6);
    CHECK(r.value < 1e-12);
  }
}

TEST_CASE("L-BFGS: logistic regression mode agrees with damped Newton", "[warmup-math][lbfgs]") {
  Rng rng(43);
  const int n = 300, k = 5;
  Mat X(n, k);
  for (int j = 0; j < k; ++j) X.col(j) = normals(rng, n) * (j + 1.0);
  const Vec beta = (Vec(k) << 1.0, -0.5, 0.25, 0.0, 0.1).finished();
  Vec y(n);
  for (int i = 0; i < n; ++i) {
    const double eta = 0.3 + X.row(i).dot(beta);
    y[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0;
  }
  const vhmc::GlmData data(X.data(), n, k, y.data());
  vhmc::GlmPotential pot(data, vhmc::family_named("binomial_logit"), true, vhmc::Prior::normal(0.0, 10.0),
                         vhmc::Prior::normal(0.0, 5.0));
  const vhmc::ModeResult newton = vhmc::newton_mode(pot, Vec::Zero(k + 1));
  REQUIRE(newton.converged);
  const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(pot, Vec::Zero(k + 1));
  INFO(r.message << " after " << r.iterations << " iterations, " << r.n_evals << " evaluations");
  REQUIRE(r.converged);
  // Distance in posterior standard deviations (Laplace scale).
  const Vec sd = newton.hessian.inverse().diagonal().cwiseSqrt();
  CHECK(((r.theta - newton.mode).array() / sd.array()).abs().maxCoeff() < 1e-5);
  CHECK(r.value == Approx(newton.value).epsilon(1e-12));
  // The L-BFGS inverse-Hessian diagonal is of the right order (not exact: m = 6 pairs).
  const Vec hd = r.history.inverse_hessian_diag(k + 1);
  const Vec ratio = hd.array() / sd.array().square();
  INFO("diag(H_lbfgs) / diag(H_newton^-1): " << ratio.transpose());
  CHECK(ratio.minCoeff() > 0.1);
  CHECK(ratio.maxCoeff() < 10.0);
}

TEST_CASE("L-BFGS: non-finite potentials", "[warmup-math][lbfgs]") {
  SECTION("+inf outside the support: steps are cut back inside") {
    LogBarrier pot;
    const Vec x0 = (Vec(3) << 0.02, 3.0, 20.0).finished();
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(pot, x0);
    INFO(r.message);
    CHECK(r.converged);
    CHECK((r.theta - Vec::Ones(3)).lpNorm<Eigen::Infinity>() < 1e-6);
  }
  SECTION("NaN beyond a wall") {
    NanWall pot{(Vec(2) << 1.5, 0.0).finished()};
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(pot, (Vec(2) << -1.9, 0.5).finished());
    INFO(r.message);
    CHECK(r.converged);
    CHECK((r.theta - pot.c).norm() < 1e-6);
  }
  SECTION("not finite at the initial values") {
    LogBarrier pot;
    const vhmc::LbfgsResult r = vhmc::lbfgs_minimize(pot, (Vec(2) << -1.0, 1.0).finished());
    CHECK_FALSE(r.converged);
    CHECK(r.message.find("initial") != std::string::npos);
    CHECK(r.n_evals == 1);
  }
}
