#pragma once
// Low-rank plus diagonal inverse metric minimising the sample Fisher divergence (Seyboldt,
// Carlson & Carpenter 2026, arXiv:2603.18845; nutpie's "low_rank" adaptation):
//   W = D (I + U (Lambda - I) U') D,   D = diag(sigma), U'U = I_k.
// Steps, for the n (draw, gradient) pairs of a window (g = grad U):
//  1. sigma_i^2 = sqrt(var(x_i) / var(g_i)), the Fisher-optimal diagonal
//     (adapt/draw_grad_diag.hpp); rescale x~ = (x - mean x) / sigma, g~ = (g - mean g) .* sigma.
//  2. Over dense affine maps the Fisher-optimal covariance S of the rescaled target solves
//     S C_g S = C_x (C_x, C_g the draws' and gradients' covariances), i.e. S is the
//     geometric mean C_g^{-1} # C_x = C_g^{-1/2} (C_g^{1/2} C_x C_g^{1/2})^{1/2} C_g^{-1/2}.
//     On a Gaussian C_g = S^{-1} C_x S^{-1} holds for the SAMPLE covariances of any point
//     set (g is linear in x), so S is recovered exactly once C_x is invertible.
//  3. The n pairs only inform the span of the centred draws and gradients (dimension
//     r <= min(d, 2n)); S is computed in an orthonormal basis Q of that span, and taken as
//     the identity (the diagonal alone) outside it. The sums of squares are regularised as
//     C = P P' + gamma I (nuts-rs's convention, gamma = 1e-5; P the projected pairs),
//     which only matters where draws or gradients have (near) zero spread in the span.
//     Where r exceeds n / pairs_per_direction, S is computed in the leading
//     n / pairs_per_direction directions of the span only (the left singular vectors of the
//     rescaled pairs): C_x and C_g of r dimensions from n pairs scatter their eigenvalues
//     as r / n grows (Marchenko and Pastur 1967), and the Fisher mean of an exactly diagonal
//     target then shows eigenvalues of 1e-9 and 90 (50,000 independent coordinates, 40
//     pairs): spurious directions that collapsed NUTS's step size on multilevel models of
//     tens of thousands of levels. A real correlation keeps its place among the leading
//     directions (a ridge spreads the draws, a stiff direction the gradients).
//  4. Eigenvectors of S whose eigenvalue lies in [1/cutoff, cutoff] are dropped (their
//     eigenvalue set to 1: the diagonal is good enough there; nuts-rs uses cutoff = 2); of
//     the rest at most max_rank are kept, those with the largest |log lambda| (vhmc's cap,
//     bounding the O(d k) cost of every leapfrog step). U = Q V.
// Cost O(d m^2 + m^3) per update for m stored pairs (at most the buffer's capacity), no
// d x d matrix.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include "../base/types.hpp"
#include "draw_grad_buffer.hpp"
#include "draw_grad_diag.hpp"

namespace vhmc {

struct LowRankConfig {
  double gamma = 1e-5;    // added to the projected sums of squares (nuts-rs default)
  double cutoff = 2.0;    // keep eigenvalues outside [1/cutoff, cutoff] (nuts-rs default)
  int max_rank = 10;      // vhmc's cap on k
  double pairs_per_direction = 2.0;  // n pairs inform at most n / 2 directions
  DrawGradClamp clamp{};  // for sigma^2, as the diagonal estimator
};

// W = D (I + U (Lambda - I) U') D; location = mean(x) - W mean(g) (the fitted Gaussian's
// centre, for reporting; empty when no estimate was made). k = lambda.size() may be 0 (a
// pure diagonal metric).
struct LowRankFactors {
  Vec sigma;
  Mat U;
  Vec lambda;
  Vec location;
};

// S solving S B S = A for symmetric positive definite A, B (the geometric mean B^{-1} # A).
inline Mat spd_fisher_mean(const Mat& A, const Mat& B) {
  Eigen::SelfAdjointEigenSolver<Mat> eb(B);
  const Vec e = eb.eigenvalues().cwiseMax(0.0);
  const Mat B_half = eb.eigenvectors() * e.cwiseSqrt().asDiagonal() * eb.eigenvectors().transpose();
  const Mat B_mhalf =
      eb.eigenvectors() * e.cwiseSqrt().cwiseInverse().asDiagonal() * eb.eigenvectors().transpose();
  Eigen::SelfAdjointEigenSolver<Mat> em(B_half * A * B_half);
  const Vec m = em.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  const Mat M_half = em.eigenvectors() * m.asDiagonal() * em.eigenvectors().transpose();
  const Mat S = B_mhalf * M_half * B_mhalf;
  return 0.5 * (S + S.transpose());
}

// A chain's scratch for its estimates: the rescaled pairs and the basis of their span, at
// most d x 2(capacity + 1) each, kept between estimates so that a warmup allocates them once
// (at a hundred thousand parameters each is 32 MB; allocated anew per estimate they left the
// threads' malloc arenas fragmented). Copying a metric does not copy its scratch.
struct LowRankWork {
  Mat z, q;
  LowRankWork() = default;
  LowRankWork(const LowRankWork&) {}
  LowRankWork& operator=(const LowRankWork&) { return *this; }
  // The first `cols` columns of w (d rows), grown by doubling up to `most` columns.
  static Mat::ColsBlockXpr columns(Mat& w, Eigen::Index d, Eigen::Index cols, Eigen::Index most) {
    if (w.rows() != d || w.cols() < cols) w.resize(d, grown_columns(w.cols(), cols, most));
    return w.leftCols(cols);
  }
};

// Orthonormal basis of the column span of Z, by column-pivoted QR computed in Z's own storage
// (Z is overwritten), written into the first r columns of q_store; returns r.
inline Eigen::Index span_basis(Eigen::Ref<Mat> Z, Mat& q_store, Eigen::Index most) {
  Eigen::ColPivHouseholderQR<Eigen::Ref<Mat>> qr(Z);
  qr.setThreshold(1e-12);
  const Eigen::Index r = qr.rank();
  auto Q = LowRankWork::columns(q_store, Z.rows(), r, most);
  Q.setIdentity();
  qr.householderQ().applyThisOnTheLeft(Q);
  return r;
}

// The q leading directions of the span Q of Z's columns (Q itself when it has at most q).
inline Mat leading_span(const Eigen::Ref<const Mat>& Q, const Eigen::Ref<const Mat>& Z, Eigen::Index q) {
  if (Q.cols() <= q) return Q;
  const Mat R = Q.transpose() * Z;
  Eigen::SelfAdjointEigenSolver<Mat> es(R * R.transpose());  // eigenvalues ascending
  return Q * es.eigenvectors().rightCols(q);
}

// Indices of the eigenvalues to keep: outside [1/cutoff, cutoff], largest |log| first.
inline std::vector<Eigen::Index> select_eigen(const Vec& lam, const LowRankConfig& cfg) {
  std::vector<Eigen::Index> keep;
  for (Eigen::Index j = 0; j < lam.size(); ++j)
    if (lam[j] > cfg.cutoff || lam[j] < 1.0 / cfg.cutoff) keep.push_back(j);
  std::sort(keep.begin(), keep.end(), [&](Eigen::Index a, Eigen::Index b) {
    return std::fabs(std::log(lam[a])) > std::fabs(std::log(lam[b]));
  });
  if (static_cast<int>(keep.size()) > cfg.max_rank) keep.resize(std::max(0, cfg.max_rank));
  return keep;
}

// The diagonal step: sigma (fallback_w where a coordinate has no finite ratio), and the
// rescaled centred pairs written back into X and G.
inline Vec rescale_pairs(Eigen::Ref<Mat> X, Eigen::Ref<Mat> G, const Vec& fallback_w, const DrawGradClamp& c) {
  const double n = static_cast<double>(X.cols());
  Vec sigma(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X.row(i).array() -= X.row(i).mean();
    G.row(i).array() -= G.row(i).mean();
    const double r = std::sqrt((X.row(i).squaredNorm() / n) / (G.row(i).squaredNorm() / n));
    const double w =
        std::isfinite(r) && r > 0.0 ? std::min(std::max(r, c.lower), c.upper) : fallback_w[i];
    sigma[i] = std::sqrt(w);
    X.row(i) /= sigma[i];
    G.row(i) *= sigma[i];
  }
  return sigma;
}

// The same for a thinned window (adapt/draw_grad_buffer.hpp): the centres and sigma from
// the running moments of every pair the window was offered, applied to the stored subsample.
inline Vec rescale_thinned_pairs(Eigen::Ref<Mat> X, Eigen::Ref<Mat> G, const DrawGradDiag& all,
                                 const Vec& fallback_w, const DrawGradClamp& c) {
  const Vec sigma = all.inv_metric(fallback_w, c).cwiseSqrt();
  X.colwise() -= all.draw_mean();
  G.colwise() -= all.grad_mean();
  X = sigma.cwiseInverse().asDiagonal() * X;
  G = sigma.asDiagonal() * G;
  return sigma;
}

// The window's pairs X and G, centred and rescaled in place (their sigma returned), from the
// stored pairs alone or, for a thinned window, from the moments of every pair offered.
inline Vec rescale_window(const DrawGradBuffer& buf, Eigen::Ref<Mat> X, Eigen::Ref<Mat> G,
                          const Vec& fallback_w, const DrawGradClamp& c) {
  return buf.thinned() ? rescale_thinned_pairs(X, G, buf.moments(), fallback_w, c)
                       : rescale_pairs(X, G, fallback_w, c);
}

// The estimate from a window of pairs; fallback_w is the inverse-metric diagonal in use.
// Fewer than 2 pairs, or a non-finite result, give the diagonal fallback_w with k = 0.
// work: the chain's scratch (a temporary one when null).
inline LowRankFactors fisher_low_rank(const DrawGradBuffer& buf, const Vec& fallback_w,
                                      const LowRankConfig& cfg = {}, LowRankWork* work = nullptr) {
  LowRankFactors f;
  f.sigma = fallback_w.cwiseSqrt();
  f.U.resize(fallback_w.size(), 0);
  f.lambda.resize(0);
  if (buf.n() < 2) return f;
  LowRankWork own;
  LowRankWork& w = work != nullptr ? *work : own;
  const Eigen::Index m = buf.stored(), most = 2 * (buf.capacity() + 1);
  auto Z = LowRankWork::columns(w.z, buf.dim(), 2 * m, most);
  auto X = Z.leftCols(m);
  auto G = Z.rightCols(m);
  buf.pairs_into(Z);
  const bool thinned = buf.thinned();
  const Vec xbar = thinned ? buf.moments().draw_mean() : Vec(X.rowwise().mean());
  const Vec gbar = thinned ? buf.moments().grad_mean() : Vec(G.rowwise().mean());
  rescale_window(buf, X, G, fallback_w, cfg.clamp);
  // The QR overwrites the rescaled pairs: they are written again (the same values) after it.
  const Eigen::Index r = span_basis(Z, w.q, most);
  buf.pairs_into(Z);
  const Vec sigma = rescale_window(buf, X, G, fallback_w, cfg.clamp);
  const auto informed = static_cast<Eigen::Index>(static_cast<double>(m) / cfg.pairs_per_direction);
  const Mat Q = leading_span(w.q.leftCols(r), Z, informed);
  if (Q.cols() == 0) {  // every pair equal: nothing to learn beyond the diagonal
    f.sigma = sigma;
    return f;
  }
  const Mat Px = Q.transpose() * X, Pg = Q.transpose() * G;
  Mat Cx = Px * Px.transpose(), Cg = Pg * Pg.transpose();
  Cx.diagonal().array() += cfg.gamma;
  Cg.diagonal().array() += cfg.gamma;
  Eigen::SelfAdjointEigenSolver<Mat> es(spd_fisher_mean(Cx, Cg));
  const Vec lam = es.eigenvalues();
  const std::vector<Eigen::Index> keep = select_eigen(lam, cfg);
  Mat U(X.rows(), static_cast<Eigen::Index>(keep.size()));
  Vec kept(static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) {
    U.col(static_cast<Eigen::Index>(j)) = Q * es.eigenvectors().col(keep[j]);
    kept[static_cast<Eigen::Index>(j)] = lam[keep[j]];
  }
  if (!sigma.allFinite() || !U.allFinite() || !kept.allFinite() || !(kept.array() > 0).all())
    return f;
  f.sigma = sigma;
  f.U = U;
  f.lambda = kept;
  // location = xbar - W gbar with W = D (I + U (Lambda - I) U') D
  const Vec t = sigma.cwiseProduct(gbar);
  const Vec Wg = sigma.cwiseProduct(t + U * ((kept.array() - 1.0).matrix().cwiseProduct(U.transpose() * t)));
  f.location = xbar - Wg;
  return f;
}

// The factors of a known covariance S (a Gaussian approximation's): sigma = sqrt(diag S),
// and the eigen-directions of the correlation matrix diag(sigma)^-1 S diag(sigma)^-1 outside
// [1/cutoff, cutoff], at most max_rank, as for an estimate (O(d^3), once per chain). A
// diagonal S has none (its correlation matrix is the identity): no eigensolver, which at a
// multilevel model's thousands of coordinates cost seconds per chain.
inline LowRankFactors low_rank_from_covariance(const Mat& S, const LowRankConfig& cfg = {}) {
  LowRankFactors f;
  f.sigma = S.diagonal().cwiseSqrt();
  if (S.isDiagonal(0.0)) {
    f.U.resize(S.rows(), 0);
    f.lambda.resize(0);
    return f;
  }
  const Vec inv = f.sigma.cwiseInverse();
  Eigen::SelfAdjointEigenSolver<Mat> es(inv.asDiagonal() * S * inv.asDiagonal());
  const Vec lam = es.eigenvalues();
  const std::vector<Eigen::Index> keep = select_eigen(lam, cfg);
  f.U.resize(S.rows(), static_cast<Eigen::Index>(keep.size()));
  f.lambda.resize(static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) {
    f.U.col(static_cast<Eigen::Index>(j)) = es.eigenvectors().col(keep[j]);
    f.lambda[static_cast<Eigen::Index>(j)] = lam[keep[j]];
  }
  return f;
}

}  // namespace vhmc
