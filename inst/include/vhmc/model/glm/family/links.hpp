#pragma once
// Link functions of the GLM families, as R's make.link() names them. A link maps the linear
// predictor eta to the mean mu = g^-1(eta); mean() gives mu, dmu/deta and d2mu/deta2, and
// whether eta is valid for the link (R's valideta: sqrt and 1/mu^2 need eta > 0). The
// probability links (the binomial's, Beta's, and the latent distributions of cumulative
// models) also give prob(): log F(x) and log(1 - F(x)) with their first two derivatives, each
// computed without cancellation in its own tail, since a likelihood of probabilities is
// built from those logs.
#include <cmath>

#include "../../../base/math.hpp"
#include "../../../base/special.hpp"
#include "../../../base/types.hpp"

namespace vhmc {
namespace family {

struct MeanTerms {
  double mu = 0.0, mu_c = 0.0;  // the mean, and 1 - mu for probability links (accurate near 1)
  double m1 = 0.0, m2 = 0.0;    // dmu/deta, d2mu/deta2
  bool valid = true;            // eta in the link's domain
};

struct ProbTerms {
  double lp = 0.0, lq = 0.0;      // log F(x), log(1 - F(x))
  double dlp = 0.0, dlq = 0.0;    // their first derivatives
  double d2lp = 0.0, d2lq = 0.0;  // and second
};

struct IdentityLink {
  static constexpr const char* kName = "identity";
  static void mean(double eta, MeanTerms& m) {
    m.mu = eta;
    m.m1 = 1.0;
    m.m2 = 0.0;
  }
};

struct LogLink {
  static constexpr const char* kName = "log";
  static void mean(double eta, MeanTerms& m) { m.mu = m.m1 = m.m2 = std::exp(eta); }
};

struct InverseLink {
  static constexpr const char* kName = "inverse";
  static void mean(double eta, MeanTerms& m) {
    m.mu = 1.0 / eta;
    m.m1 = -m.mu * m.mu;
    m.m2 = -2.0 * m.m1 * m.mu;
    m.valid = eta != 0.0;
  }
};

// eta = 1 / mu^2 (inverse.gaussian's canonical link).
struct InverseSquareLink {
  static constexpr const char* kName = "1/mu^2";
  static void mean(double eta, MeanTerms& m) {
    m.valid = eta > 0.0;
    m.mu = 1.0 / std::sqrt(eta);
    m.m1 = -0.5 * m.mu / eta;
    m.m2 = -1.5 * m.m1 / eta;
  }
};

struct SqrtLink {
  static constexpr const char* kName = "sqrt";
  static void mean(double eta, MeanTerms& m) {
    m.valid = eta > 0.0;
    m.mu = eta * eta;
    m.m1 = 2.0 * eta;
    m.m2 = 2.0;
  }
};

// The mean terms of a probability link from its prob() terms: mu = F(eta),
// dmu/deta = mu dlp, d2mu/deta2 = mu (d2lp + dlp^2).
template <class L>
void mean_from_prob(double eta, MeanTerms& m) {
  ProbTerms p;
  L::prob(eta, p);
  m.mu = std::exp(p.lp);
  m.mu_c = std::exp(p.lq);
  m.m1 = m.mu * p.dlp;
  m.m2 = m.mu * (p.d2lp + p.dlp * p.dlp);
  m.valid = std::isfinite(p.lp) && std::isfinite(p.lq);
}

struct LogitLink {
  static constexpr const char* kName = "logit";
  // One exp(-|x|) and one log1p of it serve F, 1 - F and both softplus terms (the same
  // values as logistic_pair() and softplus() compute each from its own exp and log1p).
  static void prob(double x, ProbTerms& p) {
    const double e = std::exp(-std::fabs(x)), r = 1.0 / (1.0 + e), l1 = std::log1p(e);
    const double f = x >= 0 ? r : e * r, fc = x >= 0 ? e * r : r;
    p.lp = -((-x > 0 ? -x : 0.0) + l1);
    p.lq = -((x > 0 ? x : 0.0) + l1);
    p.dlp = fc;
    p.dlq = -f;
    p.d2lp = p.d2lq = -f * fc;
  }
  static void mean(double eta, MeanTerms& m) { mean_from_prob<LogitLink>(eta, m); }
};

// F = Phi; m(x) = phi(x) / Phi(x) the inverse Mills ratio, d2 log Phi(x) = -m(x) (x + m(x)).
struct ProbitLink {
  static constexpr const char* kName = "probit";
  static void prob(double x, ProbTerms& p) {
    const double m = inv_mills(x), mc = inv_mills(-x);
    p.lp = log_Phi(x);
    p.lq = log_Phi(-x);
    p.dlp = m;
    p.dlq = -mc;
    p.d2lp = -m * (x + m);
    p.d2lq = -mc * (mc - x);
  }
  static void mean(double eta, MeanTerms& m) { mean_from_prob<ProbitLink>(eta, m); }
};

// F(x) = 1/2 + atan(x) / pi, and 1 - F(x) = F(-x); as atan(-1/x) / pi below 0 and
// 1 - atan(1/x) / pi above, free of the cancellation of 1/2 + atan(x) / pi in the tails.
struct CauchitLink {
  static constexpr const char* kName = "cauchit";
  static double log_cdf(double x) { return x < 0 ? std::log(std::atan(-1.0 / x) / kPi) : std::log1p(-std::atan(1.0 / x) / kPi); }
  static void prob(double x, ProbTerms& p) {
    const double q = 1.0 + x * x;
    const double f = 1.0 / (kPi * q), df = -2.0 * x * f / q;  // density and its derivative
    p.lp = log_cdf(x);
    p.lq = log_cdf(-x);
    const double F = std::exp(p.lp), Fc = std::exp(p.lq);
    p.dlp = f / F;
    p.dlq = -f / Fc;
    p.d2lp = df / F - p.dlp * p.dlp;
    p.d2lq = -df / Fc - p.dlq * p.dlq;
  }
  static void mean(double eta, MeanTerms& m) { mean_from_prob<CauchitLink>(eta, m); }
};

// F(x) = 1 - exp(-exp(x)): log(1 - F) = -exp(x) exactly; log F = log(-expm1(-exp(x))), or
// log1p(-exp(-exp(x))) where F is near 1.
struct CloglogLink {
  static constexpr const char* kName = "cloglog";
  static void prob(double x, ProbTerms& p) {
    const double e = std::exp(x);
    p.lq = -e;
    p.dlq = p.d2lq = -e;
    p.lp = e > 0.7 ? std::log1p(-std::exp(-e)) : std::log(-std::expm1(-e));
    // f / F = e exp(-e) / (1 - exp(-e)) = e / expm1(e); d/dx of it = (f / F) (1 - e - f / F).
    p.dlp = e < 1e-300 ? 1.0 : e / std::expm1(e);
    p.d2lp = p.dlp * (1.0 - e - p.dlp);
  }
  static void mean(double eta, MeanTerms& m) { mean_from_prob<CloglogLink>(eta, m); }
};

// The binomial's log link, mu = exp(eta): a probability only for eta < 0.
struct LogProbLink {
  static constexpr const char* kName = "log";
  static void prob(double x, ProbTerms& p) {
    p.lp = x;
    p.dlp = 1.0;
    p.d2lp = 0.0;
    if (!(x < 0.0)) {
      p.lq = -kInf;
      p.dlq = p.d2lq = -kInf;
      return;
    }
    const double c = -std::expm1(x);  // 1 - mu
    const double r = std::exp(x) / c;  // mu / (1 - mu)
    p.lq = std::log(c);
    p.dlq = -r;
    p.d2lq = -r / c;
  }
  static void mean(double eta, MeanTerms& m) { mean_from_prob<LogProbLink>(eta, m); }
};

}  // namespace family
}  // namespace vhmc
