#pragma once
// A group-level term of the GLM potential, lme4's (x | g): for each of J levels of the
// grouping factor, p effects b_j (the columns left of the bar), adding Z_i' b_{g_i} to the
// linear predictor of row i. The term stores the rows' levels and the columns left of the
// bar (never a dense N x Jp matrix Z), and its parameters are three blocks of the layout:
//   effects  J p values, level by level: b itself (centred) or z with b_j = D L z_j
//            (non-centred), where D = diag(tau) and L L' = Omega (glm/covariance.hpp);
//   sd       the standard deviations' parameters (decov: log s and a simplex; lkj: log tau);
//   cor      p(p-1)/2 canonical partial correlations on the tanh scale (p > 1).
// Prior of the effects: b_j ~ N(0, D Omega D), i.e. z_j ~ N(0, I) non-centred. Which form
// samples better depends on how informative the data are about each b_j against the prior
// (Papaspiliopoulos, Roberts and Skold 2007); R chooses it per term.
// U of the term = -log p(effects | covariance) - lp(covariance parameters); its gradient
// comes from r = d loglik / d eta through the per-level sums G_j = sum_{i in j} r_i Z_i, and
// through tau and L to the covariance parameters by forward-mode derivatives (base/dual.hpp).
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../base/dual.hpp"
#include "../../base/types.hpp"
#include "covariance.hpp"
#include "layout.hpp"

namespace vhmc {

struct GroupTermData {
  std::string name;              // the term's label, e.g. "(1 + x | g)"
  Eigen::Index levels = 0, p = 1, n = 0;
  const int* group = nullptr;    // n levels, 0-based
  const double* Z = nullptr;     // n x p column-major; nullptr: p = 1 and a column of ones
  bool centred = false;
  bool marginal = false;         // effects integrated out (glm/marginal_gaussian.hpp)
  int dpar = -1;                 // the linear predictor's term (-1), or that of the family's
                                 // aux parameter dpar (glm/dpars.hpp)
  CovPrior prior;
};

class GroupTerm {
 public:
  // aux: offset of log sigma when the prior is relative to sigma (decov, gaussian), else -1.
  GroupTerm(const GroupTermData& d, ParameterLayout& layout, Eigen::Index aux) : d_(d), aux_(aux) {
    if (d.p < 1 || d.levels < 1 || !d.group || (!d.Z && d.p != 1))
      throw std::invalid_argument("a group-level term needs levels, rows and p columns");
    const Eigen::Index m = sd_params(d.prior, d.p) + cor_params(d.p) + (aux >= 0 ? 1 : 0);
    if (m > kMaxPartials) throw std::invalid_argument("a group-level term has at most 10 varying effects");
    if (!d.marginal) eff_ = layout.add("b:" + d.name, d.centred ? "centred" : "noncentred", d.levels * d.p);
    sd_ = layout.add("sd:" + d.name, d.prior.kind == CovPriorKind::Decov ? "decov" : "lkj", d.p, Transform::Log);
    cor_ = layout.add("cor:" + d.name, "cpc", cor_params(d.p));
    tau_.resize(d.p);
    L_.setZero(d.p, d.p);
  }

  const GroupTermData& data() const { return d_; }
  // tau and L at theta (values only), and the effects b = D L z or b (p x J).
  void effects_at(const Vec& theta, Vec& tau, Mat& L, Mat& b) const {
    const Eigen::Index p = d_.p;
    const TermCovariance<double> c = covariance_at<double>(theta, false);
    tau = Eigen::Map<const Vec>(c.tau.data(), p);
    L = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(c.L.data(), p, p);
    if (d_.marginal) return;
    const Eigen::Map<const Mat> e(theta.data() + eff_, p, d_.levels);
    if (d_.centred) {
      b = e;
    } else {
      b = tau.asDiagonal() * (L.triangularView<Eigen::Lower>() * e);
    }
  }
  Eigen::Index sd_offset() const { return sd_; }
  Eigen::Index effects_offset() const { return eff_; }
  const Vec& tau() const { return tau_; }
  const Mat& L() const { return L_; }

  // The covariance (with its derivatives when grad) and the effects b at theta.
  void prepare(const Vec& theta, bool grad) {
    const Eigen::Index p = d_.p, J = d_.levels;
    grad_ = grad;
    if (grad) {
      dcov_ = covariance_at<Dual>(theta, true);
      lp_ = dcov_.lp.v;
      for (Eigen::Index k = 0; k < p; ++k) tau_[k] = dcov_.tau[k].v;
      for (Eigen::Index k = 0; k < p * p; ++k) L_(k / p, k % p) = dcov_.L[k].v;
    } else {
      const TermCovariance<double> c = covariance_at<double>(theta, false);
      lp_ = c.lp;
      for (Eigen::Index k = 0; k < p; ++k) tau_[k] = c.tau[k];
      for (Eigen::Index k = 0; k < p * p; ++k) L_(k / p, k % p) = c.L[k];
    }
    if (d_.marginal) return;
    const Eigen::Map<const Mat> e(theta.data() + eff_, p, J);
    if (d_.centred) {
      b_ = e;
    } else {
      b_.noalias() = L_.triangularView<Eigen::Lower>() * e;
      b_ = tau_.asDiagonal() * b_;
    }
  }

  // Whether the term belongs to the linear predictor (else to a distributional one).
  bool of_mean() const { return d_.dpar < 0; }
  // eta_i += Z_i' b_{g_i}; needs prepare().
  void add_eta(Vec& eta) const {
    for (Eigen::Index i = 0; i < d_.n; ++i) add_row_effect(i, eta[i]);
  }
  // The same for the m rows idx of a minibatch: eta[k] += Z_i' b_{g_i}, i = idx[k].
  void add_eta_rows(const int* idx, Eigen::Index m, Vec& eta) const {
    for (Eigen::Index k = 0; k < m; ++k) add_row_effect(idx[k], eta[k]);
  }
  // effects_gradient() from a minibatch (glm/minibatch_rows.hpp): f sum_k r[k] Z_i over the
  // level of each row i = idx[k], f = N / m, unbiased for the rows' sum G (each level's
  // likelihood terms scaled like every other coordinate's; Welling & Teh 2011, eq. 1).
  void scatter_rows(const int* idx, Eigen::Index m, const Vec& r, double f) {
    G_.setZero(d_.p, d_.levels);
    for (Eigen::Index k = 0; k < m; ++k) add_row_gradient(idx[k], f * r[k]);
  }

  // The effects b (p x J) at the last prepare().
  const Mat& effects() const { return b_; }
  // d loglik / db (p x J), for a likelihood that computes it without the rows' r
  // (glm/gaussian_cells.hpp) before finish(theta, nullptr, g).
  Mat& effects_gradient() { return G_; }

  // U of the term's priors; with g, adds the gradient of U and of -loglik in the term's
  // parameters to g, the latter from r = d loglik / d eta or, with r null, from
  // effects_gradient(). Needs prepare() (with grad when g).
  double finish(const Vec& theta, const Vec* r, Vec* g);

  // For a term whose effects are integrated out: -lp of the covariance parameters, and
  // dU/dtau, dU/dL carried to the parameters in g (after prepare() with derivatives).
  double covariance_prior() const { return -lp_; }
  void add_covariance_gradient(const Vec& dtau, const Mat& dL, Vec& g) const { chain_to_parameters(dtau, dL, g); }

 private:
  template <class T>
  TermCovariance<T> covariance_at(const Vec& theta, bool dual) const;
  // Row i's Z_i' b_{g_i} added to e; r Z_i added to G's column g_i.
  void add_row_effect(Eigen::Index i, double& e) const {
    const Eigen::Index j = d_.group[i];
    if (!d_.Z) {
      e += b_(0, j);
    } else {
      for (Eigen::Index c = 0; c < d_.p; ++c) e += d_.Z[i + c * d_.n] * b_(c, j);
    }
  }
  void add_row_gradient(Eigen::Index i, double r) {
    const Eigen::Index j = d_.group[i];
    if (!d_.Z) {
      G_(0, j) += r;
    } else {
      for (Eigen::Index c = 0; c < d_.p; ++c) G_(c, j) += r * d_.Z[i + c * d_.n];
    }
  }
  void scatter(const Vec& r);
  double centred_prior(Mat* db, Vec* dtau, Mat* dL);
  void chain_to_parameters(const Vec& dtau, const Mat& dL, Vec& g) const;

  GroupTermData d_;
  Eigen::Index aux_, eff_ = -1, sd_ = -1, cor_ = -1;
  bool grad_ = false;
  double lp_ = 0.0;
  TermCovariance<Dual> dcov_;
  Vec tau_;
  Mat L_, b_, G_;  // L: p x p; b, G: p x J (level j in column j)
  // p x J scratch of a gradient (finish(), centred_prior()): allocated once, since a
  // gradient's temporaries of a hundred thousand levels were 800 KB each, several per
  // leapfrog step.
  std::array<Mat, 4> work_;
};

// The term's covariance from theta: with dual, each parameter (sd, cor, then log sigma when
// relative to it) an input of the forward-mode derivatives.
template <class T>
TermCovariance<T> GroupTerm::covariance_at(const Vec& theta, bool dual) const {
  const Eigen::Index p = d_.p, ns = sd_params(d_.prior, p), nc = cor_params(p);
  const Eigen::Index m = ns + nc + (aux_ >= 0 ? 1 : 0);
  auto input = [&](Eigen::Index idx, Eigen::Index k) {
    if constexpr (std::is_same_v<T, Dual>) {
      return dual ? Dual::input(theta[idx], k, m) : Dual(theta[idx], m);
    } else {
      return theta[idx];
    }
  };
  std::vector<T> u, w;
  for (Eigen::Index k = 0; k < ns; ++k) u.push_back(input(sd_ + k, k));
  for (Eigen::Index k = 0; k < nc; ++k) w.push_back(input(cor_ + k, ns + k));
  T log_disp{};
  if (aux_ >= 0) {
    log_disp = input(aux_, ns + nc);
  } else if constexpr (std::is_same_v<T, Dual>) {
    log_disp = Dual(0.0, m);
  } else {
    log_disp = 0.0;
  }
  return term_covariance<T>(d_.prior, p, u.data(), w.data(), log_disp);
}

// G = dloglik/db: G_j = sum_{i in level j} r_i Z_i.
inline void GroupTerm::scatter(const Vec& r) {
  G_.setZero(d_.p, d_.levels);
  for (Eigen::Index i = 0; i < d_.n; ++i) add_row_gradient(i, r[i]);
}

// -log N(b_j | 0, D L L' D) summed over levels (constants dropped): with W = D^-1 b and
// Q = L^-1 W, 1/2 |Q|^2 + J (sum log tau + sum log L_kk). Its derivatives: in b,
// D^-1 L^-T Q; in L, -L^-T Q Q' + J diag(1/L_kk); in tau_k, -sum_j (L^-T Q)_kj W_kj / tau_k +
// J / tau_k.
inline double GroupTerm::centred_prior(Mat* db, Vec* dtau, Mat* dL) {
  const Eigen::Index p = d_.p, J = d_.levels;
  Mat& W = work_[0];
  Mat& Q = work_[1];
  W.noalias() = tau_.cwiseInverse().asDiagonal() * b_;
  Q = W;
  L_.triangularView<Eigen::Lower>().solveInPlace(Q);
  const double logdet = tau_.array().log().sum() + L_.diagonal().array().log().sum();
  const double u = 0.5 * Q.squaredNorm() + static_cast<double>(J) * logdet;
  if (!db) return u;
  Mat& LtQ = work_[2];
  LtQ = Q;
  L_.triangularView<Eigen::Lower>().transpose().solveInPlace(LtQ);
  db->noalias() = tau_.cwiseInverse().asDiagonal() * LtQ;
  *dL = -L_.triangularView<Eigen::Lower>().transpose().solve(Q * Q.transpose());
  dL->diagonal() += static_cast<double>(J) * L_.diagonal().cwiseInverse();
  *dtau = Vec::Zero(p);
  for (Eigen::Index k = 0; k < p; ++k) {
    (*dtau)[k] = (-(LtQ.row(k).cwiseProduct(W.row(k))).sum() + static_cast<double>(J)) / tau_[k];
  }
  return u;
}

// g's sd, cor (and log sigma) entries += dU/dtau . dtau/dparams + dU/dL . dL/dparams - dlp.
inline void GroupTerm::chain_to_parameters(const Vec& dtau, const Mat& dL, Vec& g) const {
  const Eigen::Index p = d_.p, ns = sd_params(d_.prior, p), nc = cor_params(p);
  Partials total = -dcov_.lp.d;
  for (Eigen::Index k = 0; k < p; ++k) total += dtau[k] * dcov_.tau[k].d;
  for (Eigen::Index k = 1; k < p; ++k)
    for (Eigen::Index l = 0; l <= k; ++l) total += dL(k, l) * dcov_.L[k * p + l].d;
  for (Eigen::Index k = 0; k < ns; ++k) g[sd_ + k] += total[k];
  for (Eigen::Index k = 0; k < nc; ++k) g[cor_ + k] += total[ns + k];
  if (aux_ >= 0) g[aux_] += total[ns + nc];
}

inline double GroupTerm::finish(const Vec& theta, const Vec* r, Vec* g) {
  const Eigen::Index p = d_.p, J = d_.levels;
  const Eigen::Map<const Mat> e(theta.data() + eff_, p, J);
  if (!g) return -lp_ + (d_.centred ? centred_prior(nullptr, nullptr, nullptr) : 0.5 * e.squaredNorm());
  if (!grad_) throw std::logic_error("GroupTerm::finish: prepare() without derivatives");
  if (r) scatter(*r);
  Eigen::Map<Mat> ge(g->data() + eff_, p, J);
  Vec dtau;
  Mat dL;
  double u;
  if (d_.centred) {
    Mat& db = work_[3];
    u = centred_prior(&db, &dtau, &dL);
    ge = db - G_;
  } else {
    u = 0.5 * e.squaredNorm();
    Mat& DG = work_[0];
    Mat& LtDG = work_[1];
    Mat& Lz = work_[2];
    DG.noalias() = tau_.asDiagonal() * G_;
    LtDG.noalias() = L_.triangularView<Eigen::Lower>().transpose() * DG;
    ge = e - LtDG;
    Lz.noalias() = L_.triangularView<Eigen::Lower>() * e;
    dtau = -(G_.cwiseProduct(Lz)).rowwise().sum();
    dL = -DG * e.transpose();
  }
  chain_to_parameters(dtau, dL, *g);
  return u - lp_;
}

}  // namespace vhmc
