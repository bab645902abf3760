// Tests of the leapfrog integrator and the Hamiltonian system (integrator/, metric/,
// model/target.hpp) against the exact one-step map on the quadratic,
// reversibility, second-order energy error, instability for eps > 2, volume preservation and
// symplecticity, momentum distribution, non-finite potentials, and the step-size heuristic.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "test_util.hpp"

using vhmc::DenseMetric;
using vhmc::DiagMetric;
using vhmc::GaussianPotential;
using vhmc::Hamiltonian;
using vhmc::Mat;
using vhmc::PhasePoint;
using vhmc::Rng;
using vhmc::Target;
using vhmc::UnitMetric;
using vhmc::Vec;

namespace {

using vt::vec1;
Vec vec2(double x, double y) {
  Vec v(2);
  v << x, y;
  return v;
}

// Set a phase point from (theta, p): evaluates U and g, and the sharp momentum.
template <class H>
PhasePoint make_point(H& ham, const Vec& theta, const Vec& p) {
  PhasePoint z(static_cast<int>(theta.size()));
  z.theta = theta;
  REQUIRE(ham.init_point(z));
  z.p = p;
  ham.metric().sharp(z.p, z.v);
  return z;
}

template <class H>
bool evolve(H& ham, PhasePoint& z, double h, int L) {
  for (int l = 0; l < L; ++l)
    if (!ham.leapfrog(z, h)) return false;
  return true;
}

// L steps, negate p, L steps: back to (theta0, -p0) within 1e-10 relative (reversibility).
template <class H>
void check_reversible(H& ham, const Vec& theta0, const Vec& p0, double eps, int L) {
  PhasePoint z = make_point(ham, theta0, p0);
  REQUIRE(evolve(ham, z, eps, L));
  const double moved = (z.theta - theta0).norm();
  z.p = -z.p;
  ham.metric().sharp(z.p, z.v);
  REQUIRE(evolve(ham, z, eps, L));
  const double scale_t = std::max(1.0, theta0.norm()), scale_p = std::max(1.0, p0.norm());
  INFO("moved " << moved << ", return error theta " << (z.theta - theta0).norm() << ", p "
                << (z.p + p0).norm());
  CHECK(moved > 1e-2);  // the trajectory went somewhere
  CHECK((z.theta - theta0).norm() / scale_t < 1e-10);
  CHECK((z.p + p0).norm() / scale_p < 1e-10);

  // Same with the direction sign instead of negated momentum: +eps L times, -eps L times.
  PhasePoint w = make_point(ham, theta0, p0);
  REQUIRE(evolve(ham, w, eps, L));
  REQUIRE(evolve(ham, w, -eps, L));
  CHECK((w.theta - theta0).norm() / scale_t < 1e-10);
  CHECK((w.p - p0).norm() / scale_p < 1e-10);
}

// A random SPD matrix with a given condition (for dense targets and metrics).
Mat random_spd(int d, std::uint64_t seed, double jitter) {
  Rng rng(seed, 0);
  Mat A(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) A(i, j) = rng.normal();
  return A * A.transpose() / d + jitter * Mat::Identity(d, d);
}

Vec random_vec(int d, std::uint64_t seed) {
  Rng rng(seed, 1);
  Vec v(d);
  for (int i = 0; i < d; ++i) v[i] = rng.normal();
  return v;
}

// Energy error H(end) - H(start) after L steps of size eps.
template <class H>
double energy_error(H& ham, const Vec& theta0, const Vec& p0, double eps, int L) {
  PhasePoint z = make_point(ham, theta0, p0);
  const double H0 = z.H();
  REQUIRE(evolve(ham, z, eps, L));
  return z.H() - H0;
}

}  // namespace

TEST_CASE("Leapfrog: one step on U = theta^2/2 is the exact linear map", "[integrator]") {
  GaussianPotential pot(vec1(0.0), vec1(1.0));
  Target<GaussianPotential> target(pot);
  Hamiltonian<Target<GaussianPotential>, UnitMetric> ham(target, UnitMetric(1));
  for (double theta : {-1.3, 0.0, 0.7, 2.5}) {
    for (double p : {-0.9, 0.4, 1.7}) {
      for (double eps : {0.01, 0.3, 1.1, 1.9}) {
        for (int sign : {1, -1}) {
          const double h = sign * eps;
          PhasePoint z = make_point(ham, vec1(theta), vec1(p));
          const long grads_before = target.counts().grad;
          REQUIRE(ham.leapfrog(z, h));
          // p_half = p - h/2 theta; theta' = theta + h p_half; p' = p_half - h/2 theta'.
          const double theta1 = theta * (1.0 - h * h / 2.0) + h * p;
          const double p1 = p * (1.0 - h * h / 2.0) - h * theta * (1.0 - h * h / 4.0);
          INFO("theta " << theta << " p " << p << " h " << h);
          CHECK(std::abs(z.theta[0] - theta1) < 1e-12 * std::max(1.0, std::abs(theta1)));
          CHECK(std::abs(z.p[0] - p1) < 1e-12 * std::max(1.0, std::abs(p1)));
          // Cached state: U, g = grad U and v = W p at the new point; one gradient per step.
          CHECK(z.U == Approx(0.5 * theta1 * theta1).epsilon(1e-12).margin(1e-14));
          CHECK(z.g[0] == Approx(theta1).epsilon(1e-12).margin(1e-14));
          CHECK(z.v[0] == z.p[0]);
          CHECK(target.counts().grad - grads_before == 1);
        }
      }
    }
  }
}

TEST_CASE("Leapfrog: L steps cost exactly L gradient evaluations", "[integrator]") {
  vt::Banana pot;
  Target<vt::Banana> target(pot);
  Hamiltonian<Target<vt::Banana>, UnitMetric> ham(target, UnitMetric(2));
  PhasePoint z = make_point(ham, vec2(0.3, -0.2), vec2(0.5, 0.1));
  const long before = target.counts().grad;
  REQUIRE(evolve(ham, z, 0.05, 37));
  CHECK(target.counts().grad - before == 37);
  CHECK(target.counts().potential == 0);
}

TEST_CASE("Leapfrog: reversibility (negate p) with unit, diagonal and dense metrics",
          "[integrator]") {
  SECTION("1-d Gaussian, unit metric") {
    GaussianPotential pot(vec1(0.0), vec1(1.0));
    Target<GaussianPotential> target(pot);
    Hamiltonian<Target<GaussianPotential>, UnitMetric> ham(target, UnitMetric(1));
    check_reversible(ham, vec1(0.8), vec1(-1.2), 0.2, 50);
  }
  const int d = 6;
  const Mat cov = random_spd(d, 11, 0.05);  // dense correlated Gaussian
  const Vec mu = random_vec(d, 12);
  GaussianPotential gpot(mu, cov);
  Target<GaussianPotential> gt(gpot);
  const Vec theta0 = mu + random_vec(d, 13), p0 = random_vec(d, 14);
  SECTION("dense correlated Gaussian, diagonal metric") {
    Vec w(d);
    for (int i = 0; i < d; ++i) w[i] = 0.5 + 0.25 * i;
    Hamiltonian<Target<GaussianPotential>, DiagMetric> ham(gt, DiagMetric(w));
    check_reversible(ham, theta0, p0, 0.03, 80);
  }
  SECTION("dense correlated Gaussian, dense metric") {
    Hamiltonian<Target<GaussianPotential>, DenseMetric> ham(gt, DenseMetric(cov));
    check_reversible(ham, theta0, p0, 0.2, 60);
  }
  SECTION("banana (non-quadratic), unit and dense metrics") {
    vt::Banana pot;
    Target<vt::Banana> target(pot);
    Hamiltonian<Target<vt::Banana>, UnitMetric> ham(target, UnitMetric(2));
    check_reversible(ham, vec2(0.6, 0.1), vec2(-0.4, 0.9), 0.05, 100);
    Mat W(2, 2);
    W << 1.5, 0.4, 0.4, 0.8;
    Hamiltonian<Target<vt::Banana>, DenseMetric> hamd(target, DenseMetric(W));
    check_reversible(hamd, vec2(0.6, 0.1), vec2(-0.4, 0.9), 0.05, 100);
  }
}

TEST_CASE("Leapfrog: the energy error at fixed T = eps L is second order in eps",
          "[integrator]") {
  // Halving eps (doubling L) quarters |dH| within 10%.
  SECTION("1-d Gaussian, unit metric") {
    GaussianPotential pot(vec1(0.0), vec1(1.0));
    Target<GaussianPotential> target(pot);
    Hamiltonian<Target<GaussianPotential>, UnitMetric> ham(target, UnitMetric(1));
    const double T = 1.5;
    for (double eps : {0.1, 0.05}) {
      const int L = static_cast<int>(std::lround(T / eps));
      const double dH1 = energy_error(ham, vec1(1.0), vec1(0.5), eps, L);
      const double dH2 = energy_error(ham, vec1(1.0), vec1(0.5), eps / 2, 2 * L);
      INFO("eps " << eps << ": dH " << dH1 << " -> " << dH2);
      CHECK(std::abs(dH1) > 1e-6);
      CHECK(std::abs(dH1 / dH2) == Approx(4.0).epsilon(0.1));
    }
  }
  SECTION("banana, dense metric") {
    vt::Banana pot;
    Target<vt::Banana> target(pot);
    Mat W(2, 2);
    W << 1.0, 0.3, 0.3, 0.7;
    Hamiltonian<Target<vt::Banana>, DenseMetric> ham(target, DenseMetric(W));
    const double T = 1.2;
    for (double eps : {0.04, 0.02}) {
      const int L = static_cast<int>(std::lround(T / eps));
      const double dH1 = energy_error(ham, vec2(0.5, 0.8), vec2(0.7, -0.3), eps, L);
      const double dH2 = energy_error(ham, vec2(0.5, 0.8), vec2(0.7, -0.3), eps / 2, 2 * L);
      INFO("eps " << eps << ": dH " << dH1 << " -> " << dH2);
      CHECK(std::abs(dH1) > 1e-8);
      CHECK(std::abs(dH1 / dH2) == Approx(4.0).epsilon(0.1));
    }
  }
}

TEST_CASE("Leapfrog: eps > 2 on the unit Gaussian diverges; static HMC flags it",
          "[integrator][divergence]") {
  GaussianPotential pot(vec1(0.0), vec1(1.0));
  Target<GaussianPotential> target(pot);
  Hamiltonian<Target<GaussianPotential>, UnitMetric> ham(target, UnitMetric(1));

  // eps = 1.9 < 2: stable, |theta| stays bounded for 2000 steps.
  {
    PhasePoint z = make_point(ham, vec1(1.0), vec1(0.5));
    double maxabs = 0;
    for (int l = 0; l < 2000; ++l) {
      REQUIRE(ham.leapfrog(z, 1.9));
      maxabs = std::max(maxabs, std::abs(z.theta[0]));
    }
    CHECK(maxabs < 10.0);
  }
  // eps = 2.1 > 2: the one-step matrix has an eigenvalue of modulus > 1, |theta| and H grow
  // geometrically without bound.
  {
    PhasePoint z = make_point(ham, vec1(1.0), vec1(0.5));
    const double H0 = z.H();
    double envelope_prev = 0;
    bool growing = true;
    for (int block = 0; block < 8; ++block) {
      double envelope = 0;
      for (int l = 0; l < 5; ++l) {
        REQUIRE(ham.leapfrog(z, 2.1));
        envelope = std::max(envelope, std::abs(z.theta[0]));
      }
      if (block > 0) growing = growing && envelope > 2.0 * envelope_prev;
      envelope_prev = envelope;
    }
    CHECK(growing);
    CHECK(envelope_prev > 1e8);
    CHECK(z.H() - H0 > 1e15);
  }
  // Static HMC with eps = 2.5, 50 steps, no jitter: every transition is divergent (dH > 1000)
  // and rejected, with accept_stat 0 and the energy of the retained (initial) state.
  {
    vhmc::StaticHmcConfig cfg;
    cfg.steps = 50;
    cfg.jitter = false;
    vhmc::StaticHmc<Target<GaussianPotential>, UnitMetric> hmc(ham, cfg);
    hmc.step_size() = 2.5;
    Rng rng(3, 1);
    PhasePoint z(1);
    z.theta = vec1(0.3);
    REQUIRE(ham.init_point(z));
    int divergent = 0;
    bool all_rejected = true, sane = true;
    for (int it = 0; it < 20; ++it) {
      const vhmc::TransitionInfo info = hmc.transition(z, rng);
      divergent += info.divergent;
      all_rejected = all_rejected && z.theta[0] == 0.3;
      sane = sane && info.accept_stat == 0.0 && info.n_leapfrog == 50 &&
             std::isfinite(info.energy) && info.energy == z.H() && info.step_size == 2.5;
    }
    CHECK(divergent == 20);
    CHECK(all_rejected);
    CHECK(sane);
  }
}

TEST_CASE("Leapfrog: the L-step map preserves phase-space volume and is symplectic",
          "[integrator]") {
  vt::Banana pot;
  Target<vt::Banana> target(pot);
  const Vec theta0 = vec2(0.5, 0.3), p0 = vec2(0.4, -0.7);
  const double eps = 0.1;
  const int L = 10;
  const double fd = 1e-5;

  auto jacobian = [&](auto& ham) {
    auto map = [&](const Vec& x) {
      PhasePoint z = make_point(ham, x.head(2), x.tail(2));
      REQUIRE(evolve(ham, z, eps, L));
      Vec y(4);
      y << z.theta, z.p;
      return y;
    };
    Vec x0(4);
    x0 << theta0, p0;
    Mat J(4, 4);
    for (int j = 0; j < 4; ++j) {
      Vec xp = x0, xm = x0;
      xp[j] += fd;
      xm[j] -= fd;
      J.col(j) = (map(xp) - map(xm)) / (2 * fd);
    }
    return J;
  };
  Mat Omega = Mat::Zero(4, 4);
  Omega.topRightCorner(2, 2) = Mat::Identity(2, 2);
  Omega.bottomLeftCorner(2, 2) = -Mat::Identity(2, 2);

  auto check = [&](const Mat& J) {
    INFO("J =\n" << J);
    CHECK((J - Mat::Identity(4, 4)).norm() > 0.1);  // non-trivial map
    CHECK(std::abs(J.determinant() - 1.0) < 1e-6);
    CHECK((J.transpose() * Omega * J - Omega).cwiseAbs().maxCoeff() < 1e-6);
  };
  SECTION("unit metric") {
    Hamiltonian<Target<vt::Banana>, UnitMetric> ham(target, UnitMetric(2));
    check(jacobian(ham));
  }
  SECTION("diagonal metric") {
    Hamiltonian<Target<vt::Banana>, DiagMetric> ham(target, DiagMetric(vec2(0.7, 1.6)));
    check(jacobian(ham));
  }
  SECTION("dense metric") {
    Mat W(2, 2);
    W << 1.2, -0.5, -0.5, 0.9;
    Hamiltonian<Target<vt::Banana>, DenseMetric> ham(target, DenseMetric(W));
    check(jacobian(ham));
  }
}

TEST_CASE("Metrics: momenta are N(0, W^{-1}) and the sharp map is W p", "[integrator][metric]") {
  const int n = 200000;
  Mat W(3, 3);
  W << 2.0, 0.6, -0.3, 0.6, 1.0, 0.2, -0.3, 0.2, 0.5;
  const Mat M = W.inverse();
  Vec w(3);
  w << 4.0, 0.25, 1.0;

  auto check_cov = [&](auto& metric, const Mat& target_cov) {
    Rng rng(vt::seed(17), 4);
    Mat P(n, 3);
    Vec p(3);
    for (int i = 0; i < n; ++i) {
      metric.sample_momentum(rng, p);
      P.row(i) = p.transpose();
    }
    const Mat S = vt::two_pass_cov(P);
    const Vec m = P.colwise().mean().transpose();
    for (int i = 0; i < 3; ++i) {
      CHECK(std::abs(m[i]) < 4.0 * std::sqrt(target_cov(i, i) / n));
      for (int j = 0; j < 3; ++j) {
        // Var of the product p_i p_j for a Gaussian: S_ii S_jj + S_ij^2.
        const double se = std::sqrt((target_cov(i, i) * target_cov(j, j) +
                                     target_cov(i, j) * target_cov(i, j)) / n);
        INFO("entry " << i << "," << j << ": " << S(i, j) << " vs " << target_cov(i, j));
        CHECK(std::abs(S(i, j) - target_cov(i, j)) < 4.0 * se);
      }
    }
  };
  SECTION("dense: Cov(p) = W^{-1}, v = W p, K = p'Wp/2") {
    DenseMetric metric(W);
    check_cov(metric, M);
    Vec p(3), v(3);
    p << 0.3, -1.2, 0.7;
    metric.sharp(p, v);
    CHECK((v - W * p).norm() < 1e-14);
  }
  SECTION("diagonal: Var(p_i) = 1 / W_ii, v = W p") {
    DiagMetric metric(w);
    check_cov(metric, Mat(w.cwiseInverse().asDiagonal()));
    Vec p(3), v(3);
    p << 0.3, -1.2, 0.7;
    metric.sharp(p, v);
    CHECK((v - w.cwiseProduct(p)).norm() < 1e-15);
  }
  SECTION("unit: Var(p_i) = 1") {
    UnitMetric metric(3);
    check_cov(metric, Mat(Mat::Identity(3, 3)));
  }
  SECTION("PhasePoint energies: K = p'v/2, NaN H maps to +inf") {
    PhasePoint z(2);
    z.p = vec2(1.0, 2.0);
    z.v = vec2(0.5, 3.0);
    z.U = 1.0;
    CHECK(z.K() == Approx(0.5 * (0.5 + 6.0)));
    CHECK(z.H() == Approx(1.0 + 3.25));
    z.U = std::numeric_limits<double>::quiet_NaN();
    CHECK(z.H() == vhmc::kInf);
  }
  SECTION("a non-SPD dense metric is refused") {
    Mat bad(2, 2);
    bad << 1.0, 2.0, 2.0, 1.0;
    CHECK_THROWS_AS(DenseMetric(bad), std::runtime_error);
  }
}

TEST_CASE("Non-finite potential: leapfrog returns false, samplers reject, nothing throws",
          "[integrator][nan]") {
  vt::NanGaussian pot;
  Target<vt::NanGaussian> target(pot);
  Hamiltonian<Target<vt::NanGaussian>, UnitMetric> ham(target, UnitMetric(2));

  SECTION("Target maps NaN to +inf") {
    Vec g(2);
    CHECK(target.U(vec2(2.0, 0.0)) == vhmc::kInf);
    CHECK(target.U_grad(vec2(2.0, 0.0), g) == vhmc::kInf);
    CHECK(target.U_grad(vec2(1.0, 0.0), g) == Approx(0.5));
  }
  SECTION("leapfrog into the NaN region") {
    PhasePoint z = make_point(ham, vec2(1.4, 0.0), vec2(3.0, 0.0));
    bool ok = true;
    CHECK_NOTHROW(ok = ham.leapfrog(z, 0.2));
    CHECK_FALSE(ok);
    CHECK(z.U == vhmc::kInf);
    CHECK(z.H() == vhmc::kInf);
    // A step that stays in the finite region is fine.
    PhasePoint w = make_point(ham, vec2(0.0, 0.0), vec2(0.5, 0.0));
    CHECK(ham.leapfrog(w, 0.2));
  }
  SECTION("static HMC transitions near the region: divergent ones are rejected") {
    // After a non-finite step the remaining steps are skipped, yet
    // n_leapfrog records L_t; the gradient counter shows the steps actually taken.
    vhmc::StaticHmcConfig cfg;
    cfg.steps = 10;
    cfg.jitter = false;
    vhmc::StaticHmc<Target<vt::NanGaussian>, UnitMetric> hmc(ham, cfg);
    hmc.step_size() = 0.3;
    Rng rng(8, 1);
    PhasePoint z(2);
    z.theta = vec2(1.4, 0.0);
    REQUIRE(ham.init_point(z));
    int divergent = 0, short_cut = 0;
    bool ok = true;
    for (int it = 0; it < 200; ++it) {
      const Vec before = z.theta;
      const long g0 = target.counts().grad;
      vhmc::TransitionInfo info;
      CHECK_NOTHROW(info = hmc.transition(z, rng));
      const long grads = target.counts().grad - g0;
      ok = ok && info.n_leapfrog == 10 && grads <= 10;
      if (info.divergent) {
        ++divergent;
        short_cut += grads < 10;
        ok = ok && z.theta == before && info.accept_stat == 0.0 && std::isfinite(info.energy);
      } else {
        ok = ok && grads == 10;
      }
      ok = ok && z.theta.allFinite() && z.theta[0] <= 1.5 && std::isfinite(z.U);
    }
    CHECK(divergent > 0);
    CHECK(short_cut > 0);
    CHECK(ok);
  }
  SECTION("NUTS transitions near the region: divergence flagged, state stays finite") {
    vhmc::Nuts<Target<vt::NanGaussian>, UnitMetric> nuts(ham, vhmc::NutsConfig{});
    nuts.step_size() = 0.3;
    Rng rng(9, 1);
    PhasePoint z(2);
    z.theta = vec2(1.4, 0.0);
    REQUIRE(ham.init_point(z));
    int divergent = 0;
    bool ok = true;
    for (int it = 0; it < 200; ++it) {
      vhmc::TransitionInfo info;
      CHECK_NOTHROW(info = nuts.transition(z, rng));
      divergent += info.divergent;
      ok = ok && z.theta.allFinite() && z.theta[0] <= 1.5 && std::isfinite(z.U) &&
           std::isfinite(info.energy) && info.accept_stat >= 0 && info.accept_stat <= 1;
    }
    CHECK(divergent > 0);
    CHECK(ok);
  }
}

TEST_CASE("Step-size heuristic: powers of two, position untouched, improper targets throw",
          "[integrator][stepsize]") {
  GaussianPotential pot(vec1(0.0), vec1(1.0));
  Target<GaussianPotential> target(pot);
  Hamiltonian<Target<GaussianPotential>, UnitMetric> ham(target, UnitMetric(1));
  PhasePoint z(1);
  z.theta = vec1(0.4);
  REQUIRE(ham.init_point(z));
  const PhasePoint z0 = z;
  Rng rng(5, 5);
  for (double eps0 : {1e-3, 0.7, 50.0}) {
    const double eps = ham.find_initial_step_size(z, eps0, rng);
    const double k = std::log2(eps / eps0);
    INFO("eps0 " << eps0 << " -> " << eps);
    CHECK(std::abs(k - std::round(k)) < 1e-12);  // eps0 * 2^k
    if (eps0 == 1e-3) CHECK(eps > eps0);          // tiny steps accept: doubled
    if (eps0 == 50.0) CHECK(eps < eps0);          // huge steps reject: halved
    CHECK(z.theta == z0.theta);
    CHECK(z.U == z0.U);
    CHECK(z.g == z0.g);
  }
  // Skipped for eps 0, NaN or > 1e7.
  CHECK(ham.find_initial_step_size(z, 0.0, rng) == 0.0);
  CHECK(ham.find_initial_step_size(z, 2e7, rng) == 2e7);
  CHECK(std::isnan(ham.find_initial_step_size(z, std::nan(""), rng)));

  // A flat (improper) target accepts every step: the search doubles past 1e7 and throws.
  vt::Flat flat;
  Target<vt::Flat> ft(flat);
  Hamiltonian<Target<vt::Flat>, UnitMetric> fham(ft, UnitMetric(1));
  PhasePoint f(1);
  f.theta = vec1(0.0);
  REQUIRE(fham.init_point(f));
  CHECK_THROWS_AS(fham.find_initial_step_size(f, 1.0, rng), std::runtime_error);

  // Starting next to the NaN region with a huge step: NaN energies count as rejection, the
  // step is halved until acceptable, and nothing throws.
  vt::NanGaussian npot;
  Target<vt::NanGaussian> nt(npot);
  Hamiltonian<Target<vt::NanGaussian>, UnitMetric> nham(nt, UnitMetric(2));
  PhasePoint n(2);
  n.theta = vec2(1.45, 0.0);
  REQUIRE(nham.init_point(n));
  double eps = 0;
  CHECK_NOTHROW(eps = nham.find_initial_step_size(n, 8.0, rng));
  CHECK(eps < 8.0);
  CHECK(eps > 0.0);
}
