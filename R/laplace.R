# The Laplace anchor: the posterior mode and the Hessian of U there, for variational HMC's
# Laplace base and for the control variates of SGLD-CV / SGHMC-CV.

# The anchor the chains' start already found (first chain's; R/start.R), its evaluations
# counted as laplace_anchor() counts them; or a new search from the first chain's inits.
start_or_laplace_anchor <- function(target, inits, who) {
  la <- inits$anchor
  if (is.null(la)) return(counted_laplace_anchor(target, inits$internal[[1]], who))
  la$evaluations <- la$evaluations + la$hessians
  la
}

# laplace_anchor() on a target, counting the evaluations it makes (and the mode search's own).
counted_laplace_anchor <- function(target, init, who) {
  evals <- 0
  counted <- function(theta) {
    evals <<- evals + 1
    target$value_grad(theta)
  }
  la <- laplace_anchor(counted, init, target$mode, who = who, levels = target$hessian_levels)
  la$evaluations <- la$evaluations + evals
  la
}

# The Laplace anchor: mode and Hessian of the potential U (value_grad(theta) returns
# list(value = U, gradient = grad U)), from `init`. With `newton` (a function of init
# returning the core's damped-Newton result with the analytic Hessian, as vhmc_glm_mode()
# does for GLMs) that search is used; otherwise L-BFGS with the gradient, then up to 20
# Newton steps with the Hessian from central differences of the gradient (`levels`: a block
# of group-level effects whose levels fd_hessian() differences together). Errors, before any
# chain runs, when U is not finite at init or no finite optimum is found. `evaluations`
# counts the search's own passes (Hessians included), `hessians` the analytic Hessians.
laplace_anchor <- function(value_grad, init, newton = NULL, who = "variational_hmc()", levels = NULL, search = NULL) {
  U <- function(th) {
    v <- tryCatch(value_grad(th)$value, error = function(e) NaN)
    if (is.finite(v)) v else Inf
  }
  G <- function(th) tryCatch(value_grad(th)$gradient, error = function(e) rep(NaN, length(th)))
  if (!is.finite(U(init))) {
    stop_arg("init", "gives a non-finite log density, so the mode search cannot start",
             "Supply `init` values where the log density is finite.")
  }
  converge <- search$converge %||% TRUE
  search <- if (is.null(newton)) lbfgs_newton(value_grad, U, G, init, levels, search) else newton(init)
  theta <- search$mode
  hess <- search$hessian
  g <- G(theta)
  if (!is.finite(U(theta)) || !all(is.finite(g)) || !all(is.finite(hess))) {
    anchor_failure(who, paste("no finite posterior mode was found (the optimiser ended at a point",
                              "where the log density or its gradient is not finite)"),
                   "Check that the posterior is proper (e.g. priors on every parameter) or supply `init` near the mode.")
  }
  scale <- sqrt(sum(g^2)) / max(1, sqrt(sum(diag(hess)^2)))
  if (converge && !search$converged && scale > 1e-3) {
    anchor_failure(who, paste0("the mode search did not converge (gradient norm ", format(signif(sqrt(sum(g^2)), 3)), ")"),
                   "The posterior may have no finite mode; check the priors or supply `init` near the mode.")
  }
  ev <- eigen(hess, symmetric = TRUE, only.values = TRUE)$values
  top <- max(abs(ev), 1e-300)
  if (abs(min(ev)) <= 1e-10 * top || min(ev) < -1e-3 * top) {
    anchor_failure(who, paste0("the optimiser's end point is not a finite posterior mode (the Hessian there is ",
                               if (min(ev) < 0) "indefinite" else "singular",
                               ": the posterior is flat or improper in some direction, or has a saddle)"),
                   "Check that every parameter has a proper prior and is identified.")
  }
  shift <- 0
  if (min(ev) <= 1e-8 * top) {
    shift <- 1e-6 * max(abs(ev)) - min(ev)
    hess <- hess + diag(shift, length(theta))
    warning(who, ": the Hessian at the mode is not positive definite; ", format(signif(shift, 3)),
            " was added to its diagonal for the Laplace approximation.", call. = FALSE)
  }
  list(mode = as.numeric(theta), hessian = hess, value = U(theta), gradient_norm = sqrt(sum(g^2)),
       shift = shift, evaluations = (search$evaluations %||% 0) + (search$hessians %||% 0),
       hessians = search$hessians %||% 0)
}

# The error of a search that found no usable mode: "who: reason. advice", with the finding
# (`reason`) apart for callers whose advice differs (R/glmer-anchor.R: a funnel, not priors).
anchor_failure <- function(who, reason, advice) {
  stop(structure(class = c("vhmc_anchor_failure", "error", "condition"),
                 list(message = paste0(who, ": ", reason, ". ", advice), call = NULL, reason = reason)))
}

# Mode search for targets without an analytic Hessian: L-BFGS in the core (its evaluations
# go through value_grad, so a counting wrapper sees them), then Newton steps with the Hessian
# from differences of the gradient (each step only if U decreases). `search`: the sampler's
# mode_search() (L-BFGS iterations at most, whether to take Newton steps).
lbfgs_newton <- function(value_grad, U, G, init, levels = NULL, search = NULL) {
  opt <- vhmc_lbfgs(lbfgs_potential(value_grad, length(init), search$evaluations %||% Inf), as.numeric(init),
                    search$iterations %||% 2000L)
  theta <- opt$mode
  hess <- fd_hessian(G, theta, levels)
  for (k in seq_len(if (isFALSE(search$newton)) 0L else 20L)) {
    g <- G(theta)
    if (!all(is.finite(g)) || !all(is.finite(hess))) break
    ch <- tryCatch(chol(hess), error = function(e) NULL)
    if (is.null(ch) || sqrt(sum(g^2)) < 1e-8 * max(1, abs(U(theta)))) break
    step <- backsolve(ch, forwardsolve(t(ch), g))
    new <- theta - step
    if (!is.finite(U(new)) || U(new) > U(theta) + 1e-10 * max(1, abs(U(theta)))) break
    theta <- new
    hess <- fd_hessian(G, theta, levels)
  }
  list(mode = theta, hessian = hess, converged = opt$converged)
}

# value_grad as the closure the core's optimiser calls: f(theta, need_grad) returning U or
# c(U, grad U), NaN wherever the target cannot be evaluated (an error, a non-finite or
# malformed value), so that no R error unwinds through C++. After `budget` evaluations it
# answers NaN without evaluating, which ends the search at the best point so far.
lbfgs_potential <- function(value_grad, d, budget = Inf) {
  n <- 0
  function(theta, need_grad) {
    n <<- n + 1
    if (n > budget) return(NaN)
    v <- tryCatch(value_grad(theta), error = function(e) NULL)
    ok <- !is.null(v) && is.numeric(v$value) && length(v$value) == 1L && is.finite(v$value)
    if (ok && !need_grad) return(v$value)
    ok <- ok && is.numeric(v$gradient) && length(v$gradient) == d && all(is.finite(v$gradient))
    if (ok) c(v$value, v$gradient) else NaN
  }
}

# Central differences of a gradient function, symmetrised: 2 d gradients. With `levels`
# (list(offset, J, p): a block of J levels' p effects each, level-major from the 0-based
# offset; hessian_levels(), R/glmer-model.R) the Hessian is block diagonal within the
# block, since no row of the data and no prior term involves two levels' effects: the
# block's k-th effects of every level are then differenced together (the grouping of
# Curtis, Powell and Reid 1974), each level's rows of that difference giving its own
# column, and the block's columns against the other parameters come from theirs by
# symmetry: 2 (d - J p + p) gradients.
fd_hessian <- function(G, theta, levels = NULL) {
  h <- 1e-5 * pmax(1, abs(theta))
  if (!is.null(levels)) return(fd_hessian_levels(G, theta, h, levels))
  H <- vapply(seq_along(theta), function(j) gradient_step(G, theta, h, j) / (2 * h[j]), numeric(length(theta)))
  H <- matrix(H, length(theta))
  (H + t(H)) / 2
}

# G(theta + h e) - G(theta - h e), e the indicator of the coordinates `cols`.
gradient_step <- function(G, theta, h, cols) {
  e <- theta
  e[cols] <- theta[cols] + h[cols]
  up <- G(e)
  e[cols] <- theta[cols] - h[cols]
  up - G(e)
}

fd_hessian_levels <- function(G, theta, h, levels) {
  d <- length(theta)
  lev <- matrix(levels$offset + seq_len(levels$J * levels$p), nrow = levels$p)  # p x J
  other <- setdiff(seq_len(d), lev)
  H <- matrix(0, d, d)
  for (j in other) H[, j] <- gradient_step(G, theta, h, j) / (2 * h[j])
  rows <- as.vector(lev)
  for (k in seq_len(levels$p)) {
    cols <- rep(lev[k, ], each = levels$p)  # each level's column k, for its p rows
    H[cbind(rows, cols)] <- gradient_step(G, theta, h, lev[k, ])[rows] / (2 * h[cols])
  }
  H[other, rows] <- t(H[rows, other])
  (H + t(H)) / 2
}
