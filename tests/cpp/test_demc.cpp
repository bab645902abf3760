// Differential-evolution MCMC (sampler/demc.hpp, de_proposals.hpp): every member exact on a
// correlated Gaussian, with parallel-direction and with snooker proposals alone (the
// snooker's correction factor); the population finds both modes of a mixture and weighs them
// right; one evaluation per member and iteration, no gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.hpp"

using vhmc::Mat;
using vhmc::Vec;

namespace {

// Two unit Gaussians at (-4, 0) and (4, 0) with weights 0.3 and 0.7.
struct TwoModes {
  int dim() const { return 2; }
  double U(const Vec& x) const {
    const double a = std::log(0.3) - 0.5 * ((x[0] + 4) * (x[0] + 4) + x[1] * x[1]);
    const double b = std::log(0.7) - 0.5 * ((x[0] - 4) * (x[0] - 4) + x[1] * x[1]);
    const double m = std::max(a, b);
    return -(m + std::log(std::exp(a - m) + std::exp(b - m)));
  }
  double U_grad(const Vec& x, Vec& g) const {
    g.setZero();
    return U(x);
  }
};

// The initial archive spread as over a box (logistic), or uniform in (-2, 2).
template <class P>
vhmc::ChainOutput run_demc(P& pot, const vhmc::DemcConfig& c, int d, int warmup, int sampling, bool box) {
  vhmc::ChainConfig cfg = vt::chain_config(warmup, sampling, 11);
  vhmc::FitExtras x;
  x.scatter = Vec::Constant(d, box ? 1.0 : 0.0);
  vhmc::Rng rng(3);
  Vec init(c.members * d);
  for (int i = 0; i < init.size(); ++i) init[i] = 2 * rng.uniform() - 1;
  vhmc::Callbacks cb;
  return vhmc::DemcSampler::run(pot, c, x, cfg, init, cb);
}

// Each member's draws of a Gaussian with covariance S: means and variances within z MCSE.
void check_members(const vhmc::ChainOutput& out, const Mat& S, int members) {
  const int d = static_cast<int>(S.rows());
  const double z = vt::family_z(2 * d * members);
  for (int k = 0; k < members; ++k)
    for (int j = 0; j < d; ++j) {
      const Vec x = out.draws.col(k * d + j);
      const Vec sq = (x.array() - x.mean()).square().matrix();
      INFO("member " << k << ", coordinate " << j << ": mean " << x.mean() << ", var " << vt::var(x) << ", ess "
                     << vt::ess(x));
      CHECK(std::abs(x.mean()) < z * std::sqrt(S(j, j) / vt::ess(x)));
      CHECK(std::abs(vt::var(x) - S(j, j)) < z * std::sqrt(2.0 * S(j, j) * S(j, j) / vt::ess(sq)));
    }
}

Mat correlated() {
  Mat S(3, 3);
  S << 1.0, 0.9, 0.0, 0.9, 1.0, 0.3, 0.0, 0.3, 4.0;
  return S;
}

}  // namespace

TEST_CASE("DE-MC: every member samples a correlated Gaussian; one evaluation per member and iteration", "[demc]") {
  const Mat S = correlated();
  vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), S);
  vhmc::DemcConfig c;
  const vhmc::ChainOutput out = run_demc(pot, c, 3, 2000, 20000, false);
  INFO("error: " << out.error);
  REQUIRE(out.error.empty());
  REQUIRE(out.draws.rows() == 20000);
  REQUIRE(out.draws.cols() == 12);
  CHECK(out.columns == vhmc::kAcceptStat);
  CHECK(out.counts_total.grad == 0);
  const Vec evals = std::get<Vec>(out.report.at("member_evaluations"));
  CHECK(evals.sum() == Approx(static_cast<double>(out.counts_total.potential)));
  // At most one per iteration and one at the start (a snooker update from a centre equal to
  // the member's own state has no direction and evaluates nothing).
  for (int k = 0; k < 4; ++k) CHECK(evals[k] <= 22001);
  check_members(out, S, 4);
  const Mat acc = std::get<Mat>(out.report.at("member_accept"));
  CHECK(acc.rows() == 20000);
  CHECK(acc.mean() > 0.15);
  // The frozen archive holds warmup's second half only.
  CHECK(std::get<long>(out.report.at("archive_size")) == 4 * 100);
}

TEST_CASE("DE-MC: snooker proposals alone are exact (their correction factor)", "[demc]") {
  const Mat S = correlated();
  vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), S);
  vhmc::DemcConfig c;
  c.snooker = 1.0;
  c.members = 2;
  const vhmc::ChainOutput out = run_demc(pot, c, 3, 2000, 30000, true);
  REQUIRE(out.error.empty());
  check_members(out, S, 2);
}

TEST_CASE("DE-MC: a Latin hypercube has one value per stratum of each coordinate", "[demc]") {
  vhmc::Rng rng(2);
  const Mat z = vhmc::latin_hypercube(20, (Vec(2) << 0.0, 1.0).finished(), rng);
  for (int j = 0; j < 2; ++j) {
    std::vector<int> seen(20, 0);
    for (int i = 0; i < 20; ++i) {
      const double u = j == 0 ? (z(i, 0) + 2) / 4 : 1 / (1 + std::exp(-z(i, 1)));
      ++seen[static_cast<int>(u * 20)];
    }
    for (int s : seen) CHECK(s == 1);
  }
}

TEST_CASE("DE-MC: the population finds both modes of a mixture and weighs them", "[demc]") {
  TwoModes pot;
  vhmc::DemcConfig c;
  const vhmc::ChainOutput out = run_demc(pot, c, 2, 2000, 40000, true);
  REQUIRE(out.error.empty());
  for (int k = 0; k < 4; ++k) {
    const Vec right = (out.draws.col(2 * k).array() > 0).cast<double>().matrix();
    INFO("member " << k << ": share right " << right.mean() << ", ess " << vt::ess(right));
    CHECK(right.mean() > 0.05);
    CHECK(std::abs(right.mean() - 0.7) < vt::family_z(4) * std::sqrt(0.21 / vt::ess(right)));
  }
}

TEST_CASE("DE-MC: the same seed gives the same draws; a bad start is an error", "[demc]") {
  vhmc::GaussianPotential pot(Vec(Vec::Zero(2)), Mat(Mat::Identity(2, 2)));
  const vhmc::ChainOutput a = run_demc(pot, vhmc::DemcConfig{}, 2, 100, 200, false);
  const vhmc::ChainOutput b = run_demc(pot, vhmc::DemcConfig{}, 2, 100, 200, false);
  CHECK(a.draws == b.draws);
  vhmc::ChainConfig cfg = vt::chain_config(10, 10, 1);
  vhmc::FitExtras x;
  x.scatter = Vec::Zero(2);
  Vec init = Vec::Zero(8);
  init[5] = std::numeric_limits<double>::infinity();
  vhmc::Callbacks cb;
  const auto out = vhmc::DemcSampler::run(pot, vhmc::DemcConfig{}, x, cfg, init, cb);
  CHECK(out.error.find("not finite at the initial values of chain 3") != std::string::npos);
}
