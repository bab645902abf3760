# variational_hmc(): approximate HMC on a surrogate trained online by score matching and
# blended with the Laplace approximation (Zhang, Shahbaba and Zhao 2018). The constructor
# validates; sampler_config() settles the run-dependent defaults; prepare_fit() computes the
# Laplace anchor (R/laplace.R) once per fit; the core
# (inst/include/vhmc/sampler/variational_sampler.hpp) trains and samples; the methods below
# summarise the result.

#' Variational HMC (approximate)
#'
#' Hamiltonian Monte Carlo on a free-form variational approximation of the posterior
#' (Zhang, Shahbaba and Zhao 2018): a neural network with random, fixed hidden bases whose
#' output weights are fitted online, by score matching, to the true gradients at the
#' accepted states of the chain itself, blended early on with the Laplace approximation.
#' After training the chain never evaluates the log density or its gradient again, so
#' sampling costs nothing per observation. **The draws come from the approximation q, not
#' from the posterior**: there is no correction for the approximation error, which
#' [variational_info()] estimates.
#'
#' Before the chains start, the mode and the Hessian there are found: for [vhmc_glm()]
#' models by damped Newton with the analytic Hessian (in C++); for [vhmc_sample()] targets
#' by BFGS with the true gradient (`optim()`), then Newton steps with the Hessian from
#' central differences of the gradient. A Hessian that is nearly singular is made positive
#' definite, with a warning; no finite mode, or a singular or indefinite Hessian there, is
#' an error. The bases are drawn in
#' coordinates standardised by this Laplace approximation, whose covariance is also the
#' metric. At iteration `t` of the first `train_until` iterations the chain runs HMC on
#' `V_t = mu_t z + (1 - mu_t) / 2 (theta - mode)' H (theta - mode)` with
#' `mu_t = 1 - exp(-t / schedule)` (`z` the network) and accepts with the *surrogate*
#' Hamiltonian; every accepted proposal's true gradient updates the output weights by the
#' exact recursive ridge (Woodbury) solution, except every tenth, which is held out to
#' measure the final approximation's score-matching error. The step size is adapted by dual
#' averaging toward `adapt_delta` while training, then frozen; after `train_until`, `mu` and
#' the weights are frozen too (`final_mu = "one"` sets `mu = 1`, the paper's literal variant,
#' which can make `exp(-V)` improper) and the chain samples `q ~ exp(-V)`.
#'
#' By default (`base = "laplace"`) the network `z` carries the Laplace quadratic as a fixed
#' base, `z = (theta - mode)' H (theta - mode) / 2 + network`, and the network is fitted to
#' the residual gradients, so that `V = quadratic + mu_t network`. This changes nothing when
#' the network is well trained, but an undertrained one is shrunk toward the Laplace
#' approximation instead of toward a flat potential, and far from the training states the
#' quadratic dominates, so `q` stays proper: with few training gradients the paper's
#' version (`base = "none"`) can put most of its mass far from the posterior (see the
#' probit benchmark in `vignette("variational-hmc")`).
#'
#' **Multilevel models.** Its Laplace anchor is found as for [surrogate_hmc()]: with the
#' group-level effects sampled, the local mode of the centred form where each level's rows
#' outweigh its prior. Where they do not (few rows a level, a small group sd), the centred
#' form has no local mode and the effects would be sampled non-centred, where the
#' approximation left the posterior in every case measured (its draws are not corrected):
#' such models are refused before sampling, naming [surrogate_hmc()] and [nuts()]. With the
#' gaussian family's effects
#' integrated out, the mode of that marginal posterior (the effects drawn afterwards from
#' their conditional); beyond 2,000 sampled parameters it is refused (use [nuts()]). On the
#' logistic model with \eqn{N = 10^6} rows and `(1 | state)` over
#' 50 states of `inst/bench/surrogate_multilevel.R`, seeds 1-3, it gave min bulk ESS
#' 1,077/967/1,069 in 36-39 s of the whole call (2.2/2.1/2.4 times NUTS's ESS per second),
#' means within 2.5 combined Monte Carlo standard errors (0.08 posterior sd) of NUTS's and
#' sds within 19%; on lme4's
#' `sleepstudy` with `(1 | Subject)` integrated out, means within 2.2 Monte Carlo standard
#' errors of NUTS's and sds within 3.5%.
#'
#' @param hidden Number of hidden units; `NULL` uses `min(2000, max(50, 40 d))`.
#' @param schedule The time constant of `mu_t`; `NULL` uses `train_until / 10`, so that
#'   `mu` reaches `1 - exp(-10)` when training stops.
#' @param train_until Iterations with online training, at most `warmup`; `NULL` uses all
#'   of warmup.
#' @param lambda Ridge penalty of the score-matching fit (standardised coordinates);
#'   `NULL` uses 1e-3.
#' @param activation `"softplus"` (default), `"sigmoid"`, `"tanh"` or `"rbf"`.
#' @param steps Maximum leapfrog steps per iteration (drawn uniformly in `1..steps`).
#' @param adapt_delta Target acceptance rate of the step-size adaptation during training.
#' @param final_mu `"frozen"` (default) keeps `mu` at its value when training stops;
#'   `"one"` uses the surrogate alone afterwards.
#' @param base `"laplace"` (default): the Laplace quadratic is a fixed part of the
#'   surrogate and the network fits the rest; `"none"`: the network alone, as in the paper.
#' @param start `"laplace"` (default): each chain starts from its own draw of the Laplace
#'   approximation (the mode is found first anyway), so that no training gradient comes
#'   from a transient far from the posterior; `"init"`: from the initial values, as in the
#'   paper (then `init` matters, e.g. the probit benchmark's start at 0).
#' @param refresh_every Training points per re-solve of the output weights. `1` is the
#'   exact online (Woodbury) update at every point, which costs `O(s^2 d)` per point; `k > 1`
#'   accumulates the score-matching normal equations (`O(s^2)` per point) and solves them
#'   every `k` points and when training ends (the final weights are the same ridge
#'   solution). `NULL` uses `1` while `3 s^2 d <= 1e7` and `ceiling(s / d)` beyond, about 9
#'   times cheaper per point there (e.g. `s = 2000`, `d = 51`).
#' @param importance Also evaluate the true log density at every draw after sampling (one
#'   evaluation per draw, reported) for importance-sampling diagnostics of the approximation
#'   (Pareto k when the loo package is installed, and the normalised-weight ESS).
#' @return An object of class `c("vhmc_variational_hmc", "vhmc_sampler")`.
#' @references Zhang, C., Shahbaba, B. and Zhao, H. (2018). Variational Hamiltonian Monte
#'   Carlo via score matching. *Bayesian Analysis* 13, 485-506.
#' @seealso [variational_info()], [surrogate_hmc()] for the exact counterpart.
#' @examples
#' variational_hmc()
#' \donttest{
#' set.seed(1)
#' X <- matrix(rnorm(2000 * 3), 2000)
#' d <- data.frame(y = rbinom(2000, 1, plogis(X %*% c(1, -1, 0.5))), X)
#' fit <- vhmc_glm(y ~ ., data = d, family = binomial(), sampler = variational_hmc(),
#'                 chains = 2, seed = 1, progress = FALSE)
#' fit
#' variational_info(fit)
#' }
#' @export
variational_hmc <- function(hidden = NULL, schedule = NULL, train_until = NULL, lambda = NULL,
                            activation = c("softplus", "sigmoid", "tanh", "rbf"), steps = 20,
                            adapt_delta = 0.7, final_mu = c("frozen", "one"),
                            base = c("laplace", "none"), start = c("laplace", "init"),
                            refresh_every = NULL, importance = FALSE) {
  new_sampler("variational_hmc",
    hidden = if (is.null(hidden)) NULL else check_count(hidden, "hidden", 1),
    schedule = if (is.null(schedule)) NULL else
      check_number(schedule, "schedule", 0, Inf, open = c(TRUE, TRUE)),
    train_until = if (is.null(train_until)) NULL else check_count(train_until, "train_until", 0),
    lambda = if (is.null(lambda)) NULL else
      check_number(lambda, "lambda", 0, Inf, open = c(TRUE, TRUE)),
    activation = match_choice(activation, "activation", c("softplus", "sigmoid", "tanh", "rbf")),
    steps = check_count(steps, "steps", 1),
    adapt_delta = check_number(adapt_delta, "adapt_delta", 0, 1, open = c(TRUE, TRUE)),
    final_mu = match_choice(final_mu, "final_mu", c("frozen", "one")),
    base = match_choice(base, "base", c("laplace", "none")),
    start = match_choice(start, "start", c("laplace", "init")),
    refresh_every = if (is.null(refresh_every)) NULL else check_count(refresh_every, "refresh_every", 1),
    importance = check_flag(importance, "importance")
  )
}

# Training runs through warmup unless `train_until` says otherwise, with the schedule n_s
# one tenth of it (mu reaches 1 - e^-10 at its end); the ridge penalty is the core's default
# (1e-3 in the Laplace-standardised coordinates) unless given.
sampler_config.vhmc_variational_hmc <- function(sampler, run, target) {
  train_until <- sampler$train_until %||% run$warmup
  if (train_until > run$warmup) {
    stop_arg("sampler", sprintf("has train_until = %d, more than warmup = %d", train_until, run$warmup),
             "Lower `train_until` or raise `warmup`.")
  }
  if (train_until < 1L) {
    stop_arg("warmup", "is 0, so variational_hmc() has no iterations to train its surrogate",
             "Use warmup >= 100 (ideally several hundred).")
  }
  core_config(sampler, hidden = sampler$hidden, activation = sampler$activation,
              lambda = sampler$lambda, train_until = as.integer(train_until),
              schedule = sampler$schedule %||% max(1, train_until / 10), steps = sampler$steps,
              adapt_delta = sampler$adapt_delta, step_size = NULL,
              final_mu_one = sampler$final_mu == "one", laplace_base = sampler$base == "laplace",
              start_laplace = sampler$start == "laplace", refresh_every = sampler$refresh_every)
}

# The Laplace anchor (mode and Hessian of U), once per fit: the start's (R/start.R), or
# searched from the first chain's initial values; the fit keeps it (fit$laplace).
prepare_fit.vhmc_variational_hmc <- function(sampler, target, inits, user_init) {
  la <- start_or_laplace_anchor(target, inits, "variational_hmc()")
  list(extras = list(laplace = list(mode = la$mode, hessian = la$hessian)), inits = inits,
       stored = list(laplace = la))
}

sampler_label.vhmc_variational_hmc <- function(sampler) "variational HMC (dense metric)"

# Per-chain reports; with `importance = TRUE` the importance diagnostics of q against the
# posterior, from one true log density per draw.
add_report.vhmc_variational_hmc <- function(sampler, fit, results, target) {
  reports <- lapply(results, `[[`, "report")
  if (isTRUE(sampler$importance)) {
    for (c in seq_along(reports)) {
      U <- target$potential_values(results[[c]]$draws)
      reports[[c]]$importance <- importance_diagnostics(U, reports[[c]]$draw_potential)
    }
  }
  fit$variational <- reports
  fit
}

check_report.vhmc_variational_hmc <- function(sampler, fit) check_variational(fit)
# Non-centred effects (few rows a level: the centred form has no local mode) left the
# posterior in 6 of 6 such replications of the SBC model varying_intercept_rich (8 levels of
# 60 rows), held-out gradient error 190% to 2.7e6%: q's log sd direction, a near-linear tail
# towards sd = 0, is not captured, and nothing corrects q's draws. The centred ones (6 of 6)
# gave sds within 0.77-1.20 of NUTS's and means within 0.1 sd.
samples_noncentred.vhmc_variational_hmc <- function(sampler) FALSE

header_lines.vhmc_variational_hmc <- function(sampler, fit) variational_line(fit)

# Importance diagnostics of q against the posterior from U at the draws (internal coordinates,
# matrix rows) and V at the same draws: log w = -U + V, up to a constant.
importance_diagnostics <- function(U, V) {
  logw <- -U + V
  ok <- is.finite(logw)
  logw <- logw[ok]
  w <- exp(logw - max(logw))
  w <- w / sum(w)
  k <- NA_real_
  if (requireNamespace("loo", quietly = TRUE) && length(logw) >= 10) {
    k <- tryCatch(suppressWarnings(loo::psis(logw, r_eff = NA)$diagnostics$pareto_k),
                  error = function(e) NA_real_)
  }
  list(pareto_k = k, ess = 1 / sum(w^2), n = length(logw), n_nonfinite = sum(!ok))
}

#' What variational HMC did
#'
#' For fits with [variational_hmc()]: per chain, the network, the number of true gradients
#' it was trained on (the only data access) and held out, the time spent in the online
#' updates, the final blending weight `mu`, and the quality of the approximation:
#' `grad_rel_error`, the relative error ||grad V - grad U|| / ||grad U|| of the final
#' variational potential on held-out training states (standardised coordinates), and
#' `score_distance`, half the mean squared error there (the empirical score-matching
#' distance). `n_outside` counts the draws beyond the region the training states covered
#' (standardised radius above 1.5 times theirs plus 3), where the network was never fitted:
#' many of them mean that `q` extrapolates, and may even be improper. `train_radius` is that
#' largest radius of the training states (in Laplace standard deviations; a Gaussian
#' posterior's typical radius is about `sqrt(d)`, so a much larger one means the training
#' states themselves wandered off). `laplace_evals` counts the evaluations of the potential and its gradient
#' that the mode search and the Hessian took (once, before the chains). With
#' `importance = TRUE`, also the Pareto k of the importance weights
#' posterior / q at the draws (below 0.7: q is usable as a proposal for the posterior;
#' needs the loo package) and their normalised-weight effective sample size, from one true
#' log-density evaluation per draw.
#'
#' @param fit A fit made with `sampler = variational_hmc()`.
#' @return A data frame with one row per chain.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(am ~ wt + hp, data = mtcars, family = binomial(),
#'                 sampler = variational_hmc(), chains = 2, seed = 1, progress = FALSE)
#' variational_info(fit)
#' }
#' @export
variational_info <- function(fit) {
  v <- sampler_reports(fit, "variational", "variational_hmc()")
  num <- function(name) report_column(v, name)
  out <- data.frame(
    chain = seq_along(v), hidden = num("hidden"),
    activation = report_column(v, "activation", character(1)),
    n_train = num("n_train"), n_holdout = num("n_holdout"), refresh_every = num("refresh_every"),
    update_seconds = num("update_seconds"), grad_rel_error = num("grad_rel_error"), score_distance = num("score_distance"),
    mu_final = num("mu_final"),
    step_size = vapply(fit$adaptation, `[[`, numeric(1), "step_size"),
    accept = vapply(fit$diagnostics, function(d) mean(d$accept_stat__), numeric(1)),
    n_grad = fit$counts$n_grad, n_surrogate_grad = num("n_surrogate_grad"),
    laplace_evals = fit$laplace$evaluations %||% NA_real_,
    n_outside = num("n_outside"), train_radius = num("train_radius")
  )
  if (!is.null(v[[1]]$importance)) {
    out$pareto_k <- vapply(v, function(x) x$importance$pareto_k, numeric(1))
    out$importance_ess <- vapply(v, function(x) x$importance$ess, numeric(1))
    out$n_importance_evals <- vapply(v, function(x) x$importance$n + x$importance$n_nonfinite, numeric(1))
  }
  out
}

# Warn when the approximation does not fit the posterior (check_variational_fit()) or draws
# left the region the surrogate was trained on.
check_variational <- function(fit) {
  if (is.null(fit$variational)) return(invisible())
  info <- variational_info(fit)
  check_variational_fit(info, length(fit$laplace$mode %||% fit$inits[[1]]))
  frac <- info$n_outside / vapply(fit$diagnostics, nrow, numeric(1))
  bad <- frac > 0.01
  if (any(bad)) {
    warning(sprintf(paste(
      "variational_hmc: %s of the draws of chain%s %s lie beyond the region the surrogate was",
      "trained on, so the approximation extrapolates there and may be improper. To fix: a",
      "longer training (`train_until`, `warmup`), a slower schedule (`schedule`) or a larger",
      "ridge penalty (`lambda`); see variational_info(fit)."),
      paste0(round(100 * max(frac[bad])), "%"), if (sum(bad) > 1) "s" else "",
      paste(info$chain[bad], collapse = ", ")), call. = FALSE)
  }
  invisible()
}

# The approximation q is unusable, whatever its draws' spread: where the held-out gradient
# error is above surrogate_hmc()'s bound for a surrogate that can drive trajectories (50%,
# surrogate_payoff.hpp), or where the training states wandered beyond ten times a Gaussian
# posterior's typical radius sqrt(d) (in Laplace sds) into a region without posterior mass.
# Seen on a weakly informed multilevel logistic model (8 levels of 60 rows, group sd 0.06):
# error 520%, radius 1,105, a slope's draws at 20 where the posterior's mean is 0.01.
check_variational_fit <- function(info, d) {
  radius <- sqrt(max(d, 1))
  err_bad <- info$grad_rel_error > 0.5
  far <- info$train_radius > 10 * radius
  bad <- which(err_bad | far)
  if (!length(bad)) return(invisible())
  found <- c(if (any(err_bad)) sprintf("held-out gradient error %s%%, above 50%%",
                                       paste(unique(signif(range(100 * info$grad_rel_error[err_bad]), 2)), collapse = "-")),
             if (any(far)) sprintf("training states up to %s Laplace sds from the mode, where a Gaussian posterior's typical radius is %s",
                                   format(signif(max(info$train_radius[far]), 3), big.mark = ","), format(signif(radius, 2))))
  warning(sprintf(paste(
    "variational_hmc: the approximation does not fit this posterior in chain%s %s (%s), so its draws may be",
    "far from the posterior's, not only narrower. To fix: use nuts() or surrogate_hmc() (exact); see variational_info(fit)."),
    if (length(bad) > 1) "s" else "", paste(info$chain[bad], collapse = ", "), paste(found, collapse = "; ")),
    call. = FALSE)
}

# One line for print(): the draws are from the approximation.
variational_line <- function(fit) {
  info <- variational_info(fit)
  sprintf(paste("variational: draws from the approximation q, NOT the posterior (no correction);",
                "%d %s bases trained on %s true gradients; held-out gradient error %s%%%s"),
          as.integer(info$hidden[1]), info$activation[1],
          paste(unique(range(info$n_train)), collapse = "-"),
          paste(unique(signif(range(100 * info$grad_rel_error), 2)), collapse = "-"),
          if (!is.null(info$pareto_k)) sprintf("; Pareto k %s",
            paste(unique(round(range(info$pareto_k), 2)), collapse = "-")) else "")
}

#' The variational potential of a variational HMC fit
#'
#' Evaluates `V(theta) = mu z(theta) + (1 - mu)/2 (theta - mode)' H (theta - mode)`, the
#' potential whose density `q ~ exp(-V)` a [variational_hmc()] chain sampled after training
#' (up to an additive constant), at the rows of `theta`: for comparing the approximation
#' with the posterior, e.g. on a grid.
#'
#' @param fit A [vhmc_sample()] fit made with `sampler = variational_hmc()`.
#' @param theta A matrix with one row per point and one column per parameter (or a vector
#'   for one point), on the sampler's coordinates: for a fit with declared bounds
#'   (`vhmc_sample(lower =, upper =)`), the unconstrained ones (`fit$model$parameters`
#'   names them).
#' @param chain Which chain's approximation (each chain trains its own).
#' @return A numeric vector: `V` at each row (so `-V` is `log q` up to a constant).
#' @examples
#' \donttest{
#' ld <- function(th) -0.5 * sum(th^2 / c(1, 4))
#' fit <- vhmc_sample(ld, function(th) -th / c(1, 4), init = c(a = 0, b = 0),
#'                    sampler = variational_hmc(hidden = 20), chains = 1, seed = 1,
#'                    progress = FALSE)
#' variational_potential(fit, rbind(c(0, 0), c(1, 1)))
#' }
#' @export
variational_potential <- function(fit, theta, chain = 1L) {
  sampler_reports(fit, "variational", "variational_hmc()")
  if (!identical(fit$model$type, "custom")) {
    stop_arg("fit", "is a model fit; variational_potential() evaluates vhmc_sample() fits",
             "Fit the log density with vhmc_sample() to evaluate its approximation.")
  }
  chain <- check_count(chain, "chain", 1)
  if (chain > length(fit$variational)) stop_arg("chain", sprintf("must be at most %d", length(fit$variational)))
  rep <- fit$variational[[chain]]
  net <- rep$network
  d <- length(net$m)
  if (is.null(dim(theta))) theta <- matrix(theta, nrow = 1L)
  if (!is.numeric(theta) || ncol(theta) != d) {
    stop_arg("theta", sprintf("must be a numeric matrix with %d columns (one per parameter)", d))
  }
  U <- forwardsolve(net$L, t(theta) - net$m)          # d x n, u = L^{-1}(theta - m)
  act <- rep$activation
  h <- if (act == "rbf") {
    dist2 <- outer(rowSums(net$w_hat^2), rep(1, ncol(U))) - 2 * net$w_hat %*% U +
      outer(rep(1, nrow(net$w_hat)), colSums(U^2))
    exp(-pmax(dist2, 0) / (2 * net$d_hat))
  } else {
    a <- net$w_hat %*% U + net$d_hat
    switch(act,
           softplus = pmax(a, 0) + log1p(exp(-abs(a))),
           sigmoid = stats::plogis(a),
           tanh = tanh(a))
  }
  z <- drop(crossprod(net$weights, h)) + net$offset
  if (isTRUE(net$laplace_base)) z <- z + 0.5 * colSums(U^2)
  mu <- rep$mu_final
  D <- t(theta) - fit$laplace$mode
  quad <- colSums(D * (fit$laplace$hessian %*% D))
  mu * z + 0.5 * (1 - mu) * quad
}

check_target.vhmc_variational_hmc <- function(sampler, target) check_mode_target(sampler, target)
