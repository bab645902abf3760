#pragma once
// The map between the sampler's coordinates of a GLM and the reported parameters, and back
// (for user initial values): the intercept on the data's scale (the centring undone), the
// slopes divided by their predictors' scales, exp of the auxiliary parameter, and for the
// gaussian family the response's standardisation undone. The arithmetic is that of the R
// code it replaced, operation for operation (the centring's sum in the order of the BLAS
// matrix-vector product R used), so that reported draws kept their last bits.
#include <cmath>

#include "glm_potential.hpp"

namespace vhmc {

inline void to_reported(const GlmPotential& pot, const Vec& theta, Vec& out) {
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes(), k = d.k();
  const Eigen::Index aux = pot.layout().offset("aux");
  out = theta;
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) out[sl + j] = out[sl + j] / d.scale[j];
  if (d.has_center()) {
    double acc = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) acc = acc + d.center[j] * out[sl + j];
    out[0] = out[0] - acc;
  }
  if (aux >= 0) out[aux] = std::exp(out[aux]);
  if (d.y_scale != 1.0) out *= d.y_scale;
  if (pot.has_intercept()) out[0] = out[0] + d.y_center;
}

inline void from_reported(const GlmPotential& pot, const Vec& reported, Vec& theta) {
  const GlmData& d = pot.data();
  const Eigen::Index sl = pot.design().slopes(), k = d.k();
  const Eigen::Index aux = pot.layout().offset("aux");
  theta = reported;
  if (pot.has_intercept()) theta[0] = theta[0] - d.y_center;
  if (d.y_scale != 1.0) theta /= d.y_scale;
  if (d.has_center()) {
    double acc = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) acc = acc + d.center[j] * theta[sl + j];
    theta[0] = theta[0] + acc;
  }
  if (d.has_scale())
    for (Eigen::Index j = 0; j < k; ++j) theta[sl + j] = theta[sl + j] * d.scale[j];
  if (aux >= 0) theta[aux] = std::log(theta[aux]);
}

}  // namespace vhmc
