#pragma once
// Single-path Pathfinder (Zhang, Carpenter, Gelman & Vehtari 2022, "Pathfinder: parallel
// quasi-Newton variational inference", Algorithm 1): along the L-BFGS path toward the mode,
// each iterate theta_l with its inverse-Hessian estimate Sigma_l defines a Gaussian
//   q_l = N(mu_l, Sigma_l),   mu_l = theta_l - Sigma_l grad U(theta_l)   (a Newton step),
// whose ELBO E_q[-U(phi) - log q(phi)] is estimated from K draws; the q_l with the highest
// estimate is returned. Early iterates (far in the tails) and the mode itself (where the
// Gaussian is often too narrow for skewed targets) both tend to lose to an intermediate
// point inside the bulk, which is what makes the result a good initial point and metric.
// Sigma_l = BFGS updates from the stored pairs of a DIAGONAL initial matrix diag(alpha),
// alpha itself updated with every accepted pair by the diagonal of the BFGS update of
// diag(1/alpha) (Gilbert & Lemarechal 1989, the initialisation Pathfinder uses):
//   1/alpha_i <- 1/alpha_i + y_i^2 / (y's) - (s_i / alpha_i)^2 / (s' diag(1/alpha) s).
// Sigma_l is formed densely and factored (O(d^3) per iterate): meant for d up to a few
// hundred, where it costs less than the K potential evaluations of the ELBO for most models.
#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Cholesky>

#include "../base/rng.hpp"
#include "../base/types.hpp"
#include "lbfgs.hpp"

namespace vhmc {

struct PathfinderOptions {
  int elbo_draws = 5;  // K, the paper's default
  LbfgsOptions lbfgs{};
};

struct PathfinderResult {
  bool ok = false;      // some iterate gave a finite ELBO estimate
  Vec mean;             // mu_l of the chosen Gaussian
  Mat cov, chol;        // Sigma_l and its lower Cholesky factor
  double elbo = -kInf;  // its ELBO estimate
  int iteration = -1;   // l (0 = the initial point, which has no pairs and is never chosen)
  int n_evals = 0;      // U_grad calls, L-BFGS and ELBO draws
  LbfgsResult lbfgs;
  std::string message;
};

namespace detail {

template <class Potential>
class PathfinderScan {
 public:
  PathfinderScan(Potential& pot, Rng& rng, const PathfinderOptions& opt, int d)
      : pot_(pot), rng_(rng), opt_(opt), alpha_(Vec::Ones(d)), z_(d), phi_(d), g_(d) {}

  // The L-BFGS hook: update alpha from the newest step, then score q_l.
  void operator()(const Vec& theta, double, const Vec& grad, const LbfgsHistory& h) {
    ++l_;
    if (prev_theta_.size() > 0) update_alpha(theta - prev_theta_, grad - prev_grad_);
    prev_theta_ = theta;
    prev_grad_ = grad;
    if (h.size() == 0) return;
    const Mat Sigma = h.inverse_hessian_from(alpha_);
    Eigen::LLT<Mat> llt(Sigma);
    if (llt.info() != Eigen::Success) return;
    const Mat L = llt.matrixL();
    const Vec mu = theta - Sigma * grad;
    const double elbo = estimate_elbo(mu, L);
    if (elbo > best_.elbo) {
      best_.elbo = elbo;
      best_.mean = mu;
      best_.cov = Sigma;
      best_.chol = L;
      best_.iteration = l_ - 1;
    }
  }
  PathfinderResult& best() { return best_; }
  int evals() const { return evals_; }

 private:
  void update_alpha(const Vec& s, const Vec& y) {
    if (!(s.dot(y) > 1e-8 * s.norm() * y.norm())) return;  // the pairs L-BFGS keeps
    const Vec b = alpha_.cwiseInverse();
    const double sBs = s.dot(b.cwiseProduct(s)), ys = y.dot(s);
    const Vec b_new = b + y.cwiseAbs2() / ys - (b.cwiseProduct(s)).cwiseAbs2() / sBs;
    if (b_new.allFinite() && (b_new.array() > 0).all()) alpha_ = b_new.cwiseInverse();
  }
  // Mean over K draws phi = mu + L z of -U(phi) - log q(phi); -inf if any U is not finite.
  double estimate_elbo(const Vec& mu, const Mat& L) {
    const double d = static_cast<double>(mu.size());
    const double log_det_half = L.diagonal().array().log().sum();
    double sum = 0.0;
    for (int k = 0; k < opt_.elbo_draws; ++k) {
      for (Eigen::Index i = 0; i < z_.size(); ++i) z_[i] = rng_.normal();
      phi_.noalias() = L * z_;
      phi_ += mu;
      const double u = pot_.U_grad(phi_, g_);
      ++evals_;
      if (!std::isfinite(u)) return -kInf;
      const double log_q = -0.5 * z_.squaredNorm() - log_det_half - 0.5 * d * std::log(2.0 * kPi);
      sum += -u - log_q;
    }
    return sum / opt_.elbo_draws;
  }

  Potential& pot_;
  Rng& rng_;
  PathfinderOptions opt_;
  Vec alpha_, prev_theta_, prev_grad_, z_, phi_, g_;
  int l_ = 0, evals_ = 0;
  PathfinderResult best_;
};

}  // namespace detail

template <class Potential>
PathfinderResult pathfinder(Potential& pot, const Vec& theta0, Rng& rng,
                            const PathfinderOptions& opt = PathfinderOptions()) {
  detail::PathfinderScan<Potential> scan(pot, rng, opt, static_cast<int>(theta0.size()));
  auto hook = [&scan](const Vec& t, double u, const Vec& g, const LbfgsHistory& h) {
    scan(t, u, g, h);
  };
  LbfgsResult lb = lbfgs_minimize(pot, theta0, opt.lbfgs, hook);
  PathfinderResult r = std::move(scan.best());
  r.n_evals = lb.n_evals + scan.evals();
  r.ok = std::isfinite(r.elbo);
  r.message = r.ok ? "L-BFGS: " + lb.message
                   : "no iterate gave a finite ELBO estimate (L-BFGS: " + lb.message + ")";
  r.lbfgs = std::move(lb);
  return r;
}

}  // namespace vhmc
