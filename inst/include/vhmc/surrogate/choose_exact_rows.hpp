#pragma once
// Which likelihood rows a surrogate keeps exact (exact_rows.hpp), chosen by held-out error
// before the bases are drawn (so that the decision whether training pays, made between
// drawing and fitting, times the surrogate it would train). The candidates are the rows
// stiffer than 10, 1, 0.1, ... down to a floor (at most a maximum number, the stiffest
// first), and none; each is scored by the least-squares quadratic fitted to what the rows
// leave of the training gradients, on the held-out gradients. The smallest set within
// max(1.25 x best, tolerance) wins (each row costs O(d) per surrogate step), as the number
// of bases is chosen (choose_hidden(), train_surrogate.hpp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "../base/fields.hpp"
#include "../base/report.hpp"
#include "exact_rows.hpp"
#include "network.hpp"
#include "trainer.hpp"

namespace vhmc {

// The potential's rows stiffer than a threshold (at most max_rows, the stiffest), or none:
// for a GLM find_stiff_rows() with the Laplace Hessian (surrogate_sampler.hpp binds it);
// n_rows: how many rows the likelihood has.
struct ExactRowSource {
  std::function<std::optional<StiffRows>(double threshold, int max_rows)> find;
  long n_rows = 0;
  explicit operator bool() const { return static_cast<bool>(find) && n_rows > 0; }
};

// 10, 1, 0.1, ... while above the floor, then the floor.
inline std::vector<double> stiffness_thresholds(double floor) {
  std::vector<double> t;
  for (double x = 10.0; x > floor * (1.0 + 1e-12); x /= 10.0) t.push_back(x);
  t.push_back(floor);
  return t;
}

// Held-out relative gradient error (u-space) of the least-squares quadratic fitted to the
// fit gradients minus the rows' part (rows_fit, rows_hold: the rows' gradients, n x d).
inline double quadratic_error_without(const Standardizer& st, const Mat& fit_theta, const Mat& fit_grad,
                                      const Mat& rows_fit, const Mat& hold_theta, const Mat& hold_grad,
                                      const Mat& rows_hold) {
  Mat Q, Ut, Gu, Ru;
  Vec b;
  fit_quadratic_gradients(st, fit_theta, fit_grad - rows_fit, Q, b);
  st.rows_to_u_cols(hold_theta, Ut);
  st.grad_rows_to_u_cols(hold_grad - rows_hold, Gu);
  st.grad_rows_to_u_cols(hold_grad, Ru);
  Gu -= Q * Ut;
  Gu.colwise() -= b;
  return std::sqrt(Gu.squaredNorm() / Ru.squaredNorm());
}

// Per-row slopes r (points x rows) of the rows at the points (rows of thetas).
inline Mat row_slopes_at(ExactRows& rows, const Mat& thetas) {
  Mat R(thetas.rows(), rows.size());
  Vec r(rows.size());
  for (Eigen::Index k = 0; k < thetas.rows(); ++k) {
    rows.row_slopes(thetas.row(k).transpose(), r);
    R.row(k) = r.transpose();
  }
  return R;
}

// Columns of A in the given order.
inline Mat permuted_columns(const Mat& A, const std::vector<Eigen::Index>& order) {
  Mat B(A.rows(), static_cast<Eigen::Index>(order.size()));
  for (std::size_t j = 0; j < order.size(); ++j) B.col(static_cast<Eigen::Index>(j)) = A.col(order[j]);
  return B;
}

struct ExactRowChoice {
  int max_rows = 2048;          // at most this many rows (a surrogate step costs O(rows d) more)
  // ... and at most this share of the likelihood's rows: a surrogate that computes more
  // cannot be much cheaper than the true gradient (the bank subset, N = 4,521: 1,967 rows).
  double max_share = 0.125;
  double min_stiffness = 0.03;  // the lowest threshold tried (0 rows: max_rows = 0)
  int limit(long n_rows) const {
    return static_cast<int>(std::min<double>(max_rows, std::floor(max_share * static_cast<double>(n_rows))));
  }
  static auto fields() {
    return std::make_tuple(field("max_exact_rows", &ExactRowChoice::max_rows),
                           field("max_exact_share", &ExactRowChoice::max_share),
                           field("min_stiffness", &ExactRowChoice::min_stiffness));
  }
};

// Installs the chosen rows in net (none: net unchanged) and reports the candidates.
inline void choose_exact_rows(RandomBasisNetwork& net, const Standardizer& st, const Mat& fit_theta,
                              const Mat& fit_grad, const Mat& hold_theta, const Mat& hold_grad,
                              const ExactRowChoice& ch, double tolerance, const ExactRowSource& source,
                              Report& rep) {
  const int max_rows = ch.limit(source.n_rows);
  if (!source || hold_theta.rows() == 0 || max_rows < 1) return;
  std::optional<StiffRows> all = source.find(ch.min_stiffness, max_rows);
  if (!all || all->size() == 0 || all->stiffness.size() != all->size()) return;
  // The rows stiffest first, so that every candidate is a prefix and its gradients at the
  // points the last candidate's plus one block (one pass over the rows in all).
  std::vector<Eigen::Index> order(static_cast<std::size_t>(all->size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Eigen::Index>(i);
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return all->stiffness[a] > all->stiffness[b];
  });
  const Eigen::Index n = all->size(), d = all->Z.cols();
  Mat Z(n, d);
  Vec c(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    Z.row(i) = all->Z.row(order[static_cast<std::size_t>(i)]);
    c[i] = all->stiffness[order[static_cast<std::size_t>(i)]];
  }
  ExactRows rows(std::move(*all));
  const Mat Rf = permuted_columns(row_slopes_at(rows, fit_theta), order);
  const Mat Rh = permuted_columns(row_slopes_at(rows, hold_theta), order);
  Mat Gf = Mat::Zero(fit_theta.rows(), d), Gh = Mat::Zero(hold_theta.rows(), d);
  std::vector<double> thr{kInf}, at, err, count;
  for (double t : stiffness_thresholds(ch.min_stiffness)) thr.push_back(t);
  Eigen::Index done = 0;
  for (double t : thr) {
    Eigen::Index k = 0;
    while (k < n && c[k] > t) ++k;
    if (!count.empty() && static_cast<double>(k) == count.back()) continue;
    Gf.noalias() += Rf.middleCols(done, k - done) * Z.middleRows(done, k - done);
    Gh.noalias() += Rh.middleCols(done, k - done) * Z.middleRows(done, k - done);
    done = k;
    err.push_back(quadratic_error_without(st, fit_theta, fit_grad, Gf, hold_theta, hold_grad, Gh));
    count.push_back(static_cast<double>(k));
    at.push_back(t);
  }
  double best = kInf;
  for (double e : err) best = std::fmin(best, e);
  if (!std::isfinite(best)) return;  // no candidate measurable (held-out gradients all zero)
  const double ok = std::fmax(1.25 * best, tolerance);
  std::size_t pick = 0;
  while (pick + 1 < err.size() && !(err[pick] <= ok)) ++pick;  // counts rise: the first within is the smallest
  const auto as_vec = [](const std::vector<double>& v) {
    return Vec(Eigen::Map<const Vec>(v.data(), static_cast<Eigen::Index>(v.size())));
  };
  rep.add("candidate_exact_rows", as_vec(count));
  rep.add("candidate_exact_rows_error", as_vec(err));
  if (count[pick] == 0) return;
  if (std::optional<StiffRows> picked = source.find(at[pick], max_rows)) net.set_exact_rows(ExactRows(std::move(*picked)));
}

}  // namespace vhmc
