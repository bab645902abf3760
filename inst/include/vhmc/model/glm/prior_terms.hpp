#pragma once
// The priors of the GLM potential as a list of terms over parameter blocks, summed in the
// order they were added:
//   location terms: a coefficient prior (model/priors.hpp) on the block's values on the data's
//     scale, v = theta_block / scale (scale: the predictors' spreads of the sampler's
//     coordinates, or none), with the chain rule dU/dtheta = dU/dv / scale;
//   aux terms: the prior of a family's auxiliary parameter in its unconstrained coordinates
//     (glm/aux_transforms.hpp), with the Jacobian: a positive x = exp(t) or lower + exp(t), a
//     probability x = logistic(t), or ordered cutpoints (a location prior on each).
// Terms whose scale is another block's value (group-level standard deviations) join this
// list as further kinds.
#include <vector>

#include "../../base/types.hpp"
#include "../priors.hpp"
#include "aux_transforms.hpp"

namespace vhmc {

class PriorTerms {
 public:
  void add_location(const Prior& p, Eigen::Index offset, Eigen::Index size, const Eigen::Ref<const Vec>* scale) {
    if (size > 0) terms_.push_back({Kind::Location, p, offset, size, scale ? Vec(*scale) : Vec(), Vec(), Vec()});
  }
  // The prior of an aux block (offset < 0: none) with its transform.
  void add_aux(const Prior& p, Eigen::Index offset, Eigen::Index size, Transform tr, double lower) {
    if (offset < 0) return;
    Term t{Kind::Aux, p, offset, size, Vec(), Vec(), Vec()};
    t.transform = tr;
    t.lower = lower;
    terms_.push_back(t);
  }

  // U of the priors; with g, adds dU/dtheta to it.
  double eval(const Vec& theta, Vec* g) {
    double u = 0.0;
    for (Term& t : terms_) u += t.kind == Kind::Location ? location(t, theta, g) : aux(t, theta, g);
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
      if (t.kind == Kind::Aux) aux_hessian(t, theta, H);
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
  enum class Kind { Location, Aux };
  struct Term {
    Kind kind;
    Prior prior;
    Eigen::Index offset, size;
    Vec scale, v, grad;  // v, grad: per-evaluation buffers
    Transform transform = Transform::Log;
    double lower = 0.0;
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
  static double aux(Term& t, const Vec& theta, Vec* g) {
    if (t.transform == Transform::Ordered) return cutpoints(t, theta, g);
    const double x = theta[t.offset];
    double da = 0.0;
    double u;
    if (t.transform == Transform::Logit) {
      u = probability_prior_eval(t.prior, x, g ? &da : nullptr);
    } else if (t.lower != 0.0) {
      u = shifted_prior_eval(t.prior, x, t.lower, g ? &da : nullptr);
    } else {
      if (!g) return aux_prior_value(t.prior, x);
      u = aux_prior_value_grad(t.prior, x, da);
    }
    if (g) (*g)[t.offset] += da;
    return u;
  }
  static void aux_hessian(Term& t, const Vec& theta, Mat& H) {
    const double x = theta[t.offset];
    double h = 0.0;
    if (t.transform == Transform::Ordered) {
      H.block(t.offset, t.offset, t.size, t.size) += cutpoints_hessian(t, theta);
      return;
    }
    if (t.transform == Transform::Logit) {
      probability_prior_eval(t.prior, x, nullptr, &h);
    } else if (t.lower != 0.0) {
      shifted_prior_eval(t.prior, x, t.lower, nullptr, &h);
    } else {
      h = aux_prior_hessian(t.prior, x);
    }
    H(t.offset, t.offset) += h;
  }
  // Ordered cutpoints c(t): the location prior on each c_j, less the log Jacobian sum_{m>=2} t_m.
  static double cutpoints(Term& t, const Vec& theta, Vec* g) {
    const double* tt = theta.data() + t.offset;
    Vec s;
    ordered::values(tt, t.size, t.v, s);
    double u = -theta.segment(t.offset + 1, t.size - 1).sum();
    if (!g) return u + prior_value(t.prior, t.v);
    t.grad.setZero(t.size);
    u += prior_value_add_grad(t.prior, t.v, t.grad);
    Vec dt(t.size);
    ordered::gradient(s, t.grad.data(), dt.data());
    dt.tail(t.size - 1).array() -= 1.0;
    g->segment(t.offset, t.size) += dt;
    return u;
  }
  static Mat cutpoints_hessian(Term& t, const Vec& theta) {
    Vec s, hc = Vec::Zero(t.size);
    ordered::values(theta.data() + t.offset, t.size, t.v, s);
    t.grad.setZero(t.size);
    prior_value_add_grad(t.prior, t.v, t.grad);
    prior_add_hessian_diag(t.prior, t.v, hc);
    return ordered::hessian(s, t.grad, Mat(hc.asDiagonal()));
  }

  std::vector<Term> terms_;
};

}  // namespace vhmc
