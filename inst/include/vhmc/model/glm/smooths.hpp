#pragma once
// Penalised smooth terms (mgcv's s(), t2()) as random effects: the mixed-model form of a
// penalised regression spline (Wood 2017, "Generalized Additive Models", 2nd ed.; Kimeldorf
// and Wahba 1970), in which a smooth's unpenalised part is ordinary fixed effects and each of
// its penalties, diagonalised by mgcv's smooth2random(), gives a block of coefficients
//   b_j = z_j sd_s,  z_j ~ N(0, 1)  (j in penalty block s),  sd_s ~ the smooths' prior,
// the non-centred form brms uses for its smooths (Buerkner 2017). R builds the columns and
// places them last in the design, so that they are the trailing columns of the coefficients;
// the layout gives them their own block "smooth" (label "noncentred") after "coef", and one
// block "sm:sd" (log sd_s, reported sd_s on the data's scale, label "sds") after the aux
// blocks. As with the horseshoe (glm/horseshoe.hpp), the potential evaluates its likelihood at
// the effective theta whose smooth block holds b_j in the sampler's coordinates (b_j times
// its column's scale over the response's: `unit`), and finish() carries that block's gradient
// G back: dU/dz_j = G_j unit_j sd_s + z_j, dU/dlog sd_s = sum_{j in s} G_j unit_j sd_s z_j.
// Where the data determine a coefficient much better than its prior does, z_j and sd_s
// form a curved ridge (z_j = b_j / sd_s with b_j nearly fixed) that NUTS crosses with
// divergences; such columns are sampled centred instead (Papaspiliopoulos, Roberts and
// Skold 2007), theta_j = b_j unit_j with prior N(0, (sd_s unit_j)^2):
// U_j = theta_j^2 / (2 a_j^2) + log sd_s (a_j = sd_s unit_j), dU/dtheta_j = theta_j / a_j^2,
// dU/dlog sd_s = 1 - theta_j^2 / a_j^2. R chooses the columns (R/smooth-fit.R).
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../base/types.hpp"
#include "../priors.hpp"
#include "layout.hpp"

namespace vhmc {

// The smooths of a GLM: the number of columns of each penalty block, in the order of the
// design's trailing columns, and the prior of every block's standard deviation (a prior of a
// positive parameter, on the data's scale of the linear predictor).
struct SmoothSpec {
  std::vector<Eigen::Index> sizes;
  Prior prior = Prior::exponential(1.0);
  std::vector<bool> centred;  // per column; empty: every column non-centred
  Eigen::Index columns() const {
    Eigen::Index k = 0;
    for (Eigen::Index s : sizes) k += s;
    return k;
  }
  bool empty() const { return sizes.empty(); }
};

class SmoothScales {
 public:
  // z: offset of the smooth block; unit: each column's factor from the data scale to the
  // sampler's. Adds the sd block (`sd_block`: a distributional predictor's smooths have
  // their own, glm/dpars.hpp) to the layout.
  SmoothScales(const SmoothSpec& s, ParameterLayout& layout, Eigen::Index z, Vec unit,
               const std::string& sd_block = "sm:sd")
      : prior_(s.prior), z_(z), unit_(std::move(unit)) {
    validate_aux_prior(s.prior, "prior_smooth");
    for (std::size_t b = 0; b < s.sizes.size(); ++b) {
      if (s.sizes[b] < 1) throw std::invalid_argument("smooths: every penalty block needs a column");
      block_.insert(block_.end(), s.sizes[b], static_cast<Eigen::Index>(b));
    }
    if (static_cast<Eigen::Index>(block_.size()) != unit_.size())
      throw std::invalid_argument("smooths: one unit per smooth column");
    centred_ = s.centred.empty() ? std::vector<bool>(block_.size(), false) : s.centred;
    if (centred_.size() != block_.size()) throw std::invalid_argument("smooths: one centring flag per smooth column");
    sd_ = layout.add(sd_block, "sds", static_cast<Eigen::Index>(s.sizes.size()), Transform::Log);
    n_sd_ = static_cast<Eigen::Index>(s.sizes.size());
    a_.resize(unit_.size());
  }

  Eigen::Index sd_offset() const { return sd_; }
  Eigen::Index size() const { return unit_.size(); }

  // eff = theta with the smooth block's b_j in the sampler's coordinates; keeps each column's
  // a_j = sd unit_j for finish() (one exp per penalty block, not per column).
  void prepare(const Vec& theta, Vec& eff) {
    eff = theta;
    prepare_into(theta, eff);
  }
  // The same without keeping anything (the reported map).
  void effective(const Vec& theta, Vec& eff) const {
    eff = theta;
    effective_into(theta, eff);
  }
  // prepare() and effective() into an eff that another map has made from theta (only this
  // smooth block's coordinates change).
  void prepare_into(const Vec& theta, Vec& eff) {
    column_scales(theta, a_);
    apply_into(theta, a_, eff);
  }
  void effective_into(const Vec& theta, Vec& eff) const {
    Vec a;
    column_scales(theta, a);
    apply_into(theta, a, eff);
  }

  // U of the smooths' parameters (z's standard normal, or a centred column's N(0, a_j^2);
  // each sd's prior with its log Jacobian). With g, whose smooth block holds dU/db at the
  // effective theta on entry: the gradient in theta (the smooth and sd blocks set). Needs
  // prepare(theta).
  double finish(const Vec& theta, Vec* g) const {
    double u = 0.0, d = 0.0;
    for (Eigen::Index s = 0; s < n_sd_; ++s) {
      u += aux_prior_eval(prior_, theta[sd_ + s], g ? &d : nullptr);
      if (g) (*g)[sd_ + s] = d;
    }
    for (Eigen::Index j = 0; j < size(); ++j) {
      const double t = theta[z_ + j], a = a_[j];
      if (centred_[j]) {
        const double r = t / a;
        u += 0.5 * r * r + theta[sd_ + block_[j]];
        if (!g) continue;
        (*g)[z_ + j] += r / a;
        (*g)[sd_ + block_[j]] += 1.0 - r * r;
      } else {
        u += 0.5 * t * t;
        if (!g) continue;
        const double G = (*g)[z_ + j];
        (*g)[z_ + j] = G * a + t;
        (*g)[sd_ + block_[j]] += G * a * t;
      }
    }
    return u;
  }

  // The sd block of out on the reported scale.
  void to_reported(const Vec& theta, Vec& out) const {
    for (Eigen::Index s = 0; s < n_sd_; ++s) out[sd_ + s] = std::exp(theta[sd_ + s]);
  }
  // ... and back: log sd from reported's, and z from the coefficients theta's smooth block
  // holds in the sampler's coordinates.
  void from_reported(const Vec& reported, Vec& theta) const {
    for (Eigen::Index s = 0; s < n_sd_; ++s) theta[sd_ + s] = std::log(reported[sd_ + s]);
    Vec a;
    column_scales(theta, a);
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!centred_[j]) theta[z_ + j] /= a[j];
  }

 private:
  // a_j = sd_s unit_j of every column at theta.
  void column_scales(const Vec& theta, Vec& a) const {
    a.resize(size());
    for (Eigen::Index j = 0, at = 0; at < n_sd_; ++at) {
      const double sd = std::exp(theta[sd_ + at]);
      for (; j < size() && block_[j] == at; ++j) a[j] = sd * unit_[j];
    }
  }
  // eff (= theta on entry, in this block) with each non-centred column's z_j times a_j.
  void apply_into(const Vec& theta, const Vec& a, Vec& eff) const {
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!centred_[j]) eff[z_ + j] = theta[z_ + j] * a[j];
  }

  Prior prior_;
  Eigen::Index z_, sd_ = -1, n_sd_ = 0;
  Vec unit_;
  std::vector<Eigen::Index> block_;  // each column's penalty block
  std::vector<bool> centred_;        // each column sampled centred (theta = b unit) or not (z)
  Vec a_;                            // each column's sd unit_j at the last prepare()
};

}  // namespace vhmc
