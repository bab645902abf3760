// Tests of the samplers built on a random-basis network (sampler/surrogate_sampler.hpp,
// sampler/variational_sampler.hpp) through their entry points run_surrogate<Dynamics> and
// run_variational_hmc, on a correlated 2-d Gaussian where both are exact: surrogate HMC
// because its Metropolis step uses the true potential, variational HMC because its Laplace
// base is the target itself (the network fits zero residuals). Checked: moments within
// 4 MCSE, what each sampler costs (no true gradient while sampling; one true potential per
// surrogate HMC iteration; no data access at all after variational training), the
// diagnostic columns, and the reports.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "test_util.hpp"

using vhmc::ChainOutput;
using vhmc::Mat;
using vhmc::Vec;

namespace {

Mat target_cov() {
  Mat S(2, 2);
  S << 1.0, 0.6, 0.6, 2.0;
  return S;
}
Vec target_mean() {
  Vec m(2);
  m << 0.5, -1.0;
  return m;
}

// Means and variances of both coordinates within family_z(2) MCSE of the Gaussian target
// (the MCSE from the target's sd and the chain's ESS, as in test_samplers.cpp).
void check_gaussian_moments(const Mat& draws, const Vec& mean, const Mat& cov) {
  const double z = vt::family_z(2);
  for (int j = 0; j < 2; ++j) {
    const Vec x = draws.col(j);
    const Vec sq = (x.array() - x.mean()).square().matrix();
    const double v = cov(j, j);
    const double se_m = std::sqrt(v / vt::ess(x)), se_v = std::sqrt(2.0 * v * v / vt::ess(sq));
    INFO("coordinate " << j << ": mean " << x.mean() << " (truth " << mean[j] << ", mcse " << se_m
                       << "), var " << vt::var(x) << " (truth " << v << ", mcse " << se_v << ")");
    CHECK(std::abs(x.mean() - mean[j]) < z * se_m);
    CHECK(std::abs(vt::var(x) - v) < z * se_v);
  }
}

// Statistics of a completed chain of a kernel that builds no tree.
void check_hmc_columns(const ChainOutput& out, int n_save) {
  INFO("error: " << out.error);
  REQUIRE(out.error.empty());
  REQUIRE(out.draws.rows() == n_save);
  CHECK_FALSE(out.interrupted);
  CHECK(out.draws.allFinite());
  CHECK(out.columns == vhmc::kHmcColumns);
  CHECK((out.treedepth.array() == -1).all());
  CHECK((out.accept_stat.array() >= 0).all());
  CHECK((out.accept_stat.array() <= 1).all());
  CHECK((out.n_leapfrog.array() >= 1).all());
  CHECK(out.energy.allFinite());
  const double eps = vt::final_step_size(out);
  CHECK(eps > 0);
  CHECK((out.step_size.array() == eps).all());  // frozen for sampling
}

template <class T>
T rep(const ChainOutput& out, const char* name) {
  return vt::report_value<T>(out.report, name);
}

// surrogate_hmc()'s defaults as R settles them: automatic exploration (at most 850
// iterations) and warmup, number of bases chosen by held-out error; the chain starts at
// `mode` with the Laplace approximation (covariance `cov`) as metric and anchor.
struct AutoSurrogate {
  vhmc::FitExtras extras;
  vhmc::SurrogateConfig sc;
  vhmc::SurrogateHmcDynamics::Config dc;
  vhmc::ChainConfig cfg;
  AutoSurrogate(const Vec& mode, const Mat& cov, int sampling, std::uint64_t seed)
      : cfg(vt::chain_config(1000, sampling, seed)) {
    extras.inv_metric = cov;
    extras.laplace = vhmc::Anchor{mode, Mat(cov.inverse()), Vec()};
    sc.explore = 850;
    sc.explore_auto = true;
    sc.train.select_hidden = true;
    cfg.warmup_auto = true;
  }
  template <class P>
  ChainOutput run(P& pot, const Mat& cov, const Vec& init) {
    vhmc::Callbacks cb;
    return vhmc::run_surrogate<vhmc::SurrogateHmcDynamics>(pot, vhmc::DenseMetric(cov), sc, dc, vt::fisher_warmup(), cfg,
                                                           init, extras, cb);
  }
};

// Surrogate HMC (RNS-HMC, ARNS-HMC) from random initial values with a unit diagonal metric
// and Stan's warmup, as the papers' sampler.
template <class P>
ChainOutput run_hmc(P& pot, const vhmc::SurrogateConfig& sc, const vhmc::SurrogateHmcDynamics::Config& dc,
                    const vhmc::ChainConfig& cfg, const Vec& init, vhmc::Callbacks& cb) {
  return vhmc::run_surrogate<vhmc::SurrogateHmcDynamics>(pot, vhmc::DiagMetric(Vec::Ones(2)), sc, dc,
                                                         vt::stan_warmup(), cfg, init, vhmc::FitExtras{}, cb);
}

}  // namespace

TEST_CASE("Surrogate HMC is exact on a Gaussian and never needs a true gradient while sampling",
          "[surrogate][sampler]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  const Vec init = vt::uniform_init(2, 61);
  vhmc::Callbacks cb;
  const int n_save = 4000;
  for (bool adaptive : {false, true}) {
    INFO((adaptive ? "ARNS-HMC" : "RNS-HMC"));
    vhmc::SurrogateConfig sc;
    sc.explore = 500;
    vhmc::SurrogateHmcDynamics::Config dc;
    dc.adaptive = adaptive;
    const auto cfg = vt::chain_config(1000, n_save, adaptive ? 63 : 62);
    const ChainOutput out = run_hmc(pot, sc, dc, cfg, init, cb);
    check_hmc_columns(out, n_save);
    check_gaussian_moments(out.draws, target_mean(), target_cov());
    const long steps = rep<long>(out, "steps");
    CHECK(steps >= 1);
    CHECK((out.n_leapfrog.array() <= steps).all());
    CHECK(out.accept_stat.mean() > 0.3);

    // Costs while sampling: one true potential per iteration, no true gradient, one
    // surrogate gradient per leapfrog step and (ARNS-HMC) one per refresh of the surrogate
    // at the chain's state.
    CHECK(out.counts_total.grad == out.counts_warmup.grad);
    CHECK(out.counts_total.potential - out.counts_warmup.potential <= n_save);
    CHECK(out.counts_total.surrogate_grad - out.counts_warmup.surrogate_grad ==
          out.n_leapfrog.cast<long>().sum() + rep<long>(out, "n_refresh"));
    CHECK(out.counts_total.obs_grad == 0);

    // The training report: points from the exploration after its first 20%, at most the
    // gradients computed there; the quadratic base makes the Gaussian's gradients exact.
    CHECK(rep<long>(out, "explore") == 500);
    CHECK(rep<long>(out, "hidden") > 0);
    const long n_train = rep<long>(out, "n_train"), n_hold = rep<long>(out, "n_holdout");
    CHECK(n_train >= 10);
    CHECK(n_hold > 0);
    CHECK(n_train + n_hold <= rep<long>(out, "n_seen"));
    CHECK(rep<long>(out, "n_seen") < out.counts_warmup.grad);
    CHECK(rep<double>(out, "grad_rel_error") < 1e-6);
    CHECK(rep<double>(out, "explore_step_size") > 0);
    CHECK(rep<bool>(out, "metric_from_base"));
    CHECK(rep<std::string>(out, "activation") == "softplus");
    CHECK(rep<std::string>(out, "train_on") == "gradient");
    if (adaptive) {
      CHECK(rep<long>(out, "n_refresh") > 0);
    } else {
      CHECK(rep<long>(out, "n_refresh") == 0);
    }
  }
}

TEST_CASE("Surrogate HMC with user-fixed steps uses the exploration's metric and jitters 1..L",
          "[surrogate][sampler]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore = 400;
  vhmc::SurrogateHmcDynamics::Config dc;
  dc.steps = 7;
  vhmc::Callbacks cb;
  const ChainOutput out = run_hmc(pot, sc, dc, vt::chain_config(600, 4000, 64), vt::uniform_init(2, 64), cb);
  check_hmc_columns(out, 4000);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
  CHECK(rep<long>(out, "steps") == 7);
  CHECK(out.n_leapfrog.minCoeff() == 1);
  CHECK(out.n_leapfrog.maxCoeff() == 7);
  CHECK_FALSE(rep<bool>(out, "metric_from_base"));
}

TEST_CASE("Surrogate HMC: too short an exploration is an error, not an exception", "[surrogate][sampler]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore = 3;
  vhmc::Callbacks cb;
  ChainOutput out;
  CHECK_NOTHROW(out = run_hmc(pot, sc, {}, vt::chain_config(10, 10, 65), vt::uniform_init(2, 65), cb));
  CHECK(out.error.find("explore") != std::string::npos);
  CHECK(out.draws.rows() == 0);
  CHECK_THROWS(out.report.at("steps"));  // the tuning phase never started, so it says nothing
}

TEST_CASE("Variational HMC with the Laplace base is exact on a Gaussian and stops using the data",
          "[surrogate][sampler][variational]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  const Mat H = target_cov().inverse();
  vhmc::Callbacks cb;
  const int n_save = 4000;
  for (int refresh_every : {0, 7}) {  // 0: automatic (Woodbury per point here); 7: batches
    INFO("refresh_every " << refresh_every);
    vhmc::VariationalConfig vc;
    vc.train_until = 200;
    vc.schedule = 50.0;
    if (refresh_every > 0) vc.refresh_every = refresh_every;
    const auto cfg = vt::chain_config(500, n_save, 66 + refresh_every);
    const ChainOutput out =
        vhmc::run_variational_hmc(pot, target_mean(), H, vc, cfg, vt::uniform_init(2, 66), cb);
    check_hmc_columns(out, n_save);
    check_gaussian_moments(out.draws, target_mean(), target_cov());
    CHECK((out.n_leapfrog.array() <= 20).all());

    // The data are touched only while training: one true gradient per accepted proposal.
    const long n_train = rep<long>(out, "n_train"), n_hold = rep<long>(out, "n_holdout");
    CHECK(n_train > 50);
    CHECK(n_hold == (n_train + n_hold) / 10);
    CHECK(out.counts_total.grad == out.counts_warmup.grad);
    CHECK(out.counts_warmup.grad == n_train + n_hold);
    CHECK(out.counts_total.potential == 0);
    CHECK(out.counts_total.surrogate_grad > out.counts_warmup.surrogate_grad);
    CHECK(rep<long>(out, "n_surrogate_grad") == out.counts_total.surrogate_grad);

    // Reports: the settings, the frozen mu, the exact fit, V at every saved draw.
    CHECK(rep<long>(out, "hidden") == 80);  // min(2000, max(50, 40 d))
    CHECK(rep<long>(out, "refresh_every") == (refresh_every > 0 ? refresh_every : 1));
    CHECK(rep<long>(out, "train_until") == 200);
    CHECK(rep<long>(out, "steps") == 20);
    CHECK(rep<double>(out, "schedule") == 50.0);
    CHECK(rep<double>(out, "mu_final") == Approx(1.0 - std::exp(-4.0)).epsilon(1e-14));
    CHECK(rep<double>(out, "grad_rel_error") < 1e-6);
    CHECK(rep<long>(out, "n_outside") == 0);
    const Vec V = rep<Vec>(out, "draw_potential");
    REQUIRE(V.size() == n_save);
    // V is the Laplace quadratic here, up to the network's (near-zero) contribution.
    for (int i = 0; i < n_save; i += 397) {
      const Vec r = out.draws.row(i).transpose() - target_mean();
      CHECK(V[i] == Approx(0.5 * r.dot(H * r)).margin(1e-6));
    }
    const auto net = std::get<std::shared_ptr<const vhmc::Report>>(out.report.at("network"));
    REQUIRE(net);
    CHECK(vt::report_value<Vec>(*net, "weights").size() == 80);
    CHECK(vt::report_value<bool>(*net, "laplace_base"));
    CHECK(vt::inv_metric_dense(out).isApprox(target_cov(), 1e-12));
  }
}

// A chain that fails or is interrupted before a phase starts reports nothing for that phase
// (its report would read state that was never made): no crash, no garbage values.
TEST_CASE("Phases a failed or interrupted chain never reached do not report", "[surrogate][sampler]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::ChainConfig cfg;
  cfg.iter = 40;
  cfg.warmup = 20;
  vhmc::Callbacks cb;
  SECTION("variational HMC whose Laplace Hessian is not positive definite") {
    Mat H(2, 2);
    H << 1, 0, 0, -1;
    vhmc::VariationalConfig vc;
    vc.train_until = 10;
    const ChainOutput out = vhmc::run_variational_hmc(pot, target_mean(), H, vc, cfg, Vec::Zero(2), cb);
    CHECK(out.error.find("not positive definite") != std::string::npos);
    CHECK_THROWS(out.report.at("n_train"));
  }
  SECTION("surrogate HMC interrupted during exploration") {
    cb.interrupted = [] { return true; };
    const ChainOutput out = run_hmc(pot, vhmc::SurrogateConfig{}, {}, cfg, Vec::Zero(2), cb);
    CHECK(out.interrupted);
    CHECK_THROWS(out.report.at("steps"));
  }
}

TEST_CASE("Surrogate HMC from the mode: a short automatic exploration and the quadratic alone",
          "[surrogate][sampler]") {
  // The chain starts at the mode with the Laplace covariance as its metric and the Hessian
  // there, as vhmc_glm() gives them; on a Gaussian both are exact.
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  AutoSurrogate run(target_mean(), target_cov(), 4000, 67);
  const vhmc::SurrogateConfig& sc = run.sc;
  const ChainOutput out = run.run(pot, target_cov(), target_mean());
  INFO(out.error);
  REQUIRE(out.error.empty());
  const long explore = rep<long>(out, "explore");
  INFO("exploration " << explore << " iterations, " << rep<long>(out, "n_seen") << " points");
  // The quadratic alone is exact here, so the exploration stops at its minimum length, with
  // the quadratic's 4 (d + 1) points rather than the most bases' (training_points_needed).
  CHECK(explore == 30);
  CHECK(rep<long>(out, "n_seen") >= vhmc::quadratic_points_needed(2));
  CHECK(rep<long>(out, "n_seen") < vhmc::training_points_needed(sc.train, 2));
  CHECK(rep<long>(out, "tuning") == 150);
  CHECK(out.warmup_iterations == explore + 150);
  CHECK(rep<long>(out, "hidden") == 0);
  CHECK(rep<double>(out, "grad_rel_error") < 1e-8);
  CHECK(rep<double>(out, "seconds_per_gradient") > 0);
  CHECK(rep<double>(out, "seconds_per_surrogate_gradient") > 0);
  check_hmc_columns(out, 4000);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
  CHECK(out.accept_stat.mean() > 0.9);
}

TEST_CASE("Surrogate HMC from the mode on a banana: the exploration waits for the bases' points",
          "[surrogate][sampler]") {
  // The quadratic base cannot describe the banana, so the automatic exploration runs on
  // until the training set holds what the most bases need, and training keeps bases.
  vt::Banana pot;
  // The Laplace approximation at the mode (0, 0).
  AutoSurrogate run(Vec::Zero(2), Mat::Identity(2, 2), 5000, 68);
  const vhmc::SurrogateConfig& sc = run.sc;
  const ChainOutput out = run.run(pot, Mat::Identity(2, 2), Vec::Zero(2));
  INFO(out.error);
  REQUIRE(out.error.empty());
  const long seen = rep<long>(out, "n_seen");
  INFO("exploration " << rep<long>(out, "explore") << " iterations, " << seen << " points");
  CHECK(rep<long>(out, "explore") > 30);
  CHECK(seen >= vhmc::training_points_needed(sc.train, 2));
  CHECK(rep<long>(out, "hidden") > 0);
  // E[y] = E[x^2] = 1 (and E[x] = 0), within 4 Monte Carlo standard errors of the chain.
  const Vec x0 = out.draws.col(0), y = out.draws.col(1);
  CHECK(std::abs(x0.mean()) < 4.0 * vt::mcse_mean(x0));
  CHECK(std::abs(y.mean() - 1.0) < 4.0 * vt::mcse_mean(y));
}

TEST_CASE("RNS-RMHMC (riemann) is exact on a Gaussian and needs no true gradient while sampling",
          "[surrogate][sampler][rmhmc]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore = 400;
  vhmc::SurrogateRmhmcDynamics::Config dc;
  dc.dense = GENERATE(true, false);  // the base's dense Hessian, or the diagonal
  vhmc::Callbacks cb;
  const int n_save = 4000;
  const ChainOutput out = vhmc::run_surrogate<vhmc::SurrogateRmhmcDynamics>(
      pot, vhmc::DiagMetric(Vec::Ones(2)), sc, dc, vt::stan_warmup(), vt::chain_config(600, n_save, 65),
      vt::uniform_init(2, 65), vhmc::FitExtras{}, cb);
  check_hmc_columns(out, n_save);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
  CHECK(out.n_leapfrog.maxCoeff() <= 6);
  CHECK(out.accept_stat.mean() > 0.5);
  // Sampling: one true potential per iteration (the trajectory's end), no true gradient.
  CHECK(out.counts_total.grad == out.counts_warmup.grad);
  CHECK(out.counts_total.potential - out.counts_warmup.potential <= n_save);
  CHECK(rep<double>(out, "metric_evaluations") > 0.0);
}

TEST_CASE("The payoff decision: AR(1) effective samples, cost ratio and acceptance", "[surrogate][payoff]") {
  // rho = 1 - ESJD / (2 var), ESS per iteration (1 - rho) / (1 + rho), rho in [-0.5, 0.999].
  CHECK(vhmc::ar1_ess(2.0, 1.0) == Approx(1.0));        // rho 0: independent draws
  CHECK(vhmc::ar1_ess(1.0, 1.0) == Approx(1.0 / 3.0));  // rho 0.5
  CHECK(vhmc::ar1_ess(4.0, 1.0) == Approx(3.0));        // antithetic, rho -1 kept at -0.5
  CHECK(vhmc::ar1_ess(0.0, 1.0) == Approx(0.001 / 1.999));
  CHECK(std::isnan(vhmc::ar1_ess(1.0, 0.0)));
  // Two coordinates with variances 1 and 4; NUTS jumps 1 and 2 per iteration (squared 1
  // and 4: 1 and 1 in units of the variances, mean 1, rho 0.5, 1/3 effective samples per
  // iteration), the surrogate sqrt(0.5) and 2 (0.5 and 1, mean 0.75, rho 0.625, 3/13): ESS
  // ratio 9/13, jump ratio 0.75.
  vhmc::JumpMeter nuts(2), sur(2);
  Vec a = Vec::Zero(2);
  for (int i = 0; i < 11; ++i) {
    nuts.add(a);
    a += (Vec(2) << 1.0, 2.0).finished();
  }
  Vec b = Vec::Zero(2);
  for (int i = 0; i < 21; ++i) {
    sur.add(b);
    b += (Vec(2) << std::sqrt(0.5), 2.0).finished();
  }
  const Vec var = (Vec(2) << 1.0, 4.0).finished();
  CHECK(nuts.n() == 10);
  CHECK(sur.n() == 20);
  CHECK(vhmc::standardized_jump(nuts, var) == Approx(1.0));
  CHECK(vhmc::pooled_ess(sur, var) == Approx(3.0 / 13.0));
  CHECK(vhmc::jump_ratio(sur, nuts, var) == Approx(0.75));
  CHECK(vhmc::ess_ratio(sur, nuts, var) == Approx(9.0 / 13.0));
  // Antithetic NUTS (standardized jump 3: rho -0.5, 3 per iteration) counts as 1.
  vhmc::JumpMeter anti(2);
  Vec c = Vec::Zero(2);
  for (int i = 0; i < 11; ++i) {
    anti.add(c);
    c += (Vec(2) << std::sqrt(3.0), 2.0 * std::sqrt(3.0)).finished();
  }
  CHECK(vhmc::pooled_ess(anti, var) == Approx(3.0));
  CHECK(vhmc::ess_ratio(sur, anti, var) == Approx(3.0 / 13.0));
  // A coordinate without variance is left out.
  CHECK(vhmc::standardized_jump(sur, (Vec(2) << 0.0, 4.0).finished()) == Approx(1.0));
  // A NUTS iteration 10x the seconds of a surrogate one: efficiency 9/13 x 10 = 6.9 >= 2.
  vhmc::SurrogatePayoff p = vhmc::decide_payoff(sur, 0.01, nuts, 0.1, var, 0.6, 0.65, 2.0, true);
  CHECK(p.cost_ratio == Approx(10.0));
  CHECK(p.efficiency == Approx(90.0 / 13.0));
  CHECK_FALSE(p.fallback);
  // 2.5x only: efficiency 1.7 < 2, NUTS continues; unless the user keeps the surrogate.
  CHECK(vhmc::decide_payoff(sur, 0.01, nuts, 0.025, var, 0.6, 0.65, 2.0, true).fallback);
  CHECK_FALSE(vhmc::decide_payoff(sur, 0.01, nuts, 0.025, var, 0.6, 0.65, 2.0, false).fallback);
  // The jump ratio alone (0.75 x 2.8 = 2.1) would have kept the surrogate here; the AR(1)
  // effective samples (9/13 x 2.8 = 1.94) do not.
  CHECK(vhmc::decide_payoff(sur, 0.01, nuts, 0.028, var, 0.6, 0.65, 2.0, true).fallback);
  // An acceptance below half the target decides for NUTS whatever the efficiency.
  CHECK(vhmc::decide_payoff(sur, 0.01, nuts, 0.1, var, 0.3, 0.65, 2.0, true).fallback);
  // A surrogate that cannot fit (held-out gradient error 0.97, as on VSEM) is refused whatever
  // its cost ratio (here 1,000: efficiency 692), and the report says the error decided; one
  // that fits (0.04) is kept; without a hold-out set (NaN) the costs decide as before.
  const vhmc::SurrogatePayoff unfit = vhmc::decide_payoff(sur, 0.01, nuts, 10.0, var, 0.6, 0.65, 2.0, true, 0.97);
  CHECK(unfit.fallback);
  CHECK(unfit.unfit);
  CHECK(unfit.held_out_error == 0.97);
  CHECK_FALSE(vhmc::decide_payoff(sur, 0.01, nuts, 10.0, var, 0.6, 0.65, 2.0, true, 0.04).fallback);
  CHECK_FALSE(vhmc::decide_payoff(sur, 0.01, nuts, 10.0, var, 0.6, 0.65, 2.0, true, NAN).fallback);
  CHECK_FALSE(vhmc::decide_payoff(sur, 0.01, nuts, 10.0, var, 0.6, 0.65, 2.0, false, 0.97).fallback);
  // Nothing measured: no decision.
  vhmc::JumpMeter empty(2);
  CHECK_FALSE(vhmc::decide_payoff(empty, 0.01, nuts, 0.1, var, NAN, 0.65, 2.0, true).fallback);
  CHECK_FALSE(vhmc::decide_payoff(sur, 0.01, nuts, 0.1, Vec(), 0.6, 0.65, 2.0, true).fallback);
}

TEST_CASE("Surrogate HMC hands over to NUTS from its state and samples the target", "[surrogate][payoff]") {
  // fallback_ratio = inf: every measured efficiency is below it, so the decision is made
  // whatever the clock says; the draws after warmup are NUTS's on the true gradient.
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore = 300;
  vhmc::SurrogateHmcDynamics::Config dc;
  dc.fallback = true;
  dc.fallback_ratio = std::numeric_limits<double>::infinity();
  dc.decide_before_training = false;  // the decision at the end of tuning is the one tested
  vhmc::Callbacks cb;
  const int n_save = 3000;
  const ChainOutput out = run_hmc(pot, sc, dc, vt::chain_config(500, n_save, 69), vt::uniform_init(2, 69), cb);
  INFO(out.error);
  REQUIRE(out.error.empty());
  CHECK(rep<bool>(out, "fallback"));
  CHECK(std::isfinite(rep<double>(out, "jump_ratio")));
  CHECK(rep<double>(out, "tuning_accept") > 0.3);
  CHECK(vt::final_step_size(out) > 0);
  // NUTS: trees, true gradients while sampling, no surrogate gradient.
  CHECK(out.treedepth.maxCoeff() >= 1);
  CHECK(out.counts_total.grad - out.counts_warmup.grad >= n_save);
  CHECK(out.counts_total.surrogate_grad == out.counts_warmup.surrogate_grad);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
}

TEST_CASE("After a hand-over NUTS's warmup adaptation goes on within the warmup", "[surrogate][payoff]") {
  // An automatic warmup: the exploration ends once the training set suffices, so the
  // exploration's adaptation is short; after the forced hand-over it goes on, ends when it
  // converges or the warmup's 1000 iterations are used, and NUTS samples the target.
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore_auto = true;
  vhmc::SurrogateHmcDynamics::Config dc;
  dc.fallback = true;
  dc.fallback_ratio = std::numeric_limits<double>::infinity();
  dc.decide_before_training = false;
  vhmc::Callbacks cb;
  vhmc::ChainConfig cfg = vt::chain_config(1000, 2000, 71);
  cfg.warmup_auto = true;
  const ChainOutput out = run_hmc(pot, sc, dc, cfg, vt::uniform_init(2, 71), cb);
  INFO(out.error);
  REQUIRE(out.error.empty());
  REQUIRE(rep<bool>(out, "fallback"));
  const long explored = rep<long>(out, "explore"), tuned = rep<long>(out, "tuning");
  const long again = rep<long>(out, "fallback_warmup");
  CHECK(explored < 500);
  CHECK(again > 0);
  CHECK(explored + tuned + again == out.warmup_iterations);
  CHECK(out.warmup_iterations <= 1000);
  const double accept = out.accept_stat.mean();
  CHECK(accept > 0.6);
  CHECK(accept < 0.97);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
}

TEST_CASE("Without a hand-over the NUTS warmup after tuning takes no iterations", "[surrogate][payoff]") {
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  vhmc::SurrogateConfig sc;
  sc.explore = 300;
  vhmc::Callbacks cb;
  const ChainOutput out = run_hmc(pot, sc, {}, vt::chain_config(500, 200, 72), vt::uniform_init(2, 72), cb);
  REQUIRE(out.error.empty());
  CHECK_FALSE(rep<bool>(out, "fallback"));
  CHECK(rep<long>(out, "fallback_warmup") == 0);
  CHECK(out.warmup_iterations == 500);
}

// The decision's inputs (seconds; n iterations after training).
static vhmc::TrainingCosts training_costs(double sec_nuts, double sec_potential, double sec_grad, double steps,
                                          double sec_train, double n, double ess_ratio) {
  vhmc::TrainingCosts c;
  c.sec_nuts = sec_nuts;
  c.sec_potential = sec_potential;
  c.sec_grad = sec_grad;
  c.steps = steps;
  c.sec_train = sec_train;
  c.n = n;
  c.ess_ratio = ess_ratio;
  return c;
}

TEST_CASE("The decision before training: predicted efficiency with training's seconds", "[surrogate][payoff]") {
  // E = ess_ratio x n s_nuts / (s_train + n (s_U + m s_grad)).
  // (a surrogate gradient as dear as a tenth of a NUTS iteration)
  vhmc::TrainingCosts c = training_costs(1e-3, 1e-4, 1e-4, 10, 0.1, 1000, 1.5);
  // Surrogate 0.1 + 1000 (1e-4 + 10 x 1e-4) = 1.2 s against NUTS's 1 s: E = 1.5 / 1.2 < 2.
  vhmc::TrainingPayoff p = vhmc::decide_training(c, 2.0);
  CHECK(p.cost_ratio == Approx(1.0 / 1.2));
  CHECK(p.efficiency == Approx(1.25));
  CHECK(p.fallback);
  // Ten times cheaper surrogate gradients: 0.1 + 1000 x 2e-4 = 0.3 s, E = 5: train.
  c.sec_grad = 1e-5;
  p = vhmc::decide_training(c, 2.0);
  CHECK(p.efficiency == Approx(5.0));
  CHECK_FALSE(p.fallback);
  // ... unless training itself costs what NUTS's iterations would: 1 + 0.2 s, E = 1.25.
  c.sec_train = 1.0;
  p = vhmc::decide_training(c, 2.0);
  CHECK(p.efficiency == Approx(1.25));
  CHECK(p.fallback);
  // A forced hand-over (ratio inf) and nothing measured (no decision).
  CHECK(vhmc::decide_training(c, std::numeric_limits<double>::infinity()).fallback);
  c.ess_ratio = NAN;
  CHECK_FALSE(vhmc::decide_training(c, std::numeric_limits<double>::infinity()).fallback);
}

TEST_CASE("What the decision before training measures and predicts", "[surrogate][payoff]") {
  // The prediction's effective-sample ratio at full acceptance: NUTS at rho 0.5 in both coordinates (1/3 per
  // iteration), an exact surrogate credited 3: ratio 9.
  vhmc::JumpMeter nuts(2);
  Vec a = Vec::Zero(2);
  for (int i = 0; i < 11; ++i) {
    nuts.add(a);
    a += (Vec(2) << 1.0, 2.0).finished();
  }
  const Vec var = (Vec(2) << 1.0, 4.0).finished();
  CHECK(vhmc::kAr1EssMax == Approx(3.0));
  CHECK(vhmc::ess_ratio_to(vhmc::kAr1EssMax, nuts, var) == Approx(9.0));
  // At an acceptance rate a rejection is a jump of 0: rho = a rho_1 + 1 - a. Full acceptance
  // keeps the ESS; 3 (rho_1 = -0.5) at 0.65 is 0.975 / 1.025; 1 (rho_1 = 0) at 0.5 is 1/3.
  CHECK(vhmc::ess_at_acceptance(3.0, 1.0) == Approx(3.0));
  CHECK(vhmc::ess_at_acceptance(3.0, 0.65) == Approx(0.975 / 1.025));
  CHECK(vhmc::ess_at_acceptance(1.0, 0.5) == Approx(1.0 / 3.0));
  CHECK(std::isnan(vhmc::ess_ratio_to(3.0, vhmc::JumpMeter(2), var)));
  // Training's flops: features 2 n s d, Gram n s^2 (n d s^2 on the generic path), factor s^3/3.
  CHECK(vhmc::ridge_fit_flops(100, 10, 2, true, vhmc::Activation::Softplus) == Approx(4000 + 10000 + 1000.0 / 3));
  CHECK(vhmc::ridge_fit_flops(100, 10, 2, true, vhmc::Activation::Rbf) == Approx(4000 + 20000 + 1000.0 / 3));
  CHECK(vhmc::ridge_fit_flops(100, 10, 2, false, vhmc::Activation::Rbf) == Approx(4000 + 10000 + 1000.0 / 3));
  // Timing: batches of at most max_calls (here 7), up to 5 of them while the total is short;
  // a call longer than 5 min_seconds is timed in 3 batches of one call (a single batch may
  // have lost a time slice to the machine's other work); and a positive rate of a factor.
  vhmc::ChainClock clock;
  int calls = 0;
  CHECK(vhmc::fastest_seconds_per_call(clock, [&] { ++calls; }, 1e9, 7) >= 0.0);
  CHECK(calls == 35);
  calls = 0;
  const double slow = vhmc::fastest_seconds_per_call(clock, [&] {
    ++calls;
    const double t0 = clock.seconds();
    while (clock.seconds() - t0 < 1e-3) {
    }
  }, 1e-4);
  CHECK(calls == 3);
  CHECK(slow >= 1e-3);
  // NUTS at its fastest: the least seconds per gradient over chunks of 2 iterations (the
  // first call starts the clock): (2 - 0) / 20 and (6 - 2) / 20, the first.
  vhmc::FastestRate rate(2);
  CHECK(std::isnan(rate.fastest()));
  rate.add(0.0, 7.0);
  rate.add(1.0, 10.0);
  CHECK(std::isnan(rate.fastest()));
  rate.add(2.0, 10.0);
  rate.add(5.0, 10.0);
  rate.add(6.0, 10.0);
  CHECK(rate.fastest() == Approx(0.1));
  const double flop = vhmc::seconds_per_flop(clock, 64);
  CHECK(std::isfinite(flop));
  CHECK(flop > 0.0);
  // The frequencies of a metric on a Gaussian: eigenvalues of A S^-1 (S = L L').
  const Mat S = target_cov();
  const Mat L = S.llt().matrixL();
  const Vec w = vhmc::gaussian_frequencies(Mat::Identity(2, 2), L);
  const Vec expect = Eigen::SelfAdjointEigenSolver<Mat>(Mat(S.inverse())).eigenvalues();
  REQUIRE(w.size() == 2);
  CHECK(w[0] == Approx(expect[0]));
  CHECK(w[1] == Approx(expect[1]));
  CHECK(vhmc::gaussian_frequencies(S, L).isApprox(Vec::Ones(2)));
  // The surrogate's step size keeps eps w_max and halves it, at most the step whose energy
  // error on a Gaussian of d directions has sd sqrt(d) (w eps)^2 / 4 = 0.05.
  CHECK(vhmc::surrogate_step_size(0.2, 4.0, 1.0, 2) == Approx(0.2));
  CHECK(vhmc::surrogate_step_size(0.4, 0.0, 1.0, 2) == Approx(0.2));
  CHECK(vhmc::surrogate_step_size(0.4, 4.0, 1.0, 2) == Approx(std::sqrt(0.2 / std::sqrt(2.0))));
  const double capped = vhmc::surrogate_step_size(0.72, 1.0, 4.0, 62);  // w_max = 2
  CHECK(std::sqrt(62.0) * std::pow(2.0 * capped, 2) / 4.0 == Approx(0.05));
}

TEST_CASE("The decision before training: a cheap trial when an accurate surrogate would pay", "[surrogate][payoff]") {
  // NUTS's remaining 1150 iterations cost 23 s; a surrogate iteration 3 ms (a true log
  // density and 10 network gradients), training 0.5 s: cost ratio 23 / 3.95, the trial
  // (training and 150 tuning iterations) 0.95 s, 4.1% of NUTS's remaining seconds.
  vhmc::TrainingCosts c = training_costs(0.02, 1e-3, 2e-4, 10, 0.5, 1150, 0.3);
  c.n_tune = 150;
  c.ess_ratio_accurate = 0.6;
  vhmc::TrainingPayoff p = vhmc::decide_training(c, 2.0);
  CHECK(p.cost_ratio == Approx(23.0 / 3.95));
  CHECK(p.efficiency == Approx(0.3 * 23.0 / 3.95));  // 1.75: below the ratio at the target ...
  CHECK(p.efficiency_accurate == Approx(0.6 * 23.0 / 3.95));  // ... above it at kAccurateAccept
  CHECK(p.trial_share == Approx(0.95 / 23.0));
  CHECK_FALSE(p.fallback);  // cheap: the chain trains, and the end of tuning judges
  // Training of 3 s makes the trial 15% of NUTS's remaining seconds: it hands over.
  c.sec_train = 3.0;
  p = vhmc::decide_training(c, 2.0);
  CHECK(p.trial_share == Approx(3.45 / 23.0));
  CHECK(p.efficiency_accurate > 2.0);
  CHECK(p.fallback);
  // ... unless the prediction at the target passes the ratio itself.
  c.ess_ratio = 0.6;
  CHECK_FALSE(vhmc::decide_training(c, 2.0).fallback);
  // A cheap trial of a surrogate that would not pay even if accurate: it hands over.
  c.sec_train = 0.5;
  c.ess_ratio = c.ess_ratio_accurate = 0.3;
  CHECK(vhmc::decide_training(c, 2.0).fallback);
  // Nothing known (no NUTS iterations timed): never a hand-over on a NaN.
  c.sec_nuts = NAN;
  CHECK_FALSE(vhmc::decide_training(c, 2.0).fallback);
  // The rule is void unless accurate surrogates are assumed to accept more than the tuning aims at.
  CHECK(vhmc::kAccurateAccept > vhmc::SurrogateConfig{}.trajectory_accept);
  CHECK(vhmc::ess_at_acceptance(3.0, vhmc::kAccurateAccept) == Approx(1.275 / 0.725));
}

TEST_CASE("A hand-over before training: NUTS continues without a surrogate", "[surrogate][payoff]") {
  // fallback_ratio = inf: every prediction is below it, so the chain hands over before
  // training whatever the clock says; the automatic warmup then adapts NUTS again.
  vhmc::GaussianPotential pot(target_mean(), target_cov());
  AutoSurrogate run(target_mean(), target_cov(), 2000, 73);
  run.dc.fallback = true;
  run.dc.fallback_ratio = std::numeric_limits<double>::infinity();
  run.sc.train.select_hidden = false;  // the quadratic alone suffices here, and then nothing is decided
  const ChainOutput out = run.run(pot, target_cov(), target_mean());
  INFO(out.error);
  REQUIRE(out.error.empty());
  CHECK(rep<bool>(out, "fallback_before_training"));
  CHECK(rep<bool>(out, "fallback"));
  CHECK(std::isfinite(rep<double>(out, "predicted_efficiency_ratio")));
  CHECK(rep<double>(out, "predicted_train_seconds") >= 0.0);
  CHECK(rep<double>(out, "predicted_steps") >= 1.0);
  CHECK(rep<double>(out, "predicted_efficiency_if_accurate") >= rep<double>(out, "predicted_efficiency_ratio"));
  CHECK(rep<double>(out, "trial_share") > 0.0);
  // Nothing trained or tuned: no surrogate gradient at all, NUTS's warmup after the exploration.
  CHECK_THROWS_AS(out.report.at("hidden"), std::out_of_range);
  CHECK(rep<long>(out, "tuning") == 0);
  CHECK(out.counts_total.surrogate_grad == 0);
  const long explored = rep<long>(out, "explore"), again = rep<long>(out, "fallback_warmup");
  CHECK(again > 0);
  CHECK(explored + again == out.warmup_iterations);
  CHECK(out.treedepth.maxCoeff() >= 1);
  CHECK(vt::final_step_size(out) > 0);
  const double accept = out.accept_stat.mean();
  CHECK(accept > 0.6);
  CHECK(accept < 0.97);
  check_gaussian_moments(out.draws, target_mean(), target_cov());
  // With the decision left to the end of tuning, the same chain trains and tunes first.
  run.dc.decide_before_training = false;
  const ChainOutput late = run.run(pot, target_cov(), target_mean());
  REQUIRE(late.error.empty());
  CHECK(rep<bool>(late, "fallback"));
  CHECK_FALSE(rep<bool>(late, "fallback_before_training"));
  CHECK(rep<long>(late, "tuning") > 0);
  CHECK(std::isnan(rep<double>(late, "predicted_efficiency_ratio")));
}
