// Declared bounds and priors of targets written in R (model/bounded.hpp): the transforms
// round-trip and stay inside, and the added potential's gradient in the
// unconstrained coordinates matches its finite differences, for every kind of bound and prior.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "test_util.hpp"

namespace {

const double kInf = std::numeric_limits<double>::infinity();

vhmc::BoundedParameter param(double lo, double hi, vhmc::Prior p) {
  vhmc::BoundedParameter b;
  b.lower = lo;
  b.upper = hi;
  b.prior = p;
  return b;
}

std::vector<vhmc::BoundedParameter> examples() {
  return {param(-kInf, kInf, vhmc::Prior::normal(1.0, 2.0)), param(0.0, kInf, vhmc::Prior::exponential(0.5)),
          param(2.0, kInf, vhmc::Prior::gamma(3.0, 1.5)), param(-kInf, 4.0, vhmc::Prior::student_t(3.0, 1.0, 2.0)),
          param(0.0, 1.0, vhmc::Prior::beta(2.0, 5.0)), param(-3.0, 7.0, vhmc::Prior::cauchy(0.0, 1.0)),
          param(0.2, 0.9, vhmc::Prior::laplace(0.5, 0.3)), param(-1.0, 1.0, vhmc::Prior::flat())};
}

}  // namespace

TEST_CASE("bounded parameters: natural values round-trip and stay inside", "[bounded]") {
  for (const auto& p : examples()) {
    for (double t : {-30.0, -3.0, -0.4, 0.0, 0.7, 2.5, 30.0}) {
      const double x = vhmc::bounded_to_natural(p, t).x;
      CHECK(x >= p.lower);
      CHECK(x <= p.upper);
      if (std::fabs(t) < 20) CHECK(vhmc::bounded_from_natural(p, x) == Approx(t).margin(1e-9));
    }
  }
  // Far into a box's tails the value stays strictly inside while it can be told from the bound.
  const vhmc::BoundedParameter box = param(0.0, 1.0, vhmc::Prior::flat());
  CHECK(vhmc::bounded_to_natural(box, 30.0).x < 1.0);
  CHECK(vhmc::bounded_to_natural(box, -30.0).x == Approx(std::exp(-30.0)).epsilon(1e-12));
}

TEST_CASE("bounded parameters: the gradient of the added potential matches finite differences", "[bounded]") {
  const std::vector<vhmc::BoundedParameter> ps = examples();
  const int d = static_cast<int>(ps.size());
  vhmc::Vec t(d), x(d), dx(d), g(d), xs(d);
  t << 0.3, -0.5, 0.8, 1.1, -0.7, 0.2, 1.4, -1.9;
  const double u = vhmc::bounded_eval(ps, t.data(), x.data(), dx.data(), g.data());
  REQUIRE(std::isfinite(u));
  for (int j = 0; j < d; ++j) {
    const double h = 1e-6;
    vhmc::Vec up = t, dn = t;
    up[j] += h;
    dn[j] -= h;
    const double fd = (vhmc::bounded_eval(ps, up.data(), xs.data(), nullptr, nullptr) -
                       vhmc::bounded_eval(ps, dn.data(), xs.data(), nullptr, nullptr)) / (2 * h);
    INFO("parameter " << j);
    CHECK(g[j] == Approx(fd).epsilon(1e-6).margin(1e-8));
    const double fdx = (vhmc::bounded_to_natural(ps[j], t[j] + h).x - vhmc::bounded_to_natural(ps[j], t[j] - h).x) / (2 * h);
    CHECK(dx[j] == Approx(fdx).epsilon(1e-6));
  }
}

TEST_CASE("bounded parameters: a prior on the natural scale is the density of x", "[bounded]") {
  // exponential(rate) on (0, inf): U = rate x; gamma(a, b): -(a - 1) log x + b x; beta(a, b).
  double d = 0;
  CHECK(vhmc::natural_prior_eval(vhmc::Prior::exponential(0.5), 3.0, &d) == Approx(1.5));
  CHECK(d == Approx(0.5));
  CHECK(vhmc::natural_prior_eval(vhmc::Prior::gamma(3.0, 2.0), 1.5, &d) == Approx(-2.0 * std::log(1.5) + 3.0));
  CHECK(vhmc::natural_prior_eval(vhmc::Prior::beta(2.0, 5.0), 0.25, &d) ==
        Approx(-std::log(0.25) - 4.0 * std::log(0.75)));
  CHECK(d == Approx(-1.0 / 0.25 + 4.0 / 0.75));
  CHECK(std::isinf(vhmc::natural_prior_eval(vhmc::Prior::beta(2.0, 5.0), 1.0, nullptr)));
  CHECK(vhmc::natural_prior_eval(vhmc::Prior::normal(1.0, 2.0), 2.0, &d) == Approx(0.125));
  CHECK(d == Approx(0.25));
}
