# The crossed multilevel model of the simulation-based calibration (sbc.R): persons x items
# binary responses, as lme4's VerbAgg, y ~ type + (1 | person) + (1 | item), with P persons,
# I items and an item-level factor `type` of K levels (I / K items each). The item effects and
# the type coefficients form a ridge: a type's coefficient moves with the mean of its items'
# effects, which only the items' prior separates. Priors, proper and independent of the
# data: coefficients normal(0, 1), the intercept (at the predictors' means) normal(0, 1), each
# term's standard deviation half Student-t(3, 0, 1) (lkj() of one term, without autoscaling).
sbc_crossed_model <- function(P = 30, I = 12, K = 3) {
  types <- sprintf("t%d", seq_len(K))
  coefs <- paste0("type", types[-1])
  draws <- c("(Intercept)", coefs, "Sigma[person:(Intercept),(Intercept)]", "Sigma[item:(Intercept),(Intercept)]",
             "b[(Intercept) person:1]", "b[(Intercept) item:1]", "b[(Intercept) item:2]")
  pars <- sub(",.*]", "]", draws)
  simulate <- function() {
    person <- factor(rep(seq_len(P), times = I))
    item <- factor(rep(seq_len(I), each = P))
    item_type <- factor(types[(seq_len(I) - 1L) %% K + 1L], levels = types)
    type <- item_type[as.integer(item)]
    X <- stats::model.matrix(~ type)[, -1, drop = FALSE]
    a <- stats::rnorm(1)
    beta <- stats::rnorm(K - 1L)
    tau <- abs(stats::rt(2, 3))
    u <- stats::rnorm(P, 0, tau[1])
    v <- stats::rnorm(I, 0, tau[2])
    eta <- a + drop(sweep(X, 2, colMeans(X)) %*% beta) + u[as.integer(person)] + v[as.integer(item)]
    y <- stats::rbinom(P * I, 1, stats::plogis(eta))
    truth <- c(a - sum(beta * colMeans(X)), beta, tau^2, u[1], v[1:2])
    list(data = data.frame(y, type, person, item), truth = stats::setNames(truth, pars))
  }
  fit <- function(data, sampler, iter, seed) {
    vhmc::vhmc_glm(y ~ type + (1 | person) + (1 | item), data = data, family = stats::binomial(),
                   prior = vhmc::normal(0, 1), prior_intercept = vhmc::normal(0, 1),
                   prior_covariance = vhmc::lkj(scale = 1, df = 3, autoscale = FALSE),
                   sampler = sampler, chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
  }
  quantities <- sbc_quantities(draws, pars)
  list(simulate = simulate, fit = fit, quantities = quantities, exact_samplers = c("nuts", "hmc", "rwm"))
}

# A varying-intercept logistic model, y ~ x + (1 | g), J levels of n rows (a row-level
# predictor x), for the stochastic-gradient samplers on a multilevel model (approximate: a
# contrast, no pass flag) against nuts(); with few levels of many rows (varying_intercept_rich),
# for surrogate_hmc(), which starts from the local mode of the centred form there
# (R/glmer-anchor.R). Priors as sbc_crossed_model()'s.
sbc_varying_intercept_model <- function(J = 20, n = 15, exact = c("nuts", "hmc")) {
  draws <- c("(Intercept)", "x", "Sigma[g:(Intercept),(Intercept)]", "b[(Intercept) g:1]", "b[(Intercept) g:2]")
  pars <- sub(",.*]", "]", draws)
  simulate <- function() {
    g <- factor(rep(seq_len(J), each = n))
    x <- stats::rnorm(J * n)
    a <- stats::rnorm(1)
    beta <- stats::rnorm(1)
    tau <- abs(stats::rt(1, 3))
    u <- stats::rnorm(J, 0, tau)
    y <- stats::rbinom(J * n, 1, stats::plogis(a + beta * (x - mean(x)) + u[as.integer(g)]))
    truth <- c(a - beta * mean(x), beta, tau^2, u[1:2])
    list(data = data.frame(y, x, g), truth = stats::setNames(truth, pars))
  }
  fit <- function(data, sampler, iter, seed) {
    vhmc::vhmc_glm(y ~ x + (1 | g), data = data, family = stats::binomial(),
                   prior = vhmc::normal(0, 1), prior_intercept = vhmc::normal(0, 1),
                   prior_covariance = vhmc::lkj(scale = 1, df = 3, autoscale = FALSE),
                   sampler = sampler, chains = 1, iter = iter, seed = seed, cores = 1, progress = FALSE)
  }
  list(simulate = simulate, fit = fit, quantities = sbc_quantities(draws, pars), exact_samplers = exact)
}
