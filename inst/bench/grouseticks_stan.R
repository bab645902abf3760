# lme4's grouseticks negative binomial model, (1 | BROOD) + (1 | LOCATION), where issue 42
# asks for max R-hat below 1.01 over 3 seeds with vhmc's defaults: is the bar reachable by
# Stan's NUTS at its defaults? Three fits per seed (4 chains of 1000 warmup and 1000 sampling
# iterations on 2 cores):
#   vhmc_glm    vhmc's defaults (its priors, parameterization = "auto");
#   vhmc_rtmb   vhmc_sample() on the model below written in RTMB (non-centred, both sds
#               exponential(1), reciprocal dispersion exponential(1), intercept normal(0, 10)
#               and slopes normal(0, 2.5 / sd(x)) at centred predictors);
#   rstan       the same model in Stan (rstan's sampling() defaults).
# Reported: max R-hat and its variable, min bulk ESS, the bulk ESS of log sd(LOCATION),
# divergences, seconds.
#   Rscript inst/bench/grouseticks_stan.R   # writes vignettes/results/bench/grouseticks_stan.csv
suppressPackageStartupMessages(library(vhmc))
stopifnot(requireNamespace("lme4", quietly = TRUE), requireNamespace("RTMB", quietly = TRUE),
          requireNamespace("rstan", quietly = TRUE))
g <- lme4::grouseticks
X <- stats::model.matrix(~ YEAR + HEIGHT, g)[, -1]
X <- sweep(X, 2, colMeans(X))
brood <- as.integer(factor(g$BROOD))
loc <- as.integer(factor(g$LOCATION))
sc <- c(2.5, 2.5, 2.5 / stats::sd(g$HEIGHT))
y <- g$TICKS
seeds <- 1:3

# `sl`: the variable holding sd(LOCATION) on some scale, `to_log`: its map to log sd.
row_of <- function(engine, seed, seconds, draws, divergent, sl, to_log) {
  draws <- posterior::as_draws_array(draws)
  s <- posterior::summarise_draws(draws, "rhat", "ess_bulk")
  s <- as.data.frame(s[s$variable != "lp__", ])
  s[-1] <- lapply(s[-1], as.numeric)
  log_sl <- to_log(posterior::extract_variable_matrix(draws, sl))
  data.frame(engine = engine, seed = seed, seconds = round(seconds, 1), max_rhat = round(max(s$rhat), 4),
             worst = s$variable[which.max(s$rhat)], min_ess_bulk = round(min(s$ess_bulk)),
             ess_log_sd_location = round(posterior::ess_bulk(log_sl)), divergent = divergent)
}

nll <- function(p) {
  sB <- exp(p$log_sB); sL <- exp(p$log_sL); phi <- exp(p$log_phi)
  eta <- p$a + X %*% p$b + sB * p$zB[brood] + sL * p$zL[loc]
  ll <- sum(lgamma(y + phi) - lgamma(phi) - lgamma(y + 1) + phi * (log(phi) - log(phi + exp(eta))) +
              y * (eta - log(phi + exp(eta))))
  # exponential(1) priors on sB, sL, phi with the log transforms' Jacobians
  -ll - sum(RTMB::dnorm(p$zB, 0, 1, log = TRUE)) - sum(RTMB::dnorm(p$zL, 0, 1, log = TRUE)) -
    RTMB::dnorm(p$a, 0, 10, log = TRUE) - sum(RTMB::dnorm(p$b, 0, sc, log = TRUE)) +
    sB - p$log_sB + sL - p$log_sL + phi - p$log_phi
}
obj <- RTMB::MakeADFun(nll, list(a = 0, b = numeric(3), log_sB = 0, log_sL = 0, log_phi = 0,
                                 zB = numeric(max(brood)), zL = numeric(max(loc))), silent = TRUE)

stan_code <- "
data { int N; int nb; int nl; int y[N]; matrix[N, 3] X; int brood[N]; int loc[N]; vector[3] sc; }
parameters { real a; vector[3] b; real<lower=0> sB; real<lower=0> sL; real<lower=0> phi; vector[nb] zB; vector[nl] zL; }
model {
  y ~ neg_binomial_2_log(a + X * b + sB * zB[brood] + sL * zL[loc], phi);
  zB ~ std_normal(); zL ~ std_normal(); a ~ normal(0, 10); b ~ normal(0, sc);
  sB ~ exponential(1); sL ~ exponential(1); phi ~ exponential(1);
}"
# Debian's r-cran-bh leaves rstan's boost_lib option empty; its headers are the system's.
if (!file.exists(rstan::rstan_options("boost_lib")) && dir.exists("/usr/include/boost")) {
  rstan::rstan_options(boost_lib = "/usr/include")
}
sm <- rstan::stan_model(model_code = stan_code)
stan_data <- list(N = length(y), nb = max(brood), nl = max(loc), y = y, X = X, brood = brood, loc = loc, sc = sc)

rows <- list()
for (seed in seeds) {
  t <- system.time(fit <- suppressWarnings(vhmc_glm(TICKS ~ YEAR + HEIGHT + (1 | BROOD) + (1 | LOCATION), data = g,
                                                    family = neg_binomial_2(), seed = seed, cores = 2, progress = FALSE)))[[3]]
  rows[[length(rows) + 1]] <- row_of("vhmc_glm", seed, t, fit$draws, sum(sampler_diagnostics(fit)$divergent__),
                                     "Sigma[LOCATION:(Intercept),(Intercept)]", function(v) log(v) / 2)
  t <- system.time(fit <- suppressMessages(suppressWarnings(vhmc_sample(obj, chains = 4, seed = seed, cores = 2, progress = FALSE))))[[3]]
  rows[[length(rows) + 1]] <- row_of("vhmc_rtmb", seed, t, fit$draws, sum(sampler_diagnostics(fit)$divergent__),
                                     "log_sL", identity)
  t <- system.time(fit <- rstan::sampling(sm, data = stan_data, chains = 4, cores = 2, seed = seed, refresh = 0))[[3]]
  rows[[length(rows) + 1]] <- row_of("rstan", seed, t, as.array(fit), sum(rstan::get_divergent_iterations(fit)),
                                     "sL", log)
  print(do.call(rbind, rows), row.names = FALSE)
}
res <- do.call(rbind, rows)
dir.create("vignettes/results/bench", showWarnings = FALSE)
utils::write.csv(res, "vignettes/results/bench/grouseticks_stan.csv", row.names = FALSE)
