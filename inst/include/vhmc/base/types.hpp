#pragma once
// Shared vocabulary of the core: Eigen vector/matrix aliases, host callbacks, log-sum-exp.
#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace vhmc {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.141592653589793;

// The host (R, or a test) supplies these; the core never prints or polls by itself.
struct Callbacks {
  std::function<void(const std::string&)> log = [](const std::string&) {};
  // Returns true when the user asked to stop (Ctrl-C); polled every few iterations.
  std::function<bool()> interrupted = [] { return false; };
  // After each phase of a chain (its label): the host reads counters of its own there (the
  // model runs of a target written in R, split by phase).
  std::function<void(const char*)> phase_end = [](const char*) {};
};

inline double log_sum_exp(double a, double b) {
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

}  // namespace vhmc
