#pragma once
// surrogate_hmc() as plug-ins of the host's registry, one per dynamics of the surrogate
// sampler template (surrogate_sampler.hpp): surrogate HMC (RNS-HMC, and ARNS-HMC with
// `adaptive`; surrogate_hmc_dynamics.hpp) and RNS-RMHMC (surrogate_rmhmc.hpp), R's
// surrogate_hmc(riemann = TRUE).
#include "surrogate_hmc_dynamics.hpp"
#include "surrogate_rmhmc.hpp"
#include "surrogate_sampler.hpp"

namespace vhmc {

using SurrogateHmcSampler = SurrogateSampler<SurrogateHmcDynamics>;
using SurrogateRmhmcSampler = SurrogateSampler<SurrogateRmhmcDynamics>;

}  // namespace vhmc
