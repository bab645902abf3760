#pragma once
// Trajectory length of surrogate HMC chosen for effective samples per iteration.
//
// Why: a surrogate iteration costs one true log density whatever its number of (cheap)
// surrogate steps, so the trajectory should be as long as makes each draw most useful, and
// an integration time near half a period makes successive draws antithetic (NUTS owes its
// ESS > N on near-Gaussian posteriors to the same effect). On a Gaussian with Hessian H and
// inverse metric A, the leapfrog with step eps rotates each eigen-direction of A H (squared
// frequency w^2) by phi = acos(1 - (w eps)^2 / 2) per step, so after k steps the position's
// correlation with its start is cos(k phi) and that of its square is cos^2(k phi). With k
// drawn uniformly from {lo..L}, the chain of each coordinate is AR(1) with coefficient
// c1 = E cos(k phi) (c2 = E cos^2(k phi) for the squares), and its ESS per iteration is
// (1 - c)/(1 + c). The rule picks the L that maximises the smallest ESS of the coordinates
// over all directions, subject to the squares' ESS being at least 1/3 in every direction:
// what plain HMC with integration times uniform on (0, pi] gives, so that antithetic means
// are never bought with worse variance estimates than standard HMC. lo = ceil(L / 2): the
// short trajectories of a 1..L jitter cost a full true evaluation for little movement.
// Acceptance below 1 pulls every c toward 1; the caller's acceptance tuning caps L then.
// A direction along a wall is different (a rare category that separates the responses: the
// likelihood is flat on one side and a wall on the other, the posterior a half-Gaussian of the
// prior's scale with its mode at the wall). Reflected at the wall, the coordinate moves as |x|
// of a Gaussian one, and |x| is correlated with its start by
//   g(rho) = (sqrt(1 - rho^2) + rho asin(rho) - 1) / (pi/2 - 1),   rho = cos(k phi)
// (from E|XY| = (2/pi)(sqrt(1 - rho^2) + rho asin(rho)) for standard normals of correlation
// rho, the bivariate normal's quadrant integrals), never negative and 1 at half a period,
// where the Gaussian's is -1: the antithetic length is the worst there, and the best is near
// a quarter period. (On the full a9a design, d = 118, the Gaussian rule's L gave the five separated
// categories a bulk ESS of 0.33 per iteration against 1.4 for the other coordinates.) The
// walls' directions (surrogate_dynamics.hpp) join the minimum with c1 = E g(cos(k phi)) at
// their own frequencies; the squares |x|^2 = x^2 are as for a Gaussian.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../base/types.hpp"

namespace vhmc {

struct TrajectoryChoice {
  int steps = 0;             // L (0: no stable oscillatory direction, no choice made)
  double ess_mean = 0.0;     // predicted min ESS per iteration of the coordinates
  double ess_square = 0.0;   // ... and of their squares
};

namespace detail {
// sum_{k=a}^{b} cos(k phi) in closed form (phi in (0, pi]).
inline double cos_sum(int a, int b, double phi) {
  const double s = std::sin(0.5 * phi);
  if (s < 1e-12) return static_cast<double>(b - a + 1);
  return (std::sin((b + 0.5) * phi) - std::sin((a - 0.5) * phi)) / (2.0 * s);
}
inline double ess_of(double c) { return (1.0 - c) / (1.0 + c); }
// Correlation of |X| and |Y| for standard normals of correlation rho (g above).
inline double abs_corr(double rho) {
  rho = std::min(1.0, std::max(-1.0, rho));
  return (std::sqrt(1.0 - rho * rho) + rho * std::asin(rho) - 1.0) / (0.5 * kPi - 1.0);
}
// sums[k] = sum_{j=1}^{k} g(cos(j phi)) for k = 0..K (no closed form as for the cosines: one
// pass, and the mean over any jitter k = a..b is (sums[b] - sums[a - 1]) / (b - a + 1)).
inline std::vector<double> abs_cos_sums(int K, double phi) {
  std::vector<double> sums(static_cast<std::size_t>(K) + 1, 0.0);
  for (int k = 1; k <= K; ++k) sums[k] = sums[k - 1] + abs_corr(std::cos(k * phi));
  return sums;
}
}  // namespace detail

// Lower end of the jitter for a maximal number of steps L.
inline int jitter_low(int L) { return (L + 1) / 2; }

// omega2: squared frequencies (eigenvalues of A H); non-positive ones (no oscillation, e.g.
// a saddle of the approximation) are ignored. Directions unstable at eps (w eps >= 2) make
// every L equally bad and are ignored too (the step size, not L, must handle them).
// wall_omega2: squared frequencies along walls (empty: none), ignored alike.
inline TrajectoryChoice choose_trajectory(const Vec& omega2, double eps, int max_steps,
                                          const Vec& wall_omega2 = Vec()) {
  std::vector<double> phi;
  std::size_t n_free = 0;  // phi[0..n_free) free directions, the rest walls
  for (const Vec* w2 : {&omega2, &wall_omega2}) {
    for (Eigen::Index i = 0; i < w2->size(); ++i) {
      const double w = std::sqrt(std::max((*w2)[i], 0.0)) * eps;
      if ((*w2)[i] > 0 && std::isfinite(w) && w < 2.0) phi.push_back(std::acos(1.0 - 0.5 * w * w));
    }
    if (w2 == &omega2) n_free = phi.size();
  }
  TrajectoryChoice best;
  if (phi.empty()) return best;
  // Longest useful L: one full period of the slowest direction.
  const double phi_min = *std::min_element(phi.begin(), phi.end());
  const int L_cap = std::max(1, std::min(max_steps, static_cast<int>(std::ceil(2.0 * kPi / phi_min))));
  std::vector<std::vector<double>> wall_sums;
  for (std::size_t i = n_free; i < phi.size(); ++i) wall_sums.push_back(detail::abs_cos_sums(L_cap, phi[i]));
  TrajectoryChoice fallback;  // best squares' ESS when no L meets the constraint
  for (int L = 1; L <= L_cap; ++L) {
    const int lo = jitter_low(L);
    const double n = static_cast<double>(L - lo + 1);
    double e1 = kInf, e2 = kInf;
    for (std::size_t i = 0; i < phi.size(); ++i) {
      const double p = phi[i];
      const double c1 = i < n_free ? detail::cos_sum(lo, L, p) / n
                                   : (wall_sums[i - n_free][L] - wall_sums[i - n_free][lo - 1]) / n;
      const double c2 = 0.5 + 0.5 * detail::cos_sum(lo, L, 2.0 * p) / n;
      e1 = std::min(e1, detail::ess_of(c1));
      e2 = std::min(e2, detail::ess_of(c2));
    }
    if (e2 >= 1.0 / 3.0 && e1 > best.ess_mean) best = {L, e1, e2};
    if (e2 > fallback.ess_square) fallback = {L, e1, e2};
  }
  return best.steps > 0 ? best : fallback;
}

}  // namespace vhmc
