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
