# The target written in R for the simulation-based calibration (sbc.R): a hierarchical
# normal model of J = 8 groups with known measurement sds s (the eight-schools shape),
# non-centred: theta_j = mu + tau z_j, y_j ~ normal(theta_j, s_j), mu ~ normal(0, 1),
# tau ~ half-normal(0, 1), z_j ~ normal(0, 1). The sampler moves (mu, log tau, z); the
# log density carries the Jacobian log tau. Ranked: mu, tau and theta[1]. rmhmc() gets the
# model's Fisher metric, written in R (sbc_hier_metric()).

sbc_hier_log_density <- function(y, s) {
  function(th) {
    tau <- exp(th[2])
    z <- th[-(1:2)]
    theta <- th[1] + tau * z
    -th[1]^2 / 2 - tau^2 / 2 + th[2] - sum(z^2) / 2 - sum(((y - theta) / s)^2) / 2
  }
}

sbc_hier_gradient <- function(y, s) {
  function(th) {
    tau <- exp(th[2])
    z <- th[-(1:2)]
    r <- (y - th[1] - tau * z) / s^2
    c(-th[1] + sum(r), 1 - tau^2 + tau * sum(r * z), -z + tau * r)
  }
}

# rmhmc()'s metric_tensor: the Fisher information of the likelihood plus the negative
# Hessian of the log prior, plus 1 on log tau: with J the Jacobian of the means mu + tau z in
# (mu, log tau, z), G = J' S^-2 J + diag(1, 1 + 2 tau^2, 1, ..., 1), and dG[, , i] its
# derivative in parameter i. Without the 1, G's log tau entry vanishes as tau -> 0 (neither
# the likelihood nor the prior curves there): the step size then adapts to that neck and the
# chain stays in it (a measured replication: log tau near -4.4, 2 effective draws in 4000).
sbc_hier_metric <- function(s) {
  W <- 1 / s^2
  J <- length(s)
  function(th) {
    tau <- exp(th[2])
    z <- th[-(1:2)]
    Jac <- cbind(1, tau * z, diag(tau, J))
    WJ <- W * Jac
    G <- crossprod(Jac, WJ) + diag(c(1, 1 + 2 * tau^2, rep(1, J)))
    dG <- array(0, c(J + 2, J + 2, J + 2))
    # d Jac / d log tau is Jac without its first column: dG = dJ' W Jac + Jac' W dJ.
    dJWJ <- crossprod(cbind(0, Jac[, -1]), WJ)
    dG[, , 2] <- dJWJ + t(dJWJ)
    dG[2, 2, 2] <- dG[2, 2, 2] + 4 * tau^2
    # d Jac / d z_k is tau in row k, column 2: it adds tau (W Jac)[k, ] to G's row and column 2.
    for (k in seq_len(J)) {
      m <- tau * WJ[k, ]
      dG[2, , k + 2] <- m
      dG[, 2, k + 2] <- dG[, 2, k + 2] + m
    }
    list(G = G, dG = dG)
  }
}

sbc_hier_model <- function(s = seq(0.5, 2, length.out = 8)) {
  J <- length(s)
  pars <- c("mu", "log_tau", sprintf("z[%d]", seq_len(J)))
  simulate <- function() {
    mu <- stats::rnorm(1)
    tau <- abs(stats::rnorm(1))
    z <- stats::rnorm(J)
    y <- stats::rnorm(J, mu + tau * z, s)
    list(data = y, truth = c(mu = mu, tau = tau, "theta[1]" = mu + tau * z[1]))
  }
  fit <- function(data, sampler, iter, seed) {
    metric <- if (inherits(sampler, "vhmc_rmhmc")) sbc_hier_metric(s)
    # demc() is a population of at least 3 chains (thinned together below).
    chains <- if (inherits(sampler, "vhmc_demc")) 4 else 1
    vhmc::vhmc_sample(sbc_hier_log_density(data, s), sbc_hier_gradient(data, s),
                      parameters = pars, sampler = sampler, chains = chains, iter = iter,
                      seed = seed, cores = 1, progress = FALSE, metric_tensor = metric)
  }
  quantities <- function(fit) {
    d <- posterior::as_draws_df(fit)
    mu <- as.numeric(d$mu)
    tau <- exp(as.numeric(d$log_tau))
    cbind(mu = mu, tau = tau, "theta[1]" = mu + tau * as.numeric(d[["z[1]"]]))
  }
  # rmhmc()'s default of at most 6 steps gives about 20 effective draws in 500 here; with 10,
  # 220 to 380, so 600 iterations give 300 draws for L = 99 (each metric is a call into R).
  # rwm() keeps about one effective draw in 60 to 80 in these 10 dimensions.
  list(simulate = simulate, fit = fit, quantities = quantities,
       exact_samplers = c("nuts", "hmc", "rwm", "rmhmc", "surrogate_hmc", "demc"),
       sampler_args = list(rmhmc = list(steps = 10)), iter = list(rmhmc = 600, rwm = 20000, demc = 8000))
}
