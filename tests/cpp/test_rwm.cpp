// Adaptive random-walk Metropolis (sampler/rwm.hpp): exact on Gaussians once the proposal
// is frozen; its warmup learns the covariance and a scale toward the target acceptance;
// it never evaluates a gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "test_util.hpp"

using vhmc::Mat;
using vhmc::Vec;

namespace {

vhmc::ChainOutput run_rwm(const Mat& cov, const vhmc::RwmConfig& c, int iter, int warmup, std::uint64_t seed) {
  vhmc::GaussianPotential pot(Vec(Vec::Zero(cov.rows())), cov);
  vhmc::ChainConfig cfg;
  cfg.iter = iter;
  cfg.warmup = warmup;
  cfg.seed = seed;
  vhmc::Callbacks cb;
  return vhmc::RwmSampler::run(pot, c, vhmc::FitExtras{}, cfg, Vec::Zero(cov.rows()), cb);
}

}  // namespace

TEST_CASE("RWM recovers a correlated Gaussian and learns its covariance and scale", "[rwm]") {
  Mat S(3, 3);
  S << 1.0, 0.8, 0.0, 0.8, 1.0, 0.3, 0.0, 0.3, 4.0;
  const vhmc::ChainOutput out = run_rwm(S, vhmc::RwmConfig{}, 44000, 4000, 17);
  INFO("error: " << out.error);
  REQUIRE(out.error.empty());
  REQUIRE(out.draws.rows() == 40000);
  CHECK(out.columns == (vhmc::kAcceptStat | vhmc::kStepSize));
  CHECK(out.counts_total.grad == 0);
  CHECK(out.counts_total.potential == 44001);  // one per iteration, and the initial values
  const double z = vt::family_z(6);
  for (int j = 0; j < 3; ++j) {
    const Vec x = out.draws.col(j);
    const Vec sq = (x.array() - x.mean()).square().matrix();
    const double v = S(j, j);
    INFO("coordinate " << j << ": mean " << x.mean() << ", var " << vt::var(x));
    CHECK(std::abs(x.mean()) < z * std::sqrt(v / vt::ess(x)));
    CHECK(std::abs(vt::var(x) - v) < z * std::sqrt(2.0 * v * v / vt::ess(sq)));
  }
  // The proposal covariance is the target's up to the global scale.
  const Mat C = std::get<Mat>(out.adaptation.at("inv_metric"));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(C(i, j) / std::sqrt(C(i, i) * C(j, j)) == Approx(S(i, j) / std::sqrt(S(i, i) * S(j, j))).margin(0.08));
  const double acc = out.accept_stat.mean();
  CHECK(acc > 0.15);
  CHECK(acc < 0.35);
}

TEST_CASE("RWM with a fixed scale and no adaptation is plain Metropolis", "[rwm]") {
  vhmc::RwmConfig c;
  c.scale = 0.5;
  c.adapt_covariance = false;
  Mat S = Mat::Identity(2, 2);
  const vhmc::ChainOutput out = run_rwm(S, c, 2000, 100, 3);
  REQUIRE(out.error.empty());
  CHECK((out.step_size.array() == 0.5).all());
  CHECK(std::get<Mat>(out.adaptation.at("inv_metric")).isApprox(Mat::Identity(2, 2)));
  const vhmc::ChainOutput again = run_rwm(S, c, 2000, 100, 3);
  CHECK(again.draws == out.draws);  // a seed reproduces the chain
}

TEST_CASE("RWM: a non-finite log density at the initial values is an error", "[rwm]") {
  Mat S = Mat::Identity(1, 1);
  vhmc::GaussianPotential g(Vec::Zero(1), S);
  vhmc::ChainConfig cfg;
  cfg.iter = 10;
  cfg.warmup = 5;
  vhmc::Callbacks cb;
  Vec init(1);
  init << std::numeric_limits<double>::infinity();
  const auto out = vhmc::RwmSampler::run(g, vhmc::RwmConfig{}, vhmc::FitExtras{}, cfg, init, cb);
  CHECK(out.error.find("not finite at the initial values") != std::string::npos);
}

// Issue 24: the proposal covariance was the window's covariance shrunk toward
// 1e-3 tr(S)/d I, which is 0 when every proposal of the window was rejected; the chain
// then never moved again and its scale ran away (accept_stat 1 for a zero step).

TEST_CASE("rwm_shrink: positive definite whatever the window's covariance, and scale-free", "[rwm]") {
  Mat C(2, 2);
  C << 1e4, 0.0, 0.0, 1e-4;  // the covariance in force
  const Mat zero = Mat::Zero(2, 2);
  const Mat W0 = vhmc::rwm_shrink(zero, 15.0, C);  // no proposal of the window accepted
  CHECK(W0.isApprox(C * (5.0 / 20.0)));
  Mat rank1(2, 2);
  rank1 << 4.0, 2.0, 2.0, 1.0;  // all states on a line
  for (const Mat& S : {zero, rank1}) {
    const Mat W = vhmc::rwm_shrink(S, 40.0, C);
    Eigen::SelfAdjointEigenSolver<Mat> es(W);
    CHECK(es.eigenvalues().minCoeff() > 0.0);
    CHECK(W.isApprox(W.transpose()));
    // invariant to the parameters' scale: units change S and C alike
    CHECK(vhmc::rwm_shrink(1e-6 * S, 40.0, 1e-6 * C).isApprox(1e-6 * W));
  }
  // with many states the estimate wins
  CHECK(vhmc::rwm_shrink(rank1, 1e12, C).isApprox(rank1, 1e-6));
}

TEST_CASE("RWM kernel refuses a covariance that is not positive definite and keeps the one in force",
          "[rwm]") {
  vhmc::GaussianPotential pot(Vec(Vec::Zero(2)), Mat(Mat::Identity(2, 2)));
  vhmc::Target<vhmc::GaussianPotential> target(pot);
  vhmc::RandomWalkMetropolis<vhmc::Target<vhmc::GaussianPotential>> k(target);
  Mat bad = Mat::Zero(2, 2);
  CHECK_FALSE(k.set_covariance(bad));
  bad << 1.0, 2.0, 2.0, 1.0;  // indefinite
  CHECK_FALSE(k.set_covariance(bad));
  bad(0, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(k.set_covariance(bad));
  CHECK(k.covariance().isApprox(Mat::Identity(2, 2)));
  Mat good(2, 2);
  good << 2.0, 0.5, 0.5, 1.0;
  CHECK(k.set_covariance(good));
  CHECK(k.covariance() == good);
}

namespace {

// Finite only at the origin: every proposal is rejected.
struct SpikePotential {
  int dim() const { return 2; }
  double U(const Vec& th) const { return th.isZero(0.0) ? 0.0 : std::numeric_limits<double>::infinity(); }
  double U_grad(const Vec& th, Vec& g) const {
    g.setZero(2);
    return U(th);
  }
};

}  // namespace

TEST_CASE("RWM: a chain whose proposals are all rejected keeps a positive definite proposal and a "
          "finite scale, and reports no moves", "[rwm]") {
  SpikePotential pot;
  vhmc::ChainConfig cfg;
  cfg.iter = 2000;
  cfg.warmup = 1000;
  vhmc::Callbacks cb;
  const auto out = vhmc::RwmSampler::run(pot, vhmc::RwmConfig{}, vhmc::FitExtras{}, cfg, Vec::Zero(2), cb);
  REQUIRE(out.error.empty());
  CHECK(std::get<Mat>(out.adaptation.at("inv_metric")).isApprox(Mat::Identity(2, 2)));  // never updated
  CHECK(std::get<long>(out.report.at("covariance_updates")) == 0);
  CHECK(std::get<long>(out.report.at("moves_warmup")) == 0);
  CHECK(std::get<long>(out.report.at("moves_sampling")) == 0);
  // every acceptance probability 0: the scale shrank (as it should), finitely
  const double scale = std::get<double>(out.adaptation.at("step_size"));
  CHECK(scale > 0.0);
  CHECK(scale < 2.38 / std::sqrt(2.0));
  CHECK((out.accept_stat.array() == 0.0).all());
}

TEST_CASE("RWM from the identity on an ill-conditioned Gaussian (sds 10 and 0.1): no chain freezes, "
          "the proposal is positive definite and shaped like the target", "[rwm]") {
  Mat S = Mat::Zero(2, 2);
  S(0, 0) = 100.0;
  S(1, 1) = 0.01;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const vhmc::ChainOutput out = run_rwm(S, vhmc::RwmConfig{}, 600, 300, seed);
    INFO("seed " << seed << ": " << out.error);
    REQUIRE(out.error.empty());
    const Mat C = std::get<Mat>(out.adaptation.at("inv_metric"));
    Eigen::SelfAdjointEigenSolver<Mat> es(C);
    CHECK(es.eigenvalues().minCoeff() > 0.0);
    CHECK(C(0, 0) / C(1, 1) > 100.0);  // from 1 toward the target's 1e4
    CHECK(std::get<long>(out.report.at("moves_sampling")) > 30);  // of 300
    const double scale = std::get<double>(out.adaptation.at("step_size"));
    CHECK(scale > 0.1);
    CHECK(scale < 10.0);
  }
}

TEST_CASE("RWM starts its proposal at the host's initial inverse metric", "[rwm]") {
  Mat S(2, 2);
  S << 100.0, 0.0, 0.0, 0.01;
  vhmc::GaussianPotential pot(Vec(Vec::Zero(2)), S);
  vhmc::ChainConfig cfg;
  cfg.iter = 400;
  cfg.warmup = 200;
  vhmc::Callbacks cb;
  vhmc::FitExtras x;
  x.inv_metric = S;
  vhmc::RwmConfig c;
  c.adapt_covariance = false;
  const auto out = vhmc::RwmSampler::run(pot, c, x, cfg, Vec::Zero(2), cb);
  REQUIRE(out.error.empty());
  CHECK(std::get<Mat>(out.adaptation.at("inv_metric")).isApprox(S));
  const double acc = out.accept_stat.mean();
  CHECK(acc > 0.1);
  CHECK(acc < 0.45);
}
