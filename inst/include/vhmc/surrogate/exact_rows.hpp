#pragma once
// The rows of a likelihood a surrogate keeps exact: U_rows(theta) = loss(Z theta + offset)
// for the few rows (StiffRows, integrator/split_leapfrog.hpp; a GLM's come from
// model/glm/stiff_rows.hpp) whose curvature can be far above the posterior's. Why: on a
// posterior that is Gaussian in most directions, the directions where it is not are made by
// such rows -- a rare category that (nearly) separates the responses puts a softplus wall in
// its coefficient, and a category with few rows a skewed likelihood. A quadratic base plus
// random bases in all d directions fits these poorly (a9a's full design, d = 118: held-out
// gradient error 57% for the least-squares quadratic, 28% with 2,000 bases), while the
// rows themselves are exact and cheap: with the 1,981 rows of stiffness above 0.03 exact,
// the quadratic fitted to the rest leaves 2.9%. This is the split of a likelihood into a
// part computed exactly and a part approximated by its second-order expansion used for
// subsampling MCMC's control variates (Bardenet, Doucet and Holmes 2017, JMLR 18; Quiroz,
// Kohn, Villani and Tran 2019, JASA 114), here with the rows chosen by their stiffness
// (glm_row_stiffness()) and kept whole rather than subsampled. A surrogate step costs O(rows x d)
// more, or O(exceptions) where the rows' columns are mostly one value (base/sparse_columns.hpp:
// the dummies of a design written with factors; census, d = 95: the two products over 2,048
// rows were half of a surrogate gradient).
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

#include "../base/sparse_columns.hpp"
#include "../base/types.hpp"
#include "../integrator/split_leapfrog.hpp"

namespace vhmc {

class ExactRows {
 public:
  ExactRows() = default;
  explicit ExactRows(StiffRows rows) : rows_(std::move(rows)) {
    const Eigen::Index n = rows_.size();
    if (n == 0 || rows_.offset.size() != n || !rows_.loss)
      throw std::invalid_argument("ExactRows: rows need Z, offsets and a loss");
    eta_.resize(n);
    r_.resize(n);
    zr_.resize(rows_.Z.cols());
    SparseColumns cols(z(), kSparseFraction);
    if (cols.pays(n, rows_.Z.cols())) cols_ = std::make_shared<const SparseColumns>(std::move(cols));
  }

  Eigen::Index size() const { return rows_.size(); }
  const StiffRows& rows() const { return rows_; }

  // Whether the products read the rows' mostly-constant columns from their index.
  bool sparse() const { return cols_ != nullptr; }

  // U_rows(theta); if g != nullptr, g += grad U_rows = Z' r.
  double add_value_grad(const Vec& theta, Vec* g) {
    predictor(theta);
    const double u = rows_.loss(eta_, r_);
    if (g == nullptr) return u;
    if (cols_) {
      cols_->transpose_times(z(), r_, zr_);
      *g += zr_;
    } else {
      g->noalias() += rows_.Z.transpose() * r_;
    }
    return u;
  }
  // Per-row r = d U_rows / d eta_i at theta, into r (size rows).
  void row_slopes(const Vec& theta, Vec& r) {
    predictor(theta);
    rows_.loss(eta_, r);
  }
  // H += Z' diag(c) Z, c_i = d2 U_rows / d eta_i^2 by central differences of r (the loss is
  // a sum over rows, so one pair of passes gives every row's; relative error ~1e-8, enough for
  // the metric and frequencies it serves).
  void add_hessian(const Vec& theta, Mat& H) {
    predictor(theta);
    const Vec h = (eta_.cwiseAbs().array() + 1.0).matrix() * 1e-4;
    Vec up = eta_ + h, down = eta_ - h, r_up(size()), r_down(size());
    rows_.loss(up, r_up);
    rows_.loss(down, r_down);
    const Vec c = (r_up - r_down).cwiseQuotient(2.0 * h);
    H.noalias() += rows_.Z.transpose() * (rows_.Z.array().colwise() * c.array()).matrix();
  }

 private:
  Eigen::Map<const Mat> z() const { return Eigen::Map<const Mat>(rows_.Z.data(), rows_.Z.rows(), rows_.Z.cols()); }
  // eta = Z theta + offset.
  void predictor(const Vec& theta) {
    if (cols_) {
      cols_->times(z(), theta, eta_);
    } else {
      eta_.noalias() = rows_.Z * theta;
    }
    eta_ += rows_.offset;
  }

  StiffRows rows_;
  std::shared_ptr<const SparseColumns> cols_;  // the index, when it pays (shared by copies)
  Vec eta_, r_, zr_;
};

}  // namespace vhmc
