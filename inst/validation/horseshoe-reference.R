#!/usr/bin/env Rscript
# Long stan_glm() runs of a sparse gaussian regression with rstanarm's horseshoe priors, the
# references of tests/testthat/test-horseshoe.R. The data: n = 60 rows, 10 standard normal
# predictors x1..x10 of which two matter, y = 0.5 + 1.5 x1 - 1 x2 + N(0, 1) (seed 2017). The
# priors, the same on the vhmc side:
#   prior = hs() (rstanarm's defaults: df 1, global_df 1, global_scale 0.01, slab_df 4,
#   slab_scale 2.5; for the gaussian family the global scale is multiplied by sigma) or
#   hs_plus() (its defaults); prior_intercept = normal(0, 10) (on the intercept at the
#   predictors' means); prior_aux = exponential(1) (neither autoscaled).
# hs(): rstanarm's stan_glm(). hs_plus(): rstanarm's own parameterisation of the horseshoe+
# (each half-t scale a half-normal times the root of an inverse gamma) does not sample this
# posterior (4 x 10000 iterations at adapt_delta 0.999: 19,846 of 20,000 transitions
# divergent, bulk ESS about 800); the reference is the same model written below in Stan with
# each scale a half-t on the log scale (as brms writes the horseshoe), sampled by rstan.
# Each fit: 4 chains x 10000 iterations (5000 warmup), adapt_delta 0.999, seed 2017.
#
# Writes tests/testthat/fixtures/horseshoe_reference.rds: a list with
#   data       the simulated data frame (y, x1..x10)
#   hs, hs_plus  one per prior: `summary`, a data frame (variable, mean, sd, mcse_mean,
#              mcse_sd, ess_bulk, rhat; posterior's summarise_draws()) of (Intercept),
#              x1..x10 and sigma; `divergences` after warmup (all chains); `call`, the
#              stan_glm() or rstan::sampling() call as text; `seconds`
#   settings   chains, iter, warmup, seed, adapt_delta, and the versions of rstanarm, rstan,
#              posterior and R
#
# Usage (from the package's source folder; rstanarm, rstan and posterior installed; about ten
# minutes):
#   Rscript inst/validation/horseshoe-reference.R

suppressPackageStartupMessages({
  library(rstanarm)
  library(posterior)
})

source(file.path("inst", "validation", "stan-boost.R"))

out_file <- file.path("tests", "testthat", "fixtures", "horseshoe_reference.rds")
if (!dir.exists(dirname(out_file))) stop("run from the package's source folder")

set.seed(2017)
n <- 60L
k <- 10L
X <- matrix(stats::rnorm(n * k), n, k, dimnames = list(NULL, paste0("x", seq_len(k))))
data <- data.frame(y = 0.5 + 1.5 * X[, 1] - 1 * X[, 2] + stats::rnorm(n), X)

settings <- list(chains = 4L, iter = 10000L, warmup = 5000L, seed = 2017L, adapt_delta = 0.999)

reference <- function(prior, prior_text) {
  t0 <- Sys.time()
  fit <- stan_glm(y ~ ., data = data, family = gaussian(), prior = prior,
                  prior_intercept = normal(0, 10), prior_aux = exponential(1),
                  chains = settings$chains, iter = settings$iter, warmup = settings$warmup,
                  seed = settings$seed, adapt_delta = settings$adapt_delta, refresh = 0)
  seconds <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  s <- summarise_draws(as_draws_array(as.array(fit)), "mean", "sd", "mcse_mean", "mcse_sd", "ess_bulk", "rhat")
  np <- bayesplot::nuts_params(fit)
  list(summary = as.data.frame(s),
       divergences = sum(np$Value[np$Parameter == "divergent__"]),
       call = sprintf(paste("stan_glm(y ~ ., data = data, family = gaussian(), prior = %s,",
                            "prior_intercept = normal(0, 10), prior_aux = exponential(1), chains = %d,",
                            "iter = %d, warmup = %d, seed = %d, adapt_delta = %s)"),
                      prior_text, settings$chains, settings$iter, settings$warmup, settings$seed,
                      format(settings$adapt_delta)),
       seconds = seconds)
}

# The regularised horseshoe+ of rstanarm's hs_plus(df1, df2, global_df, global_scale, slab_df,
# slab_scale) for the gaussian family: beta = z lambda~ tau, lambda~^2 = c^2 L^2 / (c^2 + tau^2
# L^2), L = lambda eta, tau = global_scale sigma tau0, c^2 = slab_scale^2 caux.
hs_plus_stan <- "
data {
  int<lower=1> N;
  int<lower=1> K;
  matrix[N, K] X;
  vector[N] y;
  real<lower=0> df1;
  real<lower=0> df2;
  real<lower=0> global_df;
  real<lower=0> global_scale;
  real<lower=0> slab_df;
  real<lower=0> slab_scale;
}
transformed data {
  vector[K] xbar;
  matrix[N, K] Xc;
  for (k in 1:K) {
    xbar[k] = mean(X[, k]);
    Xc[, k] = X[, k] - xbar[k];
  }
}
parameters {
  real alpha_c;
  vector[K] z;
  real<lower=0> sigma;
  vector<lower=0>[K] lambda;
  vector<lower=0>[K] eta;
  real<lower=0> tau0;
  real<lower=0> caux;
}
transformed parameters {
  vector[K] beta;
  {
    real tau = global_scale * sigma * tau0;
    real c2 = square(slab_scale) * caux;
    vector[K] L2 = square(lambda .* eta);
    beta = z .* sqrt(c2 * L2 ./ (c2 + square(tau) * L2)) * tau;
  }
}
model {
  z ~ std_normal();
  lambda ~ student_t(df1, 0, 1);
  eta ~ student_t(df2, 0, 1);
  tau0 ~ student_t(global_df, 0, 1);
  caux ~ inv_gamma(0.5 * slab_df, 0.5 * slab_df);
  alpha_c ~ normal(0, 10);
  sigma ~ exponential(1);
  y ~ normal(alpha_c + Xc * beta, sigma);
}
generated quantities {
  real alpha = alpha_c - dot_product(xbar, beta);
}
"

reference_hs_plus <- function() {
  model <- rstan::stan_model(model_code = hs_plus_stan)
  t0 <- Sys.time()
  sd <- list(N = n, K = k, X = X, y = data$y, df1 = 1, df2 = 1, global_df = 1, global_scale = 0.01,
             slab_df = 4, slab_scale = 2.5)
  fit <- rstan::sampling(model, data = sd, chains = settings$chains, iter = settings$iter, warmup = settings$warmup,
                         seed = settings$seed, control = list(adapt_delta = settings$adapt_delta), refresh = 0)
  seconds <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  draws <- as_draws_array(as.array(fit, pars = c("alpha", "beta", "sigma")))
  variables(draws) <- c("(Intercept)", colnames(X), "sigma")
  s <- summarise_draws(draws, "mean", "sd", "mcse_mean", "mcse_sd", "ess_bulk", "rhat")
  div <- sum(vapply(rstan::get_sampler_params(fit, inc_warmup = FALSE), function(p) sum(p[, "divergent__"]), 1))
  list(summary = as.data.frame(s), divergences = div,
       call = sprintf(paste("rstan::sampling(stan_model(model_code = hs_plus_stan), data = <hs_plus() defaults>,",
                            "chains = %d, iter = %d, warmup = %d, seed = %d, control = list(adapt_delta = %s))"),
                      settings$chains, settings$iter, settings$warmup, settings$seed, format(settings$adapt_delta)),
       seconds = seconds)
}

out <- list(data = data,
            hs = reference(hs(), "hs()"),
            hs_plus = reference_hs_plus(),
            settings = c(settings, list(rstanarm = as.character(utils::packageVersion("rstanarm")),
                                        rstan = as.character(utils::packageVersion("rstan")),
                                        posterior = as.character(utils::packageVersion("posterior")),
                                        R = R.version.string)))
saveRDS(out, out_file, version = 2)
for (nm in c("hs", "hs_plus")) {
  cat(nm, sprintf("(%.0f s, %d divergences)", out[[nm]]$seconds, out[[nm]]$divergences), "\n")
  print(out[[nm]]$summary, digits = 3)
}
