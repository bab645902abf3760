// Smoke test: the toolchain, Eigen and Catch2 work together.
#include <catch2/catch.hpp>
#include <Eigen/Dense>

TEST_CASE("Eigen solves a 2x2 linear system", "[smoke]") {
  Eigen::Matrix2d A;
  A << 4.0, 1.0,
       1.0, 3.0;
  const Eigen::Vector2d b(1.0, 2.0);
  const Eigen::Vector2d x = A.ldlt().solve(b);
  // Exact solution: x = (1/11, 7/11).
  CHECK(x(0) == Approx(1.0 / 11.0).epsilon(1e-12));
  CHECK(x(1) == Approx(7.0 / 11.0).epsilon(1e-12));
  CHECK((A * x - b).norm() < 1e-12);
}
