# Stochastic-gradient MCMC: the sghmc() and sgld() constructors, their defaults that need
# the data (batch size), the control variate's anchor (once per fit), and the per-chain
# report (epochs). The core is inst/include/vhmc/sampler/sg_sampler.hpp with the update
# rules sghmc.hpp and sgld.hpp and the minibatches of model/minibatch.hpp.

#' Stochastic gradient HMC and Langevin dynamics (approximate)
#'
#' Samplers that follow the posterior with gradients estimated from random minibatches of
#' the data, for [vhmc_glm()] (every family). A minibatch gradient costs `batch_size` rows
#' instead of all `N`: `-(N/B)` times the sum of the minibatch rows' log-likelihood
#' gradients plus the full prior gradient, unbiased for the gradient of the potential. The
#' rows are drawn without replacement within an epoch (a random permutation consumed in
#' consecutive batches, reshuffled every epoch) from each chain's own random stream. By
#' default the estimate is centred on the posterior mode by a control variate (below),
#' which makes it far less noisy near the mode.
#'
#' **There is no Metropolis correction.** The draws carry a bias from the step size (time
#' discretisation) and from the gradient noise that the dynamics do not account for; unlike
#' Monte Carlo error it does not shrink with more iterations. Smaller step sizes and larger
#' batches reduce it. `print()` and `summary()` of a fit say so and report the cost in
#' *epochs* (per-observation gradient evaluations divided by `N`), the unit in which these
#' samplers should be compared with [nuts()] (one epoch per leapfrog step).
#'
#' `sghmc()` is Chen, Fox and Guestrin (2014), Algorithm 2, with unit metric, friction
#' `C = friction * I` and noise estimate `B_hat = noise_estimate * I`; each update is
#' \deqn{\theta \leftarrow \theta + \epsilon r,\quad r \leftarrow r - \epsilon \tilde g(\theta)
#'   - \epsilon C r + N(0, 2 (C - \hat B) \epsilon).}{theta <- theta + eps r;
#'   r <- r - eps g~(theta) - eps C r + N(0, 2 (C - B_hat) eps).}
#' Chen et al.'s "SGD with momentum" parameters are `learning_rate` (eta = eps^2) and
#' `momentum_decay` (alpha = eps C); give both instead of `step_size` and `friction`.
#' (The SGHMC of the ARDL slides omits eps on the friction and samples a posterior tempered
#' by the step size; it is not implemented.)
#'
#' `sgld()` is Welling and Teh (2011): \eqn{\theta \leftarrow \theta - h_t \tilde g(\theta) +
#' \sqrt{2 h_t}\,\xi}{theta <- theta - h_t g~(theta) + sqrt(2 h_t) xi} with
#' `h_t = step_size * (decay_offset + t)^(-decay)`, `t` counting updates from the start of
#' the chain (Welling and Teh's step is `2 h_t`). `decay = 0` is a constant step.
#'
#' **Metric.** With `metric = "diag"` (default) the dynamics run in coordinates
#' `u_j = theta_j / s_j` with `s_j = 1 / sqrt(H_jj)`, `H` the Hessian of the potential
#' estimated by each chain (below): the inverse metric is `W = diag(s^2)` and the friction
#' `C = friction * W^-1`, i.e. Algorithm 2 with unit metric and scalar friction in `u`.
#' This makes `step_size` and `friction` dimensionless and the defaults independent of the
#' data's units (a gaussian model's coefficients have curvature `N / sigma^2`, its
#' `log(sigma)` `2 N`, whatever `sigma`). `metric = "unit"` is `W = I`, `C = friction * I`
#' on `vhmc_glm()`'s internal scale, as in the papers.
#'
#' **Defaults.** `batch_size = NULL` uses `max(ceiling(N / 100), min(N, 100))` rows. The
#' other defaults are set on the posterior's natural time scale: each chain estimates the
#' Hessian diagonal (diag metric) and the largest curvature `lambda` of the (preconditioned)
#' potential (largest Hessian eigenvalue, by power iteration on minibatch Hessian-vector
#' products on 500 random rows or `B` if larger; about `(21 + d) * 500 / N` epochs) at its
#' initial values and at every tenth of warmup, and freezes the settings for sampling. With
#' the diag metric `lambda` is near 1 to d. In natural units the
#' minibatch gradient noise has variance about `N/B`, so the unaccounted noise inflates
#' posterior variances by a fraction about `eps sqrt(lambda) (N/B) / (2 C / sqrt(lambda))`
#' for SGHMC and `h lambda N / (2 B)` for SGLD. The defaults keep it near 10%:
#' SGHMC `friction = sqrt(lambda)`, `step_size = min(0.1, 0.2 B/N C/sqrt(lambda)) /
#' sqrt(lambda)`; SGLD `step_size = min(0.1, 0.2 B / N) / lambda`; and `updates` (updates per
#' saved iteration) covers half a unit of natural time, `ceiling(0.5 / (eps sqrt(lambda)))`
#' resp. `ceiling(0.5 / (h lambda))` (at most 10000). (That noise model treats batches as
#' independent; with the default epoch batches the noise of one epoch's batches cancels in
#' part, and the measured inflation is smaller, see below.) At that accuracy a draw costs a few
#' epochs whatever `B` (about `0.5 / 0.2 = 2.5` epochs per saved iteration): small batches
#' make each update cheap but need proportionally more of them. Warmup iterations are
#' burn-in and are discarded. With `metric = "unit"` and `step_size`, `friction` and `updates`
#' all given (the papers' mode) nothing is estimated. With the control variate (default,
#' below) the noise variance in these formulas is not `N/B` but the one measured at each
#' estimate, at 4 points drawn around the mode with the curvature scales (2 x 500 rows, or
#' 2B, each); near the mode it is so small that the step sizes reach the discretisation
#' limits `0.1 / sqrt(lambda)` (SGHMC) and `0.1 / lambda` (SGLD), i.e. 5 updates per saved
#' iteration.
#'
#' Measured with all defaults but `control_variate = FALSE` (`inst/bench/sg_defaults.R`; N = 1e5 rows, 5 predictors,
#' 2 chains x 1000 iterations, against NUTS): on a gaussian linear regression (sigma = 2)
#' SGHMC's posterior means were within 0.12 posterior sd and its sds within 0.94-1.10 of
#' NUTS's, at 29 epochs per effective draw (SGLD: 0.19 sd, 0.95-1.04, 33 epochs); on a
#' logistic regression SGHMC was within 0.11 sd, sds 0.95-1.03, at 33 epochs per effective
#' draw (SGLD 0.09 sd, 0.96-1.04, 29 epochs; NUTS 12 epochs per effective draw). With
#' `metric = "unit"` the gaussian model's `log(sigma)` is 8 times stiffer than its
#' coefficients and the same budget gave 15 instead of 170 effective draws.
#'
#' **Control variates** (the default). With `control_variate = TRUE` the posterior mode `theta_hat` and
#' the full gradient `g(theta_hat)` are computed once per fit (the same mode search as
#' [variational_hmc()]'s Laplace anchor), and every update uses
#' \deqn{g_{cv}(\theta) = g(\hat\theta) - \nabla\log p_0(\theta) + \nabla\log p_0(\hat\theta)
#'   - \frac{N}{B}\sum_{n \in S}[\nabla\log p(x_n|\theta) - \nabla\log p(x_n|\hat\theta)],}{g_cv(theta)
#'   = g(theta_hat) - grad log p0(theta) + grad log p0(theta_hat) - (N/B) sum_S [grad log
#'   p(x_n|theta) - grad log p(x_n|theta_hat)],}
#' unbiased like the plain estimate but with a noise that vanishes at the mode: near it, its
#' variance is of order `d/B` instead of `N/B` (in posterior units), so the default step
#' size, chosen from the noise measured around the mode, reaches the discretisation limit
#' and a draw costs far fewer epochs. Each update costs `2B` rows; the mode search and
#' `g(theta_hat)` cost the epochs reported as `epochs_mode` by [sg_info()]. Chains start at
#' the mode unless `init` is given. It needs a posterior with a finite mode (proper priors).
#'
#' Why it is the default: at equal accuracy it costs one to two orders of magnitude fewer
#' epochs per effective draw. On the linear regression of the tests (N = 5000, 4
#' coefficients and sigma, flat priors) SGHMC-CV reached the same bulk ESS (about 360 from
#' 2 x 1000 draws) for 630 epochs, 195 of them for the mode, as plain SGHMC for 5050, both
#' within 0.07 sd of the exact means. At N = 1e6 (`inst/bench/sg_scale.R`) SGHMC-CV cost 1.1
#' epochs per effective draw on a linear regression (d = 20) and plain SGHMC 41; on a
#' logistic regression (d = 50) 1.8 against 50.
#' `control_variate = FALSE` gives the plain estimator: use it when the mode search is not
#' possible or not wanted (a posterior without a finite mode, or one far from Gaussian
#' where the chain wanders far from the mode and the control variate loses its advantage).
#'
#' **Multilevel models.** With group-level terms (lme4's `(x | g)`) the likelihood still
#' factorises over rows given the effects, which are parameters: a minibatch adds each row's
#' effect to its linear predictor, and each level's effects get `N / B` times the likelihood
#' terms of its rows in the batch (none when it has no row there) plus their prior in full,
#' so the estimate stays unbiased (an epoch's batches average to the full gradient exactly).
#' The group effects are sampled, never integrated out, and each term is centred or not as
#' for [nuts()] (the start searches the mode of the non-centred parameterisation for that
#' choice). Such a posterior has no mode, so `control_variate = NULL` means `FALSE`; `TRUE`
#' anchors the control variate at the non-centred mode mapped to the sampled form. Its
#' payoff varies: measured on logistic `(1 | g)` models, SGHMC-CV cost 2.2 times fewer
#' epochs than plain SGHMC with 40 levels of 25 rows (2,400 against 5,300 a chain, the same
#' ESS) and 17 times fewer with 50 levels of 400 rows, but on a crossed persons x items model
#' (30 x 12, an item-level factor) its measured noise cut the step size so far that SGHMC-CV
#' cost 120,000 epochs a chain and SGLD-CV 1.5 million (plain: 3,200). The control variate's
#' noise is measured there by replicate batches (`noise_estimate = "auto"` is refused: the
#' core has no per-row estimate of the group blocks' noise). **Mixing:** the diagonal metric
#' cannot follow the ridge between the intercept (or a level-wise predictor's coefficients)
#' and the group effects. On the 40 x 25 model plain SGHMC and SGLD agreed with NUTS
#' (posterior means within 0.15 posterior sd, sds 0.93-1.08) at a min bulk ESS of 92-100 from
#' 4 x 1000 draws; with 400 rows per level the min bulk ESS was 4-7 (the
#' intercept; NUTS 2,100), and on the crossed model 2-7. Check R-hat and ESS, and prefer
#' [nuts()] unless `N` is too large for full gradients.
#'
#' These samplers need a likelihood that factorises over rows, so they work with
#' [vhmc_glm()] and [vhmc_ardl()] (both noise models), not with [vhmc_sample()]. The
#' parameters move on `vhmc_glm()`'s internal scale (centred intercept, slopes times the
#' predictors' sd, log sigma); for `vhmc_ardl(noise_precision = )` they are the ARDL
#' coefficients themselves.
#'
#' @param batch_size Minibatch size `B`, between 1 and the number of observations `N`
#'   (checked when the data are known). `NULL`: see Details.
#' @param step_size Step size: `eps` of SGHMC or the base `a` of SGLD's schedule, `> 0`.
#'   `NULL`: from the curvature (see Details).
#' @param friction SGHMC friction `C` (times the identity), `> 0`, in the same time units as
#'   `step_size`. `NULL`: `sqrt(lambda)`, see Details.
#' @param updates Updates (minibatch gradients) per saved iteration; `NULL` chooses it.
#' @param steps Deprecated name of `updates` (in [hmc()] and [surrogate_hmc()] `steps` are
#'   leapfrog steps; here they were updates); still accepted, with a warning.
#' @param metric `"diag"` (default; preconditioned by the estimated Hessian diagonal,
#'   step sizes in natural units) or `"unit"` (`W = I` on the internal scale).
#' @param noise_estimate SGHMC's `B_hat` (times the identity), an estimate of the gradient
#'   noise `eps V / 2`: `0` (default), a number at most `friction`, or `"auto"`: every
#'   update estimates `V_hat = (N^2/B) var` of the batch rows' gradients per coordinate and
#'   uses `B_hat = (eps/2) V_hat`, clamped to `C` (clamped updates are counted in
#'   [sg_info()]). The estimate assumes independent batches (`batches = "fresh"`); with
#'   epochs the batches of one epoch have negatively correlated noise (it sums to zero over
#'   an epoch at fixed theta), which then matters far less than `eps V / 2` and `"auto"`
#'   over-corrects (posterior sds too small).
#' @param batches `"epoch"` (default): rows drawn without replacement within an epoch, a
#'   random permutation consumed in consecutive batches and reshuffled every epoch (`N mod
#'   B` rows are skipped per epoch); `"fresh"`: every batch drawn independently (without
#'   replacement within the batch).
#' @param resample Redraw the SGHMC momentum from N(0, I) every `resample` updates; `0`
#'   (default) never.
#' @param control_variate Use the control-variate gradient (SGLD-CV / SGHMC-CV; Baker et
#'   al. 2019): `TRUE`, `FALSE` (the plain minibatch gradient) or `NULL` (default): `TRUE`
#'   where the posterior has a mode (models without group-level terms), `FALSE` with
#'   group-level terms (see "Multilevel models" in Details). See "Control variates" in Details.
#' @param learning_rate,momentum_decay Chen et al.'s `eta` and `alpha`, an alternative to
#'   `step_size` and `friction` (`step_size = sqrt(eta)`, `friction = alpha / sqrt(eta)`).
#' @return An object of class `c("vhmc_sghmc", "vhmc_sampler")` or
#'   `c("vhmc_sgld", "vhmc_sampler")`, to pass as `sampler` to [vhmc_glm()].
#' @references Baker, J., Fearnhead, P., Fox, E. B. and Nemeth, C. (2019). Control variates
#'   for stochastic gradient MCMC. *Statistics and Computing* 29, 599-615.
#'   Chen, T., Fox, E. and Guestrin, C. (2014). Stochastic gradient Hamiltonian
#'   Monte Carlo. *ICML*. Welling, M. and Teh, Y. W. (2011). Bayesian learning via
#'   stochastic gradient Langevin dynamics. *ICML*.
#' @seealso [sg_info()] for what each chain did, [nuts()] for exact sampling.
#' @examples
#' sghmc()
#' sgld(batch_size = 50, step_size = 1e-4, decay = 0.55)
#' sghmc(learning_rate = 1e-6, momentum_decay = 0.1, updates = 50)
#' sghmc(control_variate = FALSE)
#' \donttest{
#' set.seed(1)
#' d <- data.frame(x1 = rnorm(5000), x2 = rnorm(5000))
#' d$y <- 1 + 0.5 * d$x1 - 0.25 * d$x2 + rnorm(5000)
#' fit <- vhmc_glm(y ~ x1 + x2, data = d, sampler = sghmc(), chains = 2,
#'                 seed = 1, progress = FALSE)
#' fit
#' sg_info(fit)
#' }
#' @export
sghmc <- function(batch_size = NULL, step_size = NULL, friction = NULL, updates = NULL,
                  metric = c("diag", "unit"), noise_estimate = 0, resample = 0,
                  batches = c("epoch", "fresh"), learning_rate = NULL, momentum_decay = NULL,
                  control_variate = NULL, steps = NULL) {
  if (!is.null(learning_rate) || !is.null(momentum_decay)) {
    if (is.null(learning_rate) || is.null(momentum_decay)) {
      stop_arg(if (is.null(learning_rate)) "learning_rate" else "momentum_decay",
               "is missing; `learning_rate` and `momentum_decay` go together")
    }
    if (!is.null(step_size) || !is.null(friction)) {
      stop_arg("learning_rate", "was given together with `step_size` or `friction`",
               "Give either (step_size, friction) or (learning_rate, momentum_decay).")
    }
    eta <- check_number(learning_rate, "learning_rate", 0, Inf, open = c(TRUE, TRUE))
    alpha <- check_number(momentum_decay, "momentum_decay", 0, 1, open = c(TRUE, FALSE))
    step_size <- sqrt(eta)
    friction <- alpha / sqrt(eta)
  }
  step_size <- if (is.null(step_size)) NULL else
    check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE))
  friction <- if (is.null(friction)) NULL else
    check_number(friction, "friction", 0, Inf, open = c(TRUE, TRUE))
  estimate_noise <- identical(noise_estimate, "auto")
  noise_estimate <- if (estimate_noise) 0 else {
    if (is.character(noise_estimate)) {
      stop_arg("noise_estimate", sprintf("must be a number >= 0 or \"auto\", not %s",
                                         describe(noise_estimate)))
    }
    check_number(noise_estimate, "noise_estimate", 0, Inf)
  }
  if (!is.null(friction) && noise_estimate > friction) {
    stop_arg("noise_estimate", sprintf("(%s) exceeds `friction` (%s); C - B_hat must be >= 0",
                                       format(noise_estimate), format(friction)))
  }
  new_sampler("sghmc",
    batch_size = check_batch_size(batch_size),
    step_size = step_size,
    friction = friction,
    updates = sg_updates(updates, steps),
    metric = match_choice(metric, "metric", c("diag", "unit")),
    noise_estimate = noise_estimate,
    estimate_noise = estimate_noise,
    resample = check_count(resample, "resample", 0),
    batches = match_choice(batches, "batches", c("epoch", "fresh")),
    control_variate = if (!is.null(control_variate)) check_flag(control_variate, "control_variate")
  )
}

#' @rdname sghmc
#' @param decay,decay_offset SGLD's step-size schedule `h_t = step_size *
#'   (decay_offset + t)^(-decay)`; `decay` in `[0, 1]` (0, the default, is a constant step;
#'   values in (0.5, 1] satisfy the Robbins-Monro conditions), `decay_offset > 0`.
#' @export
sgld <- function(batch_size = NULL, step_size = NULL, decay = 0, decay_offset = 1, updates = NULL,
                 metric = c("diag", "unit"), batches = c("epoch", "fresh"),
                 control_variate = NULL, steps = NULL) {
  new_sampler("sgld",
    batch_size = check_batch_size(batch_size),
    step_size = if (is.null(step_size)) NULL else
      check_number(step_size, "step_size", 0, Inf, open = c(TRUE, TRUE)),
    decay = check_number(decay, "decay", 0, 1),
    decay_offset = check_number(decay_offset, "decay_offset", 0, Inf, open = c(TRUE, TRUE)),
    updates = sg_updates(updates, steps),
    metric = match_choice(metric, "metric", c("diag", "unit")),
    batches = match_choice(batches, "batches", c("epoch", "fresh")),
    control_variate = if (!is.null(control_variate)) check_flag(control_variate, "control_variate")
  )
}

# `updates`, or its former name `steps` (with a warning).
sg_updates <- function(updates, steps) {
  if (!is.null(steps)) {
    warning("`steps` is deprecated for the stochastic-gradient samplers; use `updates` ",
            "(updates per saved iteration).", call. = FALSE)
    if (!is.null(updates)) stop_arg("steps", "was given together with `updates`", "Give `updates` only.")
    updates <- steps
  }
  if (is.null(updates)) NULL else check_count(updates, "updates", 1)
}

check_batch_size <- function(batch_size) {
  if (is.null(batch_size)) return(NULL)
  if (!is_count(batch_size, 1)) {
    stop_arg("batch_size", sprintf("must be a single whole number >= 1, not %s",
                                   describe(batch_size)))
  }
  as.integer(batch_size)
}

# Both samplers need minibatch gradients of a likelihood that factorises over rows, and
# sghmc(noise_estimate = "auto") their per-coordinate variance.
check_sg_target <- function(sampler, target) {
  if (isTRUE(target$minibatch) && isTRUE(sampler$estimate_noise) && isFALSE(target$minibatch_noise)) {
    stop_arg("noise_estimate", sprintf(paste(
      "is \"auto\", which estimates the variance of each coordinate's minibatch gradient from the",
      "batch's rows, and the core has no such estimate for %s"), target$description %||% "this target"),
      "Give a number (0, the default, or at most `friction`).")
  }
  if (isTRUE(target$minibatch)) return(invisible())
  stop_arg("sampler", sprintf(paste(
    "is %s(), a stochastic-gradient sampler: it needs minibatch gradients of a likelihood",
    "that factorises over observations, which %s does not provide"), sampler_name(sampler),
    target$description %||% "this target"),
    sprintf("Use %s here.", target$samplers %||% r_target_samplers))
}
check_target.vhmc_sghmc <- check_sg_target
check_target.vhmc_sgld <- check_sg_target
multilevel_hint.vhmc_sghmc <- function(sampler) {
  paste0("; the diagonal metric of ", sampler_name(sampler), "() follows the ridge of fixed and group effects slowly: ",
         "use nuts() where full gradients are affordable")
}
multilevel_hint.vhmc_sgld <- multilevel_hint.vhmc_sghmc
uses_minibatch.vhmc_sghmc <- function(sampler) TRUE
uses_minibatch.vhmc_sgld <- function(sampler) TRUE

# The batch size against the data: max(ceiling(N / 100), min(N, 100)) rows by default.
sg_batch_size <- function(sampler, n) {
  if (is.null(sampler$batch_size)) return(as.integer(max(ceiling(n / 100), min(n, 100))))
  if (sampler$batch_size > n) {
    stop_arg("batch_size", sprintf("(%d) exceeds the number of observations (%d)", sampler$batch_size, n),
             sprintf("Use a batch_size between 1 and %d.", n))
  }
  sampler$batch_size
}

sampler_config.vhmc_sghmc <- function(sampler, run, target) {
  core_config(sampler, batch_size = sg_batch_size(sampler, target$n_obs), step_size = sampler$step_size,
              friction = sampler$friction, noise_estimate = sampler$noise_estimate,
              estimate_noise = sampler$estimate_noise, updates = sampler$updates,
              resample = sampler$resample, diag_metric = sampler$metric == "diag",
              fresh_batches = sampler$batches == "fresh")
}

sampler_config.vhmc_sgld <- function(sampler, run, target) {
  core_config(sampler, batch_size = sg_batch_size(sampler, target$n_obs), step_size = sampler$step_size,
              decay = sampler$decay, decay_offset = sampler$decay_offset, updates = sampler$updates,
              diag_metric = sampler$metric == "diag", fresh_batches = sampler$batches == "fresh")
}

# Control variates: the posterior mode theta_hat and the full gradient g(theta_hat), once per
# fit (not per chain), by laplace_anchor() (R/laplace.R). Its cost in epochs (one per
# evaluation of the potential, the optimiser's and the final gradient's) and seconds are
# kept for the report. Chains start at theta_hat unless the user gave `init`.
prepare_sg_fit <- function(sampler, target, inits, user_init) {
  sampler$control_variate <- sampler$control_variate %||% isTRUE(target$has_mode)
  if (!sampler$control_variate) return(sg_settled(NextMethod(), sampler))
  evals <- 0
  seconds <- system.time(
    anchor <- tryCatch(sg_anchor(target, inits),
                       error = function(e) {
      stop("`control_variate = TRUE` needs the posterior mode, but the mode search failed: ",
           conditionMessage(e), "\nUse control_variate = FALSE, or proper priors / `init` near the mode.",
           call. = FALSE)
    }))[["elapsed"]]
  grad <- target$value_grad(anchor$mode)$gradient
  if (is.null(user_init)) {
    inits$internal <- rep(list(anchor$mode), length(inits$internal))
    inits$user <- rep(list(target$user_values(anchor$mode)), length(inits$user))
  }
  cv <- list(mode = anchor$mode, gradient = as.numeric(grad), epochs = anchor$evaluations + 1,
             seconds = seconds)
  sg_settled(list(extras = list(control_variate = cv[c("mode", "gradient")]), inits = inits,
                  stored = list(control_variate = cv)), sampler)
}

# The fit keeps the sampler as settled (control_variate = NULL resolved), for print() and
# update().
sg_settled <- function(prep, sampler) {
  prep$stored$sampler <- sampler
  prep
}
# The control variate's anchor: the posterior mode, by the Laplace anchor's search
# (R/laplace.R); or, where the posterior has none (a multilevel model's), the start's point
# near its bulk: the mode of the non-centred parameterisation mapped to the sampled one
# (R/start-noncentred.R, R/glmer-start.R; its search is counted in the start's cost). Any
# anchor leaves the estimate unbiased; a near one makes its noise small.
sg_anchor <- function(target, inits) {
  if (isTRUE(target$has_mode)) return(start_or_laplace_anchor(target, inits, "mode search"))
  if (is.null(inits$mode_point)) {
    stop(sprintf("%s has no mode, and the start found no point to anchor at (it needs init = NULL)",
                 target$description %||% "the posterior"), call. = FALSE)
  }
  list(mode = inits$mode_point, evaluations = 0)
}

prepare_fit.vhmc_sghmc <- prepare_sg_fit
prepare_fit.vhmc_sgld <- prepare_sg_fit

# Minibatch samplers exist to avoid passes over all the data, so with init = NULL they start
# from random values, or (control variates) at the mode their prepare_fit() finds anyway.
start_method.vhmc_sghmc <- function(sampler) "random"
start_method.vhmc_sgld <- function(sampler) "random"

# Per-chain reports as one data.frame (fit$sg), and the cost in per-observation gradients
# in the counts table.
add_sg_report <- function(sampler, fit, results, target) {
  num <- function(field) vapply(results, function(r) as.numeric(r$report[[field]]), numeric(1))
  cnt <- function(field) vapply(results, function(r) as.numeric(r$counts[[field]]), numeric(1))
  n <- num("n_obs")
  fit$counts$n_obs_grad <- cnt("n_obs_grad_warmup") + cnt("n_obs_grad_sampling")
  fit$counts$epochs <- fit$counts$n_obs_grad / n
  cv <- fit$control_variate
  fit$sg <- data.frame(
    chain = seq_along(results), n_obs = n, batch_size = num("batch_size"),
    step_size = num("step_size"), friction = num("friction"), updates_per_draw = num("updates"),
    curvature = num("curvature"), updates = num("n_updates"), clamped = num("n_clamped"),
    epochs_warmup = cnt("n_obs_grad_warmup") / n, epochs_sampling = cnt("n_obs_grad_sampling") / n,
    epochs_mode = if (is.null(cv)) 0 else cv$epochs, mode_seconds = if (is.null(cv)) 0 else cv$seconds
  )
  fit
}
add_report.vhmc_sghmc <- add_sg_report
add_report.vhmc_sgld <- add_sg_report

sg_label <- function(sampler) {
  metric_label(paste0(toupper(sampler_name(sampler)), if (isTRUE(sampler$control_variate)) "-CV"), sampler)
}
sampler_label.vhmc_sghmc <- sg_label
sampler_label.vhmc_sgld <- sg_label

header_lines.vhmc_sghmc <- function(sampler, fit) {
  sg_lines(fit, if (!is.null(fit$sg)) paste0(", friction = ", format(signif(mean(fit$sg$friction), 3))))
}
header_lines.vhmc_sgld <- function(sampler, fit) {
  sg_lines(fit, if (isTRUE(sampler$decay > 0)) paste0(" (decaying, decay = ", sampler$decay, ")"))
}

#' What each chain of a stochastic-gradient fit did
#'
#' For fits with [sghmc()] or [sgld()]: per chain, the number of observations `N`, the batch
#' size, the step size (SGLD: the last `h_t`), the friction (SGHMC), the updates per saved
#' iteration, the curvature estimate behind the defaults (0 when none was needed), the total
#' number of updates, the number of SGHMC updates whose estimated noise (`noise_estimate =
#' "auto"`) was clamped to the friction, and the cost in epochs (per-observation gradient evaluations / `N`) of
#' warmup (including curvature estimation) and sampling. With `control_variate = TRUE`
#' also `epochs_mode` and `mode_seconds`, the one-time cost of the posterior mode and the
#' full gradient there (shared by all chains; the same on every row; 0 otherwise).
#'
#' @param fit A `vhmc_fit` from [vhmc_glm()] with an SG sampler.
#' @return A data.frame with one row per chain.
#' @seealso [sghmc()]
#' @examples
#' \donttest{
#' set.seed(1)
#' d <- data.frame(x = rnorm(2000))
#' d$y <- rbinom(2000, 1, plogis(0.5 * d$x))
#' fit <- vhmc_glm(y ~ x, data = d, family = binomial(), sampler = sgld(),
#'                 chains = 2, seed = 1, progress = FALSE)
#' sg_info(fit)
#' }
#' @export
sg_info <- function(fit) {
  assert_vhmc_fit(fit)
  if (is.null(fit$sg)) {
    stop_arg("fit", "was not fitted with a stochastic-gradient sampler (sghmc() or sgld())")
  }
  fit$sg
}

# Header lines of print()/summary() for SG fits.
# `detail`: what the rule adds after the step size (SGHMC its friction, SGLD its decay).
sg_lines <- function(x, detail = NULL) {
  s <- x$sampler
  info <- x$sg
  settings <- if (!is.null(info)) {
    paste0("batch_size = ", info$batch_size[1], " of N = ", info$n_obs[1],
           ", step_size = ", format(signif(mean(info$step_size), 3)), detail,
           ", ", format(mean(info$updates_per_draw)), " updates per iteration")
  } else if (!is.null(s$batch_size)) {
    paste0("batch_size = ", s$batch_size)
  }
  c(settings,
    "No Metropolis correction: the draws carry a step-size (discretisation and gradient-noise)",
    "bias that more iterations do not remove; check with a smaller step_size.",
    if (!is.null(info)) sprintf("Cost: %s epochs per chain (%s warmup + %s sampling; epoch = N gradient rows).",
                                format_sig(mean(info$epochs_warmup + info$epochs_sampling), 3),
                                format_sig(mean(info$epochs_warmup), 3),
                                format_sig(mean(info$epochs_sampling), 3)),
    if (!is.null(info) && isTRUE(s$control_variate))
      sprintf("Control variate: + %s epochs once per fit for the posterior mode and its gradient (%s s).",
              format_sig(info$epochs_mode[1], 3), format(signif(info$mode_seconds[1], 3))))
}
