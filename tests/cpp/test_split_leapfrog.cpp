// Tests of the split leapfrog for stiff rows (integrator/split_leapfrog.hpp) and the GLM's
// choice of them (model/glm/stiff_rows.hpp), on a logistic regression where a rare category
// separates the responses: its rows are chosen and no others, the split step is
// time-reversible, keeps the energy error small at a step size where the plain leapfrog's
// explodes, and NUTS with it gives the plain NUTS's posterior with far fewer gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::Vec;

using vt::Separated;

// The separated regression's potential, its mode and the Laplace covariance there.
struct AtMode {
  Separated s;
  GlmData data = s.data();
  GlmPotential pot = vt::separated_potential(data);
  vhmc::ModeResult mode = vhmc::newton_mode(pot, Vec::Zero(pot.dim()));
  Mat cov = mode.hessian.inverse();
};

// A phase point at the mode, its potential and gradient evaluated by ham.
template <class Ham>
vhmc::PhasePoint point_at_mode(Ham& ham, const AtMode& at) {
  vhmc::PhasePoint z(at.pot.dim());
  z.theta = at.mode.mode;
  REQUIRE(ham.init_point(z));
  return z;
}

}  // namespace

TEST_CASE("the stiff rows of a GLM are the rows of the separating category", "[split]") {
  AtMode at;
  REQUIRE(at.mode.converged);
  const Vec c = vhmc::glm_row_stiffness(at.pot, at.mode.hessian);
  for (int i = 0; i < 4; ++i) CHECK(c[i] > 100.0);
  CHECK(c.tail(at.s.n - 4).maxCoeff() < 1.0);
  const auto rows = vhmc::find_stiff_rows(at.pot, at.mode.hessian, vhmc::SplitConfig{});
  REQUIRE(rows);
  CHECK(rows->size() == 4);
  vhmc::SplitConfig off;
  off.enabled = false;
  CHECK_FALSE(vhmc::find_stiff_rows(at.pot, at.mode.hessian, off));
  // A family without a curvature bound has none.
  GlmPotential pois(at.data, vt::fam::PoissonLog, true, Prior::normal(0, 10), Prior::normal(0, 10));
  CHECK_FALSE(vhmc::find_stiff_rows(pois, at.mode.hessian, vhmc::SplitConfig{}));
}

TEST_CASE("the split step is reversible and resolves the wall the plain step jumps", "[split]") {
  AtMode at;
  vhmc::Target<GlmPotential> target(at.pot);
  vhmc::Hamiltonian<vhmc::Target<GlmPotential>, vhmc::DenseMetric> plain(target, vhmc::DenseMetric(at.cov));
  vhmc::Hamiltonian<vhmc::Target<GlmPotential>, vhmc::DenseMetric> split(target, vhmc::DenseMetric(at.cov));
  split.set_stiff_rows(*vhmc::find_stiff_rows(at.pot, at.mode.hessian, vhmc::SplitConfig{}), 0.5);
  vhmc::Rng rng(5, 0);
  double worst_plain = 0.0, worst_split = 0.0;
  for (int rep = 0; rep < 40; ++rep) {
    vhmc::PhasePoint z(at.pot.dim());
    z.theta = at.mode.mode;
    REQUIRE(split.init_point(z));
    split.sample_momentum(z, rng);
    const double H0 = z.H();
    vhmc::PhasePoint a = z, b = z;
    for (int t = 0; t < 20; ++t) {
      plain.leapfrog(a, 0.4);
      REQUIRE(split.leapfrog(b, 0.4));
    }
    worst_plain = std::max(worst_plain, std::fabs(a.H() - H0));
    worst_split = std::max(worst_split, std::fabs(b.H() - H0));
    // Forward, then back with the momentum reversed: the start again.
    vhmc::PhasePoint c = z;
    for (int t = 0; t < 20; ++t) REQUIRE(split.leapfrog(c, 0.4));
    c.p = -c.p;
    c.v = -c.v;
    for (int t = 0; t < 20; ++t) REQUIRE(split.leapfrog(c, 0.4));
    CHECK((c.theta - z.theta).norm() < 1e-8 * (1.0 + z.theta.norm()));
    CHECK((c.p + z.p).norm() < 1e-8 * (1.0 + z.p.norm()));
  }
  CHECK(worst_split < 0.5);
  CHECK(worst_plain > 10.0 * worst_split);
}

TEST_CASE("the split step evaluates the stiff rows once per position, wherever it starts", "[split]") {
  AtMode at;
  vhmc::Target<GlmPotential> target(at.pot);
  using Ham = vhmc::Hamiltonian<vhmc::Target<GlmPotential>, vhmc::DenseMetric>;
  const auto rows = *vhmc::find_stiff_rows(at.pot, at.mode.hessian, vhmc::SplitConfig{});
  Ham shared(target, vhmc::DenseMetric(at.cov)), alone_a(target, vhmc::DenseMetric(at.cov)),
      alone_b(target, vhmc::DenseMetric(at.cov));
  for (Ham* h : {&shared, &alone_a, &alone_b}) h->set_stiff_rows(rows, 0.5);
  vhmc::Rng rng(9, 0);
  vhmc::PhasePoint a = point_at_mode(shared, at);
  vhmc::PhasePoint b = a;
  shared.sample_momentum(a, rng);
  shared.sample_momentum(b, rng);
  vhmc::PhasePoint a2 = a, b2 = b;
  const int steps = 10;
  // One split leapfrog alternating between two trajectories against one for each: the rows
  // it remembers from the last step never serve another point.
  for (int t = 0; t < steps; ++t) {
    REQUIRE(shared.leapfrog(a, 0.4));
    REQUIRE(shared.leapfrog(b, 0.4));
    REQUIRE(alone_a.leapfrog(a2, 0.4));
    REQUIRE(alone_b.leapfrog(b2, 0.4));
  }
  CHECK(a.theta == a2.theta);
  CHECK(a.p == a2.p);
  CHECK(b.theta == b2.theta);
  CHECK(b.p == b2.p);
  CHECK(a.U == a2.U);
  // A trajectory alone: the rows at its start, then per step the inner steps' and those at
  // the new position (a step starts where the last one ended, whose rows it keeps).
  const long n = rows.size(), m = alone_a.split()->inner_steps(0.4);
  CHECK(alone_a.split()->row_evaluations() == n * (1 + steps * (m + 1)));
}

TEST_CASE("NUTS with the split leapfrog gives NUTS's posterior with fewer gradients", "[split][nuts]") {
  AtMode at;
  vhmc::Callbacks cb;
  const vhmc::ChainConfig cfg = vt::chain_config(1000, 6000, 99);
  const auto with = vhmc::run_hmc_family<vhmc::Nuts>(at.pot, vhmc::DenseMetric(at.cov), vhmc::NutsConfig{},
                                                      vhmc::HmcWarmupConfig{}, cfg, at.mode.mode, true, cb,
                                                      vhmc::SplitConfig{}, &at.mode.hessian);
  const auto without = vhmc::run_hmc_family<vhmc::Nuts>(at.pot, vhmc::DenseMetric(at.cov), vhmc::NutsConfig{},
                                                         vhmc::HmcWarmupConfig{}, cfg, at.mode.mode, true, cb);
  for (int j = 0; j < at.pot.dim(); ++j) {
    INFO("coordinate " << j);
    const Vec a = with.draws.col(j), b = without.draws.col(j);
    const double se = std::sqrt(std::pow(vt::mcse_mean(a), 2) + std::pow(vt::mcse_mean(b), 2));
    CHECK(std::fabs(a.mean() - b.mean()) < 4.0 * se);
    CHECK(vt::sd(a) == Approx(vt::sd(b)).epsilon(0.1));
  }
  CHECK(with.counts_total.grad < without.counts_total.grad / 2);
}

TEST_CASE("the split step follows the metric that warmup sets; a metric's stamp names its content", "[split]") {
  AtMode at;
  vhmc::Target<GlmPotential> target(at.pot);
  using Ham = vhmc::Hamiltonian<vhmc::Target<GlmPotential>, vhmc::DenseMetric>;
  const auto rows = *vhmc::find_stiff_rows(at.pot, at.mode.hessian, vhmc::SplitConfig{});
  // A metric's stamp names its content: a copy keeps it, every change takes a new one.
  vhmc::DenseMetric m(at.cov);
  const vhmc::DenseMetric copy = m;
  CHECK(copy.revision() == m.revision());
  const auto before = m.revision();
  m.set_W(2.0 * at.cov);
  CHECK(m.revision() != before);
  CHECK(copy.revision() == before);
  // Warmup changes the metric in place; the next transition's steps use the new one,
  // exactly as a Hamiltonian built with it.
  Ham changed(target, vhmc::DenseMetric(at.cov)), fresh(target, vhmc::DenseMetric(2.0 * at.cov));
  for (Ham* h : {&changed, &fresh}) h->set_stiff_rows(rows, 0.5);
  vhmc::Rng r1(4, 0), r2(4, 0);
  vhmc::PhasePoint a = point_at_mode(changed, at);
  changed.sample_momentum(a, r1);
  REQUIRE(changed.leapfrog(a, 0.4));
  const double kappa_before = changed.split()->kappa();
  changed.metric().set_W(2.0 * at.cov);
  vhmc::PhasePoint b = point_at_mode(changed, at);
  vhmc::PhasePoint c = b;
  changed.sample_momentum(b, r1);
  fresh.sample_momentum(c, r2);
  c.p = b.p;
  fresh.metric().sharp(c.p, c.v);
  CHECK(changed.split()->kappa() == fresh.split()->kappa());
  CHECK(changed.split()->kappa() == Approx(2.0 * kappa_before).epsilon(1e-6));
  for (int t = 0; t < 10; ++t) {
    REQUIRE(changed.leapfrog(b, 0.4));
    REQUIRE(fresh.leapfrog(c, 0.4));
  }
  CHECK(b.theta == c.theta);
  CHECK(b.p == c.p);
}
