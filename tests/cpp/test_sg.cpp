// Tests of stochastic-gradient MCMC (Welling & Teh 2011; Chen, Fox & Guestrin 2014): the GLM
// minibatch gradient (unbiased; one
// epoch of batches averages to the full gradient; B = N is the full gradient) for every
// family with weights, offset, centring and scaling; the batch schedule; SGHMC and SGLD on a
// conjugate Gaussian model through run_sg (reports, counts); errors for non-finite states;
// interrupts.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <vhmc/vhmc.hpp>
#include <vhmc/model/glm.hpp>
#include <vhmc/sampler/sg_sampler.hpp>
#include <vhmc/sampler/sghmc.hpp>
#include <vhmc/sampler/sgld.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Prior;
using vhmc::Vec;

struct SgProblem {
  int n = 0, k = 0;
  std::vector<double> X, y, w, o, c, s;
};

SgProblem sg_problem(GlmFamily f, int n, int k, std::uint64_t seed) {
  vhmc::Rng rng(seed, 3);
  SgProblem p;
  p.n = n;
  p.k = k;
  p.X.resize(static_cast<size_t>(n) * k);
  for (auto& x : p.X) x = 0.8 * rng.normal() + 0.3;
  p.y.resize(n);
  p.w.resize(n);
  p.o.resize(n);
  for (int i = 0; i < n; ++i) {
    p.o[i] = 0.2 * rng.normal();
    p.w[i] = 1.0 + static_cast<int>(3 * rng.uniform());
    double eta = -0.1 + p.o[i];
    for (int j = 0; j < k; ++j) eta += 0.4 * p.X[static_cast<size_t>(j) * n + i];
    if (f == vt::fam::GaussianIdentity) {
      p.y[i] = eta + 0.7 * rng.normal();
    } else if (f == vt::fam::BinomialLogit || f == vt::fam::BinomialProbit) {
      p.y[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0;
    } else if (f == vt::fam::PoissonLog || f == vt::fam::NegBinomial2Log) {
      p.y[i] = std::floor(std::exp(eta) + rng.uniform());
    } else if (f == vt::fam::GammaLog) {
      p.y[i] = std::exp(eta) * (0.5 + rng.uniform());
    }
  }
  for (int j = 0; j < k; ++j) {
    p.c.push_back(0.3 + 0.01 * j);
    p.s.push_back(0.8 + 0.1 * j);
  }
  return p;
}

// The three data variants of the epoch-average tests: 0 plain (no intercept); 1 weights and
// offset (with an intercept); 2 also centring and scaling.
GlmData variant_data(const SgProblem& p, int variant) {
  return GlmData(p.X.data(), p.n, p.k, p.y.data(), variant > 0 ? p.w.data() : nullptr,
                 variant > 0 ? p.o.data() : nullptr, variant > 1 ? p.c.data() : nullptr,
                 variant > 1 ? p.s.data() : nullptr);
}

const GlmFamily kSgFamilies[] = {vt::fam::GaussianIdentity, vt::fam::BinomialLogit,
                                 vt::fam::BinomialProbit,   vt::fam::PoissonLog,
                                 vt::fam::NegBinomial2Log,  vt::fam::GammaLog};

double max_rel_diff(const Vec& a, const Vec& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

}  // namespace

TEST_CASE("minibatch gradients average to the full gradient over one epoch", "[sg]") {
  const int n = 120, k = 3;
  for (GlmFamily f : kSgFamilies) {
    for (int variant = 0; variant < 3; ++variant) {
      // 0: plain, no intercept; 1: intercept, weights, offset; 2: + centring and scaling
      SgProblem p = sg_problem(f, n, k, 11 + variant);
      const bool icpt = variant > 0;
      const GlmData data = variant_data(p, variant);
      GlmPotential pot(data, f, icpt, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0),
                       Prior::exponential(1.0));
      INFO("family " << f.index << " variant " << variant);
      vhmc::Rng rng(5, 1);
      Vec theta(pot.dim());
      for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.3 * rng.normal();
      Vec g_full;
      pot.U_grad(theta, g_full);
      for (int B : {1, 8, 30, 120}) {
        INFO("B = " << B);
        vhmc::BatchSchedule sched(n, B);
        Vec acc = Vec::Zero(pot.dim()), g;
        std::set<int> seen;
        for (int b = 0; b < n / B; ++b) {
          const int* idx = sched.next(rng);
          for (int i = 0; i < B; ++i) seen.insert(idx[i]);
          pot.minibatch_grad(theta, idx, B, g);
          acc += g;
        }
        acc /= static_cast<double>(n / B);
        CHECK(static_cast<int>(seen.size()) == n);  // a partition of the rows
        CHECK(max_rel_diff(acc, g_full) < 1e-10);
        if (B == n) CHECK(max_rel_diff(g, g_full) < 1e-10);
      }
    }
  }
}

TEST_CASE("minibatch gradient is unbiased over random batches and reshuffles per epoch", "[sg]") {
  const int n = 50, k = 2;
  SgProblem p = sg_problem(vt::fam::BinomialLogit, n, k, 3);
  GlmData data(p.X.data(), n, k, p.y.data());
  GlmPotential pot(data, vt::fam::BinomialLogit, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
  Vec theta(3);
  theta << 0.1, -0.2, 0.3;
  Vec g_full, g, acc = Vec::Zero(3);
  pot.U_grad(theta, g_full);
  vhmc::Rng rng(9, 2);
  vhmc::BatchSchedule sched(n, 7);  // 7 does not divide 50: the tail is skipped
  std::vector<int> first(7), second(7);
  const int reps = 7 * 20000;
  for (int r = 0; r < reps; ++r) {
    const int* idx = sched.next(rng);
    if (r == 0) first.assign(idx, idx + 7);
    if (r == 7) second.assign(idx, idx + 7);  // first batch of the second epoch
    pot.minibatch_grad(theta, idx, 7, g);
    acc += g;
  }
  acc /= reps;
  CHECK(first != second);
  for (int j = 0; j < 3; ++j) CHECK(acc[j] == Approx(g_full[j]).epsilon(0.02).margin(0.05));
}

namespace {

// y_i ~ N(mu, 1), i = 1..N, flat prior: posterior N(mean(y), 1/N). Minibatch interface only.
struct MeanModel {
  std::vector<double> y;
  int dim() const { return 1; }
  Eigen::Index n_obs() const { return static_cast<Eigen::Index>(y.size()); }
  void minibatch_grad(const Vec& th, const int* idx, Eigen::Index m, Vec& g, Vec* v = nullptr) {
    double s = 0.0, ss = 0.0;
    for (Eigen::Index i = 0; i < m; ++i) {
      s += y[idx[i]] - th[0];
      ss += (y[idx[i]] - th[0]) * (y[idx[i]] - th[0]);
    }
    g.resize(1);
    const double n = static_cast<double>(y.size());
    g[0] = -n / static_cast<double>(m) * s;
    if (v) {
      v->resize(1);
      (*v)[0] = n * n / m * (ss - s * s / m) / (m - 1);
    }
  }
  // Per-row gradients differ by the constant th - th_hat: the control variate is exact.
  void minibatch_grad_diff(const Vec& th, const Vec& th_hat, const int*, Eigen::Index, Vec& g,
                           Vec* v = nullptr) {
    g.resize(1);
    g[0] = static_cast<double>(y.size()) * (th[0] - th_hat[0]);
    if (v) v->setZero(1);
  }
};

MeanModel mean_model(int n) {
  MeanModel m;
  vhmc::Rng rng(2, 0);
  for (int i = 0; i < n; ++i) m.y.push_back(1.5 + rng.normal());
  return m;
}

// The conjugate test problem: mean of n unit-variance observations, its posterior mean ybar
// and sd 1 / sqrt(n) (flat prior).
struct Conjugate {
  explicit Conjugate(int n) : model(mean_model(n)), post_sd(1.0 / std::sqrt(static_cast<double>(n))) {
    for (double v : model.y) ybar += v;
    ybar /= n;
  }
  MeanModel model;
  double ybar = 0.0, post_sd;
};

// Sample mean and sd of the first coordinate's draws.
std::pair<double, double> draw_moments(const vhmc::ChainOutput& out) {
  const Vec x = out.draws.col(0);
  const double m = x.mean();
  return {m, std::sqrt((x.array() - m).square().sum() / (x.size() - 1))};
}

vhmc::ChainConfig sg_chain(int iter, int warmup) {
  vhmc::ChainConfig cfg;
  cfg.iter = iter;
  cfg.warmup = warmup;
  cfg.seed = 17;
  return cfg;
}

// A named value of an SG chain's report (SgChain::report).
double rep_double(const vhmc::ChainOutput& out, const char* name) { return vt::report_value<double>(out.report, name); }
long rep_long(const vhmc::ChainOutput& out, const char* name) { return vt::report_value<long>(out.report, name); }

// What every completed SG chain reports: the diagnostic columns of a kernel without
// Metropolis step or tree, the updates per iteration as n_leapfrog, the frozen step size,
// and the report's sizes and counts.
void check_sg_output(const vhmc::ChainOutput& out, long n_obs, long batch_size, int n_save) {
  REQUIRE(out.error.empty());
  REQUIRE(out.draws.rows() == n_save);
  CHECK(out.columns == (vhmc::kStepSize | vhmc::kLeapfrog));
  CHECK((out.treedepth.array() == -1).all());
  CHECK((out.divergent.array() == 0).all());
  CHECK(out.accept_stat.array().isNaN().all());
  CHECK(out.energy.array().isNaN().all());
  const long updates = rep_long(out, "updates");
  CHECK(updates >= 1);
  CHECK((out.n_leapfrog.array() == updates).all());
  CHECK(rep_long(out, "n_obs") == n_obs);
  CHECK(rep_long(out, "batch_size") == batch_size);
  // one minibatch gradient per update, none of the true potential; the updates per
  // iteration are frozen for sampling (thin = 1: every sampling iteration is saved)
  CHECK(out.counts_total.grad == rep_long(out, "n_updates"));
  CHECK(vt::grad_sampling(out) == static_cast<long>(n_save) * updates);
  CHECK(out.counts_total.potential == 0);
  CHECK(vt::final_step_size(out) == rep_double(out, "step_size"));
}

}  // namespace

TEST_CASE("SGHMC and SGLD recover a conjugate Gaussian posterior", "[sg]") {
  const int n = 1000;
  Conjugate cj(n);
  MeanModel& model = cj.model;
  const double ybar = cj.ybar, post_sd = cj.post_sd;
  vhmc::Callbacks cb;
  Vec init(1);
  init << 0.0;
  auto check = [&](const vhmc::ChainOutput& out, double tol_sd) {
    REQUIRE(out.error.empty());
    const auto [m, sd] = draw_moments(out);
    CHECK(std::fabs(m - ybar) < 0.15 * post_sd);
    CHECK(sd / post_sd == Approx(1.0).margin(tol_sd));
  };
  SECTION("SGHMC, defaults from the curvature") {
    vhmc::SghmcConfig c;
    const auto out = vhmc::run_sg<vhmc::Sghmc>(model, c, 50, nullptr, sg_chain(4000, 200), init, cb);
    check_sg_output(out, n, 50, 3800);
    // diag metric: s^2 = 1 / N, curvature 1 in the preconditioned coordinates
    CHECK(rep_double(out, "curvature") == Approx(1.0).epsilon(1e-4));
    CHECK(vt::inv_metric_diag(out)[0] == Approx(1.0 / n).epsilon(1e-4));
    CHECK(vt::obs_grad_sampling(out) == 3800L * rep_long(out, "updates") * 50);
    check(out, 0.1);
  }
  SECTION("SGHMC, unit metric, defaults from the curvature") {
    vhmc::SghmcConfig c;
    c.diag_metric = false;
    const auto out = vhmc::run_sg<vhmc::Sghmc>(model, c, 50, nullptr, sg_chain(4000, 200), init, cb);
    check_sg_output(out, n, 50, 3800);
    CHECK(rep_double(out, "curvature") == Approx(n).epsilon(1e-4));
    CHECK(rep_double(out, "friction") == Approx(std::sqrt(n)).epsilon(1e-4));
    CHECK(rep_double(out, "step_size") == Approx(0.2 * 50.0 / n / std::sqrt(n)).epsilon(1e-4));  // eps_u = 0.2 B/N
    check(out, 0.1);
  }
  SECTION("SGLD, defaults from the curvature") {
    vhmc::SgldConfig c;
    const auto out = vhmc::run_sg<vhmc::Sgld>(model, c, 50, nullptr, sg_chain(4000, 200), init, cb);
    check_sg_output(out, n, 50, 3800);
    CHECK(rep_double(out, "friction") == 0.0);
    check(out, 0.1);
  }
  SECTION("SGLD with a decaying step") {
    vhmc::SgldConfig c;
    c.diag_metric = false;
    c.step_size = 2e-4;
    c.decay = 0.1;
    c.updates = 20;
    const auto out = vhmc::run_sg<vhmc::Sgld>(model, c, 100, nullptr, sg_chain(3000, 200), init, cb);
    REQUIRE(out.error.empty());
    check_sg_output(out, n, 100, 2800);
    CHECK(rep_long(out, "updates") == 20);
    // all settings given, unit metric: no curvature estimate
    CHECK(rep_double(out, "curvature") == 0.0);
    CHECK(out.counts_total.obs_grad == 3000L * 20 * 100);
    CHECK(out.step_size[out.step_size.size() - 1] < 2e-4 * std::pow(200.0 * 20, -0.1));
  }
}

TEST_CASE("SGHMC-CV and SGLD-CV recover a conjugate Gaussian posterior at the largest default step", "[sg][cv]") {
  Conjugate cj(1000);
  vhmc::Callbacks cb;
  vhmc::ControlVariate cv;
  cv.theta_hat = Vec::Constant(1, cj.ybar);
  cv.grad_hat = Vec::Zero(1);
  auto check = [&](const vhmc::ChainOutput& out) {
    REQUIRE(out.error.empty());
    check_sg_output(out, 1000, 50, 3800);
    const auto [m, sd] = draw_moments(out);
    CHECK(std::fabs(m - cj.ybar) < 0.15 * cj.post_sd);
    CHECK(sd / cj.post_sd == Approx(1.0).margin(0.1));
    // every update costs 2B rows
    CHECK(vt::obs_grad_sampling(out) == 3800L * rep_long(out, "updates") * 2 * 50);
  };
  vhmc::SghmcConfig c;
  const auto res = vhmc::run_sg<vhmc::Sghmc>(cj.model, c, 50, &cv, sg_chain(4000, 200), cv.theta_hat, cb);
  // no measured noise: the step is the discretisation limit 0.1 / sqrt(lambda), lambda = 1
  CHECK(rep_double(res, "step_size") == Approx(0.1).epsilon(1e-3));
  check(res);
  vhmc::SgldConfig c2;
  const auto res2 = vhmc::run_sg<vhmc::Sgld>(cj.model, c2, 50, &cv, sg_chain(4000, 200), cv.theta_hat, cb);
  CHECK(rep_double(res2, "step_size") == Approx(0.1).epsilon(1e-3));
  check(res2);
}

TEST_CASE("SG chains stop with a clear error on a non-finite state, and on interrupts", "[sg]") {
  MeanModel model = mean_model(500);
  Vec init(1);
  init << 0.0;
  vhmc::Callbacks cb;
  vhmc::SghmcConfig c;
  c.diag_metric = false;
  c.step_size = 0.5;  // eps^2 lambda = 125: explodes
  c.friction = 1.0;
  c.updates = 10;
  const auto res = vhmc::run_sg<vhmc::Sghmc>(model, c, 50, nullptr, sg_chain(200, 100), init, cb);
  INFO(res.error);
  CHECK(res.error.find("smaller step_size") != std::string::npos);
  // the loop says where: "at iteration i (warmup)", no placeholder left
  CHECK(res.error.find("at iteration ") != std::string::npos);
  CHECK(res.error.find("(warmup)") != std::string::npos);
  CHECK(res.error.find("{where}") == std::string::npos);
  CHECK(res.draws.rows() == 0);
  CHECK(res.draws.allFinite());
  CHECK(res.iterations_done < 100);

  // Interrupted after 30 iterations (20 burn-in, 10 saved); see vt::InterruptAfter.
  vhmc::ChainConfig cfg = sg_chain(200, 20);
  cfg.refresh = 1;
  vt::InterruptAfter stop(30);
  vhmc::SgldConfig c2;
  const auto res2 = vhmc::run_sg<vhmc::Sgld>(model, c2, 50, nullptr, cfg, init, stop.cb);
  CHECK(res2.interrupted);
  CHECK(res2.error.empty());
  CHECK(res2.iterations_done == 30);
  CHECK(res2.draws.rows() == 10);
  CHECK(res2.draws.allFinite());
  CHECK(rep_long(res2, "n_updates") == 30L * rep_long(res2, "updates"));
}

TEST_CASE("minibatch gradient-noise estimate V_hat matches per-row gradients", "[sg]") {
  const int n = 80, k = 3, m = 16;
  for (GlmFamily f : kSgFamilies) {
    SgProblem p = sg_problem(f, n, k, 21);
    GlmData data(p.X.data(), n, k, p.y.data(), p.w.data(), p.o.data(), p.c.data(), p.s.data());
    GlmPotential pot(data, f, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
    INFO("family " << f.index);
    Vec theta(pot.dim());
    for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.1 * (j + 1);
    std::vector<int> idx(m);
    for (int i = 0; i < m; ++i) idx[i] = 3 * i + 1;
    Vec g, v;
    pot.minibatch_grad(theta, idx.data(), m, g, &v);
    // one-row gradients g(i) = -N grad log p(y_i) - grad log p0: V_hat = var_i(g(i)) / m
    vhmc::Mat rows(m, pot.dim());
    for (int i = 0; i < m; ++i) {
      Vec gi;
      pot.minibatch_grad(theta, &idx[i], 1, gi);
      rows.row(i) = gi.transpose();
    }
    for (int j = 0; j < pot.dim(); ++j) {
      const Vec c = rows.col(j);
      const double var = (c.array() - c.mean()).square().sum() / (m - 1);
      CHECK(v[j] == Approx(var / m).epsilon(1e-9));
    }
  }
}

TEST_CASE("SGHMC with the estimated noise B_hat recovers the conjugate posterior", "[sg]") {
  Conjugate cj(1000);
  MeanModel& model = cj.model;
  const double ybar = cj.ybar, post_sd = cj.post_sd;
  vhmc::Callbacks cb;
  Vec init(1);
  init << 0.0;
  // Independent batches: with epochs the batch noises of one epoch are negatively
  // correlated (they sum to zero at fixed theta), their effect is far below eps V / 2, and
  // the V_hat correction would over-correct.
  vhmc::SghmcConfig c;
  c.fresh_batches = true;
  c.estimate_noise = true;
  c.step_size = 0.05;  // natural units: eps V / 2 = 0.05 * 20 / 2 = 0.5 of C = 1
  const auto res = vhmc::run_sg<vhmc::Sghmc>(model, c, 50, nullptr, sg_chain(4000, 200), init, cb);
  REQUIRE(res.error.empty());
  check_sg_output(res, 1000, 50, 3800);
  const auto [m, sd] = draw_moments(res);
  CHECK(std::fabs(m - ybar) < 0.15 * post_sd);
  CHECK(sd / post_sd == Approx(1.0).margin(0.1));
  CHECK(rep_long(res, "n_clamped") < rep_long(res, "n_updates") / 100);  // V_hat rarely exceeds 2 C / eps
  // Without the correction, the same step inflates the variance by about (1 + 0.5).
  vhmc::SghmcConfig c0 = c;
  c0.estimate_noise = false;
  const auto res0 = vhmc::run_sg<vhmc::Sghmc>(model, c0, 50, nullptr, sg_chain(4000, 200), init, cb);
  REQUIRE(res0.error.empty());
  CHECK(rep_long(res0, "n_clamped") == 0);
  CHECK(draw_moments(res0).second / post_sd > 1.1);
}

TEST_CASE("fixed-precision gaussian potential: closed form and epoch-averaged minibatch gradients", "[sg]") {
  // The fixed-precision ARDL model: y = Z w + e, e ~ N(0, 1/alpha), w ~ N(0, I/beta); Z has a
  // column of ones (the intercept, not centred) and k other columns.
  const int n = 120, k = 3;
  const double alpha = 2.5, beta = 0.01;
  SgProblem p = sg_problem(vt::fam::GaussianIdentity, n, k, 31);
  GlmData data(p.X.data(), n, k, p.y.data());
  const Prior prior = Prior::normal(0.0, 1.0 / std::sqrt(beta));
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, prior, prior, Prior::flat(), alpha);
  REQUIRE(pot.dim() == k + 1);  // no sigma
  CHECK_FALSE(pot.has_aux());
  vhmc::Mat Z(n, k + 1);
  Z.col(0).setOnes();
  Z.rightCols(k) = Eigen::Map<const vhmc::Mat>(p.X.data(), n, k);
  const Eigen::Map<const Vec> y(p.y.data(), n);
  auto closed_u = [&](const Vec& w) { return 0.5 * alpha * (y - Z * w).squaredNorm() + 0.5 * beta * w.squaredNorm(); };
  vhmc::Rng rng(8, 1);
  Vec w0(k + 1), w1(k + 1), g_full;
  for (int j = 0; j <= k; ++j) {
    w0[j] = 0.5 * rng.normal();
    w1[j] = 0.5 * rng.normal();
  }
  // U up to a constant, and g(w) = -alpha Z'(y - Zw) + beta w.
  CHECK(pot.U(w1) - pot.U(w0) == Approx(closed_u(w1) - closed_u(w0)).epsilon(1e-10));
  pot.U_grad(w0, g_full);
  const Vec g_closed = -alpha * Z.transpose() * (y - Z * w0) + beta * w0;
  CHECK(max_rel_diff(g_full, g_closed) < 1e-10);
  // g~(w) = -alpha (N/B) sum_S (y - w'z) z + beta w, and an epoch of batches averages to g.
  for (int B : {1, 8, 24, 120}) {  // divisors of N: one epoch is a partition of the rows
    INFO("B = " << B);
    vhmc::BatchSchedule sched(n, B);
    Vec acc = Vec::Zero(k + 1), g;
    for (int b = 0; b < n / B; ++b) {
      const int* idx = sched.next(rng);
      pot.minibatch_grad(w0, idx, B, g);
      Vec by_hand = beta * w0;
      for (int i = 0; i < B; ++i)
        by_hand -= alpha * static_cast<double>(n) / B * (y[idx[i]] - Z.row(idx[i]).dot(w0)) * Z.row(idx[i]).transpose();
      CHECK(max_rel_diff(g, by_hand) < 1e-10);
      acc += g;
    }
    acc /= static_cast<double>(n / B);
    CHECK(max_rel_diff(acc, g_full) < 1e-10);
  }
  // The fixed precision is the gaussian family's alone, and must be >= 0.
  CHECK_THROWS_AS(GlmPotential(data, vt::fam::BinomialLogit, true, prior, prior, Prior::flat(), alpha),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, vt::fam::GaussianIdentity, true, prior, prior, Prior::flat(), -1.0),
                  std::invalid_argument);
}

TEST_CASE("control-variate gradient is unbiased: one epoch averages to the full gradient", "[sg][cv]") {
  const int n = 120, k = 3;
  for (GlmFamily f : kSgFamilies) {
    for (int variant = 0; variant < 3; ++variant) {
      SgProblem p = sg_problem(f, n, k, 31 + variant);
      const bool icpt = variant > 0;
      const GlmData data = variant_data(p, variant);
      GlmPotential pot(data, f, icpt, Prior::normal(0.0, 5.0), Prior::student_t(3.0, 0.0, 2.0),
                       Prior::exponential(1.0));
      INFO("family " << f.index << " variant " << variant);
      vhmc::Rng rng(7, 1);
      vhmc::ControlVariate cv;
      cv.theta_hat.resize(pot.dim());
      Vec theta(pot.dim());
      for (int j = 0; j < pot.dim(); ++j) {
        cv.theta_hat[j] = 0.2 * rng.normal();
        theta[j] = cv.theta_hat[j] + 0.3 * rng.normal();
      }
      pot.U_grad(cv.theta_hat, cv.grad_hat);
      Vec g_full;
      pot.U_grad(theta, g_full);
      for (int B : {1, 8, 30, 120}) {
        INFO("B = " << B);
        vhmc::BatchSchedule sched(n, B);
        Vec acc = Vec::Zero(pot.dim()), g;
        for (int b = 0; b < n / B; ++b) {
          cv(pot, theta, sched.next(rng), B, g, nullptr);
          acc += g;
        }
        acc /= static_cast<double>(n / B);
        CHECK(max_rel_diff(acc, g_full) < 1e-10);
        if (B == n) CHECK(max_rel_diff(g, g_full) < 1e-10);
      }
      // at theta_hat itself g_cv is g(theta_hat) for every batch
      Vec g0;
      vhmc::BatchSchedule sched(n, 8);
      cv(pot, cv.theta_hat, sched.next(rng), 8, g0, nullptr);
      CHECK(max_rel_diff(g0, cv.grad_hat) < 1e-12);
    }
  }
}

TEST_CASE("control-variate gradient noise is far below the plain minibatch noise near the mode", "[sg][cv]") {
  const int n = 20000, k = 3, B = 40;
  for (GlmFamily f : {vt::fam::GaussianIdentity, vt::fam::BinomialLogit, vt::fam::PoissonLog}) {
    SgProblem p = sg_problem(f, n, k, 41);
    GlmData data(p.X.data(), n, k, p.y.data(), nullptr, nullptr, p.c.data(), p.s.data());
    GlmPotential pot(data, f, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0));
    INFO("family " << f.index);
    const int d = pot.dim();
    // The mode by damped Newton steps with a finite-difference Hessian of the full gradient.
    Vec th = Vec::Zero(d), g(d), g1(d);
    vhmc::Mat H(d, d);
    for (int it = 0; it < 40; ++it) {
      const double u = pot.U_grad(th, g);
      for (int j = 0; j < d; ++j) {
        Vec e = th;
        e[j] += 1e-6;
        pot.U_grad(e, g1);
        H.col(j) = (g1 - g) / 1e-6;
      }
      const Vec step = (0.5 * (H + H.transpose())).ldlt().solve(g);
      double t = 1.0;
      while (t > 1e-6 && !(pot.U(th - t * step) <= u)) t /= 2;
      th -= t * step;
    }
    vhmc::ControlVariate cv;
    cv.theta_hat = th;
    pot.U_grad(th, cv.grad_hat);
    REQUIRE(cv.grad_hat.norm() < 1e-6 * std::sqrt(static_cast<double>(n)));
    // One posterior sd away from the mode in every coordinate (sd from the Hessian).
    const vhmc::Mat cov = (0.5 * (H + H.transpose())).inverse();
    Vec theta = th + cov.diagonal().cwiseSqrt();
    Vec g_full;
    pot.U_grad(theta, g_full);
    vhmc::Rng rng(3, 2);
    vhmc::BatchSchedule sched(n, B, true);
    const int reps = 4000;
    Vec sum_p = Vec::Zero(d), sq_p = Vec::Zero(d), sum_c = Vec::Zero(d), sq_c = Vec::Zero(d), gp, gc;
    for (int r = 0; r < reps; ++r) {
      const int* idx = sched.next(rng);
      pot.minibatch_grad(theta, idx, B, gp);
      cv(pot, theta, idx, B, gc, nullptr);
      sum_p += gp;
      sq_p += gp.cwiseProduct(gp);
      sum_c += gc;
      sq_c += gc.cwiseProduct(gc);
    }
    const Vec var_p = sq_p / reps - (sum_p / reps).cwiseProduct(sum_p / reps);
    const Vec var_c = sq_c / reps - (sum_c / reps).cwiseProduct(sum_c / reps);
    for (int j = 0; j < d; ++j) {
      INFO("coordinate " << j << ": var plain " << var_p[j] << ", var cv " << var_c[j]);
      // unbiased within 5 Monte Carlo standard errors of the mean
      CHECK(std::fabs(sum_c[j] / reps - g_full[j]) < 5.0 * std::sqrt(var_c[j] / reps) + 1e-9);
      // One sd from the mode the CV noise is O(d / N) of the plain one, times the spread of
      // the per-row Hessians (largest for the poisson family: measured 1/140 there, below
      // 1/1900 for the others at N = 20000).
      CHECK(var_c[j] < 0.02 * var_p[j]);
    }
  }
}
