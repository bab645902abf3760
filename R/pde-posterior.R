# Log posterior of the elliptic inverse problem and its derivatives, all evaluated on a
# state environment `st` built by elliptic_pde_model(). Notation (after Zhang, Shahbaba and
# Zhao 2017, eq. 13 and the displays that follow it): c = exp(Phi theta) per element, with
# Phi the scaled Karhunen-Loeve modes; A(c) u_f = b(c) the finite-element system on the
# free nodes; u_obs = O u at the observation points; r = y - u_obs;
#   L(theta) = -|r|^2 / (2 s_y^2) - |theta|^2 / (2 s_theta^2).
# Derivatives of u come from the same factor of A: one adjoint solve for the gradient, d
# tangent solves for the Fisher metric and the Hessian diagonal.

# Forward solve at theta, reused while theta does not change: samplers ask for the log
# density and then the gradient at the same point, and the adjoint solve needs the factor
# of that point. Every factorisation goes through here, so the cache always matches the
# solver's current factor.
pde_state_at <- function(st, theta) {
  theta <- check_theta(theta, ncol(st$modes))
  if (identical(theta, st$cache$theta)) return(st$cache)
  conductivity <- exp(as.vector(st$modes %*% theta))
  if (!all(is.finite(conductivity) & conductivity > 0)) {
    stop("the conductivity exp(log c) overflows or underflows at this theta", call. = FALSE)
  }
  st$cache <- NULL
  u <- pde_forward(st$mesh, st$solver, st$lift, conductivity)
  st$cache <- list(theta = theta, conductivity = conductivity, u = u,
                   residual = st$observations - as.vector(st$observe %*% u), adjoint = NULL)
  st$cache
}

check_theta <- function(theta, d) {
  if (!is.numeric(theta) || length(theta) != d || !all(is.finite(theta))) {
    stop_arg("theta", sprintf("must be %d finite numbers, not %s", d, describe(theta)))
  }
  as.numeric(theta)
}

pde_log_density <- function(st, theta) {
  s <- pde_state_at(st, theta)
  -sum(s$residual^2) / (2 * st$noise_sd^2) - sum(s$theta^2) / (2 * st$prior_sd^2)
}

# Adjoint solution w of A w = dL/du_f = O_f' r / s_y^2 (A is symmetric), on the factor
# of the forward solve; kept in the cache for the Hessian diagonal.
pde_adjoint <- function(st, s) {
  if (is.null(s$adjoint)) {
    g <- as.vector(Matrix::crossprod(st$observe_free, s$residual)) / st$noise_sd^2
    st$cache$adjoint <- as.vector(st$solver$solve(g))
  }
  st$cache$adjoint
}

# Adjoint gradient: differentiating (A(c) u)_f = 0 gives du_f/dc_e = -A^{-1} (K u_e)_f, so
# dL/dc_e = -w' (K u_e)_f = -(action(u)' w)_e, and dc_e/dtheta_i = c_e Phi_ei.
pde_gradient <- function(st, theta) {
  s <- pde_state_at(st, theta)
  w <- pde_adjoint(st, s)
  dl_dc <- -as.vector(Matrix::crossprod(element_action(st$mesh, s$u), w))
  gradient <- as.vector(crossprod(st$modes, s$conductivity * dl_dc)) - s$theta / st$prior_sd^2
  stats::setNames(gradient, st$par_names)
}

# Tangents du_f/dtheta = -A^{-1} action(u) diag(c) Phi: d right-hand sides on one factor.
# J = O_f du_f/dtheta would also follow from one adjoint solve per observation off the
# Dirichlet boundary (99 of the 121 on the default grid), so the d = 20 tangents are cheaper.
pde_tangents <- function(st, s) {
  st$solver$solve(-(element_action(st$mesh, s$u) %*% (s$conductivity * st$modes)))
}

# Fisher metric of the Gaussian likelihood plus the prior precision,
# G(theta) = J'J / s_y^2 + I / s_theta^2, J = d u_obs / d theta: the expected Fisher
# information of Girolami and Calderhead (2011), which Zhang et al. (2017) use for RMHMC
# on this model. With `derivatives`, list(G, dG) with dG[, , k] = dG/dtheta_k, the metric
# tensor rmhmc() takes (vhmc_sample(metric_tensor = )).
pde_fisher <- function(st, theta, derivatives = FALSE) {
  derivatives <- check_flag(derivatives, "derivatives")
  s <- pde_state_at(st, theta)
  tangents <- pde_tangents(st, s)
  jac <- as.matrix(st$observe_free %*% tangents)
  out <- crossprod(jac) / st$noise_sd^2 + diag(1 / st$prior_sd^2, ncol(jac))
  dimnames(out) <- list(st$par_names, st$par_names)
  if (!derivatives) return(out)
  list(G = out, dG = pde_fisher_derivatives(st, s, tangents, jac))
}

# dG/dtheta_k = (M_k + M_k') / s_y^2 with M_k = J' dJ_k, dJ_k = O_f S_k and S_k[, j] =
# d2u_f/dtheta_k dtheta_j. Differentiating A t_j = -action(u) (c Phi_j) in theta_k (t
# extended by zeros to the Dirichlet nodes),
#   A S_kj = -R_kj,  R_kj = action(u) (c Phi_k Phi_j) + action(t_k) (c Phi_j) + action(t_j) (c Phi_k),
# so M_k[a, j] = (O_f' J_a)' S_kj = -y_a' R_kj with A y_a = O_f' J_a: d adjoint solves on the
# factor of the forward solve instead of d^2 second-order ones.
pde_fisher_derivatives <- function(st, s, tangents, jac) {
  d <- ncol(st$modes)
  c_phi <- s$conductivity * st$modes
  y <- st$solver$solve(Matrix::crossprod(st$observe_free, jac))
  full <- matrix(0, length(s$u), d)
  full[st$mesh$free, ] <- as.matrix(tangents)
  b_u <- as.matrix(Matrix::crossprod(element_action(st$mesh, s$u), y))
  # t_y[a, j, k] = y_a' action(t_k) (c Phi_j)
  t_y <- vapply(seq_len(d), function(k) {
    crossprod(as.matrix(Matrix::crossprod(element_action(st$mesh, full[, k]), y)), c_phi)
  }, matrix(0, d, d))
  dG <- array(0, c(d, d, d))
  for (k in seq_len(d)) {
    m <- -(crossprod(b_u, c_phi[, k] * st$modes) + t_y[, , k] + t_y[, k, ])
    dG[, , k] <- (m + t(m)) / st$noise_sd^2
  }
  dG
}

# Diagonal of the Hessian of U = -L (Zhang et al. 2017, the display after eq. 13 that
# motivates their diagonal RNS-RMHMC metric): 1/s_theta^2 + sum_j (du_j/dtheta_i)^2 / s_y^2 - sum_j r_j (d2u_j/dtheta_i^2) / s_y^2.
# Differentiating (A u)_f = 0 twice, A d2u_f/dtheta_i^2 = -[action(u) (c Phi_i^2) +
# 2 action(t_i) (c Phi_i)] with t_i the tangent, and the residual term is
# g' d2u_f/dtheta_i^2 = w' (that right-hand side), with w the gradient's adjoint solution:
# d tangent solves and the adjoint, no second-order solves.
pde_hessian_diagonal <- function(st, theta) {
  s <- pde_state_at(st, theta)
  tangents <- pde_tangents(st, s)
  jac <- as.matrix(st$observe_free %*% tangents)
  w <- pde_adjoint(st, s)
  w_full <- numeric(length(s$u))
  w_full[st$mesh$free] <- w
  w_u <- as.vector(Matrix::crossprod(element_action(st$mesh, s$u), w))
  w_t <- as.matrix(Matrix::crossprod(element_action(st$mesh, w_full), tangents))
  residual_term <- -colSums(s$conductivity * st$modes * (st$modes * w_u + 2 * w_t))
  stats::setNames(1 / st$prior_sd^2 + colSums(jac^2) / st$noise_sd^2 - residual_term,
                  st$par_names)
}
