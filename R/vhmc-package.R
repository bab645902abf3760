#' vhmc: Fast Hamiltonian Monte Carlo with surrogate, variational and
#' stochastic-gradient samplers
#'
#' vhmc samples Bayesian posteriors with a C++ Hamiltonian Monte Carlo engine:
#' static HMC and the No-U-Turn sampler with Stan-style warmup adaptation,
#' surrogate-accelerated (random-basis network) HMC, variational HMC and
#' stochastic-gradient samplers. Targets are GLMs and ARDL time-series models
#' given by formulas (`vhmc_glm()`, `vhmc_ardl()`) or any log density written
#' as an R function ([vhmc_sample()]). [elliptic_pde_model()] is such a
#' function whose every evaluation solves a PDE: an expensive example target.
#'
#' Fits are `vhmc_fit` objects. They keep the post-warmup draws as a
#' [posterior::draws_array], per-transition sampler diagnostics
#' ([sampler_diagnostics()]), the adapted step sizes and metrics, evaluation
#' counts and timings. They convert to \pkg{posterior} draws
#' ([as_draws_array()] and friends), \pkg{coda} ([as.mcmc.list()]) and base R
#' containers ([as.matrix()], [as.array()], [as.data.frame()]); [summary()]
#' reports R-hat, bulk- and tail-ESS and Monte Carlo standard errors computed
#' by \pkg{posterior}, plus divergences, tree-depth saturation, E-BFMI and
#' acceptance per chain. After sampling, vhmc warns (Stan-style, naming the
#' fix) about R-hat >= 1.01, ESS < 400, divergences, tree-depth saturation and
#' E-BFMI < 0.3.
#'
#' @keywords internal
#' @useDynLib vhmc, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats coef vcov fitted residuals nobs formula predict
"_PACKAGE"
