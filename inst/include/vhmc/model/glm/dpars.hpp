#pragma once
// Distributional regression (brms's `bf(y ~ ..., sigma ~ ...)`): a linear predictor for an
// auxiliary parameter of the family, on its unconstrained coordinate t (the family's
// transform is the link: log sigma, log(nu - 1), logit zi), so that each row has its own
// aux values. Each modelled parameter is a predictor block (glm/dense_design.hpp: an
// intercept at its predictors' means and slopes times their scales) over its own columns;
// the others stay one value each. The row pass calls the family's per-row terms with each
// row's aux values (row(), curvature(), censored()), and the gradient in t_ik goes to the
// parameter's block as the linear predictor's does (scatter()). A group-level term of a
// parameter's formula adds its part to that parameter's column of T (add_term()) and takes
// its column of D as the linear predictor's terms take r.
#include <array>
#include <vector>

#include "../../base/types.hpp"
#include "../priors.hpp"
#include "dense_design.hpp"
#include "smooths.hpp"
#include "family/base.hpp"
#include "family/local.hpp"
#include "glm_data.hpp"
#include "group_term.hpp"

namespace vhmc {

// One modelled auxiliary parameter: its index in the family's kAux, its columns (a GlmData
// view with its own X (the non-intercept columns), center and scale; y unused), the priors
// of its intercept (at the predictors' means) and slopes, on the link scale, and its smooths
// (penalised columns last, as the linear predictor's; glm/smooths.hpp).
struct DparData {
  int aux = 0;
  const GlmData* data = nullptr;
  Prior prior_intercept = Prior::flat(), prior = Prior::flat();
  SmoothSpec smooths = SmoothSpec();
};

struct DparSpec {
  std::vector<DparData> dpars;
  bool empty() const { return dpars.empty(); }
};

// Each row's aux coordinates T (n x A, row-major) from the blocks and the scalar
// parameters, and the gradient's scatter from D = d loglik / dT (n x A).
class DparPredictors {
 public:
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  DparPredictors(Eigen::Index n, int n_aux)
      : block_of_(n_aux, -1), scalar_at_(n_aux, -1), T_(n, n_aux), D_(n, n_aux), col_(n) {}

  void add_block(int aux, const GlmData& d, Eigen::Index offset) {
    block_of_[aux] = static_cast<int>(designs_.size());
    designs_.emplace_back(d, true, offset);
  }
  void set_scalar(int aux, Eigen::Index offset) { scalar_at_[aux] = offset; }

  int n_aux() const { return static_cast<int>(block_of_.size()); }
  // The block of aux parameter k, or null when it is one value.
  const DenseDesign* design_of(int k) const { return block_of_[k] < 0 ? nullptr : &designs_[block_of_[k]]; }

  // T at theta (through a column buffer: no allocation per evaluation).
  void predict(const Vec& theta) {
    for (int k = 0; k < n_aux(); ++k) {
      if (block_of_[k] < 0) {
        T_.col(k).setConstant(theta[scalar_at_[k]]);
        continue;
      }
      DenseDesign& b = designs_[block_of_[k]];
      b.set_beta(theta);
      b.predictor(theta, col_);
      T_.col(k) = col_;
    }
  }
  // T's column k += a group-level term's part (glm/group_term.hpp, after its prepare()).
  void add_term(int k, const GroupTerm& t) {
    col_ = T_.col(k);
    t.add_eta(col_);
    T_.col(k) = col_;
  }
  // Column k of D, contiguous (the r of a group-level term of parameter k); valid until the
  // next call.
  const Vec& d_column(int k) {
    col_ = D_.col(k);
    return col_;
  }
  const double* t_row(Eigen::Index i) const { return T_.data() + i * T_.cols(); }
  RowMat& D() { return D_; }
  const RowMat& D() const { return D_; }

  // The blocks' and the scalars' gradient of -sum loglik from D, into g.
  void scatter(Vec& g) {
    for (int k = 0; k < n_aux(); ++k) {
      if (block_of_[k] < 0) {
        g[scalar_at_[k]] = -D_.col(k).sum();
      } else {
        col_ = D_.col(k);
        designs_[block_of_[k]].scatter(col_, g);
      }
    }
  }

  // Rows r0..r0+m-1 of the columns t_k depends on, in the sampler's coordinates (a
  // block's rows, or a column of ones at the scalar's offset), and their offsets.
  void rows(int k, Eigen::Index r0, Eigen::Index m, Mat& xb, Eigen::Index& first) const {
    if (block_of_[k] < 0) {
      xb = Mat::Ones(m, 1);
      first = scalar_at_[k];
      return;
    }
    const DenseDesign& b = designs_[block_of_[k]];
    b.rows(r0, m, xb);
    first = b.first();
  }

 private:
  std::vector<DenseDesign> designs_;
  std::vector<int> block_of_;             // per aux parameter: its block, or -1
  std::vector<Eigen::Index> scalar_at_;   // per aux parameter: its theta offset, or -1
  RowMat T_, D_;
  Vec col_;  // one column of T or D, contiguous
};

}  // namespace vhmc
