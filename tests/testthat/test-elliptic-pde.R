# elliptic_pde_model(): derivatives against finite differences, the finite-element solver
# against exact solutions and its O(h^2) convergence, the cost counters, argument checks.

central_difference <- function(f, theta, h = 1e-5) {
  vapply(seq_along(theta), function(i) {
    up <- theta
    down <- theta
    up[i] <- up[i] + h
    down[i] <- down[i] - h
    (f(up) - f(down)) / (2 * h)
  }, numeric(length(f(theta))))
}

# Exact solution with unit conductivity and the model's boundary conditions: the boundary
# data are even in x1 about 0 and 1, so u = 1/2 + sum over odd k of a_k(x2) cos(k pi x1)
# with a_k'' = (k pi)^2 a_k, a_k(0) = -4 / (k pi)^2 (cosine coefficient of x1) and
# a_k(1) = 4 / (k pi)^2 (of 1 - x1). The sinh ratios are written to avoid overflow. On the
# Dirichlet edges the series converges slowly, so the data themselves are returned there.
fourier_solution <- function(x1, x2, k_max = 399) {
  u <- rep(0.5, length(x1))
  for (a in seq(1, k_max, by = 2) * pi) {
    top <- exp(a * (x2 - 1)) * (1 - exp(-2 * a * x2)) / (1 - exp(-2 * a))
    bottom <- exp(-a * x2) * (1 - exp(-2 * a * (1 - x2))) / (1 - exp(-2 * a))
    u <- u + 4 / a^2 * (top - bottom) * cos(a * x1)
  }
  u[x2 == 0] <- x1[x2 == 0]
  u[x2 == 1] <- 1 - x1[x2 == 1]
  u
}

model <- elliptic_pde_model()
points <- model$obs_points
exact <- fourier_solution(points$x1, points$x2)

test_that("the gradient matches central differences of the log density", {
  set.seed(11)
  for (k in 1:3) {
    theta <- stats::setNames(rnorm(20, 0, 0.5), names(model$init))
    g <- model$gradient(theta)
    expect_named(g, names(model$init))
    fd <- central_difference(model$log_density, theta)
    expect_lt(max(abs(g - fd)) / max(abs(g)), 1e-6)
  }
})

test_that("the Fisher metric is J'J / s_y^2 + I / s_theta^2 and the Hessian diagonal matches differences", {
  set.seed(12)
  theta <- rnorm(20, 0, 0.5)
  jac <- central_difference(model$predict, theta)
  expected <- crossprod(jac) / 0.1^2 + diag(1 / 0.5^2, 20)
  fisher <- model$fisher_metric(theta)
  expect_equal(dim(fisher), c(20L, 20L))
  expect_equal(rownames(fisher), names(model$init))
  expect_lt(max(abs(fisher - expected)) / max(abs(expected)), 1e-6)
  hess <- -diag(central_difference(model$gradient, theta, h = 1e-4))
  expect_lt(max(abs(model$hessian_diagonal(theta) - hess)) / max(abs(hess)), 1e-6)
})

test_that("the metric tensor's derivatives match differences of the Fisher metric", {
  set.seed(13)
  theta <- rnorm(20, 0, 0.5)
  mt <- model$fisher_metric(theta, derivatives = TRUE)
  expect_equal(mt$G, model$fisher_metric(theta))
  expect_equal(dim(mt$dG), c(20L, 20L, 20L))
  h <- 1e-5
  for (k in c(1, 7, 20)) {
    up <- down <- theta
    up[k] <- theta[k] + h
    down[k] <- theta[k] - h
    fd <- (model$fisher_metric(up) - model$fisher_metric(down)) / (2 * h)
    expect_lt(max(abs(fd - mt$dG[, , k])) / max(abs(mt$dG[, , k])), 1e-6)
  }
  expect_error(model$fisher_metric(theta, derivatives = NA), "`derivatives`")
})

test_that("constant conductivity and linear Dirichlet data give the linear solution exactly", {
  for (k in c(1, 3.7)) {
    sol <- vhmc:::pde_solve(10, function(x1, x2) k + 0 * x1, function(x1, x2) 0.2 + 0.5 * x2)
    expect_lt(max(abs(sol$u - (0.2 + 0.5 * sol$mesh$nodes[, "x2"]))), 1e-12)
  }
})

test_that("the assembled matrix and the observation operator are the direct constructions", {
  mesh <- vhmc:::pde_mesh(4)
  conductivity <- seq(0.5, 2, length.out = 16)
  dense <- matrix(0, 25, 25)
  for (e in 1:16) {
    nodes <- mesh$elements[e, ]
    dense[nodes, nodes] <- dense[nodes, nodes] + conductivity[e] * mesh$stiffness
  }
  a <- mesh$assembly$pattern
  a@x <- as.vector(mesh$assembly$map %*% conductivity)
  expect_equal(as.matrix(a), dense[mesh$free, mesh$free], ignore_attr = TRUE)
  u <- mesh$nodes[, "x1"] + 2 * mesh$nodes[, "x2"]
  at <- cbind(c(0, 0.3, 1, 0.25), c(0, 0.9, 1, 0.5))
  expect_equal(as.vector(vhmc:::pde_interpolation(mesh, at) %*% u), at[, 1] + 2 * at[, 2])
})

test_that("c = 1 matches the Fourier series solution and converges at O(h^2)", {
  expect_lt(max(abs(model$predict(model$init) - exact)), 5e-4)
  errors <- vapply(c(10, 20, 40), function(n) {
    m <- elliptic_pde_model(n_mesh = n, observations = rep(0, 121))
    max(abs(m$predict(m$init) - exact))
  }, numeric(1))
  order <- log2(errors[-3] / errors[-1])
  expect_true(all(order > 1.8 & order < 2.5), info = paste(round(order, 2), collapse = " "))
})

test_that("a variable conductivity converges at the observed order 2 (Richardson)", {
  at <- cbind(points$x1, points$x2)
  u <- vapply(c(20, 40, 80), function(n) {
    sol <- vhmc:::pde_solve(n, function(x1, x2) exp(sin(2 * pi * x1) * x2 + 0.5 * cos(3 * x2)),
                            function(x1, x2) ifelse(x2 < 0.5, x1, 1 - x1))
    as.vector(vhmc:::pde_interpolation(sol$mesh, at) %*% sol$u)
  }, numeric(121))
  order <- log2(max(abs(u[, 1] - u[, 2])) / max(abs(u[, 2] - u[, 3])))
  expect_gt(order, 1.7)
  expect_lt(order, 2.3)
})

test_that("counts follow the solves, and the symbolic factorisation is reused", {
  m <- elliptic_pde_model(n_mesh = 10)
  expect_equal(unname(m$counts()), rep(0, 6))
  solver <- get("st", environment(m$predict))$solver
  perm <- solver$factor()@perm
  delta <- function(expr) {
    before <- m$counts()
    force(expr)
    m$counts() - before
  }
  th1 <- rep(0.1, 20)
  th2 <- rep(-0.2, 20)
  expect_equal(delta(m$log_density(th1))[c("factorizations", "solves", "log_density")],
               c(factorizations = 1, solves = 1, log_density = 1))
  expect_equal(delta(m$gradient(th1))[c("factorizations", "solves", "gradient")],
               c(factorizations = 0, solves = 1, gradient = 1))
  expect_equal(delta(m$gradient(th2))[c("factorizations", "solves")],
               c(factorizations = 1, solves = 2))
  expect_equal(delta(m$fisher_metric(th2))[c("factorizations", "solves", "fisher_metric")],
               c(factorizations = 0, solves = 20, fisher_metric = 1))
  expect_equal(delta(m$hessian_diagonal(th2))[c("factorizations", "solves")],
               c(factorizations = 0, solves = 20))
  expect_identical(solver$factor()@perm, perm)
  a <- get("st", environment(m$predict))$mesh$assembly
  fresh <- a$pattern
  fresh@x <- as.vector(a$map %*% exp(as.vector(get("st", environment(m$predict))$modes %*% th2)))
  expect_equal(as(solver$factor(), "sparseMatrix"),
               as(Matrix::Cholesky(fresh, perm = TRUE, LDL = FALSE), "sparseMatrix"))
  m$counts(reset = TRUE)
  expect_equal(sum(m$counts()), 0)
})

test_that("data are simulated reproducibly, or taken as given", {
  expect_named(model$theta_true, names(model$init))
  expect_identical(elliptic_pde_model()$observations, model$observations)
  set.seed(5)
  before <- runif(1)
  set.seed(5)
  other <- elliptic_pde_model(seed = 2)
  expect_identical(runif(1), before)
  expect_false(isTRUE(all.equal(other$observations, model$observations)))
  given <- elliptic_pde_model(observations = model$observations)
  expect_null(given$theta_true)
  expect_identical(given$log_density(model$theta_true), model$log_density(model$theta_true))
  expect_identical(model$simulate(seed = 1),
                   list(theta = model$theta_true, observations = model$observations))
  expect_equal(model$simulate(model$theta_true)$theta, model$theta_true)
  expect_output(print(model), "30 x 30 mesh")
})

test_that("bad arguments give errors that name them", {
  expect_error(elliptic_pde_model(n_mesh = 1), "`n_mesh`")
  expect_error(elliptic_pde_model(n_mesh = 2.5), "`n_mesh`")
  expect_error(elliptic_pde_model(n_terms = 0), "`n_terms`")
  expect_error(elliptic_pde_model(n_mesh = 4, n_terms = 17), "`n_terms`")
  expect_error(elliptic_pde_model(length_scale = 0), "`length_scale`")
  expect_error(elliptic_pde_model(sigma2 = -1), "`sigma2`")
  expect_error(elliptic_pde_model(prior_sd = NA), "`prior_sd`")
  expect_error(elliptic_pde_model(noise_sd = Inf), "`noise_sd`")
  expect_error(elliptic_pde_model(observations = 1:120), "`observations`")
  expect_error(elliptic_pde_model(observations = c(NA, rep(0, 120))), "`observations`")
  expect_error(elliptic_pde_model(seed = -1), "`seed`")
  expect_error(elliptic_pde_model(nmesh = 10), "`nmesh`")
  expect_error(model$log_density(1:3), "`theta`")
  expect_error(model$gradient(c(NaN, rep(0, 19))), "`theta`")
  expect_error(model$counts(reset = NA), "`reset`")
})

test_that("vhmc_sample() runs on the model", {
  m <- elliptic_pde_model(n_mesh = 10, n_terms = 4)
  fit <- quiet_sample(m, init = m$init, sampler = nuts(), chains = 1, iter = 40, warmup = 20,
                      seed = 1)
  expect_s3_class(fit, "vhmc_fit")
  expect_gt(m$counts()[["gradient"]], 40)
})

test_that("bad observations and bounds are described as they are (issue 24, item 6)", {
  obs <- replace(rep(0, 121), c(3, 50), c(NA, Inf))
  expect_error(elliptic_pde_model(observations = obs),
               "`observations` must be 121 finite numbers, but 2 are not finite \\(NA, Inf at positions 3, 50\\)")
  # an infinite bound is excluded as infinite values are: "(0, Inf)", never "(0, Inf]"
  expect_error(elliptic_pde_model(length_scale = 0), "`length_scale` must lie in \\(0, Inf\\), not 0")
  expect_error(elliptic_pde_model(noise_sd = Inf), "`noise_sd` must be a single finite number, not Inf")
})
