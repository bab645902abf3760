#pragma once
// The potential of a Bayesian GLM, U(theta) = -log lik - log prior and grad U, composed of
// a parameter layout (glm/layout.hpp), the linear predictor's blocks (glm/dense_design.hpp;
// eta = blocks + offset), a family (glm/families.hpp), prior terms over the blocks
// (glm/prior_terms.hpp) and, for the gaussian family, its likelihood from sufficient
// statistics (glm/gaussian_likelihood.hpp). theta = (alpha [if intercept], beta_1..beta_K
// [times the predictors' scales], t [the family's auxiliary parameters in their unconstrained
// coordinates, glm/aux_transforms.hpp, if any]). With a horseshoe prior (glm/horseshoe.hpp) the
// coefficients' block holds their non-centred z, and the horseshoe's scales follow the aux
// blocks; the likelihood is evaluated at the coefficients they give. Smooth terms
// (glm/smooths.hpp) likewise: their penalised columns are the design's last, their block
// holds non-centred z, and their standard deviations follow the aux blocks.
// Weights multiply each observation's log likelihood (frequency weights, as rstanarm):
// weight 2 equals a duplicated row for every family. Binomial: y is the proportion of
// successes and the weight the number of trials.
// Fixed noise precision (gaussian only; the fixed-precision ARDL model of Asaad 2017): with
// noise_precision alpha > 0 there is no sigma parameter and U = (alpha/2) sum w e^2 + U_prior;
// every code path is the sigma-estimated one with 1/sigma^2 replaced by alpha.
// Censored rows (GlmData::cens) take their probability in place of the density (families with
// kCensored, glm/family/censored.hpp): the family's pass runs with their weights set to 0,
// and a pass over them alone adds their terms; no gaussian closed forms then.
// Distributional predictors (glm/dpars.hpp): an auxiliary parameter modelled by its own
// linear predictor is a block "dpar:NAME" (intercept and slopes) in place of its aux block;
// the row pass then takes each row's aux values, and the Newton Hessian has the blocks'
// cross terms. No aux block is then contiguous (aux_offset() is -1; the scalar ones are
// aux_blocks()), and no gaussian closed forms, Fisher metric or minibatches.
// Buffers are allocated at construction only.
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../base/types.hpp"
#include "../priors.hpp"
#include "dense_design.hpp"
#include "dpars.hpp"
#include "families.hpp"
#include "gaussian_likelihood.hpp"
#include "glm_data.hpp"
#include "group_term.hpp"
#include "horseshoe.hpp"
#include "layout.hpp"
#include "minibatch_rows.hpp"
#include "prior_terms.hpp"
#include "smooths.hpp"

namespace vhmc {

class GlmPotential {
 public:
  // data must outlive the potential (it is not copied). prior_intercept is ignored without an
  // intercept; prior_aux holds one prior per auxiliary parameter of the family (kAux, in
  // order); n_cutpoints sizes a family's cutpoints (categories less one); a horseshoe `prior`
  // (PriorKind::Horseshoe) adds its parameters (glm/horseshoe.hpp); smooths' penalty blocks
  // are the design's last columns (glm/smooths.hpp; `prior` is then the other columns'). Throws
  // std::invalid_argument on an invalid prior or setting -- before any chain runs.
  GlmPotential(const GlmData& data, GlmFamily family, bool has_intercept, const Prior& prior_intercept,
               const Prior& prior, const std::vector<Prior>& prior_aux, double noise_precision = 0.0,
               Eigen::Index n_cutpoints = 0, const SmoothSpec& smooths = SmoothSpec(),
               const DparSpec& dpars = DparSpec());
  // One prior for every auxiliary parameter of the family.
  GlmPotential(const GlmData& data, GlmFamily family, bool has_intercept, const Prior& prior_intercept,
               const Prior& prior, const Prior& prior_aux = Prior::exponential(1.0), double noise_precision = 0.0)
      : GlmPotential(data, family, has_intercept, prior_intercept, prior,
                     std::vector<Prior>(aux_specs(family).size(), prior_aux), noise_precision) {}
  GlmPotential(GlmPotential&&) = default;

  // Appends a group-level term (glm/group_term.hpp): its blocks join the layout after the
  // others. The gaussian family then takes the row pass (its sufficient statistics serve the
  // dense block alone) unless use_cells() follows, or the terms are marginal: the gaussian
  // family's terms with their effects integrated out (glm/marginal_gaussian.hpp), no block of
  // effects in the layout; one term or nested ones (every term marginal; throws if they do
  // not nest).
  void add_group_term(const GroupTermData& d);
  // After the last group-level term: the gaussian likelihood from the cells of the grouping
  // factors (glm/gaussian_cells.hpp) instead of the row pass, exactly; it pays when the rows
  // fall in far fewer cells than there are rows (R decides). Returns the number of cells.
  Eigen::Index use_cells();
  bool uses_cells() const { return gauss_ && gauss_->cells(); }
  // The marginal terms' effects (each p x J, the response's standardised units) at theta: a
  // draw from their conditional with rng, its mean without. Needs marginal terms.
  void marginal_effects(const Vec& theta, Rng* rng, std::vector<Mat>& b);
  bool has_marginal_term() const { return gauss_ && gauss_->marginal(); }
  // The row pass's index of mostly-constant columns (glm/dense_design.hpp), at another
  // threshold; 0 turns it off (a dense product, as the gaussian sufficient statistics use).
  void use_sparse_columns(double max_fraction);
  const std::vector<GroupTerm>& group_terms() const { return terms_; }
  // The horseshoe prior on the coefficients, or null.
  const Horseshoe* horseshoe() const { return hs_ ? &*hs_ : nullptr; }
  // The smooth terms' scales, or null.
  const SmoothScales* smooths() const { return sm_ ? &*sm_ : nullptr; }
  // Whether the posterior has parameters whose scale is another parameter (sampled
  // group-level terms, a horseshoe, smooths): no joint mode, no analytic Hessian.
  bool hierarchical() const { return *modeless_by() != '\0'; }
  // Whether hessian() (the Newton mode's) is available: not with group-level terms, even
  // integrated out (their marginal likelihood's Hessian is not derived), a horseshoe or smooths.
  bool has_hessian() const { return terms_.empty() && !hs_ && !sm_ && dsm_.empty(); }
  // What the potential offers samplers, by the kind of block that takes it away ("" when
  // offered): a joint mode (none where a scale shrinks with what it scales: sampled "group"
  // effects, a "horseshoe", "smooth"s) and minibatch gradients (none with a "horseshoe",
  // "smooth"s, effects integrated out, "marginal", "censored" rows or "dpars" predictors).
  // R's refusals read them (the layout's capabilities).
  const char* modeless_by() const;
  // A Laplace anchor (a local mode with its curvature, for the samplers that start from one)
  // where there is no joint mode: sampled group effects leave one beside the funnel when
  // their levels' data outweigh the prior (and the non-centred form a mode), which the
  // start searches; a "horseshoe" and "smooth"s are not searched.
  const char* anchorless_by() const;
  const char* no_minibatch_by() const;
  // And the per-coordinate variance of a minibatch estimate (sghmc()'s noise estimate): none
  // for group-level terms either (a row's share reaches their parameters through the
  // effects' map; not derived).
  const char* no_minibatch_noise_by() const;
  bool minibatch_noise() const { return !*no_minibatch_noise_by(); }
  // Whether some rows are censored.
  bool censored() const { return !cens_rows_.empty(); }
  // The distributional predictors, or null; their smooths' scales.
  const DparPredictors* dpars() const { return dp_ ? &*dp_ : nullptr; }
  const std::vector<SmoothScales>& dpar_smooths() const { return dsm_; }
  // The family's index (in kAux) of each aux block of aux_blocks().
  const std::vector<int>& aux_block_specs() const { return aux_block_spec_; }

  // Without the likelihood: U is the priors' alone (rstanarm's prior_PD), for prior
  // predictive checks and the tests of the priors' marginals.
  void set_prior_only(bool prior_only);
  bool prior_only() const { return prior_only_; }

  int dim() const { return static_cast<int>(layout_.dim()); }
  const ParameterLayout& layout() const { return layout_; }
  bool has_aux() const { return aux_ >= 0; }
  // Offset and total size of the aux blocks (contiguous; -1 and 0 without them).
  Eigen::Index aux_offset() const { return aux_; }
  Eigen::Index aux_size() const { return n_aux_; }
  // The layout's aux blocks, in the family's order.
  const std::vector<std::size_t>& aux_blocks() const { return aux_blocks_; }
  bool fixed_noise() const { return noise_precision_ > 0.0; }
  // The family's aux parameters (glm/family/base.hpp), in order.
  static std::vector<family::AuxSpec> aux_specs(GlmFamily family) {
    return with_family(family, [](auto f) {
      const auto& a = decltype(f)::kAux;
      return std::vector<family::AuxSpec>(a.begin(), a.end());
    });
  }

  // Traits of the family (glm/families.hpp): its gaussian closed forms, its cutpoints.
  bool gaussian_stats() const { return with_family(family_, [](auto f) { return decltype(f)::kGaussianStats; }); }
  bool thresholds() const { return with_family(family_, [](auto f) { return decltype(f)::kThresholds; }); }
  bool has_intercept() const { return design_.intercept(); }
  GlmFamily family() const { return family_; }
  const GlmData& data() const { return *data_; }
  const DenseDesign& design() const { return design_; }

  double U(const Vec& theta) { return eval(theta, nullptr); }
  double U_grad(const Vec& theta, Vec& g) {
    if (g.size() != dim()) g.resize(dim());
    return eval(theta, &g);
  }

  // Analytic Hessian of U at theta into H, for the Newton mode search behind the Laplace
  // anchor (never called inside a chain). The methods declared here are defined in
  // glm/potential_methods.hpp.
  void hessian(const Vec& theta, Mat& H);

  // Whether the Fisher metric of rmhmc() is known: the canonical links without a free
  // dispersion parameter, whose Fisher information is the likelihood's Hessian.
  bool has_fisher() const;
  // lam = w E[-d2 loglik / d eta2] and dlam = d lam / d eta at theta, one pass over X.
  void fisher_weights(const Vec& theta, Vec& lam, Vec& dlam);
  // The priors' Fisher information in the sampler's coordinates (a diagonal).
  Vec prior_fisher_diag() const { return priors_.fisher_diag(dim()); }
  // Rows of the design in the sampler's coordinates (the Fisher metric's row gather).
  void design_rows(Eigen::Index r0, Eigen::Index m, Mat& zb) const { design_.rows(r0, m, zb); }
  // Z' W Z of the design in the sampler's coordinates, for the identifiability check.
  void design_gram(Mat& G) const { design_.gram<Vec>(data_->weights, nullptr, G, nullptr); }

  // Number of observations: N of the minibatch estimates (Welling & Teh 2011).
  Eigen::Index n_obs() const { return data_->n(); }
  // Minibatch estimate of grad U (Welling & Teh 2011, eq. 1) from rows idx (m of them):
  //   g~ = -(N/m) sum_{i in idx} grad log p(y_i | theta) - grad log p0(theta),
  // the prior gradient in full; with noise_var, the per-coordinate variance estimate.
  void minibatch_grad(const Vec& theta, const int* idx, Eigen::Index m, Vec& g, Vec* noise_var = nullptr);
  // The control-variate part of SGLD-CV / SGHMC-CV (Baker et al. 2019):
  //   -(N/m) sum_{i in idx} [grad log p(y_i | theta) - grad log p(y_i | theta_hat)]
  //   - grad log p0(theta) + grad log p0(theta_hat),
  // so that g(theta_hat) + g is g_cv(theta); both from the same gathered rows.
  void minibatch_grad_diff(const Vec& theta, const Vec& theta_hat, const int* idx, Eigen::Index m, Vec& g,
                           Vec* noise_var = nullptr);

 private:
  void validate(const Prior& prior_intercept, const Prior& prior, const std::vector<Prior>& prior_aux) const;
  // Paths without the hierarchical parameters of group-level terms or a horseshoe (R refuses
  // the samplers that need them for such models before any chain starts).
  void require_no_hierarchy(const char* what) const;
  void require_minibatch() const;
  // The horseshoe's blocks after the aux blocks; the coefficients in the sampler's
  // coordinates are z times the horseshoe's scale, over the response's scale times the
  // predictor's; its global scale relative to sigma, the family's first aux parameter.
  void add_horseshoe(const HorseshoeSpec& s);
  // The smooths' scales over the design's last columns (glm/smooths.hpp).
  void add_smooths(const SmoothSpec& s);
  // Columns of the design whose coefficients take `prior` (the smooths' are the last).
  Eigen::Index fixed_columns() const { return data_->k() - (sm_ ? sm_->size() : 0); }

  // The family's auxiliary values at theta (the fixed precision, or from t).
  template <class F>
  typename F::Aux aux_of(const Vec& theta) const;
  // 1 / sigma^2 of the gaussian family whose closed forms the potential uses.
  double gaussian_precision(const Vec& theta) const;
  // Whether the responses are the categories of the family's cutpoints (kThresholds).
  bool valid_categories() const;
  // The family's aux blocks in the layout ("aux:NAME"), unless the gaussian noise is fixed;
  // with distributional predictors, a block "dpar:NAME" for each modelled one.
  void add_aux_blocks(Eigen::Index n_cutpoints, const DparSpec& dpars);
  void add_dpar_blocks(const DparSpec& dpars);
  void add_dpar_priors(const DparSpec& dpars);
  void add_dpar_smooths(const DparSpec& dpars);

  // eta_ = the blocks' predictors + offset; needs design_.set_beta() and the terms' prepare().
  void linear_predictor(const Vec& theta);

  // The evaluation paths (defined in glm/potential_eval.hpp): eval() reads the group-level
  // terms' covariances at theta once and picks the path; the family's row pass; the priors
  // alone; the gaussian family from its statistics, with the terms from their cells, or with
  // them integrated out; and the group-level terms' priors (their gradient from r_). With a
  // horseshoe, eval() runs the paths at the coefficients it gives (eval_paths()).
  double eval(const Vec& theta, Vec* g);
  double eval_paths(const Vec& theta, Vec* g);
  double eval_smooths(const Vec& theta, Vec* g);
  template <class F>
  double eval_family(const Vec& theta, Vec* g);
  double eval_prior(const Vec& theta, Vec* g);
  template <class F>
  double eval_dpars(const Vec& theta, Vec* g);
  // Each row's terms at its own aux values (t: its coordinates), to `order`; with grad the
  // pass sets r_ and the predictors' D.
  template <class F>
  void dpar_row(Eigen::Index i, const double* t, int order, family::Local& o) const;
  template <class F>
  double dpar_pass(bool grad);
  template <class F>
  void dpar_hessian(const Vec& theta, Mat& H);
  double eval_gaussian(const Vec& theta, Vec* g);
  double eval_cells(const Vec& theta, Vec* g);
  double eval_marginal(const Vec& theta, Vec* g);
  double terms_finish(const Vec& theta, Vec* g);

  template <class F>
  void family_hessian(const Vec& theta, Mat& H);

  // Censored rows: their index and the other rows' weights (theirs 0), checked at
  // construction; the weights the family's pass takes; the censored rows' terms (their
  // log likelihood, r_ at their rows, dt_ added) and their Newton Hessian's.
  void setup_censoring();
  RowVec pass_weights() const { return cens_rows_.empty() ? RowVec(data_->weights) : RowVec(obs_w_); }
  template <class F>
  double censored_pass(const Vec& theta, bool grad);
  template <class F>
  void censored_hessian(const Vec& theta, Vec& he, Mat& het, Mat& htt);

  // The gathered rows' terms at theta (batch_.gather), or at theta_hat with at_hat (models
  // with group-level terms take the two estimates apart: minibatch_diff_with_terms()).
  void batch_terms(const Vec& theta, bool at_hat);
  void batch_gradient_with_terms(const Vec& theta, Vec& g);
  void minibatch_diff_with_terms(const Vec& theta, const Vec& theta_hat, const int* idx, Eigen::Index m, Vec& g,
                                 Vec* noise_var);

  const GlmData* data_;
  GlmFamily family_;
  double noise_precision_;  // > 0: fixed 1/sigma^2 (no sigma parameter); 0: sigma estimated
  ParameterLayout layout_;
  DenseDesign design_;
  PriorTerms priors_;
  Eigen::Index aux_ = -1;    // offset of the first auxiliary parameter, -1 without one
  Eigen::Index n_aux_ = 0;   // the aux blocks' total size
  std::vector<std::size_t> aux_blocks_;
  std::vector<int> aux_block_spec_;   // each aux block's index in the family's kAux
  Eigen::Index aux_end_ = 0;          // the end of the aux (and dpar) blocks in theta
  std::optional<DparPredictors> dp_;
  std::vector<SmoothScales> dsm_;     // the distributional predictors' smooths
  Vec dt_;                   // d loglik / d t of the aux coordinates (a pass's sum)
  std::unique_ptr<GaussianLikelihood> gauss_;  // gaussian family: the likelihood from statistics
  std::vector<GroupTerm> terms_;
  std::optional<Horseshoe> hs_;
  std::optional<SmoothScales> sm_;
  Vec eff_;  // the horseshoe's or the smooths' effective theta
  bool prior_only_ = false;
  Vec eta_, r_, z_;  // per-observation buffers (linear predictor, d loglik / d eta, scratch)
  MinibatchRows batch_;
  Vec prior_hat_;  // the priors' gradient at theta_hat (minibatch_grad_diff; with terms, the whole estimate)
  std::vector<Eigen::Index> cens_rows_;  // the censored rows
  Vec obs_w_;                            // the weights of the family's pass with censored rows
};

}  // namespace vhmc

// The evaluation paths' and the construction's definitions (after the class: they need it
// whole).
#include "potential_eval.hpp"
#include "potential_setup.hpp"
