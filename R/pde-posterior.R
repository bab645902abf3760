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
# on this model.
pde_fisher <- function(st, theta) {
  s <- pde_state_at(st, theta)
  jac <- as.matrix(st$observe_free %*% pde_tangents(st, s))
  out <- crossprod(jac) / st$noise_sd^2 + diag(1 / st$prior_sd^2, ncol(jac))
  dimnames(out) <- list(st$par_names, st$par_names)
  out
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
