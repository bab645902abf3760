// The draw/gradient ("Fisher") warmup: its window schedule, its convergence test, the
// metrics it estimates and starts from, and what it does to a chain (automatic end of
// warmup included), through the samplers' entry point run_hmc_family.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <cmath>

#include "test_util.hpp"

using vhmc::ChainConfig;
using vhmc::ChainOutput;
using vhmc::DenseMetric;
using vhmc::DiagMetric;
using vhmc::FisherConfig;
using vhmc::FisherSchedule;
using vhmc::LowRankMetric;
using vhmc::Mat;
using vhmc::Vec;

namespace {

// A Gaussian potential with covariance S (precision P = S^-1), for correlated targets.
struct CorrelatedGaussian {
  Mat P;
  explicit CorrelatedGaussian(const Mat& S) : P(S.inverse()) {}
  int dim() const { return static_cast<int>(P.rows()); }
  double U(const Vec& x) { return 0.5 * x.dot(P * x); }
  double U_grad(const Vec& x, Vec& g) {
    g = P * x;
    return 0.5 * x.dot(g);
  }
};

// d-dimensional covariance: sds log-spaced over `decades`, and coordinates 0 and 1
// correlated with rho.
Mat test_covariance(int d, double decades, double rho) {
  Vec sd(d);
  for (int i = 0; i < d; ++i) sd[i] = std::pow(10.0, decades * (i / double(d - 1) - 0.5));
  Mat R = Mat::Identity(d, d);
  R(0, 1) = R(1, 0) = rho;
  return sd.asDiagonal() * R * sd.asDiagonal();
}

ChainConfig auto_config(int max_warmup, int sampling, std::uint64_t s) {
  ChainConfig cfg = vt::chain_config(max_warmup, sampling, s);
  cfg.warmup_auto = true;
  return cfg;
}

}  // namespace

TEST_CASE("Fisher schedule: early switches, growing windows, the final window", "[warmup]") {
  SECTION("fixed warmup of 1000") {
    FisherSchedule plan(1000, false);
    CHECK(plan.early_end() == 100);
    CHECK(plan.final_start() == 850);
    CHECK(plan.end() == 1000);
    CHECK(plan.stage(99) == FisherSchedule::Stage::Early);
    CHECK(plan.stage(100) == FisherSchedule::Stage::Main);
    CHECK(plan.stage(850) == FisherSchedule::Stage::Final);
    // Early: a switch whenever the background holds 10 pairs.
    CHECK_FALSE(plan.switch_at(5, 9));
    CHECK(plan.switch_at(9, 10));
    // Main: windows of 50, then 75, 113, ...
    CHECK_FALSE(plan.switch_at(120, 20));
    CHECK(plan.switch_at(149, 50));
    CHECK_FALSE(plan.switch_at(200, 74));
    CHECK(plan.switch_at(224, 75));
    CHECK_FALSE(plan.switch_at(336, 112));
    CHECK(plan.switch_at(337, 113));
    // A window that would run into the final one is not started.
    CHECK_FALSE(plan.switch_at(700, 200));
    CHECK(plan.switches() == 4);
    plan.converge_at(400);  // ignored: the warmup is fixed
    CHECK(plan.end() == 1000);
    CHECK_FALSE(plan.converged());
  }
  SECTION("automatic warmup: convergence starts the final window") {
    FisherSchedule plan(1000, true);
    plan.converge_at(224);
    CHECK(plan.converged());
    CHECK(plan.final_start() == 225);
    CHECK(plan.end() == 225 + 50);  // max(50, 0.15 * 225)
    CHECK(plan.stage(225) == FisherSchedule::Stage::Final);
    FisherSchedule late(1000, true);
    late.converge_at(599);
    CHECK(late.end() == 600 + 90);
  }
  SECTION("a warmup extended past its planned end (a surrogate's exploration, then NUTS)") {
    // The exploration's plan: 850 iterations, fixed; it ends after 40, inside the early phase.
    FisherSchedule plan(850, false);
    CHECK(plan.switch_at(9, 10));
    CHECK(plan.final_start() == 850 - 127);
    // A hand-over after 40 explored and 150 tuned: the warmup goes on as an automatic one
    // of 1000 - 150 NUTS iterations, the early phase's end kept.
    plan.extend(850, true);
    CHECK(plan.automatic());
    CHECK(plan.early_end() == 100);
    CHECK(plan.stage(99) == FisherSchedule::Stage::Early);
    CHECK(plan.stage(100) == FisherSchedule::Stage::Main);
    CHECK(plan.final_start() == 850 - 127);
    CHECK(plan.end() == 850);
    CHECK(plan.switch_at(149, 50));
    plan.converge_at(149);
    CHECK(plan.end() == 150 + 50);
    // Extending moves the final window: a fixed plan of 100 becomes one of 400.
    FisherSchedule short_plan(100, false);
    CHECK(short_plan.final_start() == 85);
    short_plan.extend(400, false);
    CHECK(short_plan.final_start() == 340);
    CHECK(short_plan.end() == 400);
    CHECK(short_plan.early_end() == 30);
  }
  SECTION("short warmups stay consistent") {
    FisherSchedule plan(40, false);
    CHECK(plan.early_end() == 12);
    CHECK(plan.final_start() == 34);
    CHECK(plan.end() == 40);
  }
}

TEST_CASE("Warmup convergence: settled metric and stationary energy", "[warmup]") {
  vhmc::RunningMoments a, b, shifted;
  vhmc::Rng rng(vt::seed(301), 1);
  for (int i = 0; i < 100; ++i) {
    a.add(10.0 + rng.normal());
    b.add(10.0 + rng.normal());
    shifted.add(14.0 + rng.normal());
  }
  const Vec w = Vec::Constant(20, 2.0);
  Vec w_close = w, w_far = w;
  w_close.head(10) *= 1.1;
  w_far.head(10) *= 2.0;
  vhmc::ConvergenceConfig c;
  CHECK(vhmc::rms_log_change(w, w) == 0.0);
  CHECK(vhmc::warmup_converged(w, w_close, a, b, c));
  CHECK_FALSE(vhmc::warmup_converged(w, w_far, a, b, c));      // rms log ratio 0.49
  CHECK_FALSE(vhmc::warmup_converged(w, w_close, a, shifted, c));  // energy still moving
  CHECK_FALSE(vhmc::warmup_converged(w, w_close, vhmc::RunningMoments(), b, c));
}

TEST_CASE("Warmup convergence: a dense metric is compared whole", "[warmup]") {
  vhmc::RunningMoments a, b;
  vhmc::Rng rng(vt::seed(302), 1);
  for (int i = 0; i < 100; ++i) {
    a.add(rng.normal());
    b.add(rng.normal());
  }
  const vhmc::ConvergenceConfig c;
  SECTION("diagonal matrices: the rms log ratio of their diagonals") {
    const Vec w = Vec::LinSpaced(8, 0.5, 4.0);
    Vec v = w;
    v.head(3) *= 1.7;
    const Mat W = w.asDiagonal(), V = v.asDiagonal();
    CHECK(vhmc::rms_log_change(W, V) == Approx(vhmc::rms_log_change(w, v)).epsilon(1e-12));
    CHECK(vhmc::rms_log_change(W, W) == Approx(0.0).margin(1e-12));
  }
  SECTION("hand-computed eigenvalues, invariant under a change of coordinates") {
    // A = I, B with eigenvalues 4 and 1/4 in a rotated basis: rms log = log 4.
    Mat B(2, 2);
    B << 2.125, 1.875, 1.875, 2.125;
    const Mat I = Mat::Identity(2, 2);
    CHECK(vhmc::rms_log_change(I, B) == Approx(std::log(4.0)).epsilon(1e-12));
    Mat T(2, 2);
    T << 3.0, 1.0, -0.5, 2.0;
    CHECK(vhmc::rms_log_change(Mat(T * T.transpose()), Mat(T * B * T.transpose())) ==
          Approx(std::log(4.0)).epsilon(1e-10));
  }
  SECTION("equal diagonals but moved correlations: not settled") {
    const Mat W = test_covariance(10, 1.0, 0.0);
    const Mat V = test_covariance(10, 1.0, 0.9);  // same unit diagonal, correlation 0.9
    CHECK(vhmc::rms_log_change(Vec(W.diagonal()), Vec(V.diagonal())) == 0.0);
    CHECK(vhmc::warmup_converged(Vec(W.diagonal()), Vec(V.diagonal()), a, b, c));
    CHECK_FALSE(vhmc::warmup_converged(W, V, a, b, c));
    CHECK(vhmc::warmup_converged(W, W, a, b, c));
  }
  SECTION("a matrix that is not positive definite never passes") {
    const Mat W = test_covariance(4, 1.0, 0.5);
    CHECK(std::isnan(vhmc::rms_log_change(Mat(-W), W)));
    CHECK_FALSE(vhmc::warmup_converged(Mat(-W), W, a, b, c));
  }
}

TEST_CASE("Initial metrics from a covariance", "[warmup]") {
  const Mat S = test_covariance(6, 2.0, 0.99);
  SECTION("diag: its diagonal") {
    vhmc::with_metric(vhmc::MetricKind::Diag, 6, S, 10, [&](auto m) {
      CHECK(vhmc::metric_diagonal(m).isApprox(Vec(S.diagonal())));
      return 0;
    });
  }
  SECTION("dense: itself") {
    vhmc::with_metric(vhmc::MetricKind::Dense, 6, S, 10, [&](auto m) {
      if constexpr (std::is_same<decltype(m), DenseMetric>::value) CHECK(m.W().isApprox(S));
      return 0;
    });
  }
  SECTION("low_rank: the diagonal and the correlated pair's narrow direction") {
    // Correlation eigenvalues 1.99 and 0.01, the others 1: only 0.01 lies outside [1/2, 2],
    // so the target under the metric keeps a condition number of 1.99 (instead of 199).
    const LowRankMetric m(vhmc::low_rank_from_covariance(S));
    CHECK(m.rank() == 1);
    CHECK(m.inv_metric_diag().tail(4).isApprox(Vec(S.diagonal().tail(4)), 1e-10));
    // Condition number of the target under the metric: generalised eigenvalues of S v = l W v.
    const Eigen::GeneralizedSelfAdjointEigenSolver<Mat> ges(S, m.inv_metric_dense());
    const Vec l = ges.eigenvalues();
    CHECK(l.maxCoeff() / l.minCoeff() == Approx(1.99).epsilon(1e-8));
  }
  SECTION("low_rank of a diagonal covariance: its diagonal, no directions") {
    const Mat D = Mat(Vec(S.diagonal()).asDiagonal());
    const LowRankMetric m(vhmc::low_rank_from_covariance(D));
    CHECK(m.rank() == 0);
    CHECK(m.inv_metric_diag().isApprox(Vec(S.diagonal()), 1e-12));
  }
}

TEST_CASE("Fisher warmup on a diagonal Gaussian with scales over 4 decades", "[warmup]") {
  const int d = 20;
  const Mat S = test_covariance(d, 4.0, 0.0);
  CorrelatedGaussian pot(S);
  const Vec var = S.diagonal();
  SECTION("fixed warmup of 300: the metric is the variances, the draws are right") {
    const ChainOutput out = vt::run_nuts(pot, DiagMetric(Vec::Ones(d)), vt::uniform_init(d, 302),
                                         vt::chain_config(300, 2000, 302), {}, vt::fisher_warmup());
    REQUIRE(out.error.empty());
    CHECK(out.warmup_iterations == 300);
    // On a diagonal Gaussian the draw/gradient estimate is exact from two moved pairs.
    const Vec ratio = vt::inv_metric_diag(out).cwiseQuotient(var);
    CHECK(ratio.minCoeff() > 0.999);
    CHECK(ratio.maxCoeff() < 1.001);
    for (int i = 0; i < d; ++i) {
      const Vec x = out.draws.col(i);
      CHECK(std::fabs(vt::mean(x)) < 4.0 * vt::mcse_mean(x));
      CHECK(std::fabs(vt::var(x) - var[i]) < 4.0 * vt::mcse_var(x));
    }
    CHECK(out.treedepth.cast<double>().mean() < 4.0);
  }
  SECTION("automatic warmup ends early and keeps the draws of a full one") {
    const ChainOutput out = vt::run_nuts(pot, DiagMetric(Vec::Ones(d)), vt::uniform_init(d, 303),
                                         auto_config(1000, 1000, 303), {}, vt::fisher_warmup());
    REQUIRE(out.error.empty());
    INFO("warmup iterations " << out.warmup_iterations);
    CHECK(out.warmup_iterations >= 200);
    CHECK(out.warmup_iterations < 500);
    CHECK(out.draws.rows() == 1000);
    CHECK(out.iterations_done == out.warmup_iterations + 1000);
    CHECK(std::get<bool>(out.report.at("warmup_converged")));
    CHECK(vt::grad_warmup(out) < vt::grad_sampling(out));
  }
}

TEST_CASE("Fisher warmup with a low-rank metric on a correlated Gaussian", "[warmup]") {
  const int d = 10;
  const Mat S = test_covariance(d, 2.0, 0.995);
  CorrelatedGaussian pot(S);
  const Vec init = vt::uniform_init(d, 311);
  const ChainConfig cfg = vt::chain_config(500, 2000, 311);
  const ChainOutput diag = vt::run_nuts(pot, DiagMetric(Vec::Ones(d)), init, cfg, {}, vt::fisher_warmup());
  const ChainOutput low = vt::run_nuts(pot, LowRankMetric(Vec::Ones(d)), init, cfg, {}, vt::fisher_warmup());
  REQUIRE(diag.error.empty());
  REQUIRE(low.error.empty());
  CHECK(std::get<long>(low.adaptation.at("metric_rank")) >= 1);
  // The correlated pair costs the diagonal metric long trees; the low-rank one removes them.
  const double depth_diag = diag.treedepth.cast<double>().mean();
  const double depth_low = low.treedepth.cast<double>().mean();
  INFO("mean tree depth: diag " << depth_diag << ", low rank " << depth_low);
  CHECK(depth_low < depth_diag - 1.0);
  for (int i = 0; i < d; ++i) {
    const Vec x = low.draws.col(i);
    CHECK(std::fabs(vt::mean(x)) < 4.0 * vt::mcse_mean(x));
    CHECK(std::fabs(vt::var(x) - S(i, i)) < 4.0 * vt::mcse_var(x));
  }
}

TEST_CASE("Fisher warmup from the curvature: dense metric given, kept, refined", "[warmup]") {
  const int d = 8;
  const Mat S = test_covariance(d, 2.0, 0.9);
  CorrelatedGaussian pot(S);
  // The chain starts at the mode with the exact covariance as its metric (what the R layer
  // gives after a Newton mode search) and an automatic warmup.
  const ChainOutput out = vt::run_nuts(pot, DenseMetric(S), Vec::Zero(d), auto_config(1000, 2000, 321),
                                       {}, vt::fisher_warmup(), true);
  REQUIRE(out.error.empty());
  INFO("warmup iterations " << out.warmup_iterations);
  CHECK(out.warmup_iterations < 300);
  const Mat W = vt::inv_metric_dense(out);
  const Vec r = W.diagonal().cwiseQuotient(S.diagonal());
  CHECK(r.minCoeff() > 0.7);
  CHECK(r.maxCoeff() < 1.3);
  CHECK(out.treedepth.cast<double>().mean() < 3.0);
  for (int i = 0; i < d; ++i) {
    const Vec x = out.draws.col(i);
    CHECK(std::fabs(vt::mean(x)) < 4.0 * vt::mcse_mean(x));
  }
}

TEST_CASE("Fisher warmup with a user step size adapts only the metric", "[warmup]") {
  const int d = 5;
  CorrelatedGaussian pot(test_covariance(d, 2.0, 0.0));
  vhmc::HmcWarmupConfig wc = vt::fisher_warmup();
  wc.step_size = 0.2;
  wc.adapt.step_size = false;
  const ChainOutput out = vt::run_nuts(pot, DiagMetric(Vec::Ones(d)), vt::uniform_init(d, 331),
                                       vt::chain_config(200, 200, 331), {}, wc);
  REQUIRE(out.error.empty());
  CHECK((out.step_size.array() == 0.2).all());
  CHECK(std::get<long>(out.report.at("metric_updates")) > 10);
}

TEST_CASE("Low-rank estimates between switches: every 10 iterations up to d = 100, then (d/100)^2",
          "[warmup]") {
  CHECK(vhmc::low_rank_update_every(2) == 10);
  CHECK(vhmc::low_rank_update_every(100) == 10);
  CHECK(vhmc::low_rank_update_every(200) == 40);
  CHECK(vhmc::low_rank_update_every(294) == 86);
  CHECK(vhmc::low_rank_update_every(100000) == 1000000);
  CHECK(vhmc::BufferFisher<LowRankMetric>(294, 10).update_every() == 86);
  CHECK(vhmc::BufferFisher<DenseMetric>(294, 10).update_every() == 10);
}

TEST_CASE("Fisher warmup with a low-rank metric at d = 200: fewer estimates, the pair still found",
          "[warmup]") {
  const int d = 200;
  const Mat S = test_covariance(d, 1.0, 0.995);
  CorrelatedGaussian pot(S);
  const ChainConfig cfg = vt::chain_config(500, 1000, 341);
  const ChainOutput out = vt::run_nuts(pot, LowRankMetric(Vec::Ones(d)), vt::uniform_init(d, 341), cfg, {},
                                       vt::fisher_warmup());
  REQUIRE(out.error.empty());
  // 500 warmup iterations with an estimate every 40 and at each window switch, not every 10.
  const long updates = std::get<long>(out.report.at("metric_updates"));
  INFO("metric updates " << updates);
  CHECK(updates < 30);
  CHECK(std::get<long>(out.adaptation.at("metric_rank")) >= 1);
  for (int i : {0, 1, 100, 199}) {
    const Vec x = out.draws.col(i);
    CHECK(std::fabs(vt::mean(x)) < 4.0 * vt::mcse_mean(x));
    CHECK(std::fabs(vt::var(x) - S(i, i)) < 4.0 * vt::mcse_var(x));
  }
}

TEST_CASE("Fisher warmup with a low-rank metric at d = 400 from a given metric: estimated as soon "
          "as the window holds its pairs, the diagonal kept current between estimates",
          "[warmup]") {
  // A given (mode) metric waits for 50 pairs; the early windows switch with 10, and at d = 400
  // the next estimate between switches is 160 iterations away. Before, a warmup of 120
  // iterations never replaced the given metric (here the identity against variances over two
  // decades).
  const int d = 400;
  const Mat S = test_covariance(d, 2.0, 0.0);
  CorrelatedGaussian pot(S);
  const ChainOutput out = vt::run_nuts(pot, LowRankMetric(Vec::Ones(d)), vt::uniform_init(d, 351),
                                       vt::chain_config(120, 200, 351), {}, vt::fisher_warmup(), true);
  REQUIRE(out.error.empty());
  CHECK(std::get<long>(out.report.at("metric_updates")) >= 1);
  CHECK(std::get<long>(out.adaptation.at("metric_rank")) == 0);
  // On a diagonal Gaussian the draw/gradient diagonal is exact from two moved pairs.
  const Vec ratio = vt::inv_metric_diag(out).cwiseQuotient(S.diagonal());
  CHECK(ratio.minCoeff() > 0.999);
  CHECK(ratio.maxCoeff() < 1.001);
}
