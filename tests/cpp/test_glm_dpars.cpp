// Tests of distributional predictors (model/glm/dpars.hpp): every family with auxiliary
// parameters, with one or all of them modelled (gradient against differences, Newton Hessian
// against differences of the gradient), with weights, a group-level term and censored
// rows; the likelihood written out for a gaussian location-scale model; the reported map and
// its inverse; refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::Vec;

// n rows, one predictor of the mean and two of the aux parameters (the first shared with
// the mean), responses valid for every family with aux parameters: counts in 0..5 for the
// count families (zeros included), proportions inside (0, 1) for Beta, positive values else.
struct DparProblem {
  int n = 40;
  std::vector<double> X, Z, y, zc, zs, w, y_pos, y_prop, y_count;
  std::vector<int> g;
  explicit DparProblem(std::uint64_t seed) {
    vhmc::Rng rng(seed, 5);
    for (int i = 0; i < n; ++i) {
      X.push_back(rng.normal());
      g.push_back(i % 5);
      w.push_back(0.5 + rng.uniform());
      y_pos.push_back(std::exp(0.3 * X.back() + 0.5 * rng.normal()));
      y_prop.push_back(0.1 + 0.8 * rng.uniform());
      y_count.push_back(std::floor(3.0 * rng.uniform() * rng.uniform() * 2.0));
    }
    for (int i = 0; i < n; ++i) Z.push_back(X[i]);
    for (int i = 0; i < n; ++i) Z.push_back(rng.normal());
    zc = {0.1, -0.2};
    zs = {1.3, 0.7};
  }
  const std::vector<double>& response(const std::string& family) const {
    if (family == "Beta") return y_prop;
    if (family.find("poisson") != std::string::npos || family.find("neg") != std::string::npos) return y_count;
    return y_pos;
  }
};

std::string family_of(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return std::string(decltype(g)::kFamily); });
}
int aux_of(GlmFamily f) { return static_cast<int>(GlmPotential::aux_specs(f).size()); }
bool has_thresholds(GlmFamily f) {
  return vhmc::with_family(f, [](auto g) { return decltype(g)::kThresholds; });
}

vhmc::DparSpec dpar_spec(const std::vector<const vhmc::GlmData*>& data, const std::vector<int>& aux) {
  vhmc::DparSpec s;
  for (std::size_t j = 0; j < aux.size(); ++j)
    s.dpars.push_back({aux[j], data[j], vhmc::Prior::normal(0.0, 2.0), vhmc::Prior::normal(0.0, 1.0)});
  return s;
}

// Aux priors: exponential(1) for positive parameters, flat for probabilities.
GlmPotential dpar_potential(GlmFamily f, const vhmc::GlmData& d, const vhmc::DparSpec& s) {
  std::vector<vhmc::Prior> aux;
  for (const auto& a : GlmPotential::aux_specs(f))
    aux.push_back(a.transform == vhmc::Transform::Logit ? vhmc::Prior::flat() : vhmc::Prior::exponential(1.0));
  return GlmPotential(d, f, true, vhmc::Prior::normal(0.0, 5.0), vhmc::Prior::normal(0.0, 2.0), aux, 0.0, 0,
                      vhmc::SmoothSpec(), s);
}

// theta with the mean near 1 where every link is defined (intercept tried at 1, 0.4, 0.1;
// a small slope).
Vec dpar_theta(GlmPotential& pot, vhmc::Rng& rng) {
  Vec theta = vt::random_theta(pot.dim(), rng, 0.3);
  theta[1] *= 0.1;
  for (double a : {1.0, 0.4, 0.1}) {
    theta[0] = a;
    if (std::isfinite(pot.U(theta))) break;
  }
  return theta;
}

}  // namespace

TEST_CASE("dpars: every family's gradient and Newton Hessian, first or every aux parameter modelled", "[glm][dpars]") {
  const DparProblem prob(3);
  int cases = 0;
  for (int i = 0; i < vhmc::kFamilyCount; ++i) {
    const GlmFamily f{i};
    if (aux_of(f) == 0 || has_thresholds(f)) continue;
    const std::vector<double>& y = prob.response(family_of(f));
    vhmc::GlmData zd1(prob.Z.data(), prob.n, 1, y.data(), nullptr, nullptr, prob.zc.data(), prob.zs.data());
    vhmc::GlmData zd2(prob.Z.data(), prob.n, 2, y.data(), nullptr, nullptr, prob.zc.data(), prob.zs.data());
    for (bool weights : {false, true}) {
      const vhmc::GlmData d(prob.X.data(), prob.n, 1, y.data(), weights ? prob.w.data() : nullptr);
      std::vector<vhmc::DparSpec> specs = {dpar_spec({&zd2}, {0})};
      if (aux_of(f) == 2) specs.push_back(dpar_spec({&zd1, &zd2}, {0, 1}));
      if (aux_of(f) == 2) specs.push_back(dpar_spec({&zd1}, {1}));
      for (const vhmc::DparSpec& s : specs) {
        GlmPotential pot = dpar_potential(f, d, s);
        vhmc::Rng rng(7 + i, 1);
        const Vec theta = dpar_theta(pot, rng);
        INFO(vhmc::with_family(f, [](auto g) { return vhmc::family_code<decltype(g)>(); }) << " weights " << weights
                                                                                          << " dpars " << s.dpars.size());
        REQUIRE(std::isfinite(pot.U(theta)));
        vt::check_gradient(pot, theta, "dpars", 1e-12);
        vt::check_hessian(pot, theta);
        ++cases;
      }
    }
  }
  CHECK(cases > 40);
}

TEST_CASE("dpars: a gaussian location-scale likelihood written out; with a group term and censored rows", "[glm][dpars]") {
  const DparProblem prob(4);
  const std::vector<double>& y = prob.y_pos;
  vhmc::GlmData d(prob.X.data(), prob.n, 1, y.data());
  vhmc::GlmData zd(prob.Z.data() + prob.n, prob.n, 1, y.data());  // the second column, uncentred
  vhmc::DparSpec s;
  s.dpars.push_back({0, &zd, vhmc::Prior::flat(), vhmc::Prior::flat()});
  const GlmFamily f = vhmc::family_named("gaussian_identity");
  GlmPotential pot(d, f, true, vhmc::Prior::flat(), vhmc::Prior::flat(), {vhmc::Prior::flat()}, 0.0, 0, vhmc::SmoothSpec(), s);
  REQUIRE(pot.dim() == 4);
  const Vec theta = (Vec(4) << 0.8, 0.3, -0.4, 0.25).finished();
  double u = 0.0;
  for (int i = 0; i < prob.n; ++i) {
    const double e = y[i] - 0.8 - 0.3 * prob.X[i], ls = -0.4 + 0.25 * prob.Z[prob.n + i];
    u += 0.5 * e * e * std::exp(-2.0 * ls) + ls;
  }
  CHECK(pot.U(theta) == Approx(u).epsilon(1e-12));
  // A group-level term, and a third of the rows censored.
  std::vector<int> cens(prob.n, 0);
  std::vector<double> y2(y);
  for (int i = 0; i < prob.n; i += 3) cens[i] = (i % 2) ? 1 : 2;
  for (int i = 0; i < prob.n; ++i) y2[i] = y[i] + 0.5;
  vhmc::GlmData dc(prob.X.data(), prob.n, 1, y.data());
  new (&dc.cens) Eigen::Map<const Eigen::VectorXi>(cens.data(), prob.n);
  new (&dc.y2) Eigen::Map<const Vec>(y2.data(), prob.n);
  for (const GlmFamily fc : {f, vhmc::family_named("student_identity"), vhmc::family_named("Gamma_log")}) {
    GlmPotential pc = dpar_potential(fc, dc, dpar_spec({&zd}, {0}));
    pc.add_group_term(vt::group_term("(1 | g)", 5, 1, prob.n, prob.g.data(), nullptr, vhmc::CovPriorKind::Decov, 1.0,
                                     1.0, 1.0, 1.0, 1.0, false));
    vhmc::Rng rng(3, 3);
    const Vec th = dpar_theta(pc, rng);
    vt::check_gradient(pc, th, "group term and censoring", 1e-12);
  }
}

TEST_CASE("dpars: group-level terms of a distributional predictor", "[glm][dpars]") {
  const DparProblem prob(7);
  // Every family with aux parameters, its last one's formula holding (1 + z | g), centred or
  // not, beside the mean's (1 | g): the gradient; then U written out at effects given by hand.
  std::vector<double> Zg(prob.n, 1.0);  // the term's columns: 1 and z
  Zg.insert(Zg.end(), prob.Z.begin() + prob.n, prob.Z.end());
  int cases = 0;
  for (int i = 0; i < vhmc::kFamilyCount; ++i) {
    const GlmFamily f{i};
    if (aux_of(f) == 0 || has_thresholds(f)) continue;
    const std::vector<double>& yf = prob.response(family_of(f));
    const vhmc::GlmData df(prob.X.data(), prob.n, 1, yf.data());
    const vhmc::GlmData zf(prob.Z.data() + prob.n, prob.n, 1, yf.data());
    const int last = aux_of(f) - 1;
    for (const bool centred : {false, true}) {
      GlmPotential pot = dpar_potential(f, df, dpar_spec({&zf}, {last}));
      pot.add_group_term(vt::group_term("(1 | g)", 5, 1, prob.n, prob.g.data(), nullptr, vhmc::CovPriorKind::Lkj, 1.0,
                                        1.0, 1.0, 1.0, 3.0, false));
      vhmc::GroupTermData t = vt::group_term("dpar: 1 + z | g", 5, 2, prob.n, prob.g.data(), Zg.data(),
                                             vhmc::CovPriorKind::Decov, 1.0, 1.0, 1.0, 1.0, 1.0, false);
      t.dpar = last;
      t.centred = centred;
      pot.add_group_term(t);
      REQUIRE(pot.layout().find("b:dpar: 1 + z | g") != nullptr);
      vhmc::Rng rng(9, 1);
      const Vec theta = dpar_theta(pot, rng);
      vt::check_gradient(pot, theta, family_of(f) + (centred ? " centred" : " non-centred"), 1e-12);
      ++cases;
    }
  }
  CHECK(cases >= 20);
  const std::vector<double>& y = prob.y_pos;
  vhmc::GlmData d(prob.X.data(), prob.n, 1, y.data());
  vhmc::GlmData zd(prob.Z.data() + prob.n, prob.n, 1, y.data());
  // The likelihood's part: moving sigma's term's effect of level 0 by delta changes only
  // that level's rows' log sigma (centred: the effects are the b themselves).
  GlmPotential pot = dpar_potential(vhmc::family_named("gaussian_identity"), d, dpar_spec({&zd}, {0}));
  vhmc::GroupTermData t = vt::group_term("sigma: 1 | g", 5, 1, prob.n, prob.g.data(), nullptr,
                                         vhmc::CovPriorKind::Lkj, 1.0, 1.0, 1.0, 1.0, 3.0, false);
  t.dpar = 0;
  t.centred = true;
  pot.add_group_term(t);
  vhmc::Rng rng(2, 2);
  Vec theta = dpar_theta(pot, rng);
  const Eigen::Index b0 = pot.layout().find("b:sigma: 1 | g")->offset;
  auto loglik0 = [&](const Vec& th) {  // level 0's rows' gaussian log density
    double ll = 0.0;
    for (int i = 0; i < prob.n; ++i) {
      if (prob.g[i] != 0) continue;
      const double mu = th[0] + th[1] * prob.X[i];
      const double ls = th[2] + th[3] * prob.Z[prob.n + i] + th[b0];
      ll += -0.5 * std::pow((y[i] - mu) * std::exp(-ls), 2.0) - ls;
    }
    return ll;
  };
  Vec moved = theta;
  moved[b0] += 0.3;
  // U's change = -(loglik change) + the effects' prior change (centred: N(0, tau^2) at b0).
  const double tau = std::exp(theta[pot.group_terms()[0].sd_offset()]);
  const double dprior = 0.5 * (std::pow(moved[b0], 2) - std::pow(theta[b0], 2)) / (tau * tau);
  CHECK(pot.U(moved) - pot.U(theta) == Approx(loglik0(theta) - loglik0(moved) + dprior).epsilon(1e-10));
  // The reported effects stay on the link scale whatever the response's scale.
  d.y_scale = 2.0;
  GlmPotential ps = dpar_potential(vhmc::family_named("gaussian_identity"), d, dpar_spec({&zd}, {0}));
  ps.add_group_term(t);
  Vec rep;
  vhmc::to_reported(ps, theta, rep);
  CHECK(rep[b0] == Approx(theta[b0]));
  // A term of a parameter without a formula is refused.
  GlmPotential pn = dpar_potential(vhmc::family_named("student_identity"), d, dpar_spec({&zd}, {0}));
  t.dpar = 1;
  CHECK_THROWS_AS(pn.add_group_term(t), std::invalid_argument);
}

TEST_CASE("dpars: the reported map and its inverse; refusals", "[glm][dpars]") {
  const DparProblem prob(5);
  vhmc::GlmData d(prob.X.data(), prob.n, 1, prob.y_pos.data());
  d.y_center = 0.3;
  d.y_scale = 1.7;
  vhmc::GlmData zd(prob.Z.data(), prob.n, 2, prob.y_pos.data(), nullptr, nullptr, prob.zc.data(), prob.zs.data());
  GlmPotential pot = dpar_potential(vhmc::family_named("student_identity"), d, dpar_spec({&zd}, {0}));
  vhmc::Rng rng(1, 1);
  const Vec theta = vt::random_theta(pot.dim(), rng, 0.5);
  Vec rep, back;
  vhmc::to_reported(pot, theta, rep);
  // The dpar block: slopes over the scales, intercept at 0, log(y_scale) added (sigma).
  const vhmc::ParamBlock* b = pot.layout().find("dpar:sigma");
  REQUIRE(b != nullptr);
  const Eigen::Index at = b->offset;
  CHECK(rep[at + 1] == Approx(theta[at + 1] / 1.3));
  CHECK(rep[at + 2] == Approx(theta[at + 2] / 0.7));
  CHECK(rep[at] == Approx(theta[at] - 0.1 * rep[at + 1] + 0.2 * rep[at + 2] + std::log(1.7)));
  vhmc::from_reported(pot, rep, back);
  for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-12).margin(1e-12));
  CHECK_FALSE(pot.has_fisher());
  std::vector<int> idx = {0, 1};
  Vec g;
  CHECK_THROWS_AS(pot.minibatch_grad(theta, idx.data(), 2, g), std::logic_error);
  CHECK_THROWS_AS(dpar_potential(vhmc::family_named("student_identity"), d, dpar_spec({&zd}, {2})), std::invalid_argument);
  CHECK_THROWS_AS(dpar_potential(vhmc::family_named("student_identity"), d, dpar_spec({&zd, &zd}, {0, 0})),
                  std::invalid_argument);
  std::vector<double> cat(prob.n);
  for (int i = 0; i < prob.n; ++i) cat[i] = 1 + i % 3;
  vhmc::GlmData dcat(prob.X.data(), prob.n, 1, cat.data());
  CHECK_THROWS_AS(GlmPotential(dcat, vhmc::family_named("cumulative_logit"), false, vhmc::Prior::flat(), vhmc::Prior::flat(),
                               {vhmc::Prior::flat()}, 0.0, 2, vhmc::SmoothSpec(), dpar_spec({&zd}, {0})),
                  std::invalid_argument);
}

TEST_CASE("dpars: smooths in a distributional predictor (and in the mean): gradient, reported map", "[glm][dpars]") {
  const DparProblem prob(6);
  const std::vector<double>& y = prob.y_pos;
  std::vector<double> Z3(prob.Z);
  vhmc::Rng r(2, 2);
  for (int i = 0; i < prob.n; ++i) Z3.push_back(r.normal());
  const std::vector<double> c3 = {0.1, -0.2, 0.05}, s3 = {1.3, 0.7, 0.9};
  vhmc::GlmData zd(Z3.data(), prob.n, 3, y.data(), nullptr, nullptr, c3.data(), s3.data());
  std::vector<double> X2(prob.X);
  for (int i = 0; i < prob.n; ++i) X2.push_back(prob.Z[prob.n + i]);
  const std::vector<double> cx = {0.0, 0.1}, sx = {1.0, 1.2};
  vhmc::GlmData d(X2.data(), prob.n, 2, y.data(), nullptr, nullptr, cx.data(), sx.data());
  d.y_scale = 1.4;
  for (bool main_smooth : {false, true}) {
    vhmc::DparSpec s = dpar_spec({&zd}, {0});
    s.dpars[0].smooths.sizes = {2};
    s.dpars[0].smooths.prior = vhmc::Prior::exponential(1.0);
    vhmc::SmoothSpec ms;
    if (main_smooth) {
      ms.sizes = {1};
      ms.prior = vhmc::Prior::exponential(1.0);
    }
    const GlmFamily f = vhmc::family_named("student_identity");
    GlmPotential pot(d, f, true, vhmc::Prior::normal(0.0, 5.0), vhmc::Prior::normal(0.0, 2.0),
                     {vhmc::Prior::exponential(1.0), vhmc::Prior::exponential(1.0)}, 0.0, 0, ms, s);
    REQUIRE(pot.layout().find("sm:sd:sigma") != nullptr);
    CHECK(pot.hierarchical());
    vhmc::Rng rng(4, 4);
    const Vec theta = dpar_theta(pot, rng);
    vt::check_gradient(pot, theta, main_smooth ? "both smooths" : "dpar smooth", 1e-12);
    Vec rep, back;
    vhmc::to_reported(pot, theta, rep);
    vhmc::from_reported(pot, rep, back);
    for (int j = 0; j < pot.dim(); ++j) CHECK(back[j] == Approx(theta[j]).epsilon(1e-10).margin(1e-10));
  }
}
