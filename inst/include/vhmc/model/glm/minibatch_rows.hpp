#pragma once
// Minibatch gradients of the GLM potential (Welling & Teh 2011, eq. 1): the rows of a batch
// gathered once into per-object buffers (resized only when the batch size changes; X itself
// is never copied), their linear predictor, the family's per-row derivatives (at theta, and
// for the control variates of SGLD-CV / SGHMC-CV, Baker et al. 2019, at theta_hat too), and
// the gradient and its per-coordinate variance from them. For the gaussian family this is
// the per-row residual form, not the sufficient statistics. Group-level terms add their
// effects to the gathered rows' predictor; their gradient is theirs to take from r()
// (GroupTerm::scatter_rows()).
#include <algorithm>
#include <vector>

#include "../../base/types.hpp"
#include "dense_design.hpp"
#include "families.hpp"
#include "group_term.hpp"

namespace vhmc {

class MinibatchRows {
 public:
  // Rows idx of the design, y and the weights.
  void gather(const DenseDesign& design, const int* idx, Eigen::Index m) {
    const GlmData& d = design.data();
    if (Xb_.rows() != m || Xb_.cols() != d.k()) {
      for (Vec* v : {&eb_, &yb_}) v->resize(m);
      wb_.resize(d.has_weights() ? m : 0);
    }
    design.gather(idx, m, Xb_);
    for (Eigen::Index i = 0; i < m; ++i) yb_[i] = d.y[idx[i]];
    for (Eigen::Index i = 0; i < wb_.size(); ++i) wb_[i] = d.weights[idx[i]];
    idx_ = idx;
  }

  // Per gathered row at theta: r = d loglik_i / d eta and z(i, k) = d(-loglik_i) / d t_k
  // (the n_aux aux coordinates; one column of scratch without them), the batch's terms; with
  // at_hat, its terms at the reference point theta_hat. The predictor has the effects of the
  // group-level terms `groups` (of the linear predictor). Needs design.set_beta(theta) and
  // the terms' prepare(theta).
  template <class F>
  void terms(const DenseDesign& design, const Vec& theta, const typename F::Aux& a, bool at_hat,
             Eigen::Index n_aux, const std::vector<GroupTerm>& groups) {
    Vec& r = at_hat ? rh_ : r_;
    Mat& z = at_hat ? zh_ : z_;
    const GlmData& d = design.data();
    const Eigen::Index m = yb_.size();
    design.batch_predictor(theta, Xb_, eb_);
    if (d.has_offset())
      for (Eigen::Index i = 0; i < m; ++i) eb_[i] += d.offset[idx_[i]];
    for (const GroupTerm& t : groups)
      if (t.of_mean()) t.add_eta_rows(idx_, m, eb_);
    r.resize(m);
    z.resize(m, std::max<Eigen::Index>(n_aux, 1));
    F::derivs(yb_, eb_, wb_, a, r, z);
  }

  // The gathered rows (their indices), their d loglik / d eta at theta, and N / m.
  const int* rows() const { return idx_; }
  Eigen::Index size() const { return Xb_.rows(); }
  const Vec& r() const { return r_; }
  double scale(const DenseDesign& design) const {
    return static_cast<double>(design.data().n()) / static_cast<double>(Xb_.rows());
  }

  // The terms at theta less those at theta_hat (the control-variate difference).
  void subtract_hat(Eigen::Index aux) {
    r_ -= rh_;
    if (aux >= 0) z_ -= zh_;
  }

  // g = -(N/m) sum over the gathered rows of the log-likelihood gradient (from the terms: r,
  // and z for the auxiliary parameters at theta[aux...] when aux >= 0).
  void gradient(const DenseDesign& design, Eigen::Index aux, Vec& g) const {
    const double f = scale(design);
    design.batch_scatter(Xb_, r_, f, g);
    if (aux >= 0)
      for (Eigen::Index k = 0; k < z_.cols(); ++k) g[aux + k] = f * z_.col(k).sum();
  }

  // V_hat = (N^2/m) var_{i in batch}(grad log p(y_i | theta)) per coordinate (the estimate
  // behind Chen et al. 2014's B_hat), 0 if m < 2.
  void variance(const DenseDesign& design, Eigen::Index aux, Vec& v) const {
    const Eigen::Index m = Xb_.rows();
    if (m < 2) return;
    const double n = static_cast<double>(design.data().n());
    const double f = n * n / static_cast<double>(m);
    design.batch_variance(Xb_, r_, f, v);
    if (aux >= 0) {
      for (Eigen::Index k = 0; k < z_.cols(); ++k) {
        const double mu = z_.col(k).sum() / static_cast<double>(m);
        v[aux + k] = f * ((z_.col(k).array() - mu).square().sum() / static_cast<double>(m - 1));
      }
    }
  }

 private:
  Mat Xb_;
  Vec eb_, yb_, wb_;
  Vec r_, rh_;  // the terms at theta and at theta_hat
  Mat z_, zh_;
  const int* idx_ = nullptr;
};

}  // namespace vhmc
