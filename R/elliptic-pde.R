# elliptic_pde_model(): the elliptic PDE inverse problem of Dashti and Stuart (2011), Conrad
# et al. (2014) and Zhang, Shahbaba and Zhao (2017, eq. 13) as an R target for
# vhmc_sample(): an example of a log density whose every evaluation solves a PDE. The
# pieces live in pde-mesh.R (mesh, assembly), pde-solver.R (sparse Cholesky with one
# symbolic analysis), pde-kl.R (prior modes) and pde-posterior.R (log density and
# derivatives); this file validates, builds the state, makes or checks the data and wraps
# everything into the model object.

#' Elliptic PDE inverse problem: an expensive example target
#'
#' Builds the log posterior of the conductivity field of an elliptic PDE from noisy
#' observations of its solution (Dashti and Stuart, 2011; Conrad et al., 2014), the
#' "computationally intensive" example of Zhang, Shahbaba and Zhao (2017). Every evaluation
#' of the log density solves the PDE by finite elements, so the model is a realistic test of
#' samplers that save evaluations, such as [surrogate_hmc()]. It is written in R on the
#' sparse Cholesky factorisation of the Matrix package and shows how to write such a target.
#'
#' **Model.** On the unit square,
#' \deqn{\nabla \cdot (c(x, \theta) \nabla u) = 0}{div(c(x, theta) grad u) = 0}
#' with \eqn{u = x_1}{u = x1} on \eqn{x_2 = 0}{x2 = 0}, \eqn{u = 1 - x_1}{u = 1 - x1} on
#' \eqn{x_2 = 1}{x2 = 1} and zero flux \eqn{\partial u / \partial x_1 = 0}{du/dx1 = 0} on
#' \eqn{x_1 = 0}{x1 = 0} and \eqn{x_1 = 1}{x1 = 1}. The log conductivity is
#' \deqn{\log c(x, \theta) = \sum_{i=1}^{d} \theta_i \sqrt{\lambda_i} v_i(x),}{log c(x,
#' theta) = sum_i theta_i sqrt(lambda_i) v_i(x),}
#' the first `n_terms` terms of the Karhunen-Loeve expansion of a zero-mean Gaussian process
#' with covariance \eqn{\sigma^2 \exp(-|x - x'|^2 / (2 l^2))}{sigma2 exp(-|x - x'|^2 /
#' (2 length_scale^2))}. The prior is \eqn{\theta_i \sim N(0, s_\theta^2)}{theta_i ~
#' N(0, prior_sd^2)} and the data are \eqn{y_j = u(x_j, \theta) + \epsilon_j}{y_j =
#' u(x_j, theta) + e_j}, \eqn{\epsilon_j \sim N(0, s_y^2)}{e_j ~ N(0, noise_sd^2)}, at the
#' 121 points of the grid \eqn{\{0, 0.1, \dots, 1\}^2}{{0, 0.1, ..., 1}^2}, ordered with
#' \eqn{x_1}{x1} running fastest (see `obs_points`).
#'
#' **Discretisation.** Galerkin finite elements with bilinear (Q1) elements on a uniform
#' `n_mesh` x `n_mesh` grid of squares. The conductivity is constant on each element, equal
#' to its value at the element's centre (the midpoint rule, second-order accurate like the
#' elements themselves). The solution is read at the observation points by bilinear
#' interpolation, which for `n_mesh` a multiple of 10 reads nodal values. The
#' eigenpairs \eqn{(\lambda_i, v_i)} are computed by the Nystrom method with the midpoint
#' rule on the element centres (weights the element areas \eqn{h^2}); because the kernel is
#' separable they are products of one-dimensional eigenpairs,
#' \eqn{v_i(x) = \phi_a(x_1) \phi_b(x_2)}{v_i(x) = phi_a(x1) phi_b(x2)}, ordered by
#' decreasing eigenvalue (see `kl`). With the defaults the 20 modes carry 97.1% of the
#' prior variance of the field.
#'
#' **Cost.** The matrix of the discrete system changes with \eqn{\theta} but its sparsity
#' pattern does not: the fill-reducing ordering and symbolic factorisation are computed once,
#' by [Matrix::Cholesky()], and each new matrix is factorised numerically by `update()` of
#' that factor. A log density costs one factorisation and one solve (a forward and a back
#' substitution); the gradient, by the adjoint method, one more solve on the same factor;
#' the Fisher metric and the Hessian diagonal `n_terms` more (tangent solves, one per
#' parameter, cheaper than one adjoint solve per observation). The last forward solve is
#' kept, so a gradient at the point where the log density was just evaluated, which is how
#' samplers call them, costs only the adjoint solve. `counts()` reports what has been spent.
#'
#' @param n_mesh Number of elements along each side of the square.
#' @param n_terms Number of Karhunen-Loeve terms, the dimension of \eqn{\theta}.
#' @param length_scale,sigma2 Length scale and variance of the squared-exponential
#'   covariance of the log conductivity.
#' @param prior_sd Prior standard deviation of each \eqn{\theta_i}.
#' @param noise_sd Standard deviation of the observation noise.
#' @param observations `NULL` (default) to simulate the data: \eqn{\theta} is drawn from the
#'   prior and the observations from the model at that \eqn{\theta}, on the same mesh, both
#'   with `seed`. Otherwise 121 finite numbers, the observations at `obs_points`.
#' @param seed Seed of the simulation (the user's random number stream is left untouched);
#'   `NULL` draws one. Ignored when `observations` are given.
#' @param ... Must be empty; catches misspelt argument names.
#' @return An object of class `vhmc_pde_model`, a list with
#'   * `log_density(theta)`, `gradient(theta)`: the log posterior (up to a constant) and its
#'     gradient, for [vhmc_sample()].
#'   * `fisher_metric(theta, derivatives = FALSE)`: \eqn{J'J / s_y^2 + I / s_\theta^2}{J'J /
#'     noise_sd^2 + I / prior_sd^2}, with \eqn{J} the Jacobian of the noise-free
#'     observations, the metric of Riemannian-manifold HMC (Girolami and Calderhead, 2011).
#'     With `derivatives = TRUE`, `list(G, dG)` with `dG[, , k]` its derivative in
#'     \eqn{\theta_k}{theta_k} (from the second derivatives of the solution, by `n_terms`
#'     adjoint solves on the same factor), the `metric_tensor` that [rmhmc()] needs
#'     in [vhmc_sample()].
#'   * `hessian_diagonal(theta)`: the diagonal of the Hessian of the negative log posterior
#'     (Zhang et al., 2017), which includes the residual term the Fisher metric leaves out.
#'   * `predict(theta)`: the noise-free observations \eqn{u(x_j, \theta)}{u(x_j, theta)}.
#'   * `solve_field(theta)`, `conductivity_field(theta)`: the solution at the nodes and the
#'     conductivity at the element centres, as lists `x`, `y`, `z` for [graphics::image()]
#'     or [graphics::contour()].
#'   * `simulate(theta = NULL, seed = NULL)`: a new data set, `list(theta, observations)`,
#'     at `theta` or at a draw from the prior.
#'   * `counts(reset = FALSE)`: numeric factorisations, right-hand sides solved
#'     (`solves`) and calls of each function since the model was returned (or the last
#'     reset), in this R process: chains run in parallel worker processes count in the
#'     workers' copies. The single symbolic analysis is done when the model is built.
#'   * `init`: zeros named `theta[1]`, ..., the prior mean; `observations`, `obs_points`;
#'     `theta_true` (the simulated truth, or `NULL`); `kl` (eigenvalues, the indices
#'     (a, b) of each mode, the fraction of prior variance kept); `settings`.
#' @references
#' Dashti, M. and Stuart, A. M. (2011). Uncertainty quantification and weak approximation
#' of an elliptic inverse problem. *SIAM Journal on Numerical Analysis*, 49(6), 2524-2542.
#'
#' Conrad, P. R., Marzouk, Y. M., Pillai, N. S. and Smith, A. (2014). Accelerating
#' asymptotically exact MCMC for computationally intensive models via local approximations.
#' arXiv:1402.1694.
#'
#' Girolami, M. and Calderhead, B. (2011). Riemann manifold Langevin and Hamiltonian Monte
#' Carlo methods. *Journal of the Royal Statistical Society B*, 73(2), 123-214.
#'
#' Zhang, C., Shahbaba, B. and Zhao, H. (2017). Hamiltonian Monte Carlo acceleration using
#' surrogate functions with random bases. *Statistics and Computing*, 27(6), 1473-1490.
#' @examples
#' m <- elliptic_pde_model()
#' m
#' m$log_density(m$init)
#' m$gradient(m$theta_true)[1:5]
#' image(m$conductivity_field(m$theta_true), main = "true conductivity")
#' contour(m$solve_field(m$theta_true), add = TRUE)
#' m$counts()
#' \donttest{
#' # A short run (about 3000 gradients, 10 s; expect warnings about the ESS):
#' # each log density and the gradient at the same point share one factorisation.
#' fit <- vhmc_sample(m$log_density, m$gradient, init = m$init, sampler = nuts(),
#'                    chains = 1, iter = 300, seed = 1, progress = FALSE)
#' m$counts()
#' }
#' @importFrom Matrix Cholesky sparseMatrix
#' @export
elliptic_pde_model <- function(n_mesh = 30, n_terms = 20, length_scale = 0.2, sigma2 = 1,
                               prior_sd = 0.5, noise_sd = 0.1, observations = NULL, seed = 1,
                               ...) {
  check_no_dots(list(...), "elliptic_pde_model")
  n_mesh <- check_count(n_mesh, "n_mesh", 2)
  n_terms <- check_count(n_terms, "n_terms")
  if (n_terms > n_mesh^2) {
    stop_arg("n_terms", sprintf("(%d) exceeds the %d elements of a %d x %d mesh", n_terms,
                                n_mesh^2, n_mesh, n_mesh), "Use fewer terms or a finer mesh.")
  }
  length_scale <- check_number(length_scale, "length_scale", 0, open = c(TRUE, FALSE))
  sigma2 <- check_number(sigma2, "sigma2", 0, open = c(TRUE, FALSE))
  prior_sd <- check_number(prior_sd, "prior_sd", 0, open = c(TRUE, FALSE))
  noise_sd <- check_number(noise_sd, "noise_sd", 0, open = c(TRUE, FALSE))
  observations <- check_pde_observations(observations)
  seed <- if (is.null(observations)) resolve_seed(seed) else NA_integer_

  st <- pde_setup(n_mesh, n_terms, length_scale, sigma2, prior_sd, noise_sd)
  theta_true <- NULL
  if (is.null(observations)) {
    sim <- pde_simulate(st, NULL, seed)
    theta_true <- sim$theta
    observations <- sim$observations
  }
  st$observations <- observations
  st$cache <- NULL
  model <- pde_model_object(st)
  model$observations <- observations
  model$theta_true <- theta_true
  model$settings <- list(n_mesh = n_mesh, n_terms = n_terms, length_scale = length_scale,
                         sigma2 = sigma2, prior_sd = prior_sd, noise_sd = noise_sd,
                         simulated = !is.null(theta_true), seed = seed)
  model$counts(reset = TRUE)
  model
}

# Everything that does not depend on the data: mesh, solver (with its symbolic analysis),
# lifting of the boundary data, prior modes, observation operator.
pde_setup <- function(n_mesh, n_terms, length_scale, sigma2, prior_sd, noise_sd) {
  st <- new.env(parent = emptyenv())
  st$mesh <- pde_mesh(n_mesh)
  st$kl <- kl_expansion(n_mesh, n_terms, length_scale, sigma2)
  st$modes <- st$kl$scaled
  st$solver <- new_pde_solver(st$mesh)
  st$lift <- pde_lift(st$mesh, function(x1, x2) ifelse(x2 < 0.5, x1, 1 - x1))
  st$obs_points <- pde_observation_grid()
  st$observe <- pde_interpolation(st$mesh, st$obs_points)
  st$observe_free <- st$observe[, st$mesh$free, drop = FALSE]
  st$prior_sd <- prior_sd
  st$noise_sd <- noise_sd
  st$par_names <- sprintf("theta[%d]", seq_len(n_terms))
  st$calls <- c(log_density = 0, gradient = 0, fisher_metric = 0, hessian_diagonal = 0)
  st
}

pde_observation_grid <- function() {
  grid <- seq(0, 1, by = 0.1)
  data.frame(x1 = rep(grid, 11), x2 = rep(grid, each = 11))
}

check_pde_observations <- function(observations) {
  if (is.null(observations)) return(NULL)
  if (!is.numeric(observations) || length(observations) != 121L) {
    stop_arg("observations", sprintf("must be NULL or 121 finite numbers, not %s",
                                     describe(observations)),
             "Give u(x_j) + noise at the 11 x 11 grid {0, 0.1, ..., 1}^2, x1 running fastest.")
  }
  bad <- which(!is.finite(observations))
  if (length(bad)) {
    stop_arg("observations", sprintf("must be 121 finite numbers, but %d %s not finite (%s at position%s %s)",
                                     length(bad), if (length(bad) == 1L) "is" else "are",
                                     paste(unique(as.character(observations[bad])), collapse = ", "),
                                     if (length(bad) == 1L) "" else "s", format_names(bad, max = 6L)),
             "The model needs a finite observation at every one of the 121 grid points.")
  }
  as.numeric(observations)
}

# A data set from the model: theta from the prior unless given, then the noise-free
# observations plus Gaussian noise, under `seed` (NULL: the user's stream).
pde_simulate <- function(st, theta = NULL, seed = NULL) {
  draw <- function() {
    if (is.null(theta)) theta <- stats::rnorm(ncol(st$modes), 0, st$prior_sd)
    theta <- stats::setNames(check_theta(theta, ncol(st$modes)), st$par_names)
    clean <- pde_predict(st, theta)
    list(theta = theta, observations = clean + stats::rnorm(length(clean), 0, st$noise_sd))
  }
  if (is.null(seed)) draw() else with_local_seed(resolve_seed(seed), draw())
}

pde_predict <- function(st, theta) {
  as.vector(st$observe %*% pde_state_at(st, theta)$u)
}

# The user-facing closures over the state. Each call of a target function is counted next
# to the solver's factorisations and solves.
pde_model_object <- function(st) {
  counted <- function(name, f) {
    force(f)
    function(theta, ...) {
      st$calls[[name]] <- st$calls[[name]] + 1
      f(st, theta, ...)
    }
  }
  structure(list(
    log_density = counted("log_density", pde_log_density),
    gradient = counted("gradient", pde_gradient),
    fisher_metric = counted("fisher_metric", pde_fisher),
    hessian_diagonal = counted("hessian_diagonal", pde_hessian_diagonal),
    predict = function(theta) pde_predict(st, theta),
    solve_field = function(theta) pde_solution_field(st, theta),
    conductivity_field = function(theta) pde_conductivity_field(st, theta),
    simulate = function(theta = NULL, seed = NULL) pde_simulate(st, theta, seed),
    counts = function(reset = FALSE) pde_counts(st, check_flag(reset, "reset")),
    init = stats::setNames(numeric(ncol(st$modes)), st$par_names),
    obs_points = st$obs_points,
    kl = st$kl[c("lambda", "index", "variance_fraction")]
  ), class = "vhmc_pde_model")
}

pde_counts <- function(st, reset) {
  out <- c(st$solver$counts(), st$calls)
  if (reset) {
    st$solver$reset()
    st$calls[] <- 0
  }
  out
}

# Fields as list(x, y, z) with z[i, j] at (x[i], y[j]), the layout image() and contour()
# take: nodal values run with x1 fastest, so the nodal vector fills z by columns.
pde_solution_field <- function(st, theta) {
  grid <- st$mesh$grid
  list(x = grid, y = grid, z = matrix(pde_state_at(st, theta)$u, length(grid)))
}

pde_conductivity_field <- function(st, theta) {
  theta <- check_theta(theta, ncol(st$modes))
  centre <- st$mesh$centre
  list(x = centre, y = centre, z = matrix(exp(as.vector(st$modes %*% theta)), length(centre)))
}

#' @export
print.vhmc_pde_model <- function(x, ...) {
  s <- x$settings
  counts <- x$counts()
  cat("<vhmc_pde_model> elliptic PDE inverse problem\n")
  cat(sprintf("  div(c grad u) = 0 on [0, 1]^2: Q1 elements on a %d x %d mesh (%d unknowns)\n",
              s$n_mesh, s$n_mesh, (s$n_mesh + 1) * (s$n_mesh - 1)))
  cat(sprintf(paste("  log c: %d Karhunen-Loeve terms (%.1f%% of the prior variance),",
                    "length scale %g, variance %g\n"),
              s$n_terms, 100 * x$kl$variance_fraction, s$length_scale, s$sigma2))
  cat(sprintf("  prior theta_i ~ N(0, %g^2); %d observations, noise sd %g, %s\n",
              s$prior_sd, length(x$observations), s$noise_sd,
              if (s$simulated) sprintf("simulated (seed %d)", s$seed) else "supplied"))
  cat(sprintf("  spent so far: %d factorizations, %d solves\n",
              as.integer(counts[["factorizations"]]), as.integer(counts[["solves"]])))
  invisible(x)
}
