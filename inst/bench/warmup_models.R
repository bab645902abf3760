# Models of inst/bench/warmup.R, sourced by it and by its Stan worker (warmup_stan.R), so
# that both processes fit exactly the same data with the same priors. Nothing here loads
# vhmc or rstan: the worker must never have vhmc's library loaded, nor the main process
# Stan's compiled models. See warmup.R's header for what each model is and why.

# Priors are written once, package-neutrally, as list(dist, ...) and turned into each
# package's own constructor (always without autoscaling) by the scripts. "flat" is the
# improper uniform prior (rstanarm: NULL, vhmc: flat()).
pr <- function(dist, ...) list(dist = dist, args = list(...))

# The posteriordb data, as in tools/posteriordb-fixture.R and tests/testthat/helper-posteriordb.R.
# Data frames with syntactic column names: rstanarm requires a data frame, and the same
# names on both sides let the agreement check match parameters by name.
posteriordb_models <- function(dir) {
  js <- function(name) jsonlite::fromJSON(file.path(dir, paste0(name, ".json")))
  kid <- js("kidiq"); ea <- js("earnings"); sb <- js("sblrc"); ar <- js("arK"); di <- js("diamonds")
  half_cauchy <- pr("cauchy", location = 0, scale = 2.5)
  t_ar <- seq.int(ar$K + 1L, length(ar$y))
  lags <- sapply(seq_len(ar$K), function(k) ar$y[t_ar - k])
  colnames(lags) <- paste0("lag", seq_len(ar$K))
  sbx <- sb$X; colnames(sbx) <- paste0("X", seq_len(ncol(sbx)))
  dix <- di$X[, -1]; colnames(dix) <- paste0("Xc", seq_len(ncol(dix)))
  list(
    kidiq_momiq = glm_model("kid_score ~ 1 + mom_iq", data.frame(kid[c("kid_score", "mom_iq")]),
                            "gaussian", pr("flat"), pr("flat"), half_cauchy),
    kidiq_interaction = glm_model("kid_score ~ 1 + mom_hs + mom_iq + mom_hs:mom_iq",
                                  data.frame(kid[c("kid_score", "mom_hs", "mom_iq")]),
                                  "gaussian", pr("flat"), pr("flat"), half_cauchy),
    earnings = glm_model("log(earn) ~ 1 + z_height + male + z_height:male",
                         data.frame(earn = ea$earn, male = ea$male,
                                    z_height = (ea$height - mean(ea$height)) / stats::sd(ea$height)),
                         "gaussian", pr("flat"), pr("flat"), pr("flat")),
    sblrc = glm_model("y ~ 0 + .", data.frame(y = sb$y, sbx), "gaussian",
                      pr("normal", location = 0, scale = 10), NULL,
                      pr("normal", location = 0, scale = 10)),
    arK = glm_model("y ~ .", data.frame(y = ar$y[t_ar], lags), "gaussian",
                    pr("normal", location = 0, scale = 10), pr("normal", location = 0, scale = 10),
                    half_cauchy,
                    note = "alpha's normal(0, 10) applies at the centred lags in both packages (posteriordb: at lags = 0; mean(y) = 0.006, so the difference is negligible)"),
    diamonds = glm_model("Y ~ .", data.frame(Y = di$Y, dix), "gaussian",
                         pr("normal", location = 0, scale = 1),
                         pr("student_t", df = 3, location = 8, scale = 10),
                         pr("student_t", df = 3, location = 0, scale = 10))
  )
}

# One GLM: the formula is kept as a string so that saving the job for the worker does not
# serialise the environment a formula object would carry.
glm_model <- function(formula, data, family, prior, prior_intercept, prior_aux, note = "") {
  list(kind = "glm", formula = formula, data = data, family = family, prior = prior,
       prior_intercept = prior_intercept, prior_aux = prior_aux, note = note)
}

# Kilpisjarvi-shaped summer temperatures (the real series is not in ../shared): 1952-2013,
# about 9 degrees C, a trend of about 0.02 degrees per year, residual sd 1.1; three sites
# with their own offsets and trends. Years stay uncentred, as in posteriordb's
# kilpisjarvi_mod ("larger x values to enhance correlatedness").
kilpis_data <- function() {
  set.seed(1952)
  years <- 1952:2013
  sites <- data.frame(site = c("A", "B", "C"), offset = c(9, 7.5, 9.8),
                      trend = c(0.020, 0.025, 0.015))
  d <- do.call(rbind, lapply(seq_len(nrow(sites)), function(s) {
    data.frame(year = years, site = sites$site[s],
               y = sites$offset[s] + sites$trend[s] * (years - 1952) +
                 stats::rnorm(length(years), sd = 1.1))
  }))
  d$site <- factor(d$site)
  d
}

# y ~ year * site: vhmc_glm centres every column, but the centred columns site_B and
# year:site_B stay collinear (each is ~1980 times the other for the rows of site B), so
# the posterior correlation of their coefficients is about -0.9999 in any per-column scaling.
kilpis_sites_model <- function() {
  glm_model("y ~ year * site", kilpis_data(), "gaussian", pr("flat"), pr("flat"),
            pr("exponential", rate = 1))
}

# posteriordb's kilpisjarvi_mod model: y ~ normal(alpha + beta * year, sigma), year
# uncentred, alpha ~ normal(pmualpha, psalpha), beta ~ normal(pmubeta, psbeta), sigma flat
# on (0, inf). Its prior values are not in ../shared; these are weak ones of the same form.
kilpisjarvi_mod_model <- function() {
  d <- kilpis_data()
  d <- d[d$site == "A", ]
  list(kind = "custom", x = d$year, y = d$y, pmualpha = 0, psalpha = 100, pmubeta = 0,
       psbeta = 0.1 / 3, note = "vhmc_sample (R log density, gradient) vs rstan (Stan code in warmup_models.R)")
}

kilpisjarvi_stan_code <- "
data { int<lower=0> N; vector[N] x; vector[N] y;
       real pmualpha; real psalpha; real pmubeta; real psbeta; }
parameters { real alpha; real beta; real<lower=0> sigma; }
model {
  alpha ~ normal(pmualpha, psalpha);
  beta ~ normal(pmubeta, psbeta);
  y ~ normal(alpha + beta * x, sigma);
}
"

# The simulated logistic regression of seed 002 (Zhang et al. 2017), drawn exactly as in
# glm_vs_rstanarm.R (same seed and order of draws, so the same data at the same N).
logistic_data <- function(n_obs, seed = 20240) {
  set.seed(seed)
  k <- 49L
  X1 <- matrix(stats::rnorm(n_obs * k, sd = 0.1), n_obs, k,
               dimnames = list(NULL, sprintf("x%02d", seq_len(k))))
  beta <- stats::runif(k + 1L)
  eta <- 0.1 * beta[1] + drop(X1 %*% beta[-1])
  data.frame(y = stats::rbinom(n_obs, 1, stats::plogis(eta)), X1)
}

# The column 0.1 * 1 of the paper's design is the intercept alpha = 0.1 beta_1: its prior
# N(0, 10^2) on beta_1 is normal(0, 1) on alpha (at the centred predictors, whose means are
# ~0 here); the 49 slopes have normal(0, 10). As in glm_vs_rstanarm.R.
logistic_model <- function(n_obs) {
  glm_model("y ~ .", logistic_data(n_obs), "binomial", pr("normal", location = 0, scale = 10),
            pr("normal", location = 0, scale = 1), NULL)
}

all_model_names <- c("kidiq_momiq", "kidiq_interaction", "earnings", "sblrc", "arK", "diamonds",
                     "kilpis_sites", "kilpisjarvi_mod", "logistic")

# The models asked for, built in the main process (the worker gets them through a file).
build_models <- function(names, posteriordb_dir, n_obs) {
  out <- list()
  pdb <- intersect(names, all_model_names[1:6])
  if (length(pdb)) out <- posteriordb_models(posteriordb_dir)[pdb]
  if ("kilpis_sites" %in% names) out$kilpis_sites <- kilpis_sites_model()
  if ("kilpisjarvi_mod" %in% names) out$kilpisjarvi_mod <- kilpisjarvi_mod_model()
  if ("logistic" %in% names) out$logistic <- logistic_model(n_obs)
  out[names]
}

# Per-parameter summaries used by every table: the same functions on both sides. posterior
# caps a bulk ESS at S log10(S) draws (antithetic chains can exceed S) and warns each time;
# the cap is the same for every engine, so the warning is silenced.
summarise_arr <- function(arr) {
  keep <- setdiff(posterior::variables(arr), c("lp__", "mean_PPD", "log-posterior"))
  arr <- posterior::subset_draws(arr, variable = keep)
  s <- suppressWarnings(posterior::summarise_draws(arr, "mean", "sd", "ess_bulk", "mcse_mean", "rhat"))
  data.frame(lapply(as.list(s)[-1], as.numeric), row.names = s$variable)
}
