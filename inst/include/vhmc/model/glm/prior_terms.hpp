#pragma once
// The priors of the GLM potential as a list of terms over parameter blocks, summed in the
// order they were added:
//   location terms: a coefficient prior (model/priors.hpp) on the block's values on the data's
//     scale, v = theta_block / scale (scale: the predictors' spreads of the sampler's
//     coordinates, or none), with the chain rule dU/dtheta = dU/dv / scale;
//   log-positive terms: the prior of a positive parameter x sampled as t = log x, with the
//     Jacobian (the family's auxiliary parameter).
// Terms whose scale is another block's value (group-level standard deviations) join this
// list as further kinds.
#include <vector>

#include "../../base/types.hpp"
#include "../priors.hpp"

namespace vhmc {

class PriorTerms {
 public:
  void add_location(const Prior& p, Eigen::Index offset, Eigen::Index size, const Eigen::Ref<const Vec>* scale) {
    if (size > 0) terms_.push_back({Kind::Location, p, offset, size, scale ? Vec(*scale) : Vec(), Vec(), Vec()});
  }
  void add_log_positive(const Prior& p, Eigen::Index offset) {
    if (offset >= 0) terms_.push_back({Kind::LogPositive, p, offset, 1, Vec(), Vec(), Vec()});
  }

  // U of the priors; with g, adds dU/dtheta to it.
  double eval(const Vec& theta, Vec* g) {
    double u = 0.0;
    for (Term& t : terms_) u += t.kind == Kind::Location ? location(t, theta, g) : log_positive(t, theta, g);
    return u;
  }

  // Adds the priors' Hessian to H (diagonal: the terms are independent per coordinate).
  void add_hessian(const Vec& theta, Mat& H) {
    Vec hd = Vec::Zero(H.rows());
    for (Term& t : terms_) {
      if (t.kind != Kind::Location) continue;
      values(t, theta);
      prior_add_hessian_diag(t.prior, t.v, hd.segment(t.offset, t.size));
      if (t.scale.size()) hd.segment(t.offset, t.size).array() /= t.scale.array().square();
    }
    H.diagonal() += hd;
    for (Term& t : terms_)
      if (t.kind == Kind::LogPositive) H(t.offset, t.offset) += aux_prior_hessian(t.prior, theta[t.offset]);
  }

  // The location terms' Fisher information (a diagonal of size d), for rmhmc's metric.
  Vec fisher_diag(Eigen::Index d) const {
    Vec h = Vec::Zero(d);
    for (const Term& t : terms_) {
      if (t.kind != Kind::Location) continue;
      prior_add_fisher_diag(t.prior, t.size, h.segment(t.offset, t.size));
      if (t.scale.size()) h.segment(t.offset, t.size).array() /= t.scale.array().square();
    }
    return h;
  }

 private:
  enum class Kind { Location, LogPositive };
  struct Term {
    Kind kind;
    Prior prior;
    Eigen::Index offset, size;
    Vec scale, v, grad;  // v, grad: per-evaluation buffers
  };

  static void values(Term& t, const Vec& theta) {
    if (t.scale.size()) {
      t.v = theta.segment(t.offset, t.size).cwiseQuotient(t.scale);
    } else {
      t.v = theta.segment(t.offset, t.size);
    }
  }
  static double location(Term& t, const Vec& theta, Vec* g) {
    values(t, theta);
    if (!g) return prior_value(t.prior, t.v);
    t.grad.setZero(t.size);
    const double u = prior_value_add_grad(t.prior, t.v, t.grad);
    if (t.scale.size()) t.grad.array() /= t.scale.array();
    g->segment(t.offset, t.size) += t.grad;
    return u;
  }
  static double log_positive(const Term& t, const Vec& theta, Vec* g) {
    if (!g) return aux_prior_value(t.prior, theta[t.offset]);
    double da = 0.0;
    const double u = aux_prior_value_grad(t.prior, theta[t.offset], da);
    (*g)[t.offset] += da;
    return u;
  }

  std::vector<Term> terms_;
};

}  // namespace vhmc
