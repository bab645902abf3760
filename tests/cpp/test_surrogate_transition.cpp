// Metropolis-Hastings with surrogate transitions (sampler/surrogate_transition.hpp) and its
// Gaussian-process surrogate (surrogate/gp_surrogate.hpp, quadratic_fit.hpp): the quadratic
// regression is exact on a quadratic; the GP fits a smooth non-quadratic log density; every
// member is exact on a banana, with the default surrogate and with a deliberately poor one;
// at most one evaluation per member and iteration after the exploration; a surrogate too
// poor to drive the chains hands every move to DE-MCzs, and the mixture of both moves is
// exact; a member started
// at a minor mode far below the mass is moved; the same seed gives the same draws.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "test_util.hpp"

using vhmc::Mat;
using vhmc::Vec;

namespace {

// Two unit Gaussians at (-6, 0) and (6, 0) with weights 1e-9 and 1: the left one is a local
// mode about 20.7 nats below.
struct FarMinorMode {
  int dim() const { return 2; }
  double U(const Vec& x) const {
    const double a = std::log(1e-9) - 0.5 * ((x[0] + 6) * (x[0] + 6) + x[1] * x[1]);
    const double b = -0.5 * ((x[0] - 6) * (x[0] - 6) + x[1] * x[1]);
    const double m = std::max(a, b);
    return -(m + std::log(std::exp(a - m) + std::exp(b - m)));
  }
  double U_grad(const Vec& x, Vec& g) const {
    g.setZero(2);
    return U(x);
  }
};

// U = x^4 / 4 + y^2 / 2: tails lighter than a Gaussian's in x (E x^2 = 2 Gamma(3/4) /
// Gamma(1/4)), so that a quadratic surrogate's tails are heavier than the target's.
struct Quartic {
  int dim() const { return 2; }
  double U(const Vec& x) const { return 0.25 * std::pow(x[0], 4) + 0.5 * x[1] * x[1]; }
  double U_grad(const Vec& x, Vec& g) const {
    g.setZero(2);
    return U(x);
  }
};

template <class P>
vhmc::ChainOutput run_st(P& pot, const vhmc::SurrogateTransitionConfig& c, const Vec& init, const Vec& mode,
                         const Mat& hessian, int warmup, int sampling) {
  vhmc::ChainConfig cfg = vt::chain_config(warmup, sampling, 5);
  vhmc::FitExtras x;
  x.scatter = Vec::Zero(mode.size());
  x.laplace = vhmc::Anchor{mode, hessian, Vec()};
  vhmc::Callbacks cb;
  return vhmc::SurrogateTransitionSampler::run(pot, c, x, cfg, init, cb);
}

// Each member's draws of a 2-d target: means and variances within z MCSE.
void check_moments(const vhmc::ChainOutput& out, int members, const double (&mean)[2], const double (&var)[2]) {
  const double z = vt::family_z(4 * members);
  for (int k = 0; k < members; ++k)
    for (int j = 0; j < 2; ++j) {
      const Vec x = out.draws.col(2 * k + j);
      const Vec sq = (x.array() - x.mean()).square().matrix();
      INFO("member " << k << ", coordinate " << j << ": mean " << x.mean() << ", var " << vt::var(x) << ", ess "
                     << vt::ess(x));
      CHECK(std::abs(x.mean() - mean[j]) < z * std::sqrt(var[j] / vt::ess(x)));
      CHECK(std::abs(vt::var(x) - var[j]) < z * std::sqrt(vt::var(sq) / vt::ess(sq)));
    }
}

// The banana: x ~ N(0, 1), y | x ~ N(x^2, 1), so E y = 1, var y = 3, var x = 1.
void check_banana(const vhmc::ChainOutput& out, int members) { check_moments(out, members, {0.0, 1.0}, {1.0, 3.0}); }

Vec banana_init(int members) {
  Vec init(2 * members);
  for (int k = 0; k < members; ++k) init.segment(2 * k, 2) << 0.3 * k - 0.4, 0.2 * k;
  return init;
}

}  // namespace

TEST_CASE("Quadratic regression: exact on a quadratic; clamped to concave", "[surrogate-mh]") {
  vhmc::Rng rng(4);
  Mat U(40, 2);
  Vec P(40), w = Vec::Ones(40);
  for (int i = 0; i < 40; ++i) {
    U.row(i) << rng.normal(), rng.normal();
    P[i] = 1.5 + 0.3 * U(i, 0) - 0.7 * U(i, 1) - 0.5 * (2 * U(i, 0) * U(i, 0) + U(i, 0) * U(i, 1) + U(i, 1) * U(i, 1));
  }
  const vhmc::Quadratic q = vhmc::fit_quadratic_raw(U, P, w);
  CHECK(q.c == Approx(1.5).margin(1e-10));
  CHECK(q.b[0] == Approx(0.3).margin(1e-10));
  CHECK(q.A(0, 0) == Approx(-2.0).margin(1e-10));
  CHECK(q.A(0, 1) == Approx(-0.5).margin(1e-10));
  CHECK(q.A(1, 1) == Approx(-1.0).margin(1e-10));
  // A saddle becomes concave: every eigenvalue at most -floor.
  for (int i = 0; i < 40; ++i) P[i] = U(i, 0) * U(i, 0) - U(i, 1) * U(i, 1);
  const vhmc::Quadratic c = vhmc::fit_concave_quadratic(U, P, w, 0.05);
  Eigen::SelfAdjointEigenSolver<Mat> es(c.A);
  CHECK(es.eigenvalues().maxCoeff() <= -0.05 + 1e-12);
}

TEST_CASE("GP surrogate: fits the banana's log density near its mass", "[surrogate-mh]") {
  vt::Banana pot;
  vhmc::Rng rng(7);
  Mat Z(600, 2);
  Vec P(600);
  for (int i = 0; i < 600; ++i) {
    const double x = rng.normal();
    Z.row(i) << x, x * x + rng.normal();
    P[i] = -pot.U(Z.row(i).transpose());
  }
  vhmc::GpSurrogate s;
  s.fit(Z, P, 600, Vec::Zero(2), Mat(Mat::Identity(2, 2) * 1.5), 400, rng);
  INFO("held-out error " << s.held_out_error() << ", quadratic " << s.quadratic_error());
  CHECK(s.held_out_error() < 0.2);
  CHECK(s.held_out_error() < 0.5 * s.quadratic_error());
  CHECK(s.points() == 400);
  // A constant offset is free: differences of s follow those of the log density.
  const Vec a = (Vec(2) << 0.5, 0.5).finished(), b = (Vec(2) << -1.0, 1.5).finished();
  CHECK((s(a) - s(b)) == Approx(pot.U(b) - pot.U(a)).margin(0.2));
  // Far away it is the concave quadratic: finite and far below.
  CHECK(s(Vec::Constant(2, 40.0)) < s(a) - 100);
}

TEST_CASE("Surrogate transitions: every member samples a banana exactly", "[surrogate-mh]") {
  vt::Banana pot;
  vhmc::SurrogateTransitionConfig c;
  c.max_points = 300;  // (the default 1,000 is slower and no less exact)
  // 12,000 draws per member: the banana's tail in y (var y = 3 from x^2 with x normal) is
  // where a random walk is slowest, for every sampler (rwm() and demc() too); at 6,000 a
  // member's var(y) fell just outside its tolerance at this seed once DE-MCzs moves joined.
  const vhmc::ChainOutput out = run_st(pot, c, banana_init(4), Vec::Zero(2), Mat(Mat::Identity(2, 2)), 250, 12000);
  INFO("error: " << out.error);
  REQUIRE(out.error.empty());
  CHECK(out.counts_total.grad == 0);
  // After the exploration (refine x 3 (1 + d + d (d + 1) / 2) + pilot evaluations), at most
  // one evaluation per member and iteration.
  const long explore = std::get<long>(out.report.at("exploration_evaluations"));
  CHECK(explore == 4 * 3 * 6 + 200);
  const Vec evals = std::get<Vec>(out.report.at("member_evaluations"));
  CHECK(evals.sum() <= explore + 4 * (1 + 250 + 12000));
  CHECK(evals.sum() == Approx(static_cast<double>(out.counts_total.potential)));
  CHECK(std::get<double>(out.report.at("surrogate_error")) < 0.3);
  check_banana(out, 4);
}

TEST_CASE("Surrogate transitions: exact with a poor surrogate (no refinement, few points)", "[surrogate-mh]") {
  Quartic pot;
  vhmc::SurrogateTransitionConfig c;
  c.refine = 0;
  c.pilot = 20;
  c.max_points = 30;
  c.steps = 10;
  c.members = 2;
  c.de_moves = 0.0;  // surrogate transitions only, however poor the surrogate
  c.max_error = std::numeric_limits<double>::infinity();
  // A misleading Laplace approximation: centred off the mass, too narrow in x, too wide in y.
  const Mat H = (Mat(2, 2) << 25.0, 0.0, 0.0, 0.25).finished();
  const vhmc::ChainOutput out = run_st(pot, c, banana_init(2), (Vec(2) << 1.5, -1.0).finished(), H, 0, 100000);
  REQUIRE(out.error.empty());
  const double ex2 = 2.0 * std::tgamma(0.75) / std::tgamma(0.25);
  check_moments(out, 2, {0.0, 0.0}, {ex2, 1.0});
}

TEST_CASE("Surrogate transitions: a surrogate that cannot drive the chains hands every move to DE-MCzs", "[surrogate-mh]") {
  vt::Banana pot;
  vhmc::SurrogateTransitionConfig c;
  c.max_points = 300;
  c.max_error = 0.0;  // no surrogate is good enough: every iteration is a DE-MCzs move on the model
  const vhmc::ChainOutput out = run_st(pot, c, banana_init(4), Vec::Zero(2), Mat(Mat::Identity(2, 2)), 500, 8000);
  REQUIRE(out.error.empty());
  CHECK(std::get<double>(out.report.at("de_share")) == 1.0);
  CHECK(std::get<double>(out.report.at("de_runs_sampling")) == 4.0 * 8000);
  check_banana(out, 4);
}

TEST_CASE("Surrogate transitions: a mixture with DE-MCzs moves is exact", "[surrogate-mh]") {
  vt::Banana pot;
  vhmc::SurrogateTransitionConfig c;
  c.max_points = 300;
  c.de_moves = 0.5;
  const vhmc::ChainOutput out = run_st(pot, c, banana_init(4), Vec::Zero(2), Mat(Mat::Identity(2, 2)), 250, 6000);
  REQUIRE(out.error.empty());
  CHECK(std::get<double>(out.report.at("de_share")) == 0.5);
  // Each of the 24,000 sampling iterations is a DE move with probability 1/2 (binomial sd 77;
  // a snooker proposal without a direction, which runs nothing, has probability ~0).
  const double de = std::get<double>(out.report.at("de_runs_sampling"));
  CHECK(std::abs(de - 0.5 * 4 * 6000) < 4 * std::sqrt(0.25 * 4 * 6000));
  check_banana(out, 4);
}

TEST_CASE("Surrogate transitions: a member at a minor mode far below the mass is moved", "[surrogate-mh]") {
  FarMinorMode pot;
  vhmc::SurrogateTransitionConfig c;
  Vec init(8);
  init << 6.0, 0.0, 5.5, 0.5, -6.0, 0.0, 6.5, -0.5;
  const vhmc::ChainOutput out = run_st(pot, c, init, (Vec(2) << 6.0, 0.0).finished(), Mat(Mat::Identity(2, 2)), 250, 2000);
  REQUIRE(out.error.empty());
  CHECK(std::get<long>(out.report.at("relocated")) == 1);
  CHECK(out.draws.col(4).minCoeff() > 0.0);
}

TEST_CASE("Surrogate transitions: the same seed gives the same draws; a bad start is an error", "[surrogate-mh]") {
  vt::Banana pot;
  vhmc::SurrogateTransitionConfig c;
  c.members = 2;
  const Mat I = Mat::Identity(2, 2);
  const auto a = run_st(pot, c, banana_init(2), Vec::Zero(2), I, 100, 200);
  const auto b = run_st(pot, c, banana_init(2), Vec::Zero(2), I, 100, 200);
  REQUIRE(a.error.empty());
  CHECK(a.draws == b.draws);
  Vec init = banana_init(2);
  init[3] = std::numeric_limits<double>::infinity();
  const auto bad = run_st(pot, c, init, Vec::Zero(2), I, 10, 10);
  CHECK(bad.error.find("not finite at the initial values of chain 2") != std::string::npos);
}
