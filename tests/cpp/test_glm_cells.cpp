// Tests of the gaussian likelihood with sampled group-level effects from per-cell statistics
// (model/glm/group_cells.hpp, cell_stats.hpp, gaussian_cells.hpp): the cells of nested,
// crossed and single factors; U and grad U equal the row pass's to ~1e-10 at random
// parameter values for nested, several-term and single-term models, centred and
// non-centred, decov and LKJ, with and without weights and offsets, sigma estimated or fixed.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <vhmc/vhmc.hpp>

#include "test_util.hpp"

namespace {

using vhmc::CovPriorKind;
using vhmc::GlmData;
using vhmc::GlmFamily;
using vhmc::GlmPotential;
using vhmc::GroupTermData;
using vhmc::Prior;
using vhmc::Vec;

// Rows over 6 outer levels with 4 inner levels each (inner level = outer * 4 + l, as lme4's
// g2:g1), a crossed factor with 3 levels, two predictors, columns left of the bars (1, x, u).
struct CellProblem {
  int n = 150, k = 2, outer = 6, per = 4, crossed = 3;
  std::vector<double> X, y, Z, w, off, center, scale;
  std::vector<int> g_outer, g_inner, g_crossed;
};

CellProblem cell_problem(std::uint64_t seed) {
  vhmc::Rng rng(seed, 4);
  CellProblem p;
  for (int i = 0; i < p.n * p.k; ++i) p.X.push_back(rng.normal() + (i < p.n ? 2.0 : -1.0));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < p.n; ++i) p.Z.push_back(c == 0 ? 1.0 : (c == 1 ? p.X[i] : rng.uniform()));
  for (int i = 0; i < p.n; ++i) {
    const int o = (i * 7 + i / 5) % p.outer, l = (i * i + 1) % p.per;
    p.g_outer.push_back(o);
    p.g_inner.push_back(o * p.per + l);
    p.g_crossed.push_back((i / 2) % p.crossed);
    p.w.push_back(1.0 + (i % 3 == 0 ? 1.5 : 0.0));
    p.off.push_back(0.2 * rng.normal());
    p.y.push_back(1.0 + 0.5 * p.X[i] - 0.3 * p.X[i + p.n] + 0.6 * (o - 2.5) + 0.3 * (l - 1.5) + 0.5 * rng.normal());
  }
  for (int c = 0; c < p.k; ++c) {
    double m = 0.0, s = 0.0;
    for (int i = 0; i < p.n; ++i) m += p.X[i + c * p.n] / p.n;
    for (int i = 0; i < p.n; ++i) s += std::pow(p.X[i + c * p.n] - m, 2) / (p.n - 1);
    p.center.push_back(m);
    p.scale.push_back(std::sqrt(s));
  }
  return p;
}

GroupTermData cell_term(const CellProblem& p, const std::vector<int>& g, int levels, int cols, bool centred,
                        CovPriorKind kind, const std::string& name) {
  GroupTermData d = vt::group_term(name, levels, cols, p.n, g.data(), p.Z.data(), kind, 1.5, 1.2, 1.1, 1.4, 3.0,
                                   kind == CovPriorKind::Decov);
  d.centred = centred;
  return d;
}

// A model: its terms' (factor, levels, p) as (0 outer, 1 inner, 2 crossed).
struct Spec {
  std::string name;
  std::vector<std::pair<int, int>> terms;  // (factor, p)
};

std::vector<GroupTermData> spec_terms(const CellProblem& p, const Spec& s, int centring, CovPriorKind kind) {
  std::vector<GroupTermData> out;
  for (size_t t = 0; t < s.terms.size(); ++t) {
    const int f = s.terms[t].first;
    const std::vector<int>& g = f == 0 ? p.g_outer : (f == 1 ? p.g_inner : p.g_crossed);
    const int levels = f == 0 ? p.outer : (f == 1 ? p.outer * p.per : p.crossed);
    out.push_back(cell_term(p, g, levels, s.terms[t].second, ((centring >> t) & 1) != 0, kind,
                            "term" + std::to_string(t)));
  }
  return out;
}

void check_same(GlmPotential& rows, GlmPotential& cells, const Vec& theta, const std::string& what) {
  INFO(what);
  Vec gr, gc;
  const double ur = rows.U_grad(theta, gr), uc = cells.U_grad(theta, gc);
  REQUIRE(std::isfinite(ur));
  CHECK(std::fabs(uc - ur) <= 1e-10 * std::max(1.0, std::fabs(ur)));
  CHECK(cells.U(theta) == Approx(uc).epsilon(1e-13));
  const double scale = std::max(1.0, gr.cwiseAbs().maxCoeff());
  for (int j = 0; j < rows.dim(); ++j) {
    INFO("coordinate " << j << ": rows " << gr[j] << " cells " << gc[j]);
    CHECK(std::fabs(gc[j] - gr[j]) <= 1e-10 * scale);
  }
}

}  // namespace

TEST_CASE("group cells: nested factors have the inner levels' cells, crossed ones the pairs", "[glm][cells]") {
  const CellProblem p = cell_problem(1);
  const GroupTermData inner = cell_term(p, p.g_inner, p.outer * p.per, 1, false, CovPriorKind::Decov, "inner");
  const GroupTermData outer = cell_term(p, p.g_outer, p.outer, 1, false, CovPriorKind::Decov, "outer");
  const GroupTermData crossed = cell_term(p, p.g_crossed, p.crossed, 1, false, CovPriorKind::Decov, "crossed");
  const vhmc::GroupCells nested = vhmc::group_cells({&inner, &outer});
  CHECK(nested.count() == static_cast<Eigen::Index>(std::set<int>(p.g_inner.begin(), p.g_inner.end()).size()));
  std::set<std::pair<int, int>> pairs;
  for (int i = 0; i < p.n; ++i) pairs.insert({p.g_outer[i], p.g_crossed[i]});
  const vhmc::GroupCells both = vhmc::group_cells({&outer, &crossed});
  CHECK(both.count() == static_cast<Eigen::Index>(pairs.size()));
  for (const vhmc::GroupCells* c : {&nested, &both}) {
    const std::vector<const GroupTermData*> ts = c == &nested ? std::vector<const GroupTermData*>{&inner, &outer}
                                                              : std::vector<const GroupTermData*>{&outer, &crossed};
    for (int i = 0; i < p.n; ++i)
      for (int t = 0; t < 2; ++t) CHECK(c->level[c->cell[i] * 2 + t] == ts[t]->group[i]);
  }
  const vhmc::GroupCells single = vhmc::group_cells({&inner});
  CHECK(single.count() == p.outer * p.per);
  CHECK(single.cell == p.g_inner);
}

TEST_CASE("gaussian cells: U and grad U equal the row pass's (nested, several terms, one term)", "[glm][cells]") {
  const CellProblem p = cell_problem(2);
  const std::vector<Spec> specs = {
      {"(1 | outer/inner)", {{1, 1}, {0, 1}}},
      {"(x | outer/inner)", {{1, 2}, {0, 2}}},
      {"(1 + x + u | inner) + (1 | outer)", {{1, 3}, {0, 1}}},
      {"crossed (x | outer) + (1 | crossed)", {{0, 2}, {2, 1}}},
      {"three terms", {{1, 1}, {0, 2}, {2, 1}}},
      {"(x | inner)", {{1, 2}}},
      {"(1 | outer)", {{0, 1}}}};
  vhmc::Rng rng(11, 11);
  int combos = 0;
  for (const Spec& s : specs) {
    for (int weighted = 0; weighted < 2; ++weighted) {
      const GlmData data(p.X.data(), p.n, p.k, p.y.data(), weighted ? p.w.data() : nullptr,
                         weighted ? p.off.data() : nullptr, p.center.data(), p.scale.data());
      for (int centring = 0; centring < (1 << s.terms.size()); ++centring) {
        for (CovPriorKind kind : {CovPriorKind::Decov, CovPriorKind::Lkj}) {
          for (double precision : {0.0, 2.5}) {
            GlmPotential rows(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0),
                              Prior::exponential(1.0), precision);
            GlmPotential cells(data, vt::fam::GaussianIdentity, true, Prior::normal(0.0, 5.0), Prior::normal(0.0, 2.0),
                               Prior::exponential(1.0), precision);
            for (const GroupTermData& d : spec_terms(p, s, centring, kind)) {
              rows.add_group_term(d);
              cells.add_group_term(d);
            }
            CHECK(cells.use_cells() <= p.n);
            REQUIRE(cells.uses_cells());
            REQUIRE_FALSE(rows.uses_cells());
            for (int rep = 0; rep < 2; ++rep) {
              Vec theta(rows.dim());
              for (int j = 0; j < rows.dim(); ++j) theta[j] = 0.7 * rng.normal();
              check_same(rows, cells, theta, s.name + (weighted ? " weighted" : "") + " centring " +
                                                 std::to_string(centring) +
                                                 (kind == CovPriorKind::Decov ? " decov" : " lkj") +
                                                 (precision > 0 ? " fixed noise" : ""));
            }
            ++combos;
          }
        }
      }
    }
  }
  CHECK(combos == 2 * 2 * 2 * (4 + 4 + 4 + 4 + 8 + 2 + 2));
}

TEST_CASE("gaussian cells: refused where they do not apply", "[glm][cells]") {
  const CellProblem p = cell_problem(3);
  const GlmData data(p.X.data(), p.n, p.k, p.y.data());
  GlmPotential none(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat());
  CHECK_THROWS_AS(none.use_cells(), std::invalid_argument);
  GlmPotential logit(data, vt::fam::PoissonLog, true, Prior::flat(), Prior::flat());
  logit.add_group_term(cell_term(p, p.g_outer, p.outer, 1, false, CovPriorKind::Lkj, "g"));
  CHECK_THROWS_AS(logit.use_cells(), std::invalid_argument);
  GlmPotential marginal(data, vt::fam::GaussianIdentity, true, Prior::flat(), Prior::flat());
  GroupTermData m = cell_term(p, p.g_outer, p.outer, 1, false, CovPriorKind::Lkj, "g");
  m.marginal = true;
  marginal.add_group_term(m);
  CHECK_THROWS_AS(marginal.use_cells(), std::invalid_argument);
}
