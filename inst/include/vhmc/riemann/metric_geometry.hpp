#pragma once
// A metric tensor supplied with the model (Girolami & Calderhead 2011): the potential P
// gives G(theta) and its derivatives,
//   bool metric(const Vec& theta, Mat& G, Mat& dG);   // dG = [dG/dtheta_1 ... dG/dtheta_d],
//                                                     // d x d^2; false if not available
// for example the Fisher metric J'J / s_y^2 + I / s_theta^2 of a model y = f(theta) + e
// written in R (vhmc_sample(metric_tensor = )). The two terms of the generalized leapfrog
// are dense sums, O(d^3) per state:
//   t_i  = tr(G^{-1} dG_i) = sum_jk (G^{-1})_jk (dG_i)_jk,   nu_i = v' dG_i v.
#include <cmath>

#include "../model/target.hpp"
#include "riemann_point.hpp"

namespace vhmc {

template <class P>
class MetricGeometry {
 public:
  explicit MetricGeometry(P& pot) : pot_(pot), target_(pot), d_(pot.dim()), dG_(d_, d_ * d_), Ginv_(d_, d_) {}

  int dim() const { return d_; }
  EvalCounts counts() const { return target_.counts(); }
  bool settle(const RiemannPoint&) const { return true; }  // at() computed U
  long metric_evaluations() const { return n_metric_; }

  bool at(const Vec& theta, RiemannPoint& pt) {
    if (!potential_at(target_, theta, pt)) return false;
    ++n_metric_;
    if (!pot_.metric(theta, G_, dG_) || !G_.allFinite() || !dG_.allFinite()) return false;
    if (!pt.set_dense(G_)) return false;  // reads G's lower triangle
    Ginv_.setIdentity();
    pt.chol.solveInPlace(Ginv_);
    pt.trace.resize(d_);
    for (int i = 0; i < d_; ++i) pt.trace[i] = Ginv_.cwiseProduct(dG_.middleCols(i * d_, d_)).sum();
    pt.scratch = Eigen::Map<const Vec>(dG_.data(), dG_.size());  // this state's dG, for nu()
    return std::isfinite(pt.log_det) && pt.trace.allFinite();
  }

  void nu(const RiemannPoint& pt, const Vec& v, Vec& out) {
    const Eigen::Map<const Mat> dG(pt.scratch.data(), d_, d_ * d_);
    out.resize(d_);
    for (int i = 0; i < d_; ++i) {
      tmp_.noalias() = dG.middleCols(i * d_, d_) * v;
      out[i] = v.dot(tmp_);
    }
  }

 private:
  P& pot_;
  Target<P> target_;
  int d_;
  long n_metric_ = 0;
  Mat G_, dG_, Ginv_;
  Vec tmp_;
};

}  // namespace vhmc
