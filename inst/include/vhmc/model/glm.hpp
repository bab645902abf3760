#pragma once
// Potentials of Bayesian GLMs (issue 3, item 3; composed from parts in 0.4.0): see
// glm/glm_potential.hpp for the potential and its parts (layout, predictor blocks,
// families, prior terms, gaussian sufficient statistics) and ARCHITECTURE.md for how to
// add a family or a predictor block.
#include "glm/glm_potential.hpp"
#include "glm/potential_methods.hpp"
#include "glm/reported.hpp"
#include "glm/stiff_rows.hpp"
