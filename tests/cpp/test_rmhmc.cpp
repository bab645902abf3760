// Tests of Riemannian-manifold HMC (sampler/rmhmc.hpp, riemann/*): the GLM Fisher geometry's
// trace and nu terms against finite differences of G; reversibility of the generalized
// leapfrog; exactness with a position-dependent metric on a known target; agreement with
// NUTS on a logistic regression; failed fixed-point iterations counted and rejected.
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>
#include <vector>

#include <vhmc/vhmc.hpp>
#include <vhmc/riemann/glm_geometry.hpp>
#include <vhmc/riemann/metric_geometry.hpp>
#include <vhmc/riemann/surrogate_geometry.hpp>
#include <vhmc/sampler/rmhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::RiemannPoint;
using vhmc::Vec;

// U = |theta|^2 / 2 (standard normal) with the metric tensor G = diag(1 + theta_i^2), given
// as a potential with metric() for MetricGeometry: dG/dtheta_i has the single entry
// 2 theta_i at (i, i), so t_i = 2 theta_i / (1 + theta_i^2), nu_i = 2 theta_i v_i^2.
struct ToyPotential {
  int d;
  int dim() const { return d; }
  double U(const Vec& th) const { return 0.5 * th.squaredNorm(); }
  double U_grad(const Vec& th, Vec& g) const {
    g = th;
    return U(th);
  }
  bool metric(const Vec& th, Mat& G, Mat& dG) const {
    G = (1.0 + th.array().square()).matrix().asDiagonal();
    dG.setZero(d, d * d);
    for (int i = 0; i < d; ++i) dG(i, i * d + i) = 2.0 * th[i];
    return true;
  }
};

// The potential is a base listed first, so it is built before the geometry that refers to it.
struct ToyHolder {
  ToyPotential pot;
};
struct ToyGeometry : ToyHolder, vhmc::MetricGeometry<ToyPotential> {
  explicit ToyGeometry(int d) : ToyHolder{ToyPotential{d}}, MetricGeometry(pot) {}
};

// A GLM problem owned by the test: X (n x k, centred and scaled in the potential), y.
struct GlmProblem {
  int n, k;
  std::vector<double> X, y, w, center, scale;
  GlmProblem(GlmFamily f, int n_, int k_, std::uint64_t seed) : n(n_), k(k_) {
    vhmc::Rng rng(seed, 11);
    X.resize(static_cast<size_t>(n) * k);
    for (auto& x : X) x = 1.0 + 2.0 * rng.normal();
    y.resize(n);
    w.resize(n);
    for (int i = 0; i < n; ++i) {
      double eta = 0.3;
      for (int j = 0; j < k; ++j) eta += 0.4 * (X[static_cast<size_t>(j) * n + i] - 1.0) / 2.0;
      w[i] = 1.0 + (i % 3);
      const double mu = f == vt::fam::PoissonLog ? std::exp(eta) : 1.0 / (1.0 + std::exp(-eta));
      y[i] = f == vt::fam::PoissonLog ? std::floor(mu + rng.uniform()) : (rng.uniform() < mu ? 1.0 : 0.0);
    }
    center.assign(k, 1.0);
    scale.assign(k, 2.0);
  }
  GlmData data(bool weights) const {
    return GlmData(X.data(), n, k, y.data(), weights ? w.data() : nullptr, nullptr, center.data(), scale.data());
  }
};

Mat metric_at(vhmc::GlmGeometry& geo, const Vec& th) {
  RiemannPoint pt;
  REQUIRE(geo.at(th, pt));
  return pt.chol.reconstructedMatrix();
}

}  // namespace

TEST_CASE("GLM Fisher geometry: trace and nu terms match finite differences of G", "[rmhmc]") {
  for (GlmFamily f : {vt::fam::BinomialLogit, vt::fam::PoissonLog}) {
    GlmProblem prob(f, 300, 3, 5);
    const GlmData data = prob.data(true);
    GlmPotential pot(data, f, true, Prior::normal(0.0, 2.5), Prior::student_t(3.0, 0.0, 2.0));
    REQUIRE(pot.has_fisher());
    vhmc::GlmGeometry geo(pot);
    const Vec th = (Vec(4) << 0.2, -0.3, 0.5, 0.1).finished();
    const Vec v = (Vec(4) << 0.7, -1.1, 0.4, 0.9).finished();
    RiemannPoint pt;
    REQUIRE(geo.at(th, pt));
    Vec nu;
    geo.nu(pt, v, nu);
    const Mat Ginv = pt.chol.solve(Mat::Identity(4, 4));
    const double h = 1e-5;
    for (int i = 0; i < 4; ++i) {
      Vec up = th, dn = th;
      up[i] += h;
      dn[i] -= h;
      const Mat dG = (metric_at(geo, up) - metric_at(geo, dn)) / (2 * h);
      const double scale = 1.0 + dG.norm();
      CHECK(pt.trace[i] == Approx((Ginv * dG).trace()).margin(1e-6 * scale));
      CHECK(nu[i] == Approx(v.dot(dG * v)).margin(1e-6 * scale * v.squaredNorm()));
    }
    // G = Z' diag(lam) Z + prior Fisher information equals the potential's Hessian for a
    // canonical link, up to the priors' terms.
    Mat H;
    pot.hessian(th, H);
    const Mat G = pt.chol.reconstructedMatrix();
    const Vec prior = pot.prior_fisher_diag();
    Mat Hlik = H, Glik = G;
    Vec hp = Vec::Zero(4);
    vhmc::prior_add_hessian_diag(Prior::normal(0.0, 2.5), th.head(1), hp.head(1));
    vhmc::prior_add_hessian_diag(Prior::student_t(3.0, 0.0, 2.0), (th.tail(3) / 2.0).eval(), hp.tail(3));
    hp.tail(3) /= 4.0;
    Hlik.diagonal() -= hp;
    Glik.diagonal() -= prior;
    CHECK((Hlik - Glik).cwiseAbs().maxCoeff() < 1e-8 * (1.0 + G.cwiseAbs().maxCoeff()));
    // The fixed point's split, G alone then the rest, gives the state at() gives, bit for bit.
    RiemannPoint split;
    REQUIRE(geo.metric_at(th, split));
    REQUIRE(geo.complete(split));
    CHECK(split.U == pt.U);
    CHECK(split.grad == pt.grad);
    CHECK(split.trace == pt.trace);
    CHECK(split.log_det == pt.log_det);
    CHECK(split.chol.matrixLLT() == pt.chol.matrixLLT());
  }
}

TEST_CASE("metric tensor geometry: trace and nu terms of a supplied dG", "[rmhmc]") {
  ToyGeometry geo(3);
  RiemannPoint pt;
  const Vec th = (Vec(3) << 0.8, -1.2, 0.3).finished();
  REQUIRE(geo.at(th, pt));
  const Vec g = (1.0 + th.array().square()).matrix();
  CHECK((pt.trace - (2.0 * th.array() / g.array()).matrix()).lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK(pt.log_det == Approx(g.array().log().sum()).epsilon(1e-14));
  const Vec v = (Vec(3) << 0.5, 0.9, -1.4).finished();
  Vec nu(3);
  geo.nu(pt, v, nu);
  CHECK((nu - (2.0 * th.array() * v.array().square()).matrix()).lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK(geo.metric_evaluations() == 1);
}

TEST_CASE("generalized leapfrog: reversible and close to energy-conserving", "[rmhmc]") {
  ToyGeometry geo(3);
  vhmc::GeneralizedLeapfrog<ToyGeometry> lf(geo, vhmc::FixedPointConfig{});
  RiemannPoint a, b, c;
  const Vec th0 = (Vec(3) << 0.8, -1.2, 0.3).finished();
  REQUIRE(geo.at(th0, a));
  Vec p = (Vec(3) << 0.5, 0.9, -1.4).finished();
  const double H0 = a.hamiltonian(p);
  REQUIRE(lf.step(a, p, 0.05, b) == vhmc::StepStatus::ok);
  CHECK_FALSE(lf.far_root());
  CHECK(std::fabs(b.hamiltonian(p) - H0) < 1e-3);
  p = -p;
  REQUIRE(lf.step(b, p, 0.05, c) == vhmc::StepStatus::ok);
  CHECK((c.theta - th0).lpNorm<Eigen::Infinity>() < 1e-8);
  CHECK((p + (Vec(3) << 0.5, 0.9, -1.4).finished()).lpNorm<Eigen::Infinity>() < 1e-8);
  CHECK(lf.counts().failures == 0);
}

TEST_CASE("RMHMC samples a standard normal exactly under a position-dependent metric", "[rmhmc]") {
  ToyGeometry geo(2);
  vhmc::RmhmcConfig rc;
  rc.steps = 4;
  vhmc::Callbacks cb;
  const auto out = vhmc::run_rmhmc(geo, rc, vt::chain_config(500, 6000, 81), Vec::Constant(2, 0.5), cb);
  REQUIRE(out.error.empty());
  const double z = vt::family_z(4);
  for (int j = 0; j < 2; ++j) {
    const Vec x = out.draws.col(j);
    CHECK(std::fabs(vt::mean(x)) < z * vt::mcse_mean(x));
    CHECK(std::fabs(vt::var(x) - 1.0) < z * vt::mcse_var(x));
  }
  CHECK(out.accept_stat.mean() > 0.6);
}

TEST_CASE("RMHMC agrees with NUTS on a logistic regression", "[rmhmc]") {
  GlmProblem prob(vt::fam::BinomialLogit, 400, 3, 9);
  const GlmData data = prob.data(false);
  GlmPotential pot(data, vt::fam::BinomialLogit, true, Prior::normal(0.0, 2.5), Prior::normal(0.0, 2.5));
  vhmc::GlmGeometry geo(pot);
  vhmc::Callbacks cb;
  const auto rm = vhmc::run_rmhmc(geo, vhmc::RmhmcConfig{}, vt::chain_config(300, 3000, 82), Vec::Zero(4), cb);
  REQUIRE(rm.error.empty());
  const auto nu = vt::run_nuts(pot, vhmc::DiagMetric(Vec::Ones(4)), Vec::Zero(4), vt::chain_config(1000, 8000, 83));
  const double z = vt::family_z(4);
  for (int j = 0; j < 4; ++j) {
    const Vec a = rm.draws.col(j), b = nu.draws.col(j);
    const double se = std::sqrt(std::pow(vt::mcse_mean(a), 2) + std::pow(vt::mcse_mean(b), 2));
    CHECK(std::fabs(vt::mean(a) - vt::mean(b)) < z * se);
    CHECK(vt::sd(a) == Approx(vt::sd(b)).epsilon(0.1));
  }
  // Failures happen only while warmup tries step sizes that are too large.
  CHECK(rm.divergent.sum() == 0);
}

TEST_CASE("RMHMC: unsolved implicit steps are rejected and counted as solver failures, not divergences",
          "[rmhmc]") {
  ToyGeometry geo(2);
  vhmc::RmhmcConfig rc;
  rc.step_size = 3.0;  // far too large for the fixed point to contract
  rc.fixed_point.max_iter = 5;
  vhmc::Callbacks cb;
  const auto out = vhmc::run_rmhmc(geo, rc, vt::chain_config(0, 200, 84), Vec::Constant(2, 0.5), cb);
  REQUIRE(out.error.empty());
  const double failures = vt::report_value<double>(out.report, "fixed_point_failures");
  CHECK(failures > 0.0);
  // no warmup: every failure is one of sampling, and one rejected transition
  CHECK(vt::report_value<double>(out.report, "fixed_point_failures_sampling") == failures);
  CHECK(out.divergent.sum() == 0);
  CHECK((out.accept_stat.array() == 0.0).count() >= failures);
  CHECK(out.draws.allFinite());
}

namespace {
// U = theta^2 / 2 with G^{-1}(theta) = 0.01 + 10 (1 - exp(-theta^2 / 2)): stiff at 0, soft far
// out, as a GLM's Fisher metric is where the likelihood vanishes. From theta = 0 (where dH = 0,
// so p_h = p) the position equation theta' = (eps/2)(0.01 + g(theta')) p has a root near the
// predictor eps 0.01 p and, for eps p = 40, a far root near 200.
struct FarRootPotential {
  int dim() const { return 1; }
  double U(const Vec& th) const { return 0.5 * th.squaredNorm(); }
  double U_grad(const Vec& th, Vec& g) const {
    g = th;
    return U(th);
  }
  static double ginv(double t) { return 0.01 + 10.0 * (1.0 - std::exp(-0.5 * t * t)); }
  bool metric(const Vec& th, Mat& G, Mat& dG) const {
    const double t = th[0], g = ginv(t), dg = 10.0 * t * std::exp(-0.5 * t * t);
    G.setConstant(1, 1, 1.0 / g);
    dG.setConstant(1, 1, -dg / (g * g));
    return true;
  }
};
struct FarRootHolder {
  FarRootPotential pot;
};
struct FarRootGeometry : FarRootHolder, vhmc::MetricGeometry<FarRootPotential> {
  FarRootGeometry() : FarRootHolder{}, MetricGeometry(pot) {}
};
}  // namespace

TEST_CASE("generalized leapfrog: a position that converged to a far root is flagged", "[rmhmc]") {
  FarRootGeometry geo;
  vhmc::GeneralizedLeapfrog<FarRootGeometry> lf(geo, vhmc::FixedPointConfig{});
  RiemannPoint a, b;
  REQUIRE(geo.at(Vec::Zero(1), a));
  Vec p = Vec::Constant(1, 40.0);
  REQUIRE(lf.step(a, p, 1.0, b) == vhmc::StepStatus::ok);  // converged, to the far root
  CHECK(lf.far_root());
  CHECK(b.theta[0] > 100.0);
  p = Vec::Constant(1, 2.0);
  REQUIRE(lf.step(a, p, 1.0, b) == vhmc::StepStatus::ok);  // the root near its predictor
  CHECK_FALSE(lf.far_root());
  CHECK(std::fabs(b.theta[0]) < 0.1);
  CHECK(lf.counts().failures == 0);
  // The transition through a far root: its huge energy error is the solver's, not a divergence.
  vhmc::RmhmcConfig rc;
  rc.step_size = 1.0;
  rc.jitter = false;
  rc.steps = 1;
  vhmc::Callbacks cb;
  const auto out = vhmc::run_rmhmc(geo, rc, vt::chain_config(0, 400, 85), Vec::Zero(1), cb);
  REQUIRE(out.error.empty());
  CHECK(out.divergent.sum() == 0);
}

// Unsolved transitions as a model: with eps |z| > c (z the momentum, standard normal in d = 4)
// the step fails, which is how the contraction of the fixed-point iterations behaves
// (measured on a logistic regression: 0.01% of transitions at eps = 0.6, 0.9% at 0.8, 6.5%
// at 1.0, as P(|z| > 2.95 / eps)); the acceptance of solved transitions falls slowly with eps.
TEST_CASE("implicit step size: dual averaging under a cap that keeps solver failures near 0.5%", "[rmhmc]") {
  vhmc::Rng rng(7, 1);
  const double c = 2.95;
  auto fails = [&](double eps) {
    double z2 = 0.0;
    for (int j = 0; j < 4; ++j) z2 += std::pow(rng.normal(), 2);
    return eps * std::sqrt(z2) > c;
  };
  auto accept = [](double eps) { return std::exp(-0.15 * eps * eps); };  // 0.91 at eps = 0.8
  auto fail_rate = [&](double eps) {  // P(chi_4 > c / eps) = exp(-x/2)(1 + x/2), x = (c/eps)^2
    const double x = std::pow(c / eps, 2);
    return std::exp(-0.5 * x) * (1.0 + 0.5 * x);
  };
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    vhmc::ImplicitStepSize tuner(0.8);
    tuner.restart(0.5);
    vhmc::DualAveraging plain = [] {
      vhmc::DualAveragingConfig dc;
      dc.delta = 0.8;
      return vhmc::DualAveraging(dc);
    }();
    plain.restart(0.5);
    double eps = 0.5;
    rng = vhmc::Rng(seed, 3);
    for (int t = 0; t < 1000; ++t) {
      if (t == 500) tuner.forget();
      const bool failed = fails(eps);
      eps = tuner.learn(failed ? 0.0 : accept(eps), failed, eps);
      REQUIRE(std::isfinite(eps));
    }
    const double final_eps = tuner.final_step_size();
    INFO("seed " << seed << ": final step " << final_eps << ", failure rate " << fail_rate(final_eps));
    CHECK(fail_rate(final_eps) < 0.015);
    CHECK(fail_rate(final_eps) > 0.0005);  // not held down far below what the cap aims at
    CHECK(std::isfinite(tuner.cap()));
  }
}

TEST_CASE("implicit step size: without failures it is dual averaging, step for step", "[rmhmc]") {
  vhmc::ImplicitStepSize tuner(0.8);
  vhmc::DualAveragingConfig dc;
  dc.delta = 0.8;
  vhmc::DualAveraging da(dc);
  tuner.restart(0.3);
  da.restart(0.3);
  vhmc::Rng rng(3, 1);
  for (int t = 0; t < 300; ++t) {
    const double a = rng.uniform();
    CHECK(tuner.learn(a, false, 0.3) == da.learn(a));
  }
  CHECK(tuner.final_step_size() == da.final_step_size());
  CHECK(std::isinf(tuner.cap()));
}

TEST_CASE("dual averaging with a limit: the limited step, and no wind-up while it binds", "[rmhmc]") {
  vhmc::DualAveraging da;
  da.restart(1.0);
  for (int t = 0; t < 200; ++t) CHECK(da.learn(1.0, 0.5) <= 0.5);  // acceptance 1 pushes up
  CHECK(da.final_step_size() == Approx(0.5).epsilon(1e-4));  // its first steps were below the limit
  // released, it moves on from the limit, not from a wound-up sbar
  const double next = da.learn(0.8);
  CHECK(next < 0.5 * 1.5);
}

namespace {
// A small softplus network with random output weights and a quadratic base Q (u-space).
vhmc::RandomBasisNetwork toy_network(int d, const Mat& cov, const Mat& Q) {
  vhmc::Rng rng(5, 1);
  const Vec mean = (Vec(d) << 0.2, -0.1, 0.4).finished();
  vhmc::RandomBasisNetwork net;
  net.draw(40, vhmc::Activation::Softplus, vhmc::Standardizer::from_covariance(mean, cov), rng);
  for (Eigen::Index k = 0; k < net.weights().size(); ++k) net.weights()[k] = rng.normal();
  net.set_quadratic(Q, Vec::Zero(d));
  return net;
}

Mat metric_of(const RiemannPoint& pt) {
  return pt.is_diag ? Mat(pt.diag.asDiagonal()) : Mat(pt.chol.reconstructedMatrix());
}

// t_i = d/dtheta_i log det G and nu_i = d/dtheta_i v'Gv, by central differences.
template <class Geo>
void check_geometry_derivatives(Geo& geo, const RiemannPoint& pt, const Vec& th) {
  const int d = static_cast<int>(th.size());
  const Vec v = (Vec(d) << 0.5, 0.9, -1.4).finished();
  Vec nu(d);
  geo.nu(pt, v, nu);
  const double eps = 1e-5;
  for (int i = 0; i < d; ++i) {
    RiemannPoint up, dn;
    Vec a = th, b = th;
    a[i] += eps;
    b[i] -= eps;
    REQUIRE(geo.at(a, up));
    REQUIRE(geo.at(b, dn));
    const double fd_t = (up.log_det - dn.log_det) / (2 * eps);
    const double fd_nu = (v.dot(metric_of(up) * v) - v.dot(metric_of(dn) * v)) / (2 * eps);
    CHECK(pt.trace[i] == Approx(fd_t).epsilon(1e-6).margin(1e-8));
    CHECK(nu[i] == Approx(fd_nu).epsilon(1e-6).margin(1e-8));
  }
}

Mat toy_cov() {
  Mat cov(3, 3);
  cov << 1.0, 0.3, 0.0, 0.3, 2.0, -0.4, 0.0, -0.4, 0.5;
  return cov;
}

// The geometry of toy_network() with base Q = I plus q01 at (0, 1) and (1, 0), and its
// state at th (weights may be rescaled before at(): the geometry reads them there).
struct ToySurrogate {
  ToySurrogate(double q01, vhmc::SurrogateMetric kind)
      : Q(base(q01)), net(toy_network(d, cov, Q)), geo(truth, net, 1e-3, kind) {}
  static Mat base(double q01) {
    Mat Q = Mat::Identity(3, 3);
    Q(0, 1) = Q(1, 0) = q01;
    return Q;
  }
  const int d = 3;
  const Mat cov = toy_cov();
  const Mat Q;
  vhmc::RandomBasisNetwork net;
  ToyPotential truth{3};
  vhmc::SurrogateGeometry<ToyPotential> geo;
  const Vec th = (Vec(3) << 0.5, -0.7, 0.9).finished();
  RiemannPoint pt;
};
}  // namespace

TEST_CASE("surrogate Hessian-diagonal geometry: metric, trace and nu terms match the network", "[rmhmc]") {
  ToySurrogate t(0.2, vhmc::SurrogateMetric::diagonal);
  auto [pt, th, net, cov] = std::tie(t.pt, t.th, t.net, t.cov);
  const int d = t.d;
  REQUIRE(t.geo.at(th, pt));
  REQUIRE(pt.is_diag);
  CHECK(std::isnan(pt.U));  // the true U only at a trajectory's end
  // G from the network's Hessian diagonal; the gradient is the network's.
  const Vec h = net.hessian(th).diagonal();
  const Vec delta = 1e-3 * cov.diagonal().cwiseInverse();
  for (int j = 0; j < d; ++j) CHECK(pt.diag[j] == Approx(std::sqrt(h[j] * h[j] + delta[j] * delta[j])).epsilon(1e-10));
  Vec g(d);
  net.grad(th, g);
  CHECK((pt.grad - g).lpNorm<Eigen::Infinity>() < 1e-12);
  check_geometry_derivatives(t.geo, pt, th);
  REQUIRE(t.geo.settle(pt));
  CHECK(pt.U == Approx(t.truth.U(th)));
}

TEST_CASE("surrogate dense geometry: the base's Hessian plus the bases' diagonal, trace and nu terms", "[rmhmc]") {
  ToySurrogate t(0.6, vhmc::SurrogateMetric::dense);
  auto [pt, th, net, cov] = std::tie(t.pt, t.th, t.net, t.cov);
  const int d = t.d;
  const Mat& Q = t.Q;
  REQUIRE(t.geo.at(th, pt));
  REQUIRE_FALSE(pt.is_diag);
  // C = L^{-T} Q L^{-1}, the base's theta-space Hessian (the network's Hessian less the bases').
  const Mat L = Eigen::LLT<Mat>(cov).matrixL();
  const Mat Linv = L.inverse();
  const Mat C = Linv.transpose() * Q * Linv;
  const Vec h = net.hessian(th).diagonal() - C.diagonal();
  const Vec delta = 1e-3 * cov.diagonal().cwiseInverse();
  Mat G = C;
  for (int j = 0; j < d; ++j) G(j, j) += std::sqrt(h[j] * h[j] + delta[j] * delta[j]);
  CHECK((metric_of(pt) - G).lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK(pt.log_det == Approx(std::log(G.determinant())).epsilon(1e-10));
  check_geometry_derivatives(t.geo, pt, th);
  // Momenta are drawn from N(0, G): p = L_G z.
  Vec p(d);
  pt.momentum(Vec::Ones(d), p);
  CHECK((p - Eigen::LLT<Mat>(G).matrixL() * Vec::Ones(d)).norm() < 1e-10);
}

TEST_CASE("surrogate dense geometry: an indefinite base is made positive definite", "[rmhmc]") {
  ToySurrogate t(1.5, vhmc::SurrogateMetric::dense);  // base eigenvalues -0.5, 1, 2.5
  t.net.weights() *= 1e-3;  // the bases nearly off: the base's sign decides
  REQUIRE(t.geo.at(t.th, t.pt));
  CHECK(Eigen::SelfAdjointEigenSolver<Mat>(metric_of(t.pt)).eigenvalues().minCoeff() > 0.0);
  check_geometry_derivatives(t.geo, t.pt, t.th);
}
