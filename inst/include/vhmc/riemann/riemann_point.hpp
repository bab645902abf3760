#pragma once
// A state of Riemannian-manifold HMC (Girolami & Calderhead 2011) with its geometry: the
// potential U and its gradient, the position-dependent metric G(theta) as its Cholesky
// factor, log det G, and the trace terms t_i = tr(G^{-1} dG/dtheta_i) of
// d/dtheta_i (1/2 log det G). A geometry (riemann/*_geometry.hpp) fills it:
//   int dim() const;
//   bool at(const Vec& theta, RiemannPoint& pt);         // all of the above at theta;
//                                                        // false if not finite or G not PD
//   void nu(const RiemannPoint& pt, const Vec& v, Vec& out);  // out_i = v' dG/dtheta_i v
//   EvalCounts counts() const;
//   long metric_evaluations() const;                     // states whose metric was computed
//   bool settle(RiemannPoint& pt);                       // U at pt, if at() left it out
// and optionally, where G alone is much cheaper than the whole state (GlmGeometry):
//   bool metric_at(const Vec& theta, RiemannPoint& pt);  // theta, G and its factor only
//   bool complete(RiemannPoint& pt);                     // the rest of at(), at pt.theta
// `scratch` is the geometry's own per-state storage (for example the derivative weights
// of a GLM's Fisher metric), reused across states without reallocation. A geometry whose
// metric is diagonal fills `diag` and sets `is_diag` instead of the Cholesky factor: its
// solves and momentum draws then cost O(d), not O(d^2) (and no O(d^3) factorisation).
// A geometry whose dynamics follow a surrogate leaves U unknown in at() (the dynamics use
// only the gradient field) and computes the true U in settle(), once per trajectory end.
#include <cmath>

#include <Eigen/Cholesky>

#include "../base/types.hpp"

namespace vhmc {

// log det G from its Cholesky factor.
inline double log_det_from_chol(const Eigen::LLT<Mat>& chol) {
  return 2.0 * chol.matrixLLT().diagonal().array().log().sum();
}

struct RiemannPoint {
  explicit RiemannPoint(int d = 0) : theta(d), grad(d), trace(d) {}
  Vec theta, grad, trace;
  double U = kInf;
  double log_det = 0.0;
  Eigen::LLT<Mat> chol;
  Vec diag;
  bool is_diag = false;
  Vec scratch;

  // out = G^{-1} p, in out's storage.
  void solve(const Vec& p, Vec& out) const {
    if (is_diag) {
      out = p.cwiseQuotient(diag);
      return;
    }
    out = p;
    chol.solveInPlace(out);
  }
  // p = G^{1/2} z, a draw of N(0, G) from z ~ N(0, I).
  void momentum(const Vec& z, Vec& p) const {
    if (is_diag)
      p = z.cwiseProduct(diag.cwiseSqrt());
    else
      p.noalias() = chol.matrixL() * z;
  }
  // H(theta, p) = U + 1/2 log det G + 1/2 p' G^{-1} p (Girolami & Calderhead 2011, eq. 13,
  // without its constant).
  double hamiltonian(const Vec& p) const {
    const double kinetic = is_diag ? (p.array().square() / diag.array()).sum() : p.dot(chol.solve(p));
    return U + 0.5 * log_det + 0.5 * kinetic;
  }
  // A dense metric G (its lower triangle) as this state's: false if not positive definite.
  bool set_dense(const Mat& G) {
    is_diag = false;
    chol.compute(G);
    if (chol.info() != Eigen::Success) return false;
    log_det = log_det_from_chol(chol);
    return true;
  }
  Mat inverse_metric() const {
    if (is_diag) return Mat(diag.cwiseInverse().asDiagonal());
    return chol.solve(Mat::Identity(theta.size(), theta.size()));
  }
};

// theta, U and grad U of a state from a counted target (model/target.hpp): the part of a
// geometry's at() that every exact geometry shares; false where U is not finite.
template <class T>
bool potential_at(T& target, const Vec& theta, RiemannPoint& pt) {
  pt.theta = theta;
  pt.U = target.U_grad(theta, pt.grad);
  return std::isfinite(pt.U);
}

// The geometry RMHMC uses on a potential type P (specialised next to each geometry, e.g.
// riemann/glm_geometry.hpp); void: none, and rmhmc() refuses the model before any chain.
template <class P>
struct GeometryFor {
  using type = void;
};


}  // namespace vhmc
