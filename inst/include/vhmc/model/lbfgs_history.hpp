#pragma once
// The m most recent L-BFGS pairs s_j = theta_{j+1} - theta_j, y_j = g_{j+1} - g_j and the
// inverse-Hessian estimate H they define: BFGS updates of H_0 = gamma I with
// gamma = s'y / y'y of the newest pair (Nocedal & Wright 2006, eq. 7.20).
//  * apply(v) = H v by the two-loop recursion (Nocedal & Wright 2006, Algorithm 7.4), O(m d);
//  * the same H in compact form (Byrd, Nocedal & Schnabel 1994, Theorem 2.2)
//      H = H_0 + W N W',  W = [S, H_0 Y] (d x 2m),
//      N = [[R^-T (D + Y'H_0 Y) R^-1, -R^-T], [-R^-1, 0]],
//    R the upper triangle of S'Y, D its diagonal; gives diag(H) in O(m^2 d) and the dense
//    H in O(m d^2) (for reporting, or an initial dense metric when d is a few hundred).
// On a quadratic U with Hessian A, y_j = A s_j, and H satisfies the secant equation
// H y = s for the newest pair: along the explored directions H acts as A^{-1}.
#include <deque>
#include <vector>

#include "../base/types.hpp"

namespace vhmc {

class LbfgsHistory {
 public:
  explicit LbfgsHistory(int m = 6) : m_(m) {}
  void push(const Vec& s, const Vec& y) {
    s_.push_back(s);
    y_.push_back(y);
    if (static_cast<int>(s_.size()) > m_) {
      s_.pop_front();
      y_.pop_front();
    }
  }
  void clear() {
    s_.clear();
    y_.clear();
  }
  int size() const { return static_cast<int>(s_.size()); }
  const std::deque<Vec>& s() const { return s_; }
  const std::deque<Vec>& y() const { return y_; }
  double gamma() const {
    return s_.empty() ? 1.0 : s_.back().dot(y_.back()) / y_.back().squaredNorm();
  }

  Vec apply(const Vec& v) const {
    const int k = size();
    std::vector<double> alpha(k), rho(k);
    Vec q = v;
    for (int j = k - 1; j >= 0; --j) {
      rho[j] = 1.0 / y_[j].dot(s_[j]);
      alpha[j] = rho[j] * s_[j].dot(q);
      q -= alpha[j] * y_[j];
    }
    q *= gamma();
    for (int j = 0; j < k; ++j) q += (alpha[j] - rho[j] * y_[j].dot(q)) * s_[j];
    return q;
  }

  Vec inverse_hessian_diag(Eigen::Index d) const {
    const Vec h0 = Vec::Constant(d, gamma());
    if (s_.empty()) return h0;
    const Mat W = compact_w(h0);
    return h0 + (W * compact_n(h0)).cwiseProduct(W).rowwise().sum();
  }

  Mat inverse_hessian(Eigen::Index d) const {
    return inverse_hessian_from(Vec::Constant(d, gamma()));
  }

  // The same pairs applied to a diagonal initial matrix H_0 = diag(h0) instead of gamma I
  // (the compact form holds for any H_0; Pathfinder's choice, model/pathfinder.hpp).
  Mat inverse_hessian_from(const Vec& h0) const {
    Mat H = h0.asDiagonal();
    if (s_.empty()) return H;
    const Mat W = compact_w(h0);
    H.noalias() += W * compact_n(h0) * W.transpose();
    return 0.5 * (H + H.transpose());
  }

 private:
  Mat compact_w(const Vec& h0) const {
    const int k = size();
    Mat W(h0.size(), 2 * k);
    for (int j = 0; j < k; ++j) {
      W.col(j) = s_[j];
      W.col(k + j) = h0.cwiseProduct(y_[j]);
    }
    return W;
  }
  Mat compact_n(const Vec& h0) const {
    const Eigen::Index d = h0.size();
    const int k = size();
    Mat S(d, k), Y(d, k);
    for (int j = 0; j < k; ++j) {
      S.col(j) = s_[j];
      Y.col(j) = y_[j];
    }
    const Mat SY = S.transpose() * Y;
    const Mat Rinv = SY.triangularView<Eigen::Upper>().solve(Mat::Identity(k, k));
    Mat Dm = Y.transpose() * h0.asDiagonal() * Y;
    Dm.diagonal() += SY.diagonal();
    Mat N = Mat::Zero(2 * k, 2 * k);
    N.topLeftCorner(k, k) = Rinv.transpose() * Dm * Rinv;
    N.topRightCorner(k, k) = -Rinv.transpose();
    N.bottomLeftCorner(k, k) = -Rinv;
    return N;
  }

  int m_;
  std::deque<Vec> s_, y_;
};

}  // namespace vhmc
