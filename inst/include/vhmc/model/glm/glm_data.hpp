#pragma once
// The data of a GLM: views of memory owned elsewhere (R), shared read-only by all chains.
#include "../../base/types.hpp"

namespace vhmc {

struct GlmData {
  // X: n x k column-major (the non-intercept columns); y: n; weights, offset: n or nullptr;
  // center, scale: k or nullptr.
  GlmData(const double* X, Eigen::Index n, Eigen::Index k, const double* y,
          const double* weights = nullptr, const double* offset = nullptr,
          const double* center = nullptr, const double* scale = nullptr)
      : X(X, n, k), y(y, n), weights(weights, weights ? n : 0), offset(offset, offset ? n : 0),
        center(center, center ? k : 0), scale(scale, scale ? k : 0) {}

  Eigen::Map<const Mat> X;
  Eigen::Map<const Vec> y;
  Eigen::Map<const Vec> weights;  // size 0 when absent
  Eigen::Map<const Vec> offset;   // size 0 when absent
  Eigen::Map<const Vec> center;   // size 0 when absent
  Eigen::Map<const Vec> scale;    // size 0 when absent (all 1)
  // The standardisation of a gaussian response, y = (y_data - y_center) / y_scale (R's
  // glm_spec()), undone on the reported scale (glm/reported.hpp).
  double y_center = 0.0, y_scale = 1.0;
  // Censored rows (brms's cens(), glm/family/censored.hpp): each row's code (-1 left, 0 none,
  // 1 right, 2 interval) and an interval's upper bound on y's scale; both absent (size 0)
  // when no row is censored. Set by the caller after construction, views like the rest.
  Eigen::Map<const Eigen::VectorXi> cens{nullptr, 0};
  Eigen::Map<const Vec> y2{nullptr, 0};

  Eigen::Index n() const { return X.rows(); }
  Eigen::Index k() const { return X.cols(); }
  bool has_weights() const { return weights.size() > 0; }
  bool has_offset() const { return offset.size() > 0; }
  bool has_center() const { return center.size() > 0; }
  bool has_scale() const { return scale.size() > 0; }
  bool has_censoring() const { return cens.size() > 0; }
};

}  // namespace vhmc
