# The smooth models of the simulation-based calibration (sbc.R): y ~ s(x, k = 6) with n rows
# of x uniform on (0, 1), gaussian or binomial (logit). The smooth's columns are mgcv's (its
# basis with the constraint absorbed, smooth2random()'s random-effect form: one unpenalised
# column and four penalised ones), as vhmc_glm() builds them. Priors, all proper and
# independent of the data: intercept (at the columns' means) and the unpenalised coefficient
# normal(0, 1), the penalised coefficients N(0, sds^2) with sds exponential(1), sigma
# exponential(1).
sbc_smooth_model <- function(family, n) {
  fam <- family$family
  pars <- c("(Intercept)", "s(x).fx1", "s(x).1", "s(x).4", "sds[s(x)]", if (fam == "gaussian") "sigma")
  simulate <- function() {
    x <- data.frame(x = stats::runif(n))
    sm <- mgcv::smoothCon(mgcv::s(x, k = 6), data = x, absorb.cons = TRUE, modCon = 3, diagonal.penalty = TRUE)[[1]]
    re <- mgcv::smooth2random(sm, names(x), type = 2)
    X <- cbind(re$Xf, re$rand[[1]])
    sds <- stats::rexp(1)
    beta <- c(stats::rnorm(1), sds * stats::rnorm(ncol(X) - 1L))
    alpha_c <- stats::rnorm(1)
    eta <- alpha_c + drop(sweep(X, 2L, colMeans(X)) %*% beta)
    sigma <- stats::rexp(1)
    x$y <- switch(fam, gaussian = stats::rnorm(n, eta, sigma), binomial = stats::rbinom(n, 1, stats::plogis(eta)))
    truth <- c(alpha_c - sum(colMeans(X) * beta), beta[c(1L, 2L, 5L)], sds, if (fam == "gaussian") sigma)
    list(data = x, truth = stats::setNames(truth, pars))
  }
  fit <- function(data, sampler, iter, seed) {
    args <- list(y ~ s(x, k = 6), data = data, family = family, prior = vhmc::normal(0, 1),
                 prior_intercept = vhmc::normal(0, 1), prior_smooth = vhmc::exponential(1), sampler = sampler,
                 chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
    if (fam == "gaussian") args$prior_aux <- vhmc::exponential(1)
    do.call(vhmc::vhmc_glm, args)
  }
  quantities <- function(fit) {
    d <- posterior::as_draws_df(fit)
    vapply(pars, function(p) as.numeric(d[[p]]), numeric(nrow(d)))
  }
  # 2,000 iterations: at 1,000 the smallest bulk ESS of sds was 70, below L = 99 (ranks of
  # correlated draws pile at the ends).
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"),
       iter = list(nuts = 2000, hmc = 2000))
}
