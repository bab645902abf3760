#pragma once
// Trainers of the output weights v of a RandomBasisNetwork (Zhang, Shahbaba & Zhao 2017,
// 2018):
//  - RidgeTrainer: batch ridge regression on potential values (an extreme learning machine,
//    Huang et al. 2006; Zhang et al. 2017, Algorithm 2) and/or on gradients (score matching,
//    Hyvarinen 2005; Zhang et al. 2018, eq. 3.19), by normal equations accumulated in blocks;
//  - OnlineRidge: the exact recursive ridge updates from a batch state: ridge RLS for a value
//    (recursive least squares) and the Woodbury rank-d update for a gradient (Zhang et al.
//    2018, Proposition 2).
// Gradient rows are fitted in standardized coordinates (vhmc's default): A_u(u_n) v ~ L' gradU(theta_n).
//
// Why normal equations, accumulated in blocks, solved by Cholesky. The target size is s = 2000
// bases, d = 50 and N of tens of thousands of points on a 2-core, 24 GB machine.
//  * Memory. The stacked gradient design matrix is (N d) x s: 20000 x 50 x 2000 doubles = 16 GB,
//    and even the value design matrix H (N x s) is 320 MB. QR (or an SVD) needs the whole
//    matrix, or a streaming Householder/TSQR update at ~2x the flops. The Gram matrix G = A'A
//    and A'B need O(s^2) = 32 MB whatever N is, and are accumulated block by block (512 points),
//    so nothing of size N is ever held.
//  * Time. Each block adds S S' by a symmetric rank-k update (selfadjointView::rankUpdate,
//    BLAS-3 SYRK speed, lower triangle only). For additive nodes the gradient Gram has a
//    Hadamard form: A(u)'A(u) = D P D with P = W_hat W_hat' and D = diag(sigma'(a(u))), so
//    sum_n A_n'A_n = P o (S'S), S the N x s matrix of rows sigma'(a_n) -- cost N s^2 / 2 flops
//    pairs instead of N d s^2 / 2 for the generic stacked form (50x fewer at d = 50). The
//    right-hand side is sum_n A_n' L'g_n = rowsums((W_hat G_u) o S) per block. RBF nodes (not
//    of that form) use the generic path: blocks of A_n stacked into (B d) x s and rank-updated.
//    The s x s solve is s^3/3 flops (~3e9 at s = 2000), once.
//  * Accuracy. Normal equations square the condition number, which is what QR avoids. Here
//    the bases are drawn in standardized coordinates, so every pre-activation spreads by about
//    one over the training points and the columns of A are far from collinear, and the ridge
//    lambda bounds cond(G + lambda I) <= (||G|| + lambda)/lambda; with lambda = 1e-3 (gradients)
//    or 1e-6 tr(G)/s (values) Cholesky loses at most ~6-10 digits of 16, while the
//    surrogate only needs a few. A failed Cholesky multiplies lambda by
//    10 and tries again, and the lambda used is returned. Raw-coordinate bases with tiny lambda
//    (paper mode) are the case where QR of [H; sqrt(lambda) I] would be worth its cost; it is
//    not implemented here.
// Non-finite training rows (a gradient evaluated in a divergent region) are skipped and counted.
#include <cmath>
#include <stdexcept>

#include "../base/types.hpp"
#include "network.hpp"

namespace vhmc {

namespace detail {

// Cholesky of G + lambda I (lower triangle of G read), multiplying lambda by 10 until it
// succeeds (at most 40 times). lambda <= 0 that fails restarts from 1e-12 x mean(diag G).
// Returns the lambda used.
inline double ridge_factor(const Mat& G, double lambda, Eigen::LLT<Mat>& llt) {
  const Eigen::Index s = G.rows();
  if (!(lambda >= 0) || !std::isfinite(lambda))
    throw std::invalid_argument("ridge: lambda must be a finite number >= 0");
  if (!G.allFinite()) throw std::runtime_error("ridge: non-finite Gram matrix");
  for (int k = 0; k <= 40; ++k) {
    llt.compute(G + lambda * Mat::Identity(s, s));
    if (llt.info() == Eigen::Success) return lambda;
    if (lambda > 0) {
      lambda *= 10.0;
    } else {
      lambda = 1e-12 * std::fmax(G.diagonal().cwiseAbs().mean(), 1e-300);
    }
  }
  throw std::runtime_error("ridge: Cholesky failed even after increasing lambda 40 times");
}

// Mirror the lower triangle into the upper one.
inline void mirror_lower(Mat& G) {
  for (Eigen::Index j = 1; j < G.cols(); ++j)
    for (Eigen::Index i = 0; i < j; ++i) G(i, j) = G(j, i);
}

// Rows of (X, Y) with all entries finite, or nothing if every row is finite.
template <class MY>
inline bool finite_rows(const Mat& X, const MY& Y, Mat& Xf, MY& Yf) {
  Eigen::Index bad = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    if (!X.row(i).allFinite() || !Y.row(i).allFinite()) ++bad;
  if (bad == 0) return false;
  Xf.resize(X.rows() - bad, X.cols());
  Yf.resize(X.rows() - bad, Y.cols());
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    if (X.row(i).allFinite() && Y.row(i).allFinite()) {
      Xf.row(k) = X.row(i);
      Yf.row(k) = Y.row(i);
      ++k;
    }
  return true;
}

}  // namespace detail

// Quadratic base of a gradient-trained surrogate (network.hpp set_quadratic): least squares
// of the u-space gradients on [u, 1], g_u ~ Q u + b, then Q symmetrised (the gradient of
// u'Qu/2 + b'u). O(n d^2) by normal equations of size d + 1, with a ridge of 1e-10 times
// their mean diagonal against an exactly collinear set of points. The network is then fitted
// to the residual gradients, so that it only carries the non-quadratic part of U.
// With a prior quadratic `about` (the mode Hessian's) and shrink > 0, the fit is shrunk
// toward it: least squares of the gradients less the prior's, with a ridge of shrink times
// the mean diagonal of U'U on Q - Q_prior (b free). The states of a short exploration lie
// along a few dozen trajectories and determine some of Q's d (d + 1) / 2 coefficients
// poorly; the mode's curvature fills those in, the states correct the rest (on a
// multilevel logistic model, N = 1e6, the mode Hessian overstated the curvature of two
// directions of the group sd and the effects' mean 5 to 8 times over the Gaussian's region).
struct QuadraticPrior {
  const Mat* Q = nullptr;
  const Vec* b = nullptr;
  double shrink = 0.0;
};

inline void fit_quadratic_gradients(const Standardizer& st, const Mat& thetas, const Mat& grads,
                                    Mat& Q, Vec& b, const QuadraticPrior& about = {}) {
  const Eigen::Index d = thetas.cols();
  Mat Ut, Gu;
  st.rows_to_u_cols(thetas, Ut);
  st.grad_rows_to_u_cols(grads, Gu);
  if (about.Q) {
    Gu.noalias() -= *about.Q * Ut;
    Gu.colwise() -= *about.b;
  }
  Mat ZtZ(d + 1, d + 1), ZtG(d + 1, d);
  ZtZ.topLeftCorner(d, d).noalias() = Ut * Ut.transpose();
  ZtZ.topRightCorner(d, 1) = Ut.rowwise().sum();
  ZtZ.bottomLeftCorner(1, d) = ZtZ.topRightCorner(d, 1).transpose();
  ZtZ(d, d) = static_cast<double>(thetas.rows());
  ZtG.topRows(d).noalias() = Ut * Gu.transpose();
  ZtG.row(d) = Gu.rowwise().sum().transpose();
  ZtZ.diagonal().array() += 1e-10 * ZtZ.diagonal().mean();
  if (about.Q) ZtZ.diagonal().head(d).array() += about.shrink * ZtZ.diagonal().head(d).mean();
  const Mat C = ZtZ.ldlt().solve(ZtG);  // (d + 1) x d: rows of Q' then b'
  Q = 0.5 * (C.topRows(d) + C.topRows(d).transpose());
  b = C.row(d).transpose();
  if (about.Q) {
    Q += *about.Q;
    b += *about.b;
  }
}

// Floating-point operations of a batch fit of s bases to n points in d dimensions, as the
// trainer below does it: the features (the pre-activations, 2 n s d), the Gram matrix's
// rank updates (n s^2: value rows, and gradient rows of additive nodes by the Hadamard
// form; n d s^2 for the generic stacked path of gradient rows) and one Cholesky factor
// (s^3 / 3). What training costs beyond it (held-out errors, the candidates' smaller
// factors) is of lower order. Used to predict training's seconds before it runs
// (sampler/training_payoff.hpp).
inline double ridge_fit_flops(double n, double s, double d, bool gradient_rows, Activation act) {
  const double rows = gradient_rows && !is_additive(act) ? n * d : n;
  return 2.0 * n * s * d + rows * s * s + s * s * s / 3.0;
}

// A trainer is bound to the network's bases at construction (redraw => new trainer). Rows
// may be added in any number of calls; gram()/rhs()/solve() can be called between additions
// (variational HMC's `refresh_every`: accumulate, re-solve every k points).
class RidgeTrainer {
 public:
  static constexpr Eigen::Index kBlock = 512;  // points per block (Hadamard and value paths)

  explicit RidgeTrainer(RandomBasisNetwork& net) : net_(net) {
    if (net.empty()) throw std::invalid_argument("RidgeTrainer: the network has no bases (call draw())");
    s_ = net.hidden();
    d_ = net.dim();
    rv_ = Vec::Zero(s_);
    rg_ = Vec::Zero(s_);
    hsum_ = Vec::Zero(s_);
  }

  // Use the generic stacked-Jacobian path for gradients even for additive nodes (tests,
  // benchmarks). RBF nodes always use it.
  void use_generic_gradient_path(bool on) { generic_ = on; }

  // Score-matching rows: n x d points and their theta-space gradients grad U.
  void add_gradients(const Mat& thetas, const Mat& grads) {
    if (thetas.cols() != d_ || grads.cols() != d_ || grads.rows() != thetas.rows())
      throw std::invalid_argument("RidgeTrainer::add_gradients: thetas and grads must both be n x d");
    Mat Xf, Yf;
    if (detail::finite_rows(thetas, grads, Xf, Yf)) {
      n_skipped_ += thetas.rows() - Xf.rows();
      add_gradients_finite(Xf, Yf);
    } else {
      add_gradients_finite(thetas, grads);
    }
  }

  // ELM rows: n x d points and their targets (e.g. U(theta_n) - U_ref).
  void add_values(const Mat& thetas, const Vec& targets) {
    if (thetas.cols() != d_ || targets.size() != thetas.rows())
      throw std::invalid_argument("RidgeTrainer::add_values: thetas n x d and targets of size n needed");
    Mat Xf;
    Vec Yf;
    if (detail::finite_rows(thetas, targets, Xf, Yf)) {
      n_skipped_ += thetas.rows() - Xf.rows();
      add_values_finite(Xf, Yf);
    } else {
      add_values_finite(thetas, targets);
    }
  }

  // (G + lambda I) v = r by Cholesky, lambda x 10 until it succeeds; writes net.weights()
  // (the offset is left alone) and returns the lambda used.
  double solve(double lambda) { return solve(lambda, false); }

  // fit_offset = true: unpenalized output bias for the value rows (Zhang et al. 2017, eq. 10's b): the value
  // columns and targets are centred, v solved, b = mean(t) - mean(h)'v written to
  // net.offset(). Gradient rows are unaffected by b.
  double solve(double lambda, bool fit_offset) {
    const Mat& G = gram();
    const Vec& r = rhs();
    double used;
    if (fit_offset && n_val_ > 0) {
      const double n = static_cast<double>(n_val_);
      Mat Gc = G;
      Gc.noalias() -= (hsum_ / n) * hsum_.transpose();
      used = detail::ridge_factor(Gc, lambda, llt_);
      net_.weights() = llt_.solve(r - hsum_ * (tsum_ / n));
      net_.offset() = (tsum_ - hsum_.dot(net_.weights())) / n;
    } else {
      used = detail::ridge_factor(G, lambda, llt_);
      net_.weights() = llt_.solve(r);
    }
    return used;
  }

  // The ridge weights of the first s bases alone (the top-left block of the system), without
  // touching the network; s = 0 gives an empty vector.
  Vec solve_prefix(int s, double lambda) const {
    if (s == 0) return Vec(0);
    Eigen::LLT<Mat> llt;
    detail::ridge_factor(gram().topLeftCorner(s, s), lambda, llt);
    return llt.solve(rhs().head(s));
  }

  // G = sum of value rows h h' + gradient rows A_u'A_u (full symmetric), r = H't + sum A_u'L'g.
  const Mat& gram() const {
    if (dirty_) compose();
    return gram_;
  }
  const Vec& rhs() const {
    if (dirty_) compose();
    return rhs_;
  }
  long n_points() const { return n_val_ + n_grad_; }
  long n_values() const { return n_val_; }
  long n_gradients() const { return n_grad_; }
  long n_skipped() const { return n_skipped_; }

 private:
  template <class MX, class MG>
  void add_gradients_finite(const MX& thetas, const MG& grads) {
    const Eigen::Index n = thetas.rows();
    if (n == 0) return;
    dirty_ = true;
    n_grad_ += n;
    const Standardizer& st = net_.standardizer();
    if (is_additive(net_.activation()) && !generic_) {
      if (SS_.size() == 0) SS_ = Mat::Zero(s_, s_);
      for (Eigen::Index i0 = 0; i0 < n; i0 += kBlock) {
        const Eigen::Index nb = std::min(kBlock, n - i0);
        st.rows_to_u_cols(thetas.middleRows(i0, nb), Ut_);
        net_.bases().block_slopes(Ut_, S_);                  // s x nb, sigma'(a)
        SS_.selfadjointView<Eigen::Lower>().rankUpdate(S_);  // += S S'
        st.grad_rows_to_u_cols(grads.middleRows(i0, nb), Gu_);
        X_.noalias() = net_.bases().w_hat() * Gu_;           // w_hat_i . gu_n
        rg_.noalias() += X_.cwiseProduct(S_).rowwise().sum();
      }
    } else {
      if (GG_.size() == 0) GG_ = Mat::Zero(s_, s_);
      const Eigen::Index bp = std::max<Eigen::Index>(1, 1024 / d_);  // points per block
      Vec th(d_), g(d_), gu(d_);
      for (Eigen::Index i0 = 0; i0 < n; i0 += bp) {
        const Eigen::Index nb = std::min(bp, n - i0);
        Ast_.resize(nb * d_, s_);
        gst_.resize(nb * d_);
        for (Eigen::Index k = 0; k < nb; ++k) {
          th = thetas.row(i0 + k).transpose();
          g = grads.row(i0 + k).transpose();
          net_.jacobian_u(th, Ast_.middleRows(k * d_, d_));
          st.grad_to_u(g, gu);
          gst_.segment(k * d_, d_) = gu;
        }
        GG_.selfadjointView<Eigen::Lower>().rankUpdate(Ast_.transpose());
        rg_.noalias() += Ast_.transpose() * gst_;
      }
    }
  }

  template <class MX>
  void add_values_finite(const MX& thetas, const Vec& targets) {
    const Eigen::Index n = thetas.rows();
    if (n == 0) return;
    dirty_ = true;
    n_val_ += n;
    if (HH_.size() == 0) HH_ = Mat::Zero(s_, s_);
    const Standardizer& st = net_.standardizer();
    for (Eigen::Index i0 = 0; i0 < n; i0 += kBlock) {
      const Eigen::Index nb = std::min(kBlock, n - i0);
      st.rows_to_u_cols(thetas.middleRows(i0, nb), Ut_);
      net_.bases().block_hidden(Ut_, S_);  // s x nb
      HH_.selfadjointView<Eigen::Lower>().rankUpdate(S_);
      rv_.noalias() += S_ * targets.segment(i0, nb);
      hsum_ += S_.rowwise().sum();
      tsum_ += targets.segment(i0, nb).sum();
    }
  }

  void compose() const {
    if (net_.hidden() != s_ || net_.dim() != d_)
      throw std::logic_error("RidgeTrainer: the network's bases changed after the trainer was created");
    gram_ = Mat::Zero(s_, s_);
    if (HH_.size()) gram_ += HH_;
    if (GG_.size()) gram_ += GG_;
    if (SS_.size()) {
      if (P_.size() == 0) {
        P_ = Mat::Zero(s_, s_);
        P_.selfadjointView<Eigen::Lower>().rankUpdate(net_.bases().w_hat());  // W_hat W_hat'
      }
      gram_ += P_.cwiseProduct(SS_);  // both lower triangular (zero above)
    }
    detail::mirror_lower(gram_);
    rhs_ = rv_ + rg_;
    dirty_ = false;
  }

  RandomBasisNetwork& net_;
  Eigen::Index s_ = 0, d_ = 0;
  bool generic_ = false;
  // accumulators (lower triangles; allocated on first use)
  Mat HH_, SS_, GG_;
  Vec rv_, rg_, hsum_;
  double tsum_ = 0.0;
  long n_val_ = 0, n_grad_ = 0, n_skipped_ = 0;
  // composed system and caches
  mutable Mat gram_, P_;
  mutable Vec rhs_;
  mutable bool dirty_ = true;
  Eigen::LLT<Mat> llt_;
  // block buffers
  Mat Ut_, S_, Gu_, X_, Ast_;
  Vec gst_;
};

// Exact online ridge recursion from a batch state (gram, rhs) with C = (gram + lambda I)^{-1}.
// After every update v is the ridge solution on all rows seen (exact arithmetic). C, gram and
// rhs are stored as lower triangles and updated by symmetric rank updates, so C stays exactly
// symmetric; every refactor_every updates (<= 0: never) C and v are recomputed from the
// accumulated gram + lambda I by Cholesky to remove drift .
// Costs per update: value O(s^2 + sd); gradient O(s^2 d + s d^2 + d^3); refactorization O(s^3).
class OnlineRidge {
 public:
  OnlineRidge(RandomBasisNetwork& net, const Mat& gram, const Vec& rhs, double lambda, int refactor_every)
      : net_(net), refactor_every_(refactor_every) {
    if (net.empty()) throw std::invalid_argument("OnlineRidge: the network has no bases (call draw())");
    s_ = net.hidden();
    d_ = net.dim();
    if (gram.rows() != s_ || gram.cols() != s_ || rhs.size() != s_)
      throw std::invalid_argument("OnlineRidge: gram must be s x s and rhs of size s");
    gram_ = gram;
    rhs_ = rhs;
    lambda_ = lambda;
    h_.resize(s_);
    Ch_.resize(s_);
    A_.resize(d_, s_);
    At_.resize(s_, d_);
    E_.resize(s_, d_);
    F_.resize(s_, d_);
    Q_.resize(d_, d_);
    res_.resize(d_);
    gu_.resize(d_);
    refactor();
  }

  // Ridge RLS (recursive least squares): kappa = C h/(1 + h'C h); v += kappa (t - h'v); C -= kappa (C h)'.
  // Non-finite input is skipped (counted); should C have drifted so far that 1 + h'C h <= 0,
  // C is refactorized first.
  void add_value(const Vec& theta, double target) {
    if (!theta.allFinite() || !std::isfinite(target)) {
      ++skipped_;
      return;
    }
    net_.features(theta, h_);
    Ch_.noalias() = C_.selfadjointView<Eigen::Lower>() * h_;
    double denom = 1.0 + h_.dot(Ch_);
    if (!(denom > 0) || !std::isfinite(denom)) {
      refactor();
      Ch_.noalias() = C_.selfadjointView<Eigen::Lower>() * h_;
      denom = 1.0 + h_.dot(Ch_);
    }
    const double err = target - h_.dot(v_);
    v_ += (err / denom) * Ch_;
    C_.selfadjointView<Eigen::Lower>().rankUpdate(Ch_, -1.0 / denom);
    gram_.selfadjointView<Eigen::Lower>().rankUpdate(h_, 1.0);
    rhs_ += target * h_;
    after_update();
  }

  // Woodbury rank-d update (Zhang et al. 2018, Proposition 2), u-space rows A = A_u(u), target L'grad:
  // E = C A', Q = I + A E = R R', F = E R^{-T}; v += F R^{-1}(L'g - A v); C -= F F'.
  // Non-finite input is skipped (counted); if Q is not numerically positive definite, C is
  // refactorized and the update retried once, else the point is skipped (counted).
  void add_gradient(const Vec& theta, const Vec& grad) {
    if (!theta.allFinite() || !grad.allFinite()) {
      ++skipped_;
      return;
    }
    net_.jacobian_u(theta, A_);
    net_.standardizer().grad_to_u(grad, gu_);
    At_ = A_.transpose();
    for (int attempt = 0;; ++attempt) {
      E_.noalias() = C_.selfadjointView<Eigen::Lower>() * At_;
      Q_.noalias() = A_ * E_;
      Q_.diagonal().array() += 1.0;
      qllt_.compute(Q_);
      if (qllt_.info() == Eigen::Success && Q_.allFinite()) break;
      if (attempt == 1) {
        ++skipped_;
        return;
      }
      refactor();
    }
    F_ = E_;
    qllt_.matrixU().solveInPlace<Eigen::OnTheRight>(F_);  // F R' = E
    res_ = gu_;
    res_.noalias() -= A_ * v_;
    qllt_.matrixL().solveInPlace(res_);
    v_.noalias() += F_ * res_;
    C_.selfadjointView<Eigen::Lower>().rankUpdate(F_, -1.0);
    gram_.selfadjointView<Eigen::Lower>().rankUpdate(At_, 1.0);
    rhs_.noalias() += At_ * gu_;
    after_update();
  }

  // C = (gram + lambda I)^{-1} and v = C rhs from scratch (Cholesky; lambda x 10 on failure).
  void refactor() {
    lambda_ = detail::ridge_factor(gram_, lambda_, llt_);
    v_ = llt_.solve(rhs_);
    C_ = llt_.solve(Mat::Identity(s_, s_));
    since_refactor_ = 0;
  }

  const Vec& weights() const { return v_; }
  void copy_to_network() const { net_.weights() = v_; }
  long updates() const { return updates_; }
  long skipped() const { return skipped_; }
  double lambda() const { return lambda_; }
  // Lower triangles are valid (upper ones are stale between refactorizations).
  const Mat& inverse_lower() const { return C_; }
  const Mat& gram_lower() const { return gram_; }
  const Vec& rhs() const { return rhs_; }

 private:
  void after_update() {
    ++updates_;
    if (refactor_every_ > 0 && ++since_refactor_ >= refactor_every_) refactor();
  }

  RandomBasisNetwork& net_;
  Eigen::Index s_ = 0, d_ = 0;
  int refactor_every_;
  double lambda_ = 0.0;
  Mat gram_, C_;
  Vec rhs_, v_;
  long updates_ = 0, skipped_ = 0;
  int since_refactor_ = 0;
  Eigen::LLT<Mat> llt_;
  Eigen::LLT<Mat> qllt_;
  // buffers
  Vec h_, Ch_, res_, gu_;
  Mat A_, At_, E_, F_, Q_;
};

}  // namespace vhmc
