// Tests of Stan's warmup (adapt/): dual averaging against a hand computation, the
// windowed schedule against a hand simulation of Stan's rules, Welford estimators against
// two-pass estimates, and the ordering of the warmup phase WindowedAdaptation (dual averaging
// every iteration; at a window end: metric = regularized estimate of that window only,
// heuristic, mu = log(10 eps), restart), and the log-scale Robbins-Monro recursion of rwm()
// and surrogate HMC against the recursion written out.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "test_util.hpp"

using vhmc::DualAveraging;
using vhmc::Mat;
using vhmc::Rng;
using vhmc::Vec;
using vhmc::WelfordDense;
using vhmc::WelfordDiag;
using vhmc::WindowSchedule;
using Windows = std::vector<std::pair<int, int>>;

// ---------------------------------------------------------------------------------------
// Dual averaging

TEST_CASE("Dual averaging: three updates match a hand computation", "[adapt][dual]") {
  // Stan's constants (Hoffman & Gelman 2014, Algorithm 5).
  const double gamma = 0.05, t0 = 10.0, kappa = 0.75, delta = 0.8;
  const double eps0 = 0.5;
  const double mu = std::log(10.0 * eps0);  // = log 5
  DualAveraging da;
  da.restart(eps0);
  CHECK(da.mu() == Approx(std::log(5.0)).epsilon(1e-15));
  CHECK(da.counter() == 0);
  CHECK(da.sbar() == 0.0);
  CHECK(da.xbar() == 0.0);

  // t = 1, a = 0.5:  sbar1 = (1/11)(0.8 - 0.5) = 0.3/11
  //                  x1 = mu - (sqrt(1)/0.05) sbar1 = log 5 - 6/11
  //                  xbar1 = 1^{-0.75} x1 + 0 = x1
  const double sbar1 = (1.0 / (1 + t0)) * (delta - 0.5);
  const double x1 = mu - std::sqrt(1.0) / gamma * sbar1;
  const double xbar1 = 1.0 * x1;
  CHECK(sbar1 == Approx(0.3 / 11.0).epsilon(1e-15));
  CHECK(x1 == Approx(std::log(5.0) - 6.0 / 11.0).epsilon(1e-15));
  CHECK(x1 == Approx(1.0639833669795546).epsilon(1e-14));  // evaluated independently
  const double e1 = da.learn(0.5);
  CHECK(da.counter() == 1);
  CHECK(da.sbar() == Approx(sbar1).epsilon(1e-14));
  CHECK(e1 == Approx(std::exp(x1)).epsilon(1e-14));
  CHECK(e1 == Approx(2.8978913939240467).epsilon(1e-13));
  CHECK(da.xbar() == Approx(xbar1).epsilon(1e-14));
  CHECK(da.final_step_size() == Approx(std::exp(da.xbar())).epsilon(1e-15));

  // t = 2, a = 0.95: sbar2 = (1 - 1/12)(0.3/11) + (1/12)(0.8 - 0.95) = (0.3 - 0.15)/12 = 0.0125
  //                  x2 = log 5 - (sqrt(2)/0.05) 0.0125 = log 5 - 0.25 sqrt(2)
  //                  xbar2 = 2^{-0.75} x2 + (1 - 2^{-0.75}) x1
  const double sbar2 = (1.0 - 1.0 / (2 + t0)) * sbar1 + (1.0 / (2 + t0)) * (delta - 0.95);
  const double x2 = mu - std::sqrt(2.0) / gamma * sbar2;
  const double w2 = std::pow(2.0, -kappa);
  const double xbar2 = w2 * x2 + (1.0 - w2) * xbar1;
  CHECK(sbar2 == Approx(0.0125).epsilon(1e-13));
  CHECK(x2 == Approx(std::log(5.0) - 0.25 * std::sqrt(2.0)).epsilon(1e-14));
  CHECK(xbar2 == Approx(1.178088476348686).epsilon(1e-13));
  const double e2 = da.learn(0.95);
  CHECK(da.sbar() == Approx(sbar2).epsilon(1e-13));
  CHECK(e2 == Approx(std::exp(x2)).epsilon(1e-14));
  CHECK(e2 == Approx(3.510942506632796).epsilon(1e-13));
  CHECK(da.xbar() == Approx(xbar2).epsilon(1e-14));
  CHECK(da.final_step_size() == Approx(std::exp(xbar2)).epsilon(1e-14));

  // t = 3, a = min(1, 1.7) = 1: sbar3 = (12/13)(0.0125) + (1/13)(0.8 - 1) = -0.05/13
  //                  x3 = log 5 + (sqrt(3)/0.05)(0.05/13) = log 5 + sqrt(3)/13
  //                  xbar3 = 3^{-0.75} x3 + (1 - 3^{-0.75}) xbar2
  const double sbar3 = (1.0 - 1.0 / (3 + t0)) * sbar2 + (1.0 / (3 + t0)) * (delta - 1.0);
  const double x3 = mu - std::sqrt(3.0) / gamma * sbar3;
  const double w3 = std::pow(3.0, -kappa);
  const double xbar3 = w3 * x3 + (1.0 - w3) * xbar2;
  CHECK(sbar3 == Approx(-0.05 / 13.0).epsilon(1e-13));
  CHECK(x3 == Approx(std::log(5.0) + std::sqrt(3.0) / 13.0).epsilon(1e-14));
  CHECK(xbar3 == Approx(1.425766636356204).epsilon(1e-13));
  const double e3 = da.learn(1.7);  // accept_stat > 1 is clipped to 1
  CHECK(da.counter() == 3);
  CHECK(da.sbar() == Approx(sbar3).epsilon(1e-12));
  CHECK(e3 == Approx(std::exp(x3)).epsilon(1e-14));
  CHECK(e3 == Approx(5.7125904508363).epsilon(1e-13));
  CHECK(da.xbar() == Approx(xbar3).epsilon(1e-14));
  CHECK(da.final_step_size() == Approx(std::exp(xbar3)).epsilon(1e-14));
  CHECK(da.final_step_size() == Approx(4.161046629906094).epsilon(1e-13));

  // Restart clears the state and re-centres mu.
  da.restart(0.02);
  CHECK(da.counter() == 0);
  CHECK(da.sbar() == 0.0);
  CHECK(da.xbar() == 0.0);
  CHECK(da.mu() == Approx(std::log(0.2)).epsilon(1e-15));
  CHECK(da.final_step_size() == 1.0);
}

TEST_CASE("Dual averaging: converges to the step size whose statistic is delta", "[adapt][dual]") {
  // Toy model: accept_stat(eps) = exp(-eps^2 / 2) decreasing in eps; the fixed point of the
  // averaged iterate solves exp(-eps^2/2) = 0.8, eps* = sqrt(-2 log 0.8).
  DualAveraging da;
  da.restart(1.0);
  double eps = 1.0;
  for (int t = 0; t < 5000; ++t) eps = da.learn(std::exp(-eps * eps / 2));
  const double eps_star = std::sqrt(-2.0 * std::log(0.8));
  CHECK(da.final_step_size() == Approx(eps_star).epsilon(0.02));
}

// ---------------------------------------------------------------------------------------
// Window schedule

TEST_CASE("Window schedule: Stan's windows for several warmup lengths", "[adapt][windows]") {
  // Defaults init 75, term 50, base 25. Hand simulation for n_w = 1000 (last end 949):
  // end 99 -> size 50, next 149 (149 + 100 < 950); end 149 -> size 100, next 249 (449 < 950);
  // end 249 -> size 200, next 449 (849 < 950); end 449 -> size 400, next 849, 849 + 800 >= 950
  // -> stretched to 949.
  CHECK(WindowSchedule::windows(1000) ==
        Windows{{75, 99}, {100, 149}, {150, 249}, {250, 449}, {450, 949}});
  // n_w = 100: 75 + 25 + 50 > 100 -> init floor(15) = 15, term 10, base 75: one window.
  CHECK(WindowSchedule::windows(100) == Windows{{15, 89}});
  // n_w = 150: defaults fit exactly (150 is not > 150); last end 150 - 50 - 1 = 99 = the
  // first end, so a single window.
  CHECK(WindowSchedule::windows(150) == Windows{{75, 99}});
  // n_w = 200: last end 149. end 99 -> size 50, next 149 = last.
  CHECK(WindowSchedule::windows(200) == Windows{{75, 99}, {100, 149}});
  // n_w = 300: last end 249. end 99 -> size 50, next 149 (149 + 100 = 249 < 250 keeps it);
  // end 149 -> size 100, next 249 = last.
  CHECK(WindowSchedule::windows(300) == Windows{{75, 99}, {100, 149}, {150, 249}});
  // n_w = 400: last end 349. end 99 -> next 149 (249 < 350); end 149 -> size 100, next 249,
  // 249 + 200 >= 350 -> stretched to 349.
  CHECK(WindowSchedule::windows(400) == Windows{{75, 99}, {100, 149}, {150, 349}});
  // n_w = 500: last end 449. end 99 -> 149 (249 < 450); end 149 -> 249 (449 < 450);
  // end 249 -> size 200, next 449 = last.
  CHECK(WindowSchedule::windows(500) == Windows{{75, 99}, {100, 149}, {150, 249}, {250, 449}});
  // n_w = 20 (smallest adapted): init floor(3) = 3, term 2, base 15: window [3, 17].
  CHECK(WindowSchedule::windows(20) == Windows{{3, 17}});
  // n_w < 20: no metric adaptation.
  CHECK(WindowSchedule::windows(19).empty());
  CHECK(WindowSchedule::windows(0).empty());
  CHECK_FALSE(WindowSchedule(19).active());
  CHECK(WindowSchedule(20).active());
  // Deterministic: the same answer twice.
  CHECK(WindowSchedule::windows(1000) == WindowSchedule::windows(1000));
}

TEST_CASE("Window schedule: a warmup extended past its planned end", "[adapt][windows]") {
  // Planned for 500, extended to 1000 after iteration 120 (the first window, [75, 99], has
  // closed): the windows still to come are those of a warmup of 1000.
  WindowSchedule s = WindowSchedule::after(1000, 120);
  Windows rest;
  int start = 121;
  for (int i = 121; i < 1000; ++i) {
    if (s.end_of_window(i)) {
      rest.emplace_back(start, i);
      start = i + 1;
    }
  }
  CHECK(rest == Windows{{121, 149}, {150, 249}, {250, 449}, {450, 949}});
  CHECK(s.in_window(949));
  CHECK_FALSE(s.in_window(950));
}

TEST_CASE("Window schedule: in_window boundaries and end_of_window", "[adapt][windows]") {
  {
    WindowSchedule s(1000);
    CHECK_FALSE(s.in_window(0));
    CHECK_FALSE(s.in_window(74));
    CHECK(s.in_window(75));
    CHECK(s.in_window(500));
    CHECK(s.in_window(949));
    CHECK_FALSE(s.in_window(950));
    CHECK_FALSE(s.in_window(999));
    // end_of_window fires exactly at 99, 149, 249, 449, 949 when visited in order.
    std::vector<int> ends;
    for (int i = 0; i < 1000; ++i)
      if (s.end_of_window(i)) ends.push_back(i);
    CHECK(ends == std::vector<int>{99, 149, 249, 449, 949});
  }
  {
    WindowSchedule s(100);
    CHECK_FALSE(s.in_window(14));
    CHECK(s.in_window(15));
    CHECK(s.in_window(89));
    CHECK_FALSE(s.in_window(90));
    CHECK(s.config().init_buffer == 15);
    CHECK(s.config().term_buffer == 10);
    CHECK(s.config().base_window == 75);
  }
  {
    WindowSchedule s(19);
    bool any = false;
    for (int i = 0; i < 19; ++i) any = any || s.in_window(i) || s.end_of_window(i);
    CHECK_FALSE(any);
  }
}

// ---------------------------------------------------------------------------------------
// Welford estimators

namespace {
// n x d random data with different locations and scales (0.1 .. 1000), correlated.
Mat welford_data(int n, int d, std::uint64_t seed) {
  Rng rng(seed, 0);
  Mat X(n, d);
  for (int i = 0; i < n; ++i) {
    const double common = rng.normal();
    for (int j = 0; j < d; ++j) {
      // Location/scale ratios up to 500; Welford and two-pass agree to ~1e-14 here (for
      // ratios of 1e5 both lose ~1e-12 relative precision to cancellation, not a defect).
      const double loc = j == 0 ? 50.0 : (j == 1 ? -5.0 : 0.01 * j);
      const double scale = std::pow(10.0, j - 1);
      X(i, j) = loc + scale * (rng.normal() + 0.5 * common);  // correlated columns
    }
  }
  return X;
}
}  // namespace

TEST_CASE("Welford: mean, variance and covariance equal the two-pass estimates", "[adapt][welford]") {
  const int n = 2000, d = 5;
  const Mat X = welford_data(n, d, 31);
  const Vec m2p = X.colwise().mean().transpose();
  const Mat S2p = vt::two_pass_cov(X);

  WelfordDiag wd(d);
  WelfordDense wD(d);
  for (int i = 0; i < n; ++i) {
    wd.add(X.row(i).transpose());
    wD.add(X.row(i).transpose());
  }
  CHECK(wd.n() == n);
  CHECK(wD.n() == n);
  const Vec v = wd.variance();
  const Mat C = wD.covariance();
  for (int j = 0; j < d; ++j) {
    INFO("coordinate " << j);
    CHECK(std::abs(wd.mean()[j] - m2p[j]) <= 1e-12 * std::max(1.0, std::abs(m2p[j])));
    CHECK(std::abs(wD.mean()[j] - m2p[j]) <= 1e-12 * std::max(1.0, std::abs(m2p[j])));
    CHECK(std::abs(v[j] - S2p(j, j)) <= 1e-12 * S2p(j, j));
    for (int k = 0; k < d; ++k) {
      INFO("entry " << j << "," << k);
      CHECK(std::abs(C(j, k) - S2p(j, k)) <= 1e-12 * std::sqrt(S2p(j, j) * S2p(k, k)));
    }
  }

  // Regularization: W = n/(n+5) S + 1e-3 (5/(n+5)) I.
  const double nn = n;
  const Vec reg_d = wd.regularized();
  const Mat reg_D = wD.regularized();
  const Mat expect = (nn / (nn + 5.0)) * S2p + 1e-3 * (5.0 / (nn + 5.0)) * Mat::Identity(d, d);
  for (int j = 0; j < d; ++j) {
    CHECK(std::abs(reg_d[j] - expect(j, j)) <= 1e-12 * expect(j, j));
    for (int k = 0; k < d; ++k)
      CHECK(std::abs(reg_D(j, k) - expect(j, k)) <= 1e-12 * std::sqrt(expect(j, j) * expect(k, k)));
  }
  CHECK((reg_D - reg_D.transpose()).norm() == 0.0);  // symmetrized

  // Small n: the shrinkage is visible. n = 10 -> 10/15 S + 1e-3 (5/15) I.
  WelfordDiag small(d);
  WelfordDense smallD(d);
  for (int i = 0; i < 10; ++i) {
    small.add(X.row(i).transpose());
    smallD.add(X.row(i).transpose());
  }
  const Mat S10 = vt::two_pass_cov(X.topRows(10));
  for (int j = 0; j < d; ++j) {
    const double e = (10.0 / 15.0) * S10(j, j) + 1e-3 * (5.0 / 15.0);
    CHECK(std::abs(small.regularized()[j] - e) <= 1e-12 * e);
    CHECK(std::abs(smallD.regularized()(j, j) - e) <= 1e-12 * e);
  }

  // Reset forgets everything: refill with the second half only.
  wd.reset();
  wD.reset();
  CHECK(wd.n() == 0);
  CHECK(wD.n() == 0);
  for (int i = n / 2; i < n; ++i) {
    wd.add(X.row(i).transpose());
    wD.add(X.row(i).transpose());
  }
  const Mat S_half = vt::two_pass_cov(X.bottomRows(n / 2));
  for (int j = 0; j < d; ++j) {
    CHECK(std::abs(wd.variance()[j] - S_half(j, j)) <= 1e-12 * S_half(j, j));
    CHECK(std::abs(wD.covariance()(j, j) - S_half(j, j)) <= 1e-12 * S_half(j, j));
  }

  // Fewer than two samples cannot give a metric.
  WelfordDiag one(2);
  one.add(Vec::Ones(2));
  CHECK_THROWS_AS(one.regularized(), std::runtime_error);
  WelfordDense oneD(2);
  oneD.add(Vec::Ones(2));
  CHECK_THROWS_AS(oneD.regularized(), std::runtime_error);
}

// ---------------------------------------------------------------------------------------
// WindowedAdaptation: the order of operations of Stan's windowed adaptation, observed through a minimal kernel

namespace {

// The kernel interface the phase needs: Metric, step_size(), hamiltonian().
template <class M>
struct FakeSampler {
  using Metric = M;
  using T = vhmc::Target<vhmc::GaussianPotential>;
  vhmc::Hamiltonian<T, M>& ham;
  double eps = 1.0;
  double& step_size() { return eps; }
  vhmc::Hamiltonian<T, M>& hamiltonian() { return ham; }
};

// n x 3 correlated Gaussian states with locations (0.5, -1, 2) and scales (0.7, 1.5, 3).
Mat adapter_states(int n, std::uint64_t seed) {
  Rng rng(seed, 0);
  const double loc[3] = {0.5, -1.0, 2.0}, sc[3] = {0.7, 1.5, 3.0};
  Mat X(n, 3);
  for (int i = 0; i < n; ++i) {
    const double common = rng.normal();
    for (int j = 0; j < 3; ++j) X(i, j) = loc[j] + sc[j] * (rng.normal() + 0.7 * common);
  }
  return X;
}

// |a_jk - b_jk| <= tol sqrt(b_jj b_kk) for every entry (diagonal: relative to b_jj).
bool close_entries(const Vec& a, const Vec& b, double tol) {
  return ((a - b).array().abs() <= tol * b.array().abs()).all();
}
bool close_entries(const Mat& a, const Mat& b, double tol) {
  for (Eigen::Index j = 0; j < a.rows(); ++j)
    for (Eigen::Index k = 0; k < a.cols(); ++k)
      if (!(std::abs(a(j, k) - b(j, k)) <= tol * std::sqrt(b(j, j) * b(k, k)))) return false;
  return true;
}

bool is_power_of_two_multiple(double a, double b) {
  const double k = std::log2(a / b);
  return std::abs(k - std::round(k)) < 1e-9;
}

Vec current_metric(const vhmc::DiagMetric& m) { return m.w(); }
Mat current_metric(const vhmc::DenseMetric& m) { return m.W(); }

Vec expected_metric(const Mat& X, int a, int b, const vhmc::DiagMetric&) {
  const Mat S = vt::two_pass_cov(X.middleRows(a, b - a + 1));
  const double n = b - a + 1;
  return ((n / (n + 5.0)) * S.diagonal().array() + 1e-3 * (5.0 / (n + 5.0))).matrix();
}
Mat expected_metric(const Mat& X, int a, int b, const vhmc::DenseMetric&) {
  const Mat S = vt::two_pass_cov(X.middleRows(a, b - a + 1));
  const double n = b - a + 1;
  return (n / (n + 5.0)) * S + 1e-3 * (5.0 / (n + 5.0)) * Mat::Identity(S.rows(), S.cols());
}

// Drives the phase WindowedAdaptation for n_w iterations with prescribed states (the chain
// state it reads) and acceptance statistics (the transitions it observes), and mirrors what
// Stan's warmup says must happen with an independent DualAveraging.
template <class M>
void check_adapter(int n_w, const M& metric0, const Windows& windows) {
  using T = vhmc::Target<vhmc::GaussianPotential>;
  const int d = 3;
  Vec var(d);
  var << 0.5, 2.0, 9.0;
  vhmc::GaussianPotential pot(Vec::Zero(d), var);
  T target(pot);
  vhmc::Hamiltonian<T, M> ham(target, metric0);
  FakeSampler<M> s{ham, 1.0};
  const Mat X = adapter_states(n_w, 77);  // states fed to the adapter
  Rng rng(4, 4);

  vhmc::AdaptConfig cfg;
  vhmc::PhasePoint z(d);
  vhmc::WindowedAdaptation<FakeSampler<M>> adapter(s, z, n_w, cfg);
  z.theta = X.row(0).transpose();
  REQUIRE(ham.init_point(z));
  const double eps_user = 1.0;
  s.eps = eps_user;
  adapter.start(rng);
  CHECK(is_power_of_two_multiple(s.eps, eps_user));  // heuristic ran

  DualAveraging mirror;
  mirror.restart(eps_user);  // mu = log(10 eps_user), before the heuristic
  auto metric_before = current_metric(ham.metric());
  size_t next_window = 0;
  for (int i = 0; i < n_w; ++i) {
    z.theta = X.row(i).transpose();
    REQUIRE(ham.init_point(z));
    const double a = 0.5 + 0.45 * std::sin(0.37 * i);  // a deterministic statistic in [0.05, 0.95]
    const double eps_da = mirror.learn(a);
    vhmc::TransitionInfo info;
    info.accept_stat = a;
    adapter.observe(i, info, rng);
    INFO("iteration " << i);
    const bool window_end = next_window < windows.size() && i == windows[next_window].second;
    if (window_end) {
      // W = regularized estimate of exactly this window's states; then the heuristic from
      // the dual-averaging step size, mu = log(10 eps), restart.
      const auto expect = expected_metric(X, windows[next_window].first, i, ham.metric());
      const auto got = current_metric(ham.metric());
      INFO("metric\n" << got << "\nexpected\n" << expect);
      CHECK(close_entries(got, expect, 1e-12));
      CHECK(is_power_of_two_multiple(s.eps, eps_da));
      mirror.restart(s.eps);
      metric_before = got;
      ++next_window;
    } else {
      CHECK((current_metric(ham.metric()) - metric_before).cwiseAbs().maxCoeff() == 0.0);
      if (i == n_w - 1) {
        CHECK(s.eps == Approx(mirror.final_step_size()).epsilon(1e-14));  // exp(xbar)
      } else {
        CHECK(s.eps == Approx(eps_da).epsilon(1e-14));
      }
    }
  }
  CHECK(next_window == windows.size());
}

}  // namespace

TEST_CASE("WindowedAdaptation: dual averaging every iteration, metric from each window only, restarts",
          "[adapt][adapter]") {
  SECTION("diagonal metric, n_w = 100") {
    check_adapter(100, vhmc::DiagMetric(Vec::Ones(3)), Windows{{15, 89}});
  }
  SECTION("dense metric, n_w = 100") {
    check_adapter(100, vhmc::DenseMetric(Mat::Identity(3, 3)), Windows{{15, 89}});
  }
  SECTION("diagonal metric, n_w = 500") {
    check_adapter(500, vhmc::DiagMetric(Vec::Ones(3)),
                  Windows{{75, 99}, {100, 149}, {150, 249}, {250, 449}});
  }
  SECTION("dense metric, n_w = 1000") {
    check_adapter(1000, vhmc::DenseMetric(Mat::Identity(3, 3)),
                  Windows{{75, 99}, {100, 149}, {150, 249}, {250, 449}, {450, 949}});
  }
}

TEST_CASE("WindowedAdaptation: switches (metric off, step size off, short warmup)", "[adapt][adapter]") {
  using T = vhmc::Target<vhmc::GaussianPotential>;
  vhmc::GaussianPotential pot(Vec(Vec::Zero(2)), Vec(Vec::Ones(2)));
  T target(pot);
  Rng rng(6, 6);
  const Mat X = adapter_states(200, 5).leftCols(2);
  auto drive = [&](vhmc::AdaptConfig cfg, int n_w, double& eps_out, Vec& w_out) {
    vhmc::Hamiltonian<T, vhmc::DiagMetric> ham(target, vhmc::DiagMetric(Vec::Ones(2)));
    FakeSampler<vhmc::DiagMetric> s{ham, 0.3};
    vhmc::PhasePoint z(2);
    vhmc::WindowedAdaptation<FakeSampler<vhmc::DiagMetric>> ad(s, z, n_w, cfg);
    z.theta = X.row(0).transpose();
    REQUIRE(ham.init_point(z));
    ad.start(rng);
    vhmc::TransitionInfo info;
    info.accept_stat = 0.6;
    for (int i = 0; i < n_w; ++i) {
      z.theta = X.row(i).transpose();
      REQUIRE(ham.init_point(z));
      ad.observe(i, info, rng);
    }
    eps_out = s.eps;
    w_out = ham.metric().w();
  };
  double eps;
  Vec w;
  {
    vhmc::AdaptConfig cfg;
    cfg.metric = false;
    drive(cfg, 200, eps, w);
    CHECK(w == Vec::Ones(2));
    CHECK(eps != 0.3);
  }
  {
    vhmc::AdaptConfig cfg;
    cfg.step_size = false;
    drive(cfg, 200, eps, w);
    CHECK(eps == 0.3);
    CHECK(w != Vec::Ones(2));
  }
  {
    vhmc::AdaptConfig cfg;
    drive(cfg, 19, eps, w);  // n_w < 20: step size adapted, metric untouched
    CHECK(w == Vec::Ones(2));
    CHECK(eps != 0.3);
  }
}

TEST_CASE("Robbins-Monro in log scale: the recursion, its bounds and its average", "[adapt][robbins]") {
  // As rwm()'s scale adapts: x += t^-0.6 (a - 0.234), unbounded, averaged from t = 5; the
  // values must be the very doubles of the recursion written out.
  vhmc::LogRobbinsMonro rm;
  rm.restart(std::log(0.7));
  double x = std::log(0.7), sum = 0.0;
  long n = 0;
  const std::vector<double> accept{1.0, 0.1, 0.5, 0.0, 0.9, 0.3, 0.25, 0.6, 0.05, 0.8};
  for (int t = 0; t < static_cast<int>(accept.size()); ++t) {
    const double gain = std::pow(t + 1.0, -0.6), g = accept[t] - 0.234;
    x += gain * g;
    CHECK(rm.learn(gain, g) == std::exp(x));
    if (t >= 5) {
      rm.average();
      sum += x;
      ++n;
    }
  }
  CHECK(rm.averaged() == n);
  CHECK(rm.averaged_value() == std::exp(sum / static_cast<double>(n)));
  // Bounded, as surrogate HMC's integration time: kept in [lo, hi]; moving the lower bound
  // puts x on it.
  rm.restart(std::log(4.0), std::log(0.5), std::log(4.0));
  CHECK(rm.learn(1.0, 10.0) == 4.0);
  CHECK(rm.learn(1.0, -10.0) == 0.5);
  CHECK(rm.at_lower());
  CHECK(rm.lower_to(std::log(0.25)) == Approx(0.25).epsilon(1e-15));
  CHECK(rm.at_lower());
  CHECK(rm.learn(0.1, 1.0) == Approx(0.25 * std::exp(0.1)).epsilon(1e-15));
  CHECK_FALSE(rm.at_lower());
  CHECK(rm.averaged() == 0);  // restart cleared the average
}
