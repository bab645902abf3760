// Tests of every family of the registry (model/glm/families.hpp), generically: each family's
// density is normalised (with the constants it drops), the GLM potential's gradient matches
// finite differences of its value, Newton's Hessian matches finite differences of the
// gradient, a minibatch of every row gives the full gradient, the reported map inverts, and
// a linear predictor outside a link's domain is zero density. The six families that came
// first have further closed-form tests in test_glm.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>
#include <vhmc/model/mode.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Mat;
using vhmc::Prior;
using vhmc::Vec;

constexpr int kFamilyCategories = 4;  // of the cumulative families' test responses

std::string family_code_of(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return vhmc::family_code<decltype(g)>(); });
}
std::string family_name_of(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return std::string(decltype(g)::kFamily); });
}
std::string family_link_of(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return std::string(decltype(g)::kLink); });
}
bool family_is(const std::string& family, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (family == n) return true;
  return false;
}
bool family_counts(const std::string& f) {
  return family_is(f, {"poisson", "neg_binomial_2", "zero_inflated_poisson", "zero_inflated_negbinomial", "hurdle_poisson",
                "hurdle_negbinomial"});
}

// A response in the family's support.
double family_response(const std::string& f, vhmc::Rng& rng) {
  const double u = rng.uniform();
  if (f == "binomial") return u < 0.5 ? 0.0 : 1.0;
  if (family_counts(f)) return u < 0.3 ? 0.0 : std::floor(1.0 + 6.0 * u * u);
  if (family_is(f, {"Gamma", "inverse.gaussian"})) return std::exp(0.5 * rng.normal());
  if (f == "Beta") return 0.05 + 0.9 * u;
  if (f == "cumulative") return 1.0 + std::floor(kFamilyCategories * u);
  return 1.5 * rng.normal();
}

// A linear predictor in the middle of the link's domain, where the rows are evaluated.
double family_eta_centre(GlmFamily f) {
  const std::string link = family_link_of(f), fam = family_name_of(f);
  if (fam == "binomial" && link == "log") return -1.2;
  if (family_is(link, {"inverse", "1/mu^2", "sqrt"}) || (link == "identity" && fam != "gaussian" && fam != "student"))
    return 1.3;
  return 0.2;
}

// The log density's constants that the family drops (log y!, log 2 pi, ...).
double family_dropped_constant(const std::string& f, double y) {
  const double log_2pi = std::log(2.0 * vhmc::kPi);
  if (family_counts(f)) return -std::lgamma(y + 1.0);
  if (f == "gaussian") return -0.5 * log_2pi;
  if (f == "inverse.gaussian") return -0.5 * log_2pi - 1.5 * std::log(y);
  if (f == "student") return -0.5 * std::log(vhmc::kPi);
  return 0.0;
}

// Data owned by the test: X small, so that eta stays near family_eta_centre().
struct FamilyProblem {
  int n, k;
  std::vector<double> X, y, w, o, c, s;
  GlmData data(bool weights, bool offset, bool centre) const {
    return GlmData(X.data(), n, k, y.data(), weights ? w.data() : nullptr, offset ? o.data() : nullptr,
                   centre ? c.data() : nullptr, centre ? s.data() : nullptr);
  }
};

FamilyProblem family_problem(GlmFamily f, int n, int k, std::uint64_t seed) {
  vhmc::Rng rng(seed, 11);
  FamilyProblem p{n, k, {}, {}, {}, {}, {}, {}};
  for (int i = 0; i < n * k; ++i) p.X.push_back(0.15 * rng.normal());
  for (int i = 0; i < n; ++i) {
    p.y.push_back(family_response(family_name_of(f), rng));
    p.w.push_back(family_name_of(f) == "binomial" ? 1.0 : 0.5 + rng.uniform());
    p.o.push_back(0.05 * rng.normal());
  }
  for (int j = 0; j < k; ++j) {
    p.c.push_back(0.02 * (j + 1));
    p.s.push_back(0.15 + 0.05 * j);
  }
  return p;
}

// One proper prior per aux parameter, by transform.
std::vector<Prior> family_aux_priors(GlmFamily f) {
  std::vector<Prior> out;
  vhmc::with_family(f, [&](auto g) {
    for (const auto& a : decltype(g)::kAux) {
      if (a.transform == vhmc::Transform::Logit) out.push_back(Prior::beta(2.0, 3.0));
      else if (a.transform == vhmc::Transform::Ordered) out.push_back(Prior::normal(0.0, 3.0));
      else if (a.lower > 0.0) out.push_back(Prior::gamma(2.0, 0.1));
      else out.push_back(Prior::exponential(1.0));
    }
  });
  return out;
}

GlmPotential family_potential(GlmFamily f, const GlmData& data) {
  const bool thresholds = vhmc::with_family(f, [](auto g) { return decltype(g)::kThresholds; });
  return GlmPotential(data, f, !thresholds, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0), family_aux_priors(f), 0.0,
                      thresholds ? kFamilyCategories - 1 : 0);
}

// A point where every eta is near family_eta_centre(): the intercept there (for families with
// cutpoints, the cutpoints around it), small slopes and aux coordinates in (-0.8, 0.8).
Vec family_theta(const GlmPotential& pot, GlmFamily f, vhmc::Rng& rng) {
  Vec theta(pot.dim());
  for (int j = 0; j < pot.dim(); ++j) theta[j] = 0.8 * (2.0 * rng.uniform() - 1.0);
  const Eigen::Index sl = pot.design().slopes(), k = pot.data().k();
  theta.segment(sl, k) *= 0.3;
  if (pot.has_intercept()) theta[0] = family_eta_centre(f);
  if (pot.thresholds()) theta[pot.aux_offset()] = -1.0;
  return theta;
}

// Finite-difference Hessian of U from the analytic gradient.
Mat family_fd_hessian(GlmPotential& pot, const Vec& theta) {
  const int d = pot.dim();
  Mat H(d, d);
  Vec gp, gm;
  for (int j = 0; j < d; ++j) {
    const double h = 1e-5 * std::max(1.0, std::fabs(theta[j]));
    Vec tp = theta, tm = theta;
    tp[j] += h;
    tm[j] -= h;
    pot.U_grad(tp, gp);
    pot.U_grad(tm, gm);
    H.col(j) = (gp - gm) / (2 * h);
  }
  return H;
}

std::vector<GlmFamily> registered_families() {
  std::vector<GlmFamily> out;
  for (int i = 0; i < vhmc::kFamilyCount; ++i) out.push_back(GlmFamily{i});
  return out;
}

// The log density of one row (constants dropped) at eta with aux coordinates t.
double family_row_log_density(GlmFamily f, double y, double eta, const std::vector<double>& t) {
  return vhmc::with_family(f, [&](auto g) {
    using F = decltype(g);
    const Vec yy = Vec::Constant(1, y), ee = Vec::Constant(1, eta), w(0);
    Vec scratch(1);
    return F::pass(yy, ee, w, F::aux(t.data(), static_cast<Eigen::Index>(t.size())), nullptr, nullptr, scratch);
  });
}

// The total probability of a family's density at (eta, t): a sum over counts or categories,
// or an integral by the midpoint rule on a grid fitted to the support.
double family_total_probability(GlmFamily f, double eta, const std::vector<double>& t) {
  const std::string fam = family_name_of(f);
  auto p = [&](double y) { return std::exp(family_row_log_density(f, y, eta, t) + family_dropped_constant(fam, y)); };
  double total = 0.0;
  if (fam == "binomial") return p(0.0) + p(1.0);
  if (fam == "cumulative") {
    for (int y = 1; y <= kFamilyCategories; ++y) total += p(y);
    return total;
  }
  if (family_counts(fam)) {
    for (int y = 0; y < 5000; ++y) total += p(y);
    return total;
  }
  const double du = 2e-4;
  for (double u = -40.0; u < 40.0; u += du) {
    const double v = u + du / 2;
    if (fam == "Beta") {
      const double y = vhmc::logistic(v);
      if (y > 0.0 && y < 1.0) total += p(y) * y * (1 - y) * du;
    } else if (family_is(fam, {"Gamma", "inverse.gaussian"})) {
      total += p(std::exp(v)) * std::exp(v) * du;
    } else if (std::fabs(v) < 30.0) {
      total += p(std::sinh(v)) * std::cosh(v) * du;
    }
  }
  return total;
}

}  // namespace

TEST_CASE("the family registry: unique codes, found by name, aux parameters named once", "[glm][family]") {
  std::set<std::string> codes;
  for (GlmFamily f : registered_families()) {
    const std::string code = family_code_of(f);
    CHECK(codes.insert(code).second);
    CHECK(vhmc::family_named(code) == f);
    std::set<std::string> aux;
    vhmc::with_family(f, [&](auto g) {
      for (const auto& a : decltype(g)::kAux) CHECK(aux.insert(a.name).second);
    });
  }
  CHECK(codes.size() == static_cast<std::size_t>(vhmc::kFamilyCount));
  CHECK_THROWS_AS(vhmc::family_named("gaussian_logit"), std::invalid_argument);
}

TEST_CASE("every family's density is normalised", "[glm][family]") {
  for (GlmFamily f : registered_families()) {
    const std::size_t n_aux = vhmc::GlmPotential::aux_specs(f).size();
    const bool thresholds = vhmc::with_family(f, [](auto g) { return decltype(g)::kThresholds; });
    for (double shift : {-0.4, 0.0, 0.5}) {
      const double eta = family_eta_centre(f) + shift * (family_link_of(f) == "log" && family_name_of(f) == "binomial" ? 0.5 : 1.0);
      // Beta's shapes mu phi and (1 - mu) phi kept near 1 or above: below, a share of the mass
      // lies within rounding of 0 or 1, where no double y can reach it.
      const double t0 = family_name_of(f) == "Beta" ? 1.8 - shift : 0.3 - shift;
      std::vector<double> t(thresholds ? kFamilyCategories - 1 : n_aux, t0);
      if (thresholds) t[0] = -1.0 + shift;
      INFO(family_code_of(f) << " eta = " << eta << " t = " << (t.empty() ? 0.0 : t[0]));
      CHECK(family_total_probability(f, eta, t) == Approx(1.0).epsilon(2e-6));
    }
  }
}

TEST_CASE("every family's potential: gradient, Newton Hessian and full minibatch agree", "[glm][family]") {
  for (GlmFamily f : registered_families()) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool weights = flags & 1, offset = flags & 2;
      const FamilyProblem prob = family_problem(f, 30, 2, 40 + flags);
      const GlmData data = prob.data(weights, offset, true);
      GlmPotential pot = family_potential(f, data);
      vhmc::Rng rng(7 + flags, 3);
      const Vec theta = family_theta(pot, f, rng);
      INFO(family_code_of(f) << (weights ? " weights" : "") << (offset ? " offset" : ""));
      REQUIRE(std::isfinite(pot.U(theta)));
      vt::check_gradient(pot, theta, family_code_of(f), 1e-12);
      Mat H;
      pot.hessian(theta, H);
      const Mat Hfd = family_fd_hessian(pot, theta);
      for (int i = 0; i < pot.dim(); ++i)
        for (int j = 0; j < pot.dim(); ++j) CHECK(H(i, j) == Approx(Hfd(i, j)).epsilon(1e-5).margin(1e-5));
      std::vector<int> all(data.n());
      std::iota(all.begin(), all.end(), 0);
      Vec g_full, g_batch;
      pot.U_grad(theta, g_full);
      pot.minibatch_grad(theta, all.data(), data.n(), g_batch);
      for (int j = 0; j < pot.dim(); ++j) CHECK(g_batch[j] == Approx(g_full[j]).epsilon(1e-10).margin(1e-10));
    }
  }
}

TEST_CASE("every family: the reported map inverts; cutpoints move with the centring", "[glm][family]") {
  for (GlmFamily f : registered_families()) {
    const FamilyProblem prob = family_problem(f, 20, 2, 5);
    const GlmData data = prob.data(false, false, true);
    GlmPotential pot = family_potential(f, data);
    vhmc::Rng rng(3, 9);
    const Vec theta = family_theta(pot, f, rng);
    Vec rep, back;
    vhmc::to_reported(pot, theta, rep);
    vhmc::from_reported(pot, rep, back);
    INFO(family_code_of(f));
    for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-12).margin(1e-13));
    if (!pot.thresholds()) continue;
    const Eigen::Index a = pot.aux_offset();
    const double shift = prob.c[0] * theta[0] / prob.s[0] + prob.c[1] * theta[1] / prob.s[1];
    CHECK(rep[a] == Approx(theta[a] + shift));
    CHECK(rep[a + 1] == Approx(theta[a] + std::exp(theta[a + 1]) + shift));
  }
}

TEST_CASE("a linear predictor outside the link's domain is zero density", "[glm][family]") {
  auto outside = [](const std::string& code, double intercept, double y) {
    const GlmFamily f = vhmc::family_named(code);
    std::vector<double> X = {0.1, -0.2, 0.05}, yy(3, y);
    const GlmData data(X.data(), 3, 1, yy.data());
    GlmPotential pot(data, f, true, Prior::flat(), Prior::flat(), family_aux_priors(f));
    Vec theta = Vec::Zero(pot.dim());
    theta[0] = intercept;
    Vec g;
    return pot.U_grad(theta, g);
  };
  CHECK(outside("binomial_log", 0.3, 1.0) == vhmc::kInf);  // mu = exp(0.3) > 1
  CHECK(std::isfinite(outside("binomial_log", -0.3, 1.0)));
  CHECK(outside("poisson_identity", -0.5, 2.0) == vhmc::kInf);
  CHECK(outside("Gamma_inverse", -0.5, 2.0) == vhmc::kInf);
  CHECK(outside("inverse.gaussian_1/mu^2", -0.5, 2.0) == vhmc::kInf);
  CHECK(outside("poisson_sqrt", -0.5, 2.0) == vhmc::kInf);
}

TEST_CASE("Newton finds the mode of every family from a point inside its domain", "[glm][family]") {
  for (GlmFamily f : registered_families()) {
    const FamilyProblem prob = family_problem(f, 200, 2, 77);
    const GlmData data = prob.data(false, false, true);
    GlmPotential pot = family_potential(f, data);
    vhmc::Rng rng(1, 1);
    const Vec start = family_theta(pot, f, rng);
    const vhmc::ModeResult m = vhmc::newton_mode(pot, start);
    INFO(family_code_of(f) << ": " << m.message);
    CHECK(m.converged);
    CHECK(m.gradient.cwiseAbs().maxCoeff() < 1e-4);
  }
}
