#pragma once
// The gaussian family's likelihood without a pass over the rows, for GlmPotential: the dense
// block's sufficient statistics (glm/gaussian_stats.hpp) and, with sampled group-level
// terms, the cells of their grouping factors (glm/gaussian_cells.hpp), or with the terms'
// effects integrated out, their marginal part (glm/marginal_gaussian.hpp). Each part returns
// its share of U and adds its gradient into g; the potential adds the priors' in between,
// in a fixed order. inv_s2 is 1/sigma^2, aux the offset of log sigma in theta (-1 when the
// precision is fixed).
#include <memory>
#include <vector>

#include "../../base/rng.hpp"
#include "../../base/types.hpp"
#include "dense_design.hpp"
#include "gaussian_cells.hpp"
#include "gaussian_stats.hpp"
#include "group_term.hpp"
#include "marginal_gaussian.hpp"

namespace vhmc {

class GaussianLikelihood {
 public:
  GaussianLikelihood(const DenseDesign& design, double sum_w) : stats_(design), p_(design.size()), sum_w_(sum_w) {}

  // The dense block's part (without terms, the whole likelihood) and its Hessian.
  double dense(const Vec& theta, double inv_s2, Eigen::Index aux, Vec* g) {
    return stats_.eval(theta, inv_s2, sum_w_, aux, g);
  }
  void hessian(const Vec& theta, double inv_s2, Eigen::Index aux, Mat& H) { stats_.hessian(theta, inv_s2, aux, H); }

  // The sampled terms' part from the cells (after the last term); returns their number.
  Eigen::Index use_cells(const DenseDesign& design, const std::vector<GroupTerm>& terms) {
    cells_ = std::make_unique<GaussianCells>(design, stats_, terms);
    return cells_->cells();
  }
  void drop_cells() { cells_.reset(); }
  bool cells() const { return cells_ != nullptr; }
  // Sets each term's effects_gradient() to dloglik/db (after the terms' prepare()).
  double cells_part(const Vec& theta, double inv_s2, Eigen::Index aux, std::vector<GroupTerm>& terms, Vec* g) {
    return cells_->eval(q(theta), inv_s2, aux, terms, g);
  }

  // The terms' effects integrated out (after each term added; throws if they do not nest).
  void integrate_out(const DenseDesign& design, const std::vector<GroupTerm>& terms) {
    marginal_ = std::make_unique<MarginalGaussian>(design, stats_, terms);
  }
  bool marginal() const { return marginal_ != nullptr; }
  // The integrated part, with the terms' covariance parameters' gradient through their
  // chain rule (after their prepare()).
  double marginal_part(const Vec& theta, Eigen::Index aux, std::vector<GroupTerm>& terms, Vec* g) {
    const double u = marginal_->eval(q(theta), theta[aux], terms, aux, g, &dtau_, &dL_);
    if (g)
      for (size_t t = 0; t < terms.size(); ++t) terms[t].add_covariance_gradient(dtau_[t], dL_[t], *g);
    return u;
  }
  // The integrated terms' effects at theta: a draw from their conditional with rng, its
  // mean without.
  void marginal_effects(const Vec& theta, Eigen::Index aux, const std::vector<GroupTerm>& terms, Rng* rng,
                        std::vector<Mat>& b) {
    marginal_->effects(q(theta), theta[aux], terms, rng, b);
  }

 private:
  // The dense block's coefficients less their least-squares fit.
  Vec q(const Vec& theta) const { return theta.head(p_) - stats_.b_hat(); }

  GaussianStats stats_;
  Eigen::Index p_;
  double sum_w_;
  std::unique_ptr<GaussianCells> cells_;
  std::unique_ptr<MarginalGaussian> marginal_;
  std::vector<Vec> dtau_;  // dU/dtau and dU/dL per term, kept: no allocation per gradient
  std::vector<Mat> dL_;
};

}  // namespace vhmc
