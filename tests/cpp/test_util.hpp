#pragma once
// Shared helpers of the Catch2 tests of the vhmc core: Monte Carlo error (single-chain ESS by
// Geyer's initial positive / initial monotone sequence), moment checks with MCSE-based
// tolerances (|estimate - truth| < 4 MCSE), small test potentials, one-call runners
// around vhmc::run_hmc_family (the NUTS / static HMC samplers on vhmc::run_chain), accessors
// of a ChainOutput's reports and counts, and callbacks that interrupt a chain after a given
// number of iterations.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>
#include <vhmc/vhmc.hpp>

namespace vt {

using vhmc::Mat;
using vhmc::Vec;

// Families of the registry by code, for tests that name them.
namespace fam {
inline const vhmc::GlmFamily GaussianIdentity = vhmc::family_named("gaussian_identity");
inline const vhmc::GlmFamily BinomialLogit = vhmc::family_named("binomial_logit");
inline const vhmc::GlmFamily BinomialProbit = vhmc::family_named("binomial_probit");
inline const vhmc::GlmFamily PoissonLog = vhmc::family_named("poisson_log");
inline const vhmc::GlmFamily NegBinomial2Log = vhmc::family_named("neg_binomial_2_log");
inline const vhmc::GlmFamily GammaLog = vhmc::family_named("Gamma_log");
}  // namespace fam

// A response drawn at linear predictor eta: binomial logit 0/1, Poisson log a count
// (floor(mu + u)), any other family eta plus N(0, 0.6^2) noise.
inline double draw_response(vhmc::GlmFamily f, double eta, vhmc::Rng& rng) {
  if (f == fam::BinomialLogit) return rng.uniform() < 1 / (1 + std::exp(-eta)) ? 1.0 : 0.0;
  if (f == fam::PoissonLog) return std::floor(std::exp(eta) + rng.uniform());
  return eta + 0.6 * rng.normal();
}

// ---------------------------------------------------------------------------------------
// Monte Carlo error

inline double mean(const Vec& x) { return x.mean(); }

// Sample variance (divisor n - 1).
inline double var(const Vec& x) {
  const double m = x.mean();
  return (x.array() - m).square().sum() / static_cast<double>(x.size() - 1);
}

inline double sd(const Vec& x) { return std::sqrt(var(x)); }

// Autocorrelation at lag t (autocovariances with divisor n, as in Geyer 1992).
inline double autocorr(const Vec& c, double c0, long t) {
  const long n = c.size();
  double s = 0.0;
  for (long i = 0; i + t < n; ++i) s += c[i] * c[i + t];
  return s / static_cast<double>(n) / c0;
}

// Effective sample size of one chain: tau = -1 + 2 sum_k P_k with P_k = rho_{2k} + rho_{2k+1},
// truncated at the first negative P_k (Geyer's initial positive sequence) and made monotone
// (initial monotone sequence); tau >= 1/log10(n) as in Stan; ESS = n / tau.
inline double ess(const Vec& x) {
  const long n = x.size();
  if (n < 4) return static_cast<double>(n);
  const Vec c = (x.array() - x.mean()).matrix();
  const double c0 = c.squaredNorm() / static_cast<double>(n);
  if (!(c0 > 0)) return static_cast<double>(n);
  double sum = 0.0;
  double prev = std::numeric_limits<double>::infinity();
  for (long k = 0; 2 * k + 1 < n; ++k) {
    double P = autocorr(c, c0, 2 * k) + autocorr(c, c0, 2 * k + 1);
    if (P < 0) break;
    P = std::min(P, prev);
    prev = P;
    sum += P;
  }
  const double tau = std::max(-1.0 + 2.0 * sum, 1.0 / std::log10(static_cast<double>(n)));
  return static_cast<double>(n) / tau;
}

// Multiplier of the MCSE for a family of k simultaneous checks: the z whose two-sided normal
// tail, summed over k checks (Bonferroni), equals the tail of a single 4-MCSE check:
// k erfc(z / sqrt 2) = erfc(4 / sqrt 2). family_z(1) = 4, family_z(2) ~ 4.17,
// family_z(100) ~ 4.98. Used where one test makes many checks (e.g. 100 coordinates), so that
// the test as a whole has the false-alarm rate of one 4-MCSE check.
inline double family_z(int k) {
  if (k <= 1) return 4.0;
  const double target = std::erfc(4.0 / std::sqrt(2.0)) / k;
  double lo = 4.0, hi = 10.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (std::erfc(mid / std::sqrt(2.0)) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Seeds of the statistical tests: the fixed seed plus VHMC_TEST_SEED_OFFSET (default 0), so
// that the whole suite can be rerun with other seeds to measure its false-alarm rate.
inline std::uint64_t seed(std::uint64_t s) {
  const char* off = std::getenv("VHMC_TEST_SEED_OFFSET");
  return s + (off ? std::strtoull(off, nullptr, 10) : 0ULL);
}

// MCSE of the sample mean: sd / sqrt(ESS).
inline double mcse_mean(const Vec& x) { return sd(x) / std::sqrt(ess(x)); }

// MCSE of the sample variance, from the squared centred draws: sd(sq) / sqrt(ESS(sq)).
inline double mcse_var(const Vec& x) {
  const Vec sq = (x.array() - x.mean()).square().matrix();
  return sd(sq) / std::sqrt(ess(sq));
}

// Mean (over coordinates) or minimum ESS of the columns of a draws matrix.
inline double min_ess(const Mat& draws) {
  double m = std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < draws.cols(); ++j) m = std::min(m, ess(draws.col(j)));
  return m;
}

// Sample covariance (divisor n - 1) of the rows of X, by two passes.
inline Mat two_pass_cov(const Mat& X) {
  const Vec m = X.colwise().mean().transpose();
  const Mat C = X.rowwise() - m.transpose();
  return (C.transpose() * C) / static_cast<double>(X.rows() - 1);
}

// ---------------------------------------------------------------------------------------
// Test potentials (the Target protocol of model/target.hpp)

// Banana: U = x^2/2 + (y - x^2)^2/2 (non-quadratic, 2-d).
struct Banana {
  int dim() const { return 2; }
  double U(const Vec& th) const {
    const double x = th[0], y = th[1], r = y - x * x;
    return 0.5 * x * x + 0.5 * r * r;
  }
  double U_grad(const Vec& th, Vec& g) const {
    const double x = th[0], y = th[1], r = y - x * x;
    g.resize(2);
    g[0] = x - 2.0 * x * r;
    g[1] = r;
    return 0.5 * x * x + 0.5 * r * r;
  }
};

// Standard Gaussian in d dimensions whose potential is NaN (value and gradient) when
// theta[0] > 1.5: the target is the Gaussian truncated to theta[0] <= 1.5.
struct NanGaussian {
  int d = 2;
  int dim() const { return d; }
  double U(const Vec& th) const {
    if (th[0] > 1.5) return std::numeric_limits<double>::quiet_NaN();
    return 0.5 * th.squaredNorm();
  }
  double U_grad(const Vec& th, Vec& g) const {
    if (th[0] > 1.5) {
      g.setConstant(th.size(), std::numeric_limits<double>::quiet_NaN());
      return std::numeric_limits<double>::quiet_NaN();
    }
    g = th;
    return 0.5 * th.squaredNorm();
  }
};

// Flat (improper) potential: U = 0, grad 0.
struct Flat {
  int d = 1;
  int dim() const { return d; }
  double U(const Vec&) const { return 0.0; }
  double U_grad(const Vec& th, Vec& g) const {
    g.setZero(th.size());
    return 0.0;
  }
};

// ---------------------------------------------------------------------------------------
// Runners

// Initial values Uniform(-2, 2) per coordinate (as Stan draws them), from their own stream.
inline Vec uniform_init(int d, std::uint64_t s) {
  vhmc::Rng rng(seed(s), 999);
  Vec x(d);
  for (int i = 0; i < d; ++i) x[i] = -2.0 + 4.0 * rng.uniform();
  return x;
}

inline vhmc::ChainConfig chain_config(int warmup, int sampling, std::uint64_t s, int chain = 1) {
  vhmc::ChainConfig cfg;
  cfg.warmup = warmup;
  cfg.iter = warmup + sampling;
  cfg.seed = seed(s);
  cfg.chain = chain;
  return cfg;
}

// Stan's windowed warmup (step size 1, adapted; metric adapted), which most sampler tests
// exercise; the draw/gradient adaptation has its own tests (test_warmup.cpp).
inline vhmc::HmcWarmupConfig stan_warmup() {
  vhmc::HmcWarmupConfig wc;
  wc.fisher = false;
  return wc;
}

// The draw/gradient ("Fisher") warmup, vhmc's default.
inline vhmc::HmcWarmupConfig fisher_warmup() { return vhmc::HmcWarmupConfig{}; }

// One chain of the HMC-family sampler K (Nuts or StaticHmc) with kernel config C on potential
// P, through the samplers' entry point vhmc::run_hmc_family. wc: the initial/fixed step size
// and the adaptation (default: Stan's); initial_metric: `metric` came from the curvature.
template <template <class, class> class K, class M, class P, class C>
vhmc::ChainOutput run_sampler(P& pot, const M& metric, const Vec& init, const vhmc::ChainConfig& cfg,
                              const C& kernel_cfg, const vhmc::HmcWarmupConfig& wc = stan_warmup(),
                              bool initial_metric = false) {
  vhmc::Callbacks cb;
  return vhmc::run_hmc_family<K>(pot, metric, kernel_cfg, wc, cfg, init, initial_metric, cb);
}

template <class M, class P>
vhmc::ChainOutput run_nuts(P& pot, const M& metric, const Vec& init, const vhmc::ChainConfig& cfg,
                           const vhmc::NutsConfig& nc = {}, const vhmc::HmcWarmupConfig& wc = stan_warmup(),
                           bool initial_metric = false) {
  return run_sampler<vhmc::Nuts>(pot, metric, init, cfg, nc, wc, initial_metric);
}

template <class M, class P>
vhmc::ChainOutput run_hmc(P& pot, const M& metric, const Vec& init, const vhmc::ChainConfig& cfg,
                          const vhmc::StaticHmcConfig& hc = {}, const vhmc::HmcWarmupConfig& wc = stan_warmup()) {
  return run_sampler<vhmc::StaticHmc>(pot, metric, init, cfg, hc, wc);
}

// A fixed step size without any adaptation (step size and metric switches off).
inline vhmc::HmcWarmupConfig fixed_step(double eps) {
  vhmc::HmcWarmupConfig wc = stan_warmup();
  wc.step_size = eps;
  wc.adapt.step_size = false;
  wc.adapt.metric = false;
  return wc;
}

// ---------------------------------------------------------------------------------------
// What a chain reports

// The value of type T stored under name in a report (throws if absent or of another type).
template <class T>
T report_value(const vhmc::Report& r, const std::string& name) {
  return std::get<T>(r.at(name));
}

// The step size the chain ended with (after warmup: the adapted or fixed one).
inline double final_step_size(const vhmc::ChainOutput& out) {
  return report_value<double>(out.adaptation, "step_size");
}
// The final inverse metric: a vector for unit and diagonal metrics, a matrix for dense ones.
inline Vec inv_metric_diag(const vhmc::ChainOutput& out) { return report_value<Vec>(out.adaptation, "inv_metric"); }
inline Mat inv_metric_dense(const vhmc::ChainOutput& out) { return report_value<Mat>(out.adaptation, "inv_metric"); }

// Gradient evaluations of the true potential during warmup and during sampling.
inline long grad_warmup(const vhmc::ChainOutput& out) { return out.counts_warmup.grad; }
inline long grad_sampling(const vhmc::ChainOutput& out) { return out.counts_total.grad - out.counts_warmup.grad; }
// Per-observation gradient terms (stochastic-gradient samplers) during sampling.
inline long obs_grad_sampling(const vhmc::ChainOutput& out) {
  return out.counts_total.obs_grad - out.counts_warmup.obs_grad;
}

// ---------------------------------------------------------------------------------------
// Interrupts

// Callbacks that interrupt a chain after exactly n iterations. The loop polls the host at
// the first iteration and then at most every 50 ms of wall time, so the iterations are
// counted by the progress messages (the chain must run with cfg.refresh = 1); after the n-th
// the log callback waits 60 ms, so the poll before iteration n + 1 is due, and it reports
// the interrupt. Every poll before that reports none.
struct InterruptAfter {
  explicit InterruptAfter(int n) : n(n) {
    cb.log = [this](const std::string&) {
      if (++logged == this->n) std::this_thread::sleep_for(std::chrono::milliseconds(60));
    };
    cb.interrupted = [this] {
      ++polls;
      return logged >= this->n;
    };
  }
  InterruptAfter(const InterruptAfter&) = delete;
  InterruptAfter& operator=(const InterruptAfter&) = delete;
  int n;
  int logged = 0, polls = 0;
  vhmc::Callbacks cb;
};

// U_grad() against U() (the same value, to `value_eps`) and its gradient against central
// differences of U() (step 1e-5 max(1, |theta_j|)), each coordinate within 1e-6 max(1,
// |fd|); `what` names the case in a failure.
template <class P>
void check_gradient(P& pot, const Vec& theta, const std::string& what, double value_eps = 1e-12) {
  INFO(what);
  Vec g;
  const double u = pot.U_grad(theta, g);
  REQUIRE(g.size() == pot.dim());
  REQUIRE(std::isfinite(u));
  CHECK(u == Approx(pot.U(theta)).epsilon(value_eps).margin(value_eps));
  for (int j = 0; j < pot.dim(); ++j) {
    const double h = 1e-5 * std::max(1.0, std::fabs(theta[j]));
    Vec tp = theta, tm = theta;
    tp[j] += h;
    tm[j] -= h;
    const double fd = (pot.U(tp) - pot.U(tm)) / (2 * h);
    INFO("coordinate " << j << ": grad " << g[j] << " fd " << fd);
    CHECK(std::fabs(g[j] - fd) <= 1e-6 * std::max(1.0, std::fabs(fd)));
  }
}

// The Newton Hessian of U against central differences (step 1e-5) of its gradient, each
// entry within 1e-4 relative or absolute.
template <class P>
void check_hessian(P& pot, const Vec& theta) {
  vhmc::Mat H;
  pot.hessian(theta, H);
  for (int j = 0; j < pot.dim(); ++j) {
    const double h = 1e-5;
    Vec tp = theta, tm = theta, gp, gm;
    tp[j] += h;
    tm[j] -= h;
    pot.U_grad(tp, gp);
    pot.U_grad(tm, gm);
    for (int k = 0; k < pot.dim(); ++k) CHECK(H(k, j) == Approx((gp[k] - gm[k]) / (2 * h)).epsilon(1e-4).margin(1e-4));
  }
}

// ---------------------------------------------------------------------------------------
// A logistic regression where a rare category separates the responses (the split
// leapfrog's and the exact rows' tests): n rows, a standard normal predictor and a
// standardised dummy of a category with 4 rows, all failures; responses otherwise logistic.

struct Separated {
  int n = 400, k = 2;
  Mat X;
  Vec y;
  Separated() : X(n, 2), y(n) {
    vhmc::Rng rng(21, 0);
    for (int i = 0; i < n; ++i) {
      X(i, 0) = rng.normal();
      X(i, 1) = i < 4 ? 1.0 : 0.0;
      const double p = 1.0 / (1.0 + std::exp(-(-0.5 + X(i, 0))));
      y[i] = i < 4 ? 0.0 : (rng.uniform() < p ? 1.0 : 0.0);
    }
    const double m = X.col(1).mean(), s = std::sqrt((X.col(1).array() - m).square().sum() / (n - 1));
    X.col(1) = (X.col(1).array() - m) / s;  // as the papers standardise every column
  }
  vhmc::GlmData data() const { return vhmc::GlmData(X.data(), n, k, y.data()); }
};

// Independent N(0, sd^2) coordinates: a point to evaluate a potential at.
inline Vec random_theta(int d, vhmc::Rng& rng, double sd = 0.5) {
  Vec th(d);
  for (int i = 0; i < d; ++i) th[i] = sd * rng.normal();
  return th;
}

// A group-level term (lme4's (x | g)) over n rows: `levels` levels of `group`, `cols`
// columns of Z (n x cols, column-major; an intercept alone without it), and the
// covariance prior of the given kind and parameters.
inline vhmc::GroupTermData group_term(const std::string& name, int levels, int cols, int n, const int* group,
                                      const double* Z, vhmc::CovPriorKind kind, double regularization,
                                      double concentration, double shape, double scale, double df,
                                      bool relative_to_sigma) {
  vhmc::GroupTermData d;
  d.name = name;
  d.levels = levels;
  d.p = cols;
  d.n = n;
  d.group = group;
  d.Z = cols == 1 ? nullptr : Z;
  d.prior.kind = kind;
  d.prior.regularization = regularization;
  d.prior.concentration = concentration;
  d.prior.shape = shape;
  d.prior.scale = scale;
  d.prior.df = df;
  d.prior.relative_to_sigma = relative_to_sigma;
  return d;
}

// A vector of length one (one-dimensional targets).
inline Vec vec1(double x) { return Vec::Constant(1, x); }

inline vhmc::GlmPotential separated_potential(const vhmc::GlmData& data) {
  return vhmc::GlmPotential(data, vt::fam::BinomialLogit, true, vhmc::Prior::normal(0, 10),
                            vhmc::Prior::normal(0, 10));
}

}  // namespace vt
