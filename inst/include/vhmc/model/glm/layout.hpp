#pragma once
// The parameter layout of the GLM potential: named blocks of the sampler's vector theta,
// each with its offset, size, label and transform to the reported scale. The glue exports it
// (vhmc_glm_layout) and R names the parameters from it, so that the layout exists once.
//   "intercept"  the intercept at the predictor means (identity; the reported intercept adds
//                back the centring, glm/reported.hpp)
//   "coef"       slopes times their predictor's scale (identity up to that scale)
//   "aux:NAME"   each auxiliary parameter of the family (glm/family/base.hpp, AuxSpec), in
//                its unconstrained coordinate t: a positive one (sigma, a shape, a
//                dispersion) as t = log(x - lower), a probability (zero inflation, hurdle) as
//                t = logit(x), ordered cutpoints as their first value and the logs of their
//                gaps; reported on its own scale (glm/reported.hpp), the log Jacobian added
//                by its prior term (glm/prior_terms.hpp). The aux blocks are contiguous.
#include <stdexcept>
#include <string>
#include <vector>

#include "../../base/types.hpp"

namespace vhmc {

enum class Transform { Identity, Log, Logit, Ordered };

inline const char* transform_name(Transform t) {
  switch (t) {
    case Transform::Log: return "log";
    case Transform::Logit: return "logit";
    case Transform::Ordered: return "ordered";
    case Transform::Identity: break;
  }
  return "identity";
}

struct ParamBlock {
  std::string name, label;  // label: the reported name of a scalar block ("sigma"), or ""
  Eigen::Index offset = 0, size = 0;
  Transform transform = Transform::Identity;
  double lower = 0.0;  // Transform::Log: x = lower + exp(t)
};

class ParameterLayout {
 public:
  // Appends a block (a size of 0 adds nothing) and returns its offset.
  Eigen::Index add(const std::string& name, const std::string& label, Eigen::Index size,
                   Transform transform = Transform::Identity, double lower = 0.0) {
    if (size <= 0) return -1;
    if (find(name)) throw std::logic_error("duplicate parameter block " + name);
    blocks_.push_back({name, label, dim_, size, transform, lower});
    dim_ += size;
    return dim_ - size;
  }
  const ParamBlock* find(const std::string& name) const {
    for (const ParamBlock& b : blocks_)
      if (b.name == name) return &b;
    return nullptr;
  }
  bool has(const std::string& name) const { return find(name) != nullptr; }
  // Offset of a block, or -1 without it.
  Eigen::Index offset(const std::string& name) const {
    const ParamBlock* b = find(name);
    return b ? b->offset : -1;
  }
  Eigen::Index dim() const { return dim_; }
  const std::vector<ParamBlock>& blocks() const { return blocks_; }

 private:
  std::vector<ParamBlock> blocks_;
  Eigen::Index dim_ = 0;
};

}  // namespace vhmc
