// Tests of the GLM potentials (model/glm.hpp) and priors (model/priors.hpp): gradients against
// central finite differences for every family/link and prior kind, closed forms, numerical
// stability at extreme linear predictors, weights and offsets, validation of priors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>
#include <vhmc/model/glm.hpp>
#include <vhmc/model/mode.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::Vec;

const GlmFamily kFamilies[] = {vt::fam::GaussianIdentity, vt::fam::BinomialLogit,
                               vt::fam::BinomialProbit, vt::fam::PoissonLog,
                               vt::fam::NegBinomial2Log, vt::fam::GammaLog};

// Families whose auxiliary parameter (log sigma, log phi, log shape) is sampled.
bool has_aux(GlmFamily f) {
  return f == vt::fam::GaussianIdentity || f == vt::fam::NegBinomial2Log || f == vt::fam::GammaLog;
}

std::string family_name(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return vhmc::family_code<decltype(g)>(); });
}

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

int poisson_draw(vhmc::Rng& rng, double mu) {  // Knuth, small mu only
  const double L = std::exp(-mu);
  int k = 0;
  double p = rng.uniform();
  while (p > L) {
    ++k;
    p *= rng.uniform();
  }
  return k;
}

// Simulated data owned by the test (the potential only views it).
struct Problem {
  int n = 0, k = 0;
  std::vector<double> X, y, w, o;
  bool use_w = false, use_o = false;
  GlmData data() const {
    return GlmData(X.data(), n, k, y.data(), use_w ? w.data() : nullptr,
                   use_o ? o.data() : nullptr);
  }
  Eigen::Map<const Mat> Xm() const { return Eigen::Map<const Mat>(X.data(), n, k); }
};

Problem make_problem(GlmFamily f, int n, int k, std::uint64_t seed, bool weights, bool offset) {
  vhmc::Rng rng(seed, 7);
  Problem p;
  p.n = n;
  p.k = k;
  p.use_w = weights;
  p.use_o = offset;
  p.X.resize(static_cast<size_t>(n) * k);
  for (auto& x : p.X) x = 0.7 * rng.normal();
  p.y.resize(n);
  p.w.resize(n);
  p.o.resize(n);
  for (int i = 0; i < n; ++i) {
    p.o[i] = offset ? 0.3 * rng.normal() : 0.0;
    double eta = 0.2 + p.o[i];
    for (int j = 0; j < k; ++j) eta += 0.5 * p.X[static_cast<size_t>(j) * n + i];
    const double trials = weights ? static_cast<double>(1 + static_cast<int>(4 * rng.uniform())) : 1.0;
    p.w[i] = trials;
    if (f == vt::fam::GaussianIdentity) {
      p.y[i] = eta + 0.8 * rng.normal();
    } else if (f == vt::fam::BinomialLogit || f == vt::fam::BinomialProbit) {
      const double pr = f == vt::fam::BinomialLogit ? 1.0 / (1.0 + std::exp(-eta)) : Phi(eta);
      int s = 0;
      for (int t = 0; t < static_cast<int>(trials); ++t) s += rng.uniform() < pr;
      p.y[i] = s / trials;  // proportion; trials are the weights
    } else if (f == vt::fam::PoissonLog) {
      p.y[i] = poisson_draw(rng, std::exp(eta));
    } else if (f == vt::fam::NegBinomial2Log) {
      // Negative binomial with phi = 2 as a Poisson whose mean is Gamma(2, 2 / mu) (the
      // sum of two exponentials); Gamma with shape 3 as a sum of three exponentials.
      p.y[i] = poisson_draw(rng, -std::log(rng.uniform() * rng.uniform()) * std::exp(eta) / 2.0);
    } else if (f == vt::fam::GammaLog) {
      p.y[i] = -std::log(rng.uniform() * rng.uniform() * rng.uniform()) * std::exp(eta) / 3.0;
    }
  }
  return p;
}

using vt::random_theta;

// U_grad's gradient vs central differences of U(); U == U_grad's value to 1e-13.
template <class P>
void check_gradient(P& pot, const Vec& theta, const std::string& what) {
  vt::check_gradient(pot, theta, what, 1e-13);
}

// Two potentials that must agree in value and gradient at random points.
template <class P>
void expect_same_potential(P& a, P& b, vhmc::Rng& rng, double eps_value, double eps_grad) {
  for (int rep = 0; rep < 3; ++rep) {
    const Vec theta = random_theta(a.dim(), rng);
    Vec ga, gb;
    CHECK(a.U_grad(theta, ga) == Approx(b.U_grad(theta, gb)).epsilon(eps_value));
    for (int j = 0; j < a.dim(); ++j) CHECK(ga[j] == Approx(gb[j]).epsilon(eps_grad).margin(1e-11));
  }
}

// Coefficient priors: one per kind, with per-coefficient vectors for k coefficients.
std::vector<std::pair<std::string, Prior>> coef_priors(int k) {
  Vec loc = Vec::LinSpaced(k, -0.3, 0.4), sc = Vec::LinSpaced(k, 0.5, 2.0),
      df = Vec::LinSpaced(k, 2.0, 7.0);
  return {{"flat", Prior::flat()},
          {"normal", Prior::normal(loc, sc)},
          {"student_t", Prior::student_t(df, loc, sc)},
          {"cauchy", Prior::cauchy(loc, sc)},
          {"laplace", Prior::laplace(loc, sc)},
          {"normal scalar", Prior::normal(0.1, 1.5)}};
}

std::vector<std::pair<std::string, Prior>> aux_priors() {
  return {{"flat", Prior::flat()},
          {"half-normal", Prior::normal(0.0, 1.3)},
          {"half-t", Prior::student_t(3.0, 0.0, 0.9)},
          {"half-cauchy", Prior::cauchy(0.0, 2.0)},
          {"half-laplace", Prior::laplace(0.0, 0.7)},
          {"exponential", Prior::exponential(1.5)}};
}

}  // namespace

TEST_CASE("GLM gradients match finite differences for every family, link and prior", "[glm]") {
  const int n = 40, k = 3;
  vhmc::Rng rng(2024, 1);
  int combos = 0;
  for (GlmFamily f : kFamilies) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool weights = flags & 1, offset = flags & 2;
      const Problem prob = make_problem(f, n, k, 100 + flags, weights, offset);
      const GlmData data = prob.data();
      const auto cps = coef_priors(k);
      const auto aps = aux_priors();
      for (size_t ci = 0; ci < cps.size(); ++ci) {
        const Prior& pint = cps[(ci + 1) % cps.size()].second.kind == vhmc::PriorKind::Flat
                                ? Prior::normal(0.0, 10.0)
                                : Prior::student_t(4.0, 0.5, 3.0);
        const size_t n_aux = has_aux(f) ? aps.size() : 1;
        for (size_t ai = 0; ai < n_aux; ++ai) {
          for (int icpt = 0; icpt < 2; ++icpt) {
            // Intercept prior must be length 1: use a scalar prior of the current kind.
            Prior pi = cps[ci].second;
            if (pi.kind != vhmc::PriorKind::Flat) {
              pi.location.conservativeResize(1);  // (x = x.head(1) would alias)
              pi.scale.conservativeResize(1);
              pi.df.conservativeResize(1);
            } else {
              pi = pint;
            }
            GlmPotential pot(data, f, icpt == 1, pi, cps[ci].second, aps[ai].second);
            for (int rep = 0; rep < 3; ++rep) {
              const Vec theta = random_theta(pot.dim(), rng);
              check_gradient(pot, theta,
                             family_name(f) + " prior " + cps[ci].first + " aux " +
                                 aps[ai].first + (icpt ? " intercept" : " no-intercept") +
                                 (weights ? " weights" : "") + (offset ? " offset" : ""));
            }
            ++combos;
          }
        }
      }
    }
  }
  CHECK(combos == 4 * 6 * 2 * (3 * 1 + 3 * 6));
}

TEST_CASE("Coefficient priors equal their closed forms (constants dropped)", "[glm][prior]") {
  const Vec b = (Vec(3) << -1.2, 0.3, 2.5).finished();
  const Vec loc = (Vec(3) << 0.0, 1.0, -1.0).finished();
  const Vec sc = (Vec(3) << 1.0, 2.0, 0.5).finished();
  const Vec df = (Vec(3) << 3.0, 1.0, 10.0).finished();
  double un = 0, ut = 0, uc = 0, ul = 0;
  for (int j = 0; j < 3; ++j) {
    const double z = (b[j] - loc[j]) / sc[j];
    un += 0.5 * z * z;
    ut += 0.5 * (df[j] + 1) * std::log(1 + z * z / df[j]);
    uc += std::log(1 + z * z);
    ul += std::fabs(z);
  }
  CHECK(vhmc::prior_value(Prior::normal(loc, sc), b) == Approx(un).epsilon(1e-14));
  CHECK(vhmc::prior_value(Prior::student_t(df, loc, sc), b) == Approx(ut).epsilon(1e-14));
  CHECK(vhmc::prior_value(Prior::cauchy(loc, sc), b) == Approx(uc).epsilon(1e-14));
  CHECK(vhmc::prior_value(Prior::laplace(loc, sc), b) == Approx(ul).epsilon(1e-14));
  CHECK(vhmc::prior_value(Prior::flat(), b) == 0.0);
  // Cauchy is student_t with df 1; a length-1 prior is recycled.
  CHECK(vhmc::prior_value(Prior::cauchy(0.0, 2.0), b) ==
        Approx(vhmc::prior_value(Prior::student_t(1.0, 0.0, 2.0), b)).epsilon(1e-14));
  CHECK(vhmc::prior_value(Prior::normal(0.0, 2.0), b) ==
        Approx(0.5 * b.squaredNorm() / 4.0).epsilon(1e-14));
  // Gradients accumulate into g.
  Vec g = Vec::Ones(3);
  vhmc::prior_value_add_grad(Prior::normal(loc, sc), b, g);
  for (int j = 0; j < 3; ++j) CHECK(g[j] == Approx(1.0 + (b[j] - loc[j]) / (sc[j] * sc[j])));
}

TEST_CASE("Auxiliary priors on log sigma include the Jacobian", "[glm][prior]") {
  for (double t : {-3.0, -0.4, 0.0, 0.7, 2.5}) {
    const double s = std::exp(t);
    CHECK(vhmc::aux_prior_value(Prior::flat(), t) == Approx(-t).margin(1e-15));
    CHECK(vhmc::aux_prior_value(Prior::exponential(2.0), t) == Approx(2.0 * s - t).margin(1e-13));
    CHECK(vhmc::aux_prior_value(Prior::normal(0.0, 1.5), t) ==
          Approx(0.5 * s * s / 2.25 - t).margin(1e-13));
    CHECK(vhmc::aux_prior_value(Prior::student_t(4.0, 0.0, 0.8), t) ==
          Approx(2.5 * std::log(1 + s * s / (0.64 * 4.0)) - t).margin(1e-13));
    CHECK(vhmc::aux_prior_value(Prior::cauchy(0.0, 2.0), t) ==
          Approx(std::log(1 + s * s / 4.0) - t).margin(1e-13));
    CHECK(vhmc::aux_prior_value(Prior::laplace(0.0, 0.5), t) == Approx(s / 0.5 - t).margin(1e-13));
    for (const auto& ap : aux_priors()) {
      double d = 0;
      const double u = vhmc::aux_prior_value_grad(ap.second, t, d);
      const double h = 1e-6;
      const double fd =
          (vhmc::aux_prior_value(ap.second, t + h) - vhmc::aux_prior_value(ap.second, t - h)) / (2 * h);
      INFO(ap.first << " t=" << t);
      CHECK(u == vhmc::aux_prior_value(ap.second, t));
      CHECK(d == Approx(fd).epsilon(1e-7).margin(1e-7));
    }
  }
  // Half-t stays finite far out (no overflow of sigma^2 in the log1p form).
  double d = 0;
  const double u = vhmc::aux_prior_value_grad(Prior::cauchy(0.0, 1.0), 400.0, d);
  CHECK(std::isfinite(u));
  CHECK(d == Approx(1.0));
}

TEST_CASE("GLM potentials equal naive log likelihoods at moderate eta", "[glm]") {
  const int n = 25, k = 2;
  vhmc::Rng rng(77, 3);
  for (GlmFamily f : kFamilies) {
    const Problem prob = make_problem(f, n, k, 5, false, false);
    const GlmData data = prob.data();
    GlmPotential pot(data, f, true, Prior::flat(), Prior::flat(), Prior::flat());
    const Vec theta = random_theta(pot.dim(), rng);
    const auto X = prob.Xm();
    double expect = 0.0;
    for (int i = 0; i < n; ++i) {
      const double eta = theta[0] + X.row(i).dot(theta.segment(1, k));
      const double y = prob.y[i];
      if (f == vt::fam::GaussianIdentity) {
        const double sigma = std::exp(theta[k + 1]);
        expect += 0.5 * (y - eta) * (y - eta) / (sigma * sigma);
      } else if (f == vt::fam::BinomialLogit) {
        const double p = 1.0 / (1.0 + std::exp(-eta));
        expect -= y * std::log(p) + (1 - y) * std::log(1 - p);
      } else if (f == vt::fam::BinomialProbit) {
        expect -= y * std::log(Phi(eta)) + (1 - y) * std::log(1 - Phi(eta));
      } else if (f == vt::fam::PoissonLog) {
        expect -= y * eta - std::exp(eta);
      } else if (f == vt::fam::NegBinomial2Log) {  // log dnbinom(y, size = phi, mu) + lgamma(y + 1)
        const double phi = std::exp(theta[k + 1]), mu = std::exp(eta);
        expect -= std::lgamma(y + phi) - std::lgamma(phi) + phi * std::log(phi / (mu + phi)) +
                  y * std::log(mu / (mu + phi));
      } else if (f == vt::fam::GammaLog) {  // log dgamma(y, shape = a, rate = a / mu)
        const double a = std::exp(theta[k + 1]), mu = std::exp(eta);
        expect -= a * std::log(a / mu) - std::lgamma(a) + (a - 1) * std::log(y) - a * y / mu;
      }
    }
    if (f == vt::fam::GaussianIdentity) {
      // + N log sigma (likelihood) - log sigma (Jacobian of the flat prior on sigma)
      expect += n * theta[k + 1] - theta[k + 1];
    } else if (has_aux(f)) {
      expect -= theta[k + 1];  // Jacobian of the flat prior on phi or the shape
    }
    INFO(family_name(f));
    CHECK(pot.U(theta) == Approx(expect).epsilon(1e-12));
  }
}

TEST_CASE("Stable formulas at extreme linear predictors", "[glm][stability]") {
  // One observation per (y, sign of eta), one column x = 1, no intercept: eta = beta.
  const std::vector<double> X = {1.0};
  for (double y : {0.0, 1.0}) {
    const std::vector<double> yv = {y};
    const GlmData data(X.data(), 1, 1, yv.data());
    for (double eta : {-800.0, 800.0}) {
      GlmPotential pot(data, vt::fam::BinomialLogit, false, Prior::flat(), Prior::flat());
      Vec g;
      const Vec th = Vec::Constant(1, eta);
      const double u = pot.U_grad(th, g);
      INFO("logit y=" << y << " eta=" << eta);
      REQUIRE(std::isfinite(u));
      REQUIRE(g.allFinite());
      const bool wrong = (y == 1.0) == (eta < 0);  // the observation is 800 logits away
      CHECK(u == Approx(wrong ? 800.0 : 0.0).margin(1e-300));
      CHECK(g[0] == Approx(wrong ? (y == 1.0 ? -1.0 : 1.0) : 0.0).margin(1e-300));
    }
    for (double eta : {-40.0, 40.0}) {
      GlmPotential pot(data, vt::fam::BinomialProbit, false, Prior::flat(), Prior::flat());
      Vec g;
      const Vec th = Vec::Constant(1, eta);
      const double u = pot.U_grad(th, g);
      INFO("probit y=" << y << " eta=" << eta);
      REQUIRE(std::isfinite(u));
      REQUIRE(g.allFinite());
      const bool wrong = (y == 1.0) == (eta < 0);
      if (wrong) {
        // -log Phi(-40) = 800 + log 40 + log sqrt(2 pi) - log(1 - 1/1600 + ...)
        // (five terms of the asymptotic series: truncation error ~ 945 / 40^10 ~ 1e-13)
        const double x2 = 1600.0;
        const double S = 1 - 1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2) + 105 / (x2 * x2 * x2 * x2);
        const double lp = -800.0 - std::log(40.0) - 0.5 * std::log(2 * M_PI) + std::log(S);
        CHECK(u == Approx(-lp).epsilon(1e-14));
        CHECK(std::fabs(g[0]) == Approx(40.0 / S).epsilon(1e-12));
        CHECK(std::fabs(g[0]) > 40.0);
      } else {
        CHECK(u == Approx(0.0).margin(1e-300));
        CHECK(g[0] == Approx(0.0).margin(1e-300));
      }
    }
  }
  // log Phi and the inverse Mills ratio agree with the erfc formulas on both sides of the
  // asymptotic branch point (-30; erfc stays accurate down to about -37).
  for (double x : {-36.0, -33.0, -30.5, -30.0, -29.5, -25.0, -8.0, -1.0, 0.0, 0.5, 3.0, 6.0}) {
    INFO("x = " << x);
    if (x <= 0.5) CHECK(vhmc::log_Phi(x) == Approx(std::log(Phi(x))).epsilon(1e-13));
    else CHECK(vhmc::log_Phi(x) == Approx(std::log1p(-Phi(-x))).epsilon(1e-13));
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    CHECK(vhmc::inv_mills(x) == Approx(phi / Phi(x)).epsilon(1e-12));
  }
  for (double x : {-40.0, -1e3, -1e6}) {
    CHECK(std::isfinite(vhmc::log_Phi(x)));
    CHECK(vhmc::inv_mills(x) == Approx(-x).epsilon(1.0 / (x * x) + 1e-15));
  }
  CHECK(vhmc::log_Phi(40.0) == 0.0);
  CHECK(vhmc::inv_mills(40.0) == 0.0);
  // log(1 + exp(x)), the logit likelihood's term (base/math.hpp, shared with the priors and
  // the activations).
  CHECK(vhmc::softplus(800.0) == 800.0);
  CHECK(vhmc::softplus(-800.0) == 0.0);
  CHECK(vhmc::softplus(-30.0) == Approx(std::log1p(std::exp(-30.0))).epsilon(1e-15));
  CHECK(vhmc::log_Phi(9.0) < 0.0);  // -1.1e-19: log1p form keeps it (log(Phi) gives 0)
  CHECK(vhmc::log_Phi(9.0) == Approx(-0.5 * std::erfc(9.0 / std::sqrt(2.0))).epsilon(1e-12));
  // Poisson: a large eta overflows to +inf, which Target maps to a rejection (no NaN, no throw).
  {
    const std::vector<double> yv = {3.0};
    const GlmData data(X.data(), 1, 1, yv.data());
    GlmPotential pot(data, vt::fam::PoissonLog, false, Prior::flat(), Prior::flat());
    vhmc::Target<GlmPotential> target(pot);
    Vec g(1);
    CHECK(target.U_grad(Vec::Constant(1, 800.0), g) == vhmc::kInf);
    CHECK(std::isfinite(target.U_grad(Vec::Constant(1, 50.0), g)));
    CHECK(target.counts().grad == 2);
  }
}

TEST_CASE("Weight 2 equals a duplicated row; offsets are honoured", "[glm]") {
  const int n = 12, k = 2;
  vhmc::Rng rng(9, 9);
  for (GlmFamily f : kFamilies) {
    INFO(family_name(f));
    // 0/1 (or count / continuous) responses, no weights.
    Problem base = make_problem(f, n, k, 42, false, true);
    // Weighted: rows with weight 2 for even i, 1 otherwise.
    Problem wt = base;
    wt.use_w = true;
    for (int i = 0; i < n; ++i) wt.w[i] = (i % 2 == 0) ? 2.0 : 1.0;
    // Expanded: even rows duplicated.
    Problem ex;
    ex.k = k;
    ex.use_o = true;
    std::vector<int> rows;
    for (int i = 0; i < n; ++i) {
      rows.push_back(i);
      if (i % 2 == 0) rows.push_back(i);
    }
    ex.n = static_cast<int>(rows.size());
    ex.X.resize(static_cast<size_t>(ex.n) * k);
    for (int r = 0; r < ex.n; ++r) {
      for (int j = 0; j < k; ++j)
        ex.X[static_cast<size_t>(j) * ex.n + r] = base.X[static_cast<size_t>(j) * n + rows[r]];
      ex.y.push_back(base.y[rows[r]]);
      ex.o.push_back(base.o[rows[r]]);
    }
    ex.w.assign(ex.n, 1.0);
    const GlmData dw = wt.data(), de = ex.data();
    const Prior pr = Prior::normal(0.0, 2.5), pi = Prior::normal(0.0, 10.0),
                pa = Prior::exponential(1.0);
    GlmPotential pw(dw, f, true, pi, pr, pa), pe(de, f, true, pi, pr, pa);
    expect_same_potential(pw, pe, rng, 1e-12, 1e-10);

    // Offset: a constant offset c is the same as shifting the intercept by c.
    Problem noo = base;
    noo.use_o = false;
    Problem cst = base;
    cst.use_o = true;
    std::fill(cst.o.begin(), cst.o.end(), 0.37);
    const GlmData dn = noo.data(), dc = cst.data();
    GlmPotential pn(dn, f, true, Prior::flat(), pr, pa), pc(dc, f, true, Prior::flat(), pr, pa);
    const Vec theta = random_theta(pn.dim(), rng);
    Vec shifted = theta;
    shifted[0] += 0.37;
    Vec gn, gc;
    CHECK(pc.U_grad(theta, gc) == Approx(pn.U_grad(shifted, gn)).epsilon(1e-12));
    for (int j = 0; j < pn.dim(); ++j) CHECK(gc[j] == Approx(gn[j]).epsilon(1e-10).margin(1e-12));
    // ... and a varying offset enters U: compare with the naive sum for the gaussian mean.
    const GlmData db = base.data();
    GlmPotential pb(db, f, true, Prior::flat(), Prior::flat(), Prior::flat());
    GlmPotential pnb(dn, f, true, Prior::flat(), Prior::flat(), Prior::flat());
    CHECK(pb.U(theta) != Approx(pnb.U(theta)).epsilon(1e-6));
    if (f == vt::fam::PoissonLog) {
      double expect = 0.0;
      const auto Xb = base.Xm();
      for (int i = 0; i < n; ++i) {
        const double eta = theta[0] + Xb.row(i).dot(theta.segment(1, k)) + base.o[i];
        expect -= base.y[i] * eta - std::exp(eta);
      }
      CHECK(pb.U(theta) == Approx(expect).epsilon(1e-12));
    }
  }
}

TEST_CASE("Binomial proportions with trials as weights", "[glm]") {
  // y = 3/5 with 5 trials equals 3 rows of 1 and 2 rows of 0.
  const std::vector<double> X1 = {0.4}, y1 = {0.6}, w1 = {5.0};
  const std::vector<double> X5 = {0.4, 0.4, 0.4, 0.4, 0.4}, y5 = {1, 1, 1, 0, 0};
  const GlmData d1(X1.data(), 1, 1, y1.data(), w1.data()), d5(X5.data(), 5, 1, y5.data());
  for (GlmFamily f : {vt::fam::BinomialLogit, vt::fam::BinomialProbit}) {
    GlmPotential p1(d1, f, true, Prior::flat(), Prior::flat()),
        p5(d5, f, true, Prior::flat(), Prior::flat());
    const Vec th = (Vec(2) << -0.3, 1.1).finished();
    Vec g1, g5;
    CHECK(p1.U_grad(th, g1) == Approx(p5.U_grad(th, g5)).epsilon(1e-13));
    CHECK(g1[0] == Approx(g5[0]).epsilon(1e-12));
    CHECK(g1[1] == Approx(g5[1]).epsilon(1e-12));
  }
}

TEST_CASE("Invalid priors are rejected at construction", "[glm][prior]") {
  const std::vector<double> X = {1.0, 2.0, 3.0, 4.0}, y = {0.5, 1.5};
  const GlmData data(X.data(), 2, 2, y.data());
  const auto G = vt::fam::GaussianIdentity;
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(), Prior::exponential(1.0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(), Prior::normal(0.0, -1.0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(),
                               Prior::normal(Vec::Zero(3), Vec::Ones(3))),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(), Prior::student_t(0.0, 0.0, 1.0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(), Prior::flat(), Prior::normal(1.0, 1.0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(GlmPotential(data, G, true, Prior::flat(), Prior::flat(), Prior::exponential(0.0)),
                  std::invalid_argument);
  CHECK_NOTHROW(GlmPotential(data, G, true, Prior::normal(0.0, 10.0),
                             Prior::normal(Vec::Zero(2), Vec::Ones(2)), Prior::cauchy(0.0, 1.0)));
  // Non-gaussian families ignore prior_aux; dims.
  GlmPotential pl(data, vt::fam::BinomialLogit, false, Prior::flat(), Prior::flat(),
                  Prior::normal(1.0, 1.0));
  CHECK(pl.dim() == 2);
  GlmPotential pg(data, G, true, Prior::flat(), Prior::flat());
  CHECK(pg.dim() == 4);
}

TEST_CASE("Centred predictors: the potential of explicitly centred data, without a copy", "[glm]") {
  vhmc::Rng rng(11, 3);
  for (GlmFamily f : kFamilies) {
    INFO(family_name(f));
    Problem base = make_problem(f, 60, 3, 17, true, true);
    std::vector<double> c(base.k);
    for (int j = 0; j < base.k; ++j) c[j] = 1.5 + j;  // shift columns so centring matters
    for (int j = 0; j < base.k; ++j)
      for (int i = 0; i < base.n; ++i) base.X[static_cast<size_t>(j) * base.n + i] += c[j];
    Problem centred = base;
    for (int j = 0; j < base.k; ++j)
      for (int i = 0; i < base.n; ++i) centred.X[static_cast<size_t>(j) * base.n + i] -= c[j];
    const GlmData dv(base.X.data(), base.n, base.k, base.y.data(), base.w.data(), base.o.data(),
                     c.data());
    const GlmData de = centred.data();
    const Prior pr = Prior::normal(0.0, 2.5), pi = Prior::student_t(3.0, 1.0, 10.0),
                pa = Prior::exponential(1.0);
    GlmPotential pv(dv, f, true, pi, pr, pa), pe(de, f, true, pi, pr, pa);
    expect_same_potential(pv, pe, rng, 1e-11, 1e-9);
    check_gradient(pv, random_theta(pv.dim(), rng), "centred " + family_name(f));
    // Centring without an intercept is meaningless and rejected.
    CHECK_THROWS_AS(GlmPotential(dv, f, false, pi, pr, pa), std::invalid_argument);
  }
}

TEST_CASE("Scaled slope coordinates: U(theta) = U(beta = theta / s), grad divided by s", "[glm]") {
  vhmc::Rng rng(21, 4);
  for (GlmFamily f : kFamilies) {
    INFO(family_name(f));
    for (int icpt = 0; icpt <= 1; ++icpt) {
      Problem base = make_problem(f, 80, 3, 23, true, true);
      std::vector<double> c = {0.3, -0.2, 0.5}, sc = {0.5, 2.0, 7.0};
      const GlmData plain(base.X.data(), base.n, base.k, base.y.data(), base.w.data(),
                          base.o.data(), icpt ? c.data() : nullptr);
      const GlmData scaled(base.X.data(), base.n, base.k, base.y.data(), base.w.data(),
                           base.o.data(), icpt ? c.data() : nullptr, sc.data());
      const Prior pr = Prior::student_t(3.0, 0.1, 2.0), pi = Prior::normal(0.0, 5.0),
                  pa = Prior::cauchy(0.0, 2.0);
      GlmPotential pp(plain, f, icpt == 1, pi, pr, pa), ps(scaled, f, icpt == 1, pi, pr, pa);
      for (int rep = 0; rep < 3; ++rep) {
        const Vec theta = random_theta(ps.dim(), rng);
        Vec beta = theta;
        for (int j = 0; j < 3; ++j) beta[icpt + j] = theta[icpt + j] / sc[j];
        Vec gs, gp;
        CHECK(ps.U_grad(theta, gs) == Approx(pp.U_grad(beta, gp)).epsilon(1e-12));
        for (int j = 0; j < ps.dim(); ++j) {
          const bool slope = j >= icpt && j < icpt + 3;
          const double expect = slope ? gp[j] / sc[j - icpt] : gp[j];
          CHECK(gs[j] == Approx(expect).epsilon(1e-10).margin(1e-12));
        }
        check_gradient(ps, theta, "scaled " + family_name(f));
      }
    }
  }
}

namespace {
// hessian() against central differences of the analytic gradient.
template <class P>
void check_hessian(P& pot, const Vec& theta, const std::string& what) {
  INFO(what);
  Mat H;
  pot.hessian(theta, H);
  REQUIRE(H.rows() == pot.dim());
  REQUIRE(H.cols() == pot.dim());
  CHECK((H - H.transpose()).cwiseAbs().maxCoeff() <= 1e-10 * std::max(1.0, H.cwiseAbs().maxCoeff()));
  Vec gp, gm;
  for (int j = 0; j < pot.dim(); ++j) {
    const double h = 1e-5 * std::max(1.0, std::fabs(theta[j]));
    Vec tp = theta, tm = theta;
    tp[j] += h;
    tm[j] -= h;
    pot.U_grad(tp, gp);
    pot.U_grad(tm, gm);
    const Vec fd = (gp - gm) / (2 * h);
    for (int i = 0; i < pot.dim(); ++i) {
      INFO("entry (" << i << ", " << j << "): analytic " << H(i, j) << " fd " << fd[i]);
      CHECK(std::fabs(H(i, j) - fd[i]) <= 1e-5 * std::max(1.0, std::fabs(fd[i])));
    }
  }
}
}  // namespace

TEST_CASE("GLM Hessians match differences of the gradient (families, priors, centring, scaling)",
          "[glm][hessian]") {
  vhmc::Rng rng(31, 5);
  const auto aps = aux_priors();
  for (GlmFamily f : kFamilies) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool weights = flags & 1, offset = flags & 2;
      const Problem prob = make_problem(f, 50, 3, 40 + flags, weights, offset);
      std::vector<double> c = {0.3, -0.2, 0.5}, sc = {0.5, 2.0, 7.0};
      const GlmData plain = prob.data();
      const GlmData cs(prob.X.data(), prob.n, prob.k, prob.y.data(),
                       weights ? prob.w.data() : nullptr, offset ? prob.o.data() : nullptr,
                       c.data(), sc.data());
      const auto cps = coef_priors(3);
      for (size_t ci = 0; ci < cps.size(); ++ci) {
        if (cps[ci].second.kind == vhmc::PriorKind::Laplace) continue;  // kink: no Hessian
        const size_t n_aux = has_aux(f) ? aps.size() : 1;
        for (size_t ai = 0; ai < n_aux; ++ai) {
          const Prior pi = Prior::student_t(4.0, 0.5, 3.0);
          for (int icpt = 0; icpt < 2; ++icpt) {
            const GlmData& data = icpt ? cs : plain;
            GlmPotential pot(data, f, icpt == 1, pi, cps[ci].second, aps[ai].second);
            check_hessian(pot, random_theta(pot.dim(), rng),
                          family_name(f) + " prior " + cps[ci].first + " aux " + aps[ai].first +
                              (icpt ? " intercept, centred and scaled" : " no intercept") +
                              (weights ? " weights" : "") + (offset ? " offset" : ""));
          }
        }
      }
    }
  }
}

TEST_CASE("Fixed-precision gaussian: Hessian alpha Z'Z + prior, Newton gives the conjugate mean",
          "[glm][hessian][mode]") {
  const Problem prob = make_problem(vt::fam::GaussianIdentity, 90, 3, 9, false, false);
  const GlmData data = prob.data();
  const double alpha = 2.5, beta = 0.01;
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 1 / std::sqrt(beta)),
                   Prior::normal(0.0, 1 / std::sqrt(beta)), Prior::flat(), alpha);
  REQUIRE(pot.dim() == 4);
  vhmc::Rng rng(3, 3);
  check_hessian(pot, random_theta(4, rng), "fixed precision");
  Mat Z(prob.n, 4);
  Z.col(0).setOnes();
  Z.rightCols(3) = prob.Xm();
  const Eigen::Map<const Vec> y(prob.y.data(), prob.n);
  const Mat A = alpha * Z.transpose() * Z + beta * Mat::Identity(4, 4);
  const Vec mu = A.llt().solve(alpha * Z.transpose() * y);
  const vhmc::ModeResult r = vhmc::newton_mode(pot, Vec::Zero(4));
  REQUIRE(r.converged);
  for (int j = 0; j < 4; ++j) CHECK(r.mode[j] == Approx(mu[j]).epsilon(1e-9).margin(1e-11));
  CHECK((r.hessian - A).cwiseAbs().maxCoeff() <= 1e-9 * A.cwiseAbs().maxCoeff());
}

TEST_CASE("Newton finds the GLM mode: zero gradient, and the gaussian closed form", "[glm][mode]") {
  for (GlmFamily f : kFamilies) {
    INFO(family_name(f));
    const Problem prob = make_problem(f, 200, 3, 77, false, true);
    const GlmData data = prob.data();
    GlmPotential pot(data, f, true, Prior::normal(0.0, 10.0), Prior::normal(0.0, 2.5),
                     Prior::exponential(1.0));
    const vhmc::ModeResult r = vhmc::newton_mode(pot, Vec::Constant(pot.dim(), 1.5));
    INFO(r.message);
    REQUIRE(r.converged);
    CHECK(r.iterations < 30);
    // One Hessian per iteration, the last at the mode, returned as it is (not computed again).
    CHECK(r.n_hessian == r.iterations + 1);
    Mat H_mode;
    pot.hessian(r.mode, H_mode);
    CHECK(H_mode == r.hessian);
    Eigen::LLT<Mat> llt(r.hessian);
    REQUIRE(llt.info() == Eigen::Success);
    // Distance to the mode in posterior-sd units (Laplace scale): sqrt(g' H^-1 g), which
    // Newton takes below sqrt(2e-14 max(1, |U|)) (model/mode.hpp: U's rounding grows with
    // its size; the negative binomial's U is ~ 500 here).
    CHECK(std::sqrt(r.gradient.dot(llt.solve(r.gradient))) < 1e-6 * std::sqrt(std::max(1.0, std::fabs(r.value) / 50)));
  }
  // Gaussian, flat priors: b = least squares, sigma^2 = SSR / (n - 1) (the -log sigma
  // Jacobian of the flat prior on sigma).
  const Problem prob = make_problem(vt::fam::GaussianIdentity, 120, 2, 5, false, false);
  const GlmData data = prob.data();
  GlmPotential pot(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat(),
                   Prior::flat());
  const vhmc::ModeResult r = vhmc::newton_mode(pot, Vec::Zero(pot.dim()));
  REQUIRE(r.converged);
  Mat Z(prob.n, 3);
  Z.col(0).setOnes();
  Z.rightCols(2) = prob.Xm();
  const Eigen::Map<const Vec> y(prob.y.data(), prob.n);
  const Vec b = Z.colPivHouseholderQr().solve(y);
  const double ssr = (y - Z * b).squaredNorm();
  for (int j = 0; j < 3; ++j) CHECK(r.mode[j] == Approx(b[j]).epsilon(1e-8).margin(1e-10));
  CHECK(std::exp(2 * r.mode[3]) == Approx(ssr / (prob.n - 1)).epsilon(1e-8));
}

TEST_CASE("Newton converges where U's rounding exceeds an absolute tolerance (large N)", "[glm][mode]") {
  // With N = 1e5 observations U is ~ 5e4 and carries a rounding error far above 1e-14 nats;
  // an absolute tolerance left the iteration wandering in that noise until its limit.
  const Problem prob = make_problem(vt::fam::BinomialLogit, 100000, 8, 91, false, false);
  const GlmData data = prob.data();
  GlmPotential pot(data, vt::fam::BinomialLogit, true, Prior::normal(0.0, 10.0), Prior::normal(0.0, 2.5),
                   Prior::flat());
  vhmc::Rng rng(92, 1);
  Vec start(pot.dim());
  for (Eigen::Index j = 0; j < start.size(); ++j) start[j] = 4.0 * rng.uniform() - 2.0;  // saturating
  const vhmc::ModeResult r = vhmc::newton_mode(pot, start);
  INFO(r.message);
  REQUIRE(r.converged);
  CHECK(r.iterations < 40);
  CHECK(r.n_value < 200);
  Eigen::LLT<Mat> llt(r.hessian);
  CHECK(std::sqrt(r.gradient.dot(llt.solve(r.gradient))) < 1e-4);
}
