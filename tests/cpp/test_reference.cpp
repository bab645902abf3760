// Parity tests: vhmc's NUTS and static HMC against direct, deliberately naive transcriptions of
// Momentum, leapfrog and static HMC (Neal 2011) and NUTS (Stan >= 2.26; Betancourt 2017) written here with
// value semantics and recursion, no workspaces and no in-place edges. Both consume the same
// random stream in the same order (as Stan: a uniform is drawn for a subtree merge or for the
// top-level progressive sample only when the new weight does not already exceed the old one),
// so every transition must agree to rounding, including tree depth, leapfrog count, accept_stat,
// divergence flag and energy.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "test_util.hpp"

using vhmc::Mat;
using vhmc::PhasePoint;
using vhmc::Rng;
using vhmc::Vec;

namespace {

// A point of phase space.
struct RState {
  Vec th, p, g;
  double U = 0;
};

// Reference Hamiltonian with a dense metric W (diagonal W as a special case).
template <class P>
struct RefSystem {
  P& pot;
  Mat W;
  bool diag;  // sample momenta as z_i / sqrt(W_ii) (diagonal metric) instead of L^{-T} z
  double max_dH = 1000.0;

  double U_grad(const Vec& th, Vec& g) const {
    const double u = pot.U_grad(th, g);
    return (std::isfinite(u) && g.allFinite()) ? u : vhmc::kInf;
  }
  double H(const RState& s) const {
    const Vec v = W * s.p;  // sharp momentum
    const double h = s.U + 0.5 * s.p.dot(v);
    return std::isnan(h) ? vhmc::kInf : h;
  }
  Vec momentum(Rng& rng) const {
    const int d = static_cast<int>(W.rows());
    Vec z(d);
    for (int i = 0; i < d; ++i) z[i] = rng.normal();
    if (diag) return (z.array() / W.diagonal().array().sqrt()).matrix();
    const Eigen::LLT<Mat> llt(W);
    return llt.matrixU().solve(z);  // p = L^{-T} z, W = L L'
  }
  // Leapfrog (Neal 2011, eq. 5.18-5.20):
  // p_half = p - h/2 g(theta); theta' = theta + h W p_half; p' = p_half - h/2 g(theta').
  // Returns false (U = +inf) when U or g is not finite at theta'.
  bool leapfrog(RState& s, double h) const {
    s.p = s.p - (h / 2) * s.g;
    s.th = s.th + h * (W * s.p);
    s.U = U_grad(s.th, s.g);
    if (!std::isfinite(s.U)) return false;
    s.p = s.p - (h / 2) * s.g;
    return true;
  }
  // crit(x, y, rho) = [rho . W p(x) > 0] and [rho . W p(y) > 0]
  bool crit(const Vec& px, const Vec& py, const Vec& rho) const {
    return (W * px).dot(rho) > 0 && (W * py).dot(rho) > 0;
  }
};

struct RInfo {
  double accept_stat = 0;
  int n_leapfrog = 0;
  int treedepth = -1;
  bool divergent = false;
  double energy = 0;
};

// NUTS as Stan >= 2.26 runs it (multinomial sampling, Betancourt 2017), transcribed.
template <class P>
struct RefNuts {
  const RefSystem<P>& sys;
  double eps;
  int max_depth = 10;
  // per transition
  double H0 = 0, sum_acc = 0;
  int n_lf = 0;
  bool divergent = false;

  struct Tree {
    RState first, last, prop;  // first/last in integration order
    Vec rho;
    double logw = -vhmc::kInf;
    bool valid = false;
  };

  Tree build(int depth, const RState& start, int sign, Rng& rng) {
    Tree t;
    if (depth == 0) {
      RState z = start;
      const bool finite = sys.leapfrog(z, sign * eps);
      ++n_lf;
      const double h = finite ? sys.H(z) : vhmc::kInf;
      if (h - H0 > sys.max_dH) divergent = true;
      t.logw = H0 - h;
      sum_acc += std::min(1.0, std::exp(H0 - h));
      t.rho = z.p;
      t.first = t.last = t.prop = z;
      t.valid = !divergent;
      return t;
    }
    Tree I = build(depth - 1, start, sign, rng);
    if (!I.valid) return I;
    Tree O = build(depth - 1, I.last, sign, rng);
    if (!O.valid) return O;
    t.logw = vhmc::log_sum_exp(I.logw, O.logw);
    t.prop = I.prop;
    if (O.logw > t.logw) {
      t.prop = O.prop;
    } else if (rng.uniform() < std::exp(O.logw - t.logw)) {
      t.prop = O.prop;
    }
    t.rho = I.rho + O.rho;
    t.first = I.first;
    t.last = O.last;
    t.valid = sys.crit(I.first.p, O.last.p, t.rho) &&
              sys.crit(I.first.p, O.first.p, I.rho + O.first.p) &&
              sys.crit(I.last.p, O.last.p, I.last.p + O.rho);
    return t;
  }

  RInfo transition(RState& state, Rng& rng) {
    RState z0 = state;
    z0.p = sys.momentum(rng);
    H0 = sys.H(z0);
    RState left = z0, right = z0, sample = z0;
    Vec rho = z0.p;
    double logw = 0;
    int depth = 0;
    n_lf = 0;
    sum_acc = 0;
    divergent = false;
    while (depth < max_depth) {
      const int dir = rng.uniform() > 0.5 ? 1 : -1;
      const RState old_left = left, old_right = right;
      const Vec rho_old = rho;
      Tree T = build(depth, dir > 0 ? right : left, dir, rng);
      (dir > 0 ? right : left) = T.last;
      if (!T.valid) break;
      ++depth;
      if (T.logw > logw) {
        sample = T.prop;
      } else if (rng.uniform() < std::exp(T.logw - logw)) {
        sample = T.prop;
      }
      logw = vhmc::log_sum_exp(logw, T.logw);
      // A = earlier in time, B = later in time.
      Vec a_first, a_last, b_first, b_last, rho_A, rho_B;
      if (dir > 0) {
        a_first = old_left.p, a_last = old_right.p, rho_A = rho_old;
        b_first = T.first.p, b_last = T.last.p, rho_B = T.rho;
      } else {
        a_first = T.last.p, a_last = T.first.p, rho_A = T.rho;
        b_first = old_left.p, b_last = old_right.p, rho_B = rho_old;
      }
      rho = rho_A + rho_B;
      const bool ok = sys.crit(a_first, b_last, rho) &&
                      sys.crit(a_first, b_first, rho_A + b_first) &&
                      sys.crit(a_last, b_last, a_last + rho_B);
      if (!ok) break;
    }
    state = sample;
    RInfo info;
    info.accept_stat = n_lf > 0 ? sum_acc / n_lf : 0.0;
    info.n_leapfrog = n_lf;
    info.treedepth = depth;
    info.divergent = divergent;
    info.energy = sys.H(sample);
    return info;
  }
};

// Static HMC with jittered steps, transcribed.
template <class P>
RInfo ref_static_hmc(const RefSystem<P>& sys, RState& state, double eps, int L, bool jitter,
                     Rng& rng) {
  RState z = state;
  z.p = sys.momentum(rng);
  const double H0 = sys.H(z);
  const int Lt = jitter ? 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(L))) : L;
  RState prop = z;
  bool ok = true;
  int taken = 0;
  while (taken < Lt && ok) {
    ok = sys.leapfrog(prop, eps);
    ++taken;
  }
  double dH = ok ? sys.H(prop) - H0 : vhmc::kInf;
  if (std::isnan(dH)) dH = vhmc::kInf;
  RInfo info;
  info.n_leapfrog = Lt;  // the drawn steps, also when a non-finite step ended it early
  info.accept_stat = std::min(1.0, std::exp(-dH));
  info.divergent = dH > sys.max_dH;
  if (std::log(rng.uniform()) < -dH) {
    state = prop;
    info.energy = sys.H(prop);
  } else {
    state = z;
    info.energy = H0;
  }
  return info;
}

bool close(const Vec& a, const Vec& b, double tol) {
  return (a - b).cwiseAbs().maxCoeff() <= tol * std::max(1.0, b.cwiseAbs().maxCoeff());
}

// The vhmc state and the reference state at the same starting position.
template <class Ham, class P>
void start_both(Ham& ham, const RefSystem<P>& sys, const Vec& theta0, PhasePoint& z, RState& r) {
  z.theta = theta0;
  REQUIRE(ham.init_point(z));
  r.th = theta0;
  r.U = sys.U_grad(r.th, r.g);
}

// Runs n transitions of the vhmc sampler and of the reference from the same start and seed.
template <class S, class Ham, class P>
void compare_nuts(S& s, Ham& ham, const RefSystem<P>& sys, double eps, int max_depth,
                  const Vec& theta0, int n) {
  s.step_size() = eps;
  RefNuts<P> ref{sys, eps, max_depth};
  Rng rng_a(123, 7), rng_b(123, 7);
  PhasePoint z(static_cast<int>(theta0.size()));
  RState r;
  start_both(ham, sys, theta0, z, r);
  int depth_sum = 0, div = 0;
  for (int it = 0; it < n; ++it) {
    const vhmc::TransitionInfo a = s.transition(z, rng_a);
    const RInfo b = ref.transition(r, rng_b);
    INFO("transition " << it << ": vhmc depth " << a.treedepth << " n_lf " << a.n_leapfrog
                       << ", reference depth " << b.treedepth << " n_lf " << b.n_leapfrog);
    REQUIRE(a.treedepth == b.treedepth);
    REQUIRE(a.n_leapfrog == b.n_leapfrog);
    REQUIRE(a.divergent == b.divergent);
    REQUIRE(a.accept_stat == Approx(b.accept_stat).epsilon(1e-10).margin(1e-14));
    REQUIRE(a.energy == Approx(b.energy).epsilon(1e-10));
    REQUIRE(close(z.theta, r.th, 1e-10));
    depth_sum += a.treedepth;
    div += a.divergent;
  }
  INFO("mean depth " << double(depth_sum) / n << ", divergent " << div);
  CHECK(depth_sum > n);  // the comparison exercised trees deeper than 1 on average
}

template <class S, class Ham, class P>
void compare_hmc(S& s, Ham& ham, const RefSystem<P>& sys, double eps, int L, bool jitter,
                 const Vec& theta0, int n, bool expect_divergent = false) {
  s.step_size() = eps;
  Rng rng_a(321, 3), rng_b(321, 3);
  PhasePoint z(static_cast<int>(theta0.size()));
  RState r;
  start_both(ham, sys, theta0, z, r);
  int accepted = 0, divergent = 0;
  for (int it = 0; it < n; ++it) {
    const Vec before = z.theta;
    const vhmc::TransitionInfo a = s.transition(z, rng_a);
    const RInfo b = ref_static_hmc(sys, r, eps, L, jitter, rng_b);
    INFO("transition " << it);
    REQUIRE(a.n_leapfrog == b.n_leapfrog);
    REQUIRE(a.divergent == b.divergent);
    REQUIRE(a.accept_stat == Approx(b.accept_stat).epsilon(1e-10).margin(1e-14));
    REQUIRE(a.energy == Approx(b.energy).epsilon(1e-10));
    REQUIRE(close(z.theta, r.th, 1e-10));
    accepted += !(z.theta == before);
    divergent += a.divergent;
  }
  CHECK(accepted > 0);
  CHECK(accepted < n);
  CHECK((divergent > 0) == expect_divergent);
}

// 3-d banana (x, y) plus an independent N(0, 1) coordinate, NaN for x > 1.5.
struct BananaWall {
  int dim() const { return 3; }
  double U_grad(const Vec& th, Vec& g) const {
    if (th[0] > 1.5) {
      g.setConstant(3, std::nan(""));
      return std::nan("");
    }
    const double x = th[0], r = th[1] - x * x;
    g.resize(3);
    g << x - 2 * x * r, r, th[2];
    return 0.5 * (x * x + r * r + th[2] * th[2]);
  }
  double U(const Vec& th) const {
    Vec g(3);
    return U_grad(th, g);
  }
};

Mat dense_W() {
  Mat W(3, 3);
  W << 1.2, 0.5, -0.2, 0.5, 0.9, 0.1, -0.2, 0.1, 0.6;
  return W;
}

}  // namespace

TEST_CASE("NUTS agrees transition by transition with a transcription of Stan's",
          "[samplers][nuts][reference]") {
  using vhmc::Target;
  Vec theta0(3);
  theta0 << 0.4, -0.3, 1.1;
  SECTION("correlated 3-d Gaussian, dense metric") {
    Mat cov(3, 3);
    cov << 1.0, 0.8, 0.3, 0.8, 1.5, 0.4, 0.3, 0.4, 0.7;
    vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), cov);
    Target<vhmc::GaussianPotential> target(pot);
    vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::DenseMetric> ham(
        target, vhmc::DenseMetric(dense_W()));
    vhmc::Nuts<Target<vhmc::GaussianPotential>, vhmc::DenseMetric> s(ham, vhmc::NutsConfig{});
    RefSystem<vhmc::GaussianPotential> sys{pot, dense_W(), false};
    compare_nuts(s, ham, sys, 0.25, 10, theta0, 300);
  }
  SECTION("3-d Gaussian with very different scales, diagonal metric, max_depth 4") {
    Vec var(3);
    var << 0.01, 1.0, 25.0;
    vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), var);
    Target<vhmc::GaussianPotential> target(pot);
    Vec w(3);
    w << 0.02, 0.5, 3.0;
    vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::DiagMetric> ham(target,
                                                                            vhmc::DiagMetric(w));
    vhmc::NutsConfig nc;
    nc.max_depth = 4;
    vhmc::Nuts<Target<vhmc::GaussianPotential>, vhmc::DiagMetric> s(ham, nc);
    RefSystem<vhmc::GaussianPotential> sys{pot, Mat(w.asDiagonal()), true};
    compare_nuts(s, ham, sys, 0.2, 4, theta0, 300);
  }
  SECTION("banana with the NaN wall (divergences), unit metric, large step") {
    BananaWall pot;
    Target<BananaWall> target(pot);
    vhmc::Hamiltonian<Target<BananaWall>, vhmc::UnitMetric> ham(target, vhmc::UnitMetric(3));
    vhmc::Nuts<Target<BananaWall>, vhmc::UnitMetric> s(ham, vhmc::NutsConfig{});
    RefSystem<BananaWall> sys{pot, Mat::Identity(3, 3), true};
    compare_nuts(s, ham, sys, 0.45, 10, theta0, 300);
  }
}

TEST_CASE("Static HMC agrees transition by transition with a transcription",
          "[samplers][hmc][reference]") {
  using vhmc::Target;
  Mat cov(3, 3);
  cov << 1.0, 0.8, 0.3, 0.8, 1.5, 0.4, 0.3, 0.4, 0.7;
  vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), cov);
  Target<vhmc::GaussianPotential> target(pot);
  Vec theta0(3);
  theta0 << 0.4, -0.3, 1.1;
  SECTION("dense metric, jittered L = 12") {
    vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::DenseMetric> ham(
        target, vhmc::DenseMetric(dense_W()));
    vhmc::StaticHmcConfig hc;
    hc.steps = 12;
    vhmc::StaticHmc<Target<vhmc::GaussianPotential>, vhmc::DenseMetric> s(ham, hc);
    RefSystem<vhmc::GaussianPotential> sys{pot, dense_W(), false};
    compare_hmc(s, ham, sys, 0.6, 12, true, theta0, 300);
  }
  SECTION("diagonal metric, L = 7 without jitter") {
    Vec w(3);
    w << 0.7, 1.3, 0.5;
    vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::DiagMetric> ham(target,
                                                                            vhmc::DiagMetric(w));
    vhmc::StaticHmcConfig hc;
    hc.steps = 7;
    hc.jitter = false;
    vhmc::StaticHmc<Target<vhmc::GaussianPotential>, vhmc::DiagMetric> s(ham, hc);
    RefSystem<vhmc::GaussianPotential> sys{pot, Mat(w.asDiagonal()), true};
    compare_hmc(s, ham, sys, 0.5, 7, false, theta0, 300);
  }
  SECTION("banana with the NaN wall (trajectories cut short), unit metric, jittered L = 10") {
    BananaWall wall;
    Target<BananaWall> wt(wall);
    vhmc::Hamiltonian<Target<BananaWall>, vhmc::UnitMetric> ham(wt, vhmc::UnitMetric(3));
    vhmc::StaticHmcConfig hc;
    hc.steps = 10;
    vhmc::StaticHmc<Target<BananaWall>, vhmc::UnitMetric> s(ham, hc);
    RefSystem<BananaWall> sys{wall, Mat::Identity(3, 3), true};
    compare_hmc(s, ham, sys, 0.3, 10, true, theta0, 300, true);
  }
  SECTION("MALA (L = 1), unit metric") {
    vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::UnitMetric> ham(target,
                                                                            vhmc::UnitMetric(3));
    vhmc::StaticHmcConfig hc;
    hc.steps = 1;
    hc.jitter = false;
    vhmc::StaticHmc<Target<vhmc::GaussianPotential>, vhmc::UnitMetric> s(ham, hc);
    RefSystem<vhmc::GaussianPotential> sys{pot, Mat::Identity(3, 3), true};
    compare_hmc(s, ham, sys, 1.1, 1, false, theta0, 300);
  }
}

// The initial step-size heuristic (Stan's base_hmc::init_stepsize), transcribed: a fresh
// momentum for every trial from the same theta, one leapfrog step, log a = H0 - H1 (NaN or a
// failed step: a = 0); direction from the first trial; then double (halve) until a crosses
// init_accept, checked before each change.
template <class P>
double ref_heuristic(const RefSystem<P>& sys, const RState& s0, double eps, Rng& rng,
                     double init_accept) {
  if (eps == 0 || eps > 1e7 || std::isnan(eps)) return eps;
  auto log_a = [&]() {
    RState w = s0;
    w.p = sys.momentum(rng);
    const double H0 = sys.H(w);
    const bool ok = sys.leapfrog(w, eps);
    const double h = ok ? sys.H(w) : vhmc::kInf;
    return H0 - h;
  };
  const double thr = std::log(init_accept);
  const int direction = log_a() > thr ? 1 : -1;
  while (true) {
    const double a = log_a();
    if (direction == 1 && !(a > thr)) break;
    if (direction == -1 && !(a < thr)) break;
    eps = direction == 1 ? 2 * eps : eps / 2;
    if (eps > 1e7 || eps == 0) throw std::runtime_error("heuristic failed");
  }
  return eps;
}

TEST_CASE("Step-size heuristic agrees with a transcription of Stan's", "[adapt][stepsize][reference]") {
  using vhmc::Target;
  Mat cov(3, 3);
  cov << 1.0, 0.8, 0.3, 0.8, 1.5, 0.4, 0.3, 0.4, 0.7;
  vhmc::GaussianPotential pot(Vec(Vec::Zero(3)), cov);
  Target<vhmc::GaussianPotential> target(pot);
  vhmc::Hamiltonian<Target<vhmc::GaussianPotential>, vhmc::DenseMetric> ham(
      target, vhmc::DenseMetric(dense_W()));
  RefSystem<vhmc::GaussianPotential> sys{pot, dense_W(), false};
  int changed = 0;
  for (double accept : {0.8, 0.5}) {
    for (double eps0 : {1e-4, 0.05, 1.0, 3.0, 100.0}) {
      for (int rep = 0; rep < 10; ++rep) {
        Vec th(3);
        th << 0.1 * rep, -0.5 + 0.2 * rep, 0.3;
        PhasePoint z(3);
        z.theta = th;
        REQUIRE(ham.init_point(z));
        RState r;
        r.th = th;
        r.U = sys.U_grad(r.th, r.g);
        Rng rng_a(55, rep), rng_b(55, rep);
        const double a = ham.find_initial_step_size(z, eps0, rng_a, accept);
        const double b = ref_heuristic(sys, r, eps0, rng_b, accept);
        INFO("eps0 " << eps0 << ", init_accept " << accept << ", rep " << rep);
        CHECK(a == b);
        CHECK(rng_a.next() == rng_b.next());  // same number of draws consumed
        changed += a != eps0;
      }
    }
  }
  CHECK(changed > 50);
}

TEST_CASE("log_sum_exp", "[base]") {
  using vhmc::kInf;
  using vhmc::log_sum_exp;
  CHECK(log_sum_exp(std::log(2.0), std::log(3.0)) == Approx(std::log(5.0)).epsilon(1e-15));
  CHECK(log_sum_exp(-kInf, 1.5) == 1.5);
  CHECK(log_sum_exp(1.5, -kInf) == 1.5);
  CHECK(log_sum_exp(-kInf, -kInf) == -kInf);
  CHECK(log_sum_exp(1000.0, 1000.0) == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(log_sum_exp(-1000.0, -1001.0) == Approx(-1000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
}
