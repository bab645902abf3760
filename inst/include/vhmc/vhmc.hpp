#pragma once
// Umbrella header of the vhmc core: R-free, Eigen + std only. Layers, bottom up:
//   base/        vectors, random numbers, shared scalar math, reports
//   model/       potentials U and grad U: GLMs and their priors, Gaussians, minibatches, modes
//   metric/      Euclidean metrics (kinetic energy, momentum draws)
//   integrator/  phase points, the leapfrog, the initial step-size heuristic
//   adapt/       dual averaging, Welford estimators, Stan's windowed adaptation
//   surrogate/   random-basis networks, their trainers and training sets
//   driver/      the one chain loop and the warmup-phase interface
//   sampler/     kernels and the samplers built from a kernel and its warmup phases
#include "base/math.hpp"
#include "base/report.hpp"
#include "base/rng.hpp"
#include "base/types.hpp"
#include "model/gaussian.hpp"
#include "model/column_summary.hpp"
#include "model/glm.hpp"
#include "model/minibatch.hpp"
#include "model/mode.hpp"
#include "model/priors.hpp"
#include "model/target.hpp"
#include "metric/metrics.hpp"
#include "integrator/hamiltonian.hpp"
#include "integrator/phase_point.hpp"
#include "adapt/dual_averaging.hpp"
#include "adapt/welford.hpp"
#include "adapt/windowed_adaptation.hpp"
#include "adapt/windows.hpp"
#include "surrogate/activation.hpp"
#include "surrogate/network.hpp"
#include "surrogate/train_surrogate.hpp"
#include "surrogate/trainer.hpp"
#include "surrogate/training_set.hpp"
#include "driver/chain_output.hpp"
#include "driver/phase.hpp"
#include "driver/run_chain.hpp"
#include "sampler/hmc_family.hpp"
#include "sampler/nuts.hpp"
#include "sampler/rwm.hpp"
#include "sampler/sg_sampler.hpp"
#include "sampler/sghmc.hpp"
#include "sampler/sgld.hpp"
#include "sampler/static_hmc.hpp"
#include "sampler/surrogate_dynamics.hpp"
#include "sampler/surrogate_hmc.hpp"
#include "sampler/surrogate_sampler.hpp"
#include "sampler/trajectory_length.hpp"
#include "sampler/transition.hpp"
#include "sampler/variational_field.hpp"
#include "sampler/variational_sampler.hpp"
