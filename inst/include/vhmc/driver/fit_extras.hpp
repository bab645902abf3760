#pragma once
// What the host computes once per fit and every chain shares: the Laplace anchor (mode and
// Hessian) of variational HMC and the control-variate anchor (mode and full gradient) of
// SGLD-CV / SGHMC-CV.
#include <optional>

#include "../base/types.hpp"

namespace vhmc {

struct Anchor {
  Vec mode;
  Mat hessian;   // empty when not needed
  Vec gradient;  // empty when not needed
};

struct FitExtras {
  std::optional<Anchor> laplace;
  std::optional<Anchor> control_variate;
};

}  // namespace vhmc
