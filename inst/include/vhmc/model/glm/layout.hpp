#pragma once
// The parameter layout of the GLM potential: named blocks of the sampler's vector theta,
// each with its offset, size, label and transform to the reported scale. The glue exports it
// (vhmc_glm_layout) and R names the parameters from it, so that the layout exists once.
//   "intercept"  the intercept at the predictor means (identity; the reported intercept adds
//                back the centring, glm/reported.hpp)
//   "coef"       slopes times their predictor's scale (identity up to that scale)
//   "aux"        the family's auxiliary parameter on the log scale (sigma, the negative
//                binomial's reciprocal dispersion, the Gamma shape): reported as exp(t),
//                whose log Jacobian t the aux prior term adds (model/priors.hpp)
#include <stdexcept>
#include <string>
#include <vector>

#include "../../base/types.hpp"

namespace vhmc {

enum class Transform { Identity, Log };

inline const char* transform_name(Transform t) { return t == Transform::Log ? "log" : "identity"; }

struct ParamBlock {
  std::string name, label;  // label: the reported name of a scalar block ("sigma"), or ""
  Eigen::Index offset = 0, size = 0;
  Transform transform = Transform::Identity;
};

class ParameterLayout {
 public:
  // Appends a block (a size of 0 adds nothing) and returns its offset.
  Eigen::Index add(const std::string& name, const std::string& label, Eigen::Index size,
                   Transform transform = Transform::Identity) {
    if (size <= 0) return -1;
    if (find(name)) throw std::logic_error("duplicate parameter block " + name);
    blocks_.push_back({name, label, dim_, size, transform});
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
