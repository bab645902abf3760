#pragma once
// A row's log likelihood as a function of the mean mu and the aux coordinates t, with its
// derivatives (glm/family/mean_family.hpp composes it with a link).
#include "base.hpp"

namespace vhmc {
namespace family {

struct DistTerms {
  double v = 0.0, l1 = 0.0, l2 = 0.0;  // ll, dll/dmu, d2ll/dmu2
  double lt[kMaxRowAux] = {}, lmt[kMaxRowAux] = {}, ltt[kMaxRowAux][kMaxRowAux] = {};
};

}  // namespace family
}  // namespace vhmc
