#pragma once
// The No-U-Turn sampler as Stan implements it (Hoffman & Gelman 2014; Betancourt
// 2017): trajectories doubled in random directions, multinomial sampling of the state
// (biased progressive sampling between the old trajectory and a new subtree, uniform within
// subtrees), the generalized U-turn criterion on p# = W p with the two extra checks across
// subtree boundaries of Stan >= 2.26, max tree depth, and divergence when H - H0 > 1000.
// All buffers live in a per-depth workspace; a depth's buffers are allocated the first time a
// trajectory reaches it (Eigen sizes them at their first assignment), after which a transition
// allocates nothing. Why not all at once: a depth holds 15 vectors of d doubles (12 MB at
// d = 100,000, a multilevel model of as many levels), and most trees never reach the deepest.
#include <vector>

#include "../base/fields.hpp"
#include "../integrator/hamiltonian.hpp"
#include "transition.hpp"

namespace vhmc {

struct NutsConfig {
  int max_depth = 10;
  double max_delta_H = 1000.0;
  static auto fields() {
    return std::make_tuple(field("max_treedepth", &NutsConfig::max_depth),
                           field("max_delta_H", &NutsConfig::max_delta_H));
  }
};

template <class T, class M>
class Nuts {
 public:
  using Metric = M;
  static constexpr unsigned kColumns = kHmcColumns | kTreedepth;
  Nuts(Hamiltonian<T, M>& ham, const NutsConfig& cfg) : ham_(ham), cfg_(cfg) {
    const int d = ham.dim();
    ws_.resize(cfg.max_depth + 1);  // sized at first use
    left_ = right_ = sample_ = prop_ = PhasePoint(d);
    top_ = Edges(d);
    rho_ = old_inner_p_ = old_inner_v_ = tmp_ = Vec::Zero(d);
  }

  double& step_size() { return eps_; }
  double step_size() const { return eps_; }
  Hamiltonian<T, M>& hamiltonian() { return ham_; }

  TransitionInfo transition(PhasePoint& z, Rng& rng) {
    ham_.sample_momentum(z, rng);
    H0_ = z.H();
    left_ = z;
    right_ = z;
    sample_ = z;
    rho_ = z.p;
    double logw = 0.0;
    int depth = 0;
    n_leapfrog_ = 0;
    sum_accept_ = 0.0;
    divergent_ = false;

    while (depth < cfg_.max_depth) {
      const int dir = rng.uniform() > 0.5 ? 1 : -1;
      PhasePoint& edge = dir > 0 ? right_ : left_;
      const PhasePoint& far = dir > 0 ? left_ : right_;
      old_inner_p_ = edge.p;
      old_inner_v_ = edge.v;
      double logw_new = -kInf;
      const bool valid = build_tree(depth, edge, prop_, top_, logw_new, dir * eps_, rng);
      if (!valid) break;
      ++depth;
      if (logw_new > logw) {
        sample_ = prop_;
      } else if (rng.uniform() < std::exp(logw_new - logw)) {
        sample_ = prop_;
      }
      logw = log_sum_exp(logw, logw_new);
      // Old trajectory O (its far edge and the edge the new subtree N grew from) against N.
      tmp_ = rho_ + top_.p_beg;
      bool ok = u_turn_free(far.v, top_.v_beg, tmp_);
      tmp_ = old_inner_p_ + top_.rho;
      ok = ok && u_turn_free(old_inner_v_, top_.v_end, tmp_);
      rho_ += top_.rho;
      ok = ok && u_turn_free(far.v, top_.v_end, rho_);
      if (!ok) break;
    }

    z = sample_;
    TransitionInfo info;
    info.step_size = eps_;
    info.n_leapfrog = n_leapfrog_;
    info.treedepth = depth;
    info.divergent = divergent_;
    info.accept_stat = n_leapfrog_ > 0 ? sum_accept_ / n_leapfrog_ : 0.0;
    info.energy = z.H();
    return info;
  }

 private:
  // Edges of a subtree in integration order and the sum of its momenta.
  struct Edges {
    Vec p_beg, v_beg, p_end, v_end, rho;
    Edges() = default;
    explicit Edges(int d)
        : p_beg(Vec::Zero(d)), v_beg(Vec::Zero(d)), p_end(Vec::Zero(d)), v_end(Vec::Zero(d)),
          rho(Vec::Zero(d)) {}
  };
  // Buffers owned by one recursion depth: the outer half's edges and proposal (9 vectors of
  // d doubles). The inner half writes its edges straight into the caller's, whose begin
  // they already are, so a level holds no copy of them: at a hundred thousand parameters
  // each depth reached costs 7 MB, not 12. A level starts empty: a subtree writes its edges
  // and proposal whole before any of them is read.
  struct Level {
    Edges outer;
    PhasePoint prop_outer;
  };

  static bool u_turn_free(const Vec& v_a, const Vec& v_b, const Vec& rho) {
    return v_a.dot(rho) > 0 && v_b.dot(rho) > 0;
  }

  // Builds 2^depth states from z (advanced in place) with signed step h. Writes the subtree's
  // proposal, edges and log weight; returns false on a U-turn inside it or a divergence.
  bool build_tree(int depth, PhasePoint& z, PhasePoint& prop, Edges& out, double& logw,
                  double h, Rng& rng) {
    if (depth == 0) {
      const bool finite = ham_.leapfrog(z, h);
      ++n_leapfrog_;
      const double H = finite ? z.H() : kInf;
      if (H - H0_ > cfg_.max_delta_H) divergent_ = true;
      logw = H0_ - H;
      sum_accept_ += H0_ - H > 0 ? 1.0 : std::exp(H0_ - H);
      prop = z;
      out.p_beg = z.p;
      out.v_beg = z.v;
      out.p_end = z.p;
      out.v_end = z.v;
      out.rho = z.p;
      return !divergent_;
    }
    Level& L = ws_[depth];
    double logw_inner = -kInf, logw_outer = -kInf;
    Edges& inner = out;  // until the outer half's end replaces its end below
    if (!build_tree(depth - 1, z, prop, inner, logw_inner, h, rng)) return false;
    if (!build_tree(depth - 1, z, L.prop_outer, L.outer, logw_outer, h, rng)) return false;
    logw = log_sum_exp(logw_inner, logw_outer);
    if (logw_outer > logw) {
      prop = L.prop_outer;
    } else if (rng.uniform() < std::exp(logw_outer - logw)) {
      prop = L.prop_outer;
    }
    // The sums are those of separate inner and outer buffers, in the same order (the draws
    // do not change): the inner half's rho is read before the subtree's sum replaces it, and
    // its end before the outer half's end does. tmp_ is free while a tree is built.
    tmp_ = inner.rho + L.outer.p_beg;
    out.rho += L.outer.rho;
    bool ok = u_turn_free(out.v_beg, L.outer.v_end, out.rho);
    ok = ok && u_turn_free(out.v_beg, L.outer.v_beg, tmp_);
    if (ok) {
      tmp_ = out.p_end + L.outer.rho;
      ok = u_turn_free(out.v_end, L.outer.v_end, tmp_);
    }
    out.p_end = L.outer.p_end;
    out.v_end = L.outer.v_end;
    return ok;
  }

  Hamiltonian<T, M>& ham_;
  NutsConfig cfg_;
  double eps_ = 1.0;
  std::vector<Level> ws_;
  PhasePoint left_, right_, sample_, prop_;
  Edges top_;
  Vec rho_, old_inner_p_, old_inner_v_, tmp_;
  double H0_ = 0.0;
  int n_leapfrog_ = 0;
  double sum_accept_ = 0.0;
  bool divergent_ = false;
};

}  // namespace vhmc
