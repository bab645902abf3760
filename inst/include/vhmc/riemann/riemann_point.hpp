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
// `scratch` is the geometry's own per-state storage (for example the derivative weights
// of a GLM's Fisher metric), reused across states without reallocation.
#include <Eigen/Cholesky>

#include "../base/types.hpp"

namespace vhmc {

struct RiemannPoint {
  explicit RiemannPoint(int d = 0) : theta(d), grad(d), trace(d) {}
  Vec theta, grad, trace;
  double U = kInf;
  double log_det = 0.0;
  Eigen::LLT<Mat> chol;
  Vec scratch;

  // out = G^{-1} p, in out's storage.
  void solve(const Vec& p, Vec& out) const {
    out = p;
    chol.solveInPlace(out);
  }
  // H(theta, p) = U + 1/2 log det G + 1/2 p' G^{-1} p (Girolami & Calderhead 2011, eq. 13,
  // without its constant).
  double hamiltonian(const Vec& p) const { return U + 0.5 * log_det + 0.5 * p.dot(chol.solve(p)); }
};

// The geometry RMHMC uses on a potential type P (specialised next to each geometry, e.g.
// riemann/glm_geometry.hpp); void: none, and rmhmc() refuses the model before any chain.
template <class P>
struct GeometryFor {
  using type = void;
};

// log det G from its Cholesky factor.
inline double log_det_from_chol(const Eigen::LLT<Mat>& chol) {
  return 2.0 * chol.matrixLLT().diagonal().array().log().sum();
}

}  // namespace vhmc
