#pragma once
// How many random bases a surrogate draws when the user gave no number: per_dim bases per
// dimension within [min_hidden, max_hidden]. The papers used 40 for d = 2, 1000 for d = 20-32
// and 2000-2500 for d = 50-60 (Zhang, Shahbaba and Zhao 2017; Zhang et al. 2018). Shared by
// surrogate_hmc()'s training (which also caps it by the training set) and variational_hmc().
#include <algorithm>

#include "../base/fields.hpp"

namespace vhmc {

struct BasisCount {
  int per_dim = 40;
  int min_hidden = 50;
  int max_hidden = 2000;
  long operator()(int d) const {
    return std::min<long>(max_hidden, std::max<long>(min_hidden, static_cast<long>(per_dim) * d));
  }
  static auto fields() {
    return std::make_tuple(field("hidden_per_dim", &BasisCount::per_dim),
                           field("min_hidden", &BasisCount::min_hidden),
                           field("max_hidden", &BasisCount::max_hidden));
  }
};

}  // namespace vhmc
