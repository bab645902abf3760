# Smooth models: vhmc_glm() against brms::brm() with the same formula, data and priors, 4
# chains on 2 cores, each package's default sampler settings (vhmc: NUTS with its automatic
# warmup of at most 1000 iterations, 1000 draws; brms: 1000 warmup and 1000 draws), both
# fitted in this run. brms's compilation is timed apart (brm(chains = 0)) and excluded: its
# whole call is update(compiled, recompile = FALSE). Both build the smooths with mgcv's
# smoothCon() and smooth2random(), so the coefficients are the same. Reported per model and
# package: the whole call in seconds, sampling seconds alone, min bulk and tail ESS over the
# intercept, the smooths' unpenalised coefficients, their sds, sigma and the group sd (the
# penalised coefficients and group effects too, where both report them), max R-hat,
# gradients (vhmc) or leapfrog steps (brms) per chain, divergences, min bulk ESS per second
# of the whole call and of sampling alone, vhmc's ratio to brms, and the largest |z| of the
# difference of the two posterior means (combined MCSE) over the parameters both name.
# Models:
#   mcycle          MASS::mcycle, accel ~ s(times), gaussian;
#                   priors brms's defaults for these data written out: Intercept
#                   student_t(3, -13.3, 35.6), sds and sigma student_t(3, 0, 35.6)
#   mcycle_sigma    the same with its distributional part, bf(accel ~ s(times), sigma ~
#                   s(times)) (brms's example); priors as mcycle's, sigma's intercept
#                   student_t(3, 0, 2.5) and its smooth's sds student_t(3, 0, 2.5) (link scale)
#   smooth_logit    y ~ s(x) + (1 | g), binomial(logit), 2,000 simulated rows, 30 groups;
#                   b normal(0, 2.5), Intercept normal(0, 2.5), sds and sd student_t(3, 0, 2.5)
#   cens_lognormal  y | cens(censored) ~ x1 + x2 + x3, lognormal, 2,000 simulated survival
#                   times, about a third right-censored at exponential times; b normal(0, 2.5),
#                   Intercept student_t(3, 1, 2.5), sigma student_t(3, 0, 2.5)
#   clinic_sigma    bf(y ~ treat + (1 | clinic), sigma ~ treat + (1 | clinic)), gaussian, 2,000
#                   simulated patients in 40 clinics whose mean and residual sd vary (the
#                   heterogeneous variances of brms.mmrm users); b normal(0, 2.5), Intercept
#                   student_t(3, 10, 2.5), sigma's Intercept student_t(3, 0, 2.5) and b
#                   normal(0, 2.5), every sd student_t(3, 0, 2.5) (vhmc: lkj(scale = 2.5, df = 3,
#                   autoscale = FALSE), whose sds are half Student-t)
#
#   Rscript inst/bench/distributional_vs_brms.R    (run it alone on the machine: check top)
#
# Settings (environment): VHMC_BENCH_MODELS (comma-separated subset; their rows replace those
# of an earlier run, the others' are kept), VHMC_BENCH_PACKAGES (vhmc,brms: which sides run).
# Writes vignettes/results/bench/distributional_vs_brms.csv.

suppressMessages(library(vhmc))
source(file.path("inst", "bench", "vs_brms.R"))
use_system_boost(strsplit(Sys.getenv("VHMC_BENCH_PACKAGES", "vhmc,brms"), ",")[[1]])
out_file <- file.path("vignettes", "results", "bench", "distributional_vs_brms.csv")

simulate_smooth_logit <- function(n = 2000, J = 30, seed = 1) {
  set.seed(seed)
  x <- runif(n)
  g <- factor(sprintf("g%02d", sample(J, n, TRUE)))
  u <- rnorm(J, 0, 0.5)[g]
  data.frame(y = rbinom(n, 1, plogis(1.5 * sin(2 * pi * x) + u)), x = x, g = g)
}

simulate_cens_lognormal <- function(n = 2000, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(3 * n), n, 3, dimnames = list(NULL, c("x1", "x2", "x3")))
  t <- rlnorm(n, 1 + X %*% c(0.5, -0.3, 0.2), 0.8)
  cpt <- rexp(n, 1 / 6)
  data.frame(X, y = pmin(t, cpt), censored = ifelse(t <= cpt, "none", "right"))
}

simulate_clinics <- function(J = 40, m = 50, seed = 1) {
  set.seed(seed)
  d <- data.frame(clinic = factor(sprintf("c%02d", rep(seq_len(J), each = m))), treat = rbinom(J * m, 1, 0.5))
  u <- rnorm(J, 0, 0.5)[d$clinic]
  v <- rnorm(J, 0, 0.3)[d$clinic]
  d$y <- 10 + 1.5 * d$treat + u + exp(0.2 + 0.4 * d$treat + v) * rnorm(J * m)
  d
}

# Each model: formula, data, family, and the priors in both packages' terms.
models <- list(
  mcycle = function() {
    data(mcycle, package = "MASS", envir = environment())
    list(formula = accel ~ s(times), data = mcycle, vhmc_family = gaussian(), brms_family = gaussian(),
         vhmc_priors = list(prior = normal(0, 2.5), prior_intercept = student_t(3, -13.3, 35.6),
                            prior_smooth = student_t(3, 0, 35.6), prior_aux = student_t(3, 0, 35.6)),
         brms_priors = c(brms::set_prior("normal(0, 2.5)", class = "b"),
                         brms::set_prior("student_t(3, -13.3, 35.6)", class = "Intercept"),
                         brms::set_prior("student_t(3, 0, 35.6)", class = "sds"),
                         brms::set_prior("student_t(3, 0, 35.6)", class = "sigma")))
  },
  mcycle_sigma = function() {
    data(mcycle, package = "MASS", envir = environment())
    list(formula = bf(accel ~ s(times), sigma ~ s(times)), brms_formula = brms::bf(accel ~ s(times), sigma ~ s(times)),
         data = mcycle, vhmc_family = gaussian(), brms_family = gaussian(),
         vhmc_priors = list(prior = normal(0, 2.5), prior_intercept = student_t(3, -13.3, 35.6),
                            prior_smooth = student_t(3, 0, 35.6),
                            prior_dpar = list(intercept = student_t(3, 0, 2.5), coef = normal(0, 2.5),
                                              sds = student_t(3, 0, 2.5))),
         brms_priors = c(brms::set_prior("normal(0, 2.5)", class = "b"),
                         brms::set_prior("student_t(3, -13.3, 35.6)", class = "Intercept"),
                         brms::set_prior("student_t(3, 0, 35.6)", class = "sds"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "Intercept", dpar = "sigma"),
                         brms::set_prior("normal(0, 2.5)", class = "b", dpar = "sigma"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sds", dpar = "sigma")))
  },
  smooth_logit = function() {
    list(formula = y ~ s(x) + (1 | g), data = simulate_smooth_logit(), vhmc_family = binomial(),
         brms_family = brms::bernoulli(),
         vhmc_priors = list(prior = normal(0, 2.5), prior_intercept = normal(0, 2.5),
                            prior_smooth = student_t(3, 0, 2.5),
                            prior_covariance = lkj(scale = 2.5, df = 3, autoscale = FALSE)),
         brms_priors = c(brms::set_prior("normal(0, 2.5)", class = "b"),
                         brms::set_prior("normal(0, 2.5)", class = "Intercept"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sds"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sd")))
  },
  cens_lognormal = function() {
    list(formula = y | cens(censored) ~ x1 + x2 + x3, data = simulate_cens_lognormal(), vhmc_family = lognormal(),
         brms_family = brms::lognormal(),
         vhmc_priors = list(prior = normal(0, 2.5), prior_intercept = student_t(3, 1, 2.5),
                            prior_aux = student_t(3, 0, 2.5)),
         brms_priors = c(brms::set_prior("normal(0, 2.5)", class = "b"),
                         brms::set_prior("student_t(3, 1, 2.5)", class = "Intercept"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sigma")))
  },
  clinic_sigma = function() {
    list(formula = bf(y ~ treat + (1 | clinic), sigma ~ treat + (1 | clinic)),
         brms_formula = brms::bf(y ~ treat + (1 | clinic), sigma ~ treat + (1 | clinic)),
         data = simulate_clinics(), vhmc_family = gaussian(), brms_family = gaussian(),
         vhmc_priors = list(prior = normal(0, 2.5), prior_intercept = student_t(3, 10, 2.5),
                            prior_dpar = list(intercept = student_t(3, 0, 2.5), coef = normal(0, 2.5)),
                            prior_covariance = lkj(scale = 2.5, df = 3, autoscale = FALSE)),
         brms_priors = c(brms::set_prior("normal(0, 2.5)", class = "b"),
                         brms::set_prior("student_t(3, 10, 2.5)", class = "Intercept"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sd"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "Intercept", dpar = "sigma"),
                         brms::set_prior("normal(0, 2.5)", class = "b", dpar = "sigma"),
                         brms::set_prior("student_t(3, 0, 2.5)", class = "sd", dpar = "sigma")))
  })
chosen <- Sys.getenv("VHMC_BENCH_MODELS", "")
if (nzchar(chosen)) models <- models[strsplit(chosen, ",")[[1]]]
packages <- strsplit(Sys.getenv("VHMC_BENCH_PACKAGES", "vhmc,brms"), ",")[[1]]

run_vhmc <- function(m) {
  timed_vhmc(c(list(m$formula, data = m$data, family = m$vhmc_family), m$vhmc_priors,
               list(chains = 4, cores = 2, iter = 2000, seed = 1, progress = FALSE)))
}

run_brms <- function(m) {
  formula <- if (is.null(m$brms_formula)) m$formula else m$brms_formula
  timed_brms(formula, m$data, m$brms_family, m$brms_priors, "^(b_|bs_|sds_|s_|sd_|r_|sigma)")
}

# brms's names as vhmc names them (the distributional formula's with sigma_): b_Intercept,
# bs_sx_1 (the unpenalised coefficient),
# sds_sx_1, s_sx_1[k] (the penalised coefficients, the same basis), sigma.
vhmc_names <- function(variables) {
  v <- sub("^b_sigma_Intercept$", "sigma_(Intercept)", variables)
  v <- sub("^b_sigma_([a-z]+)$", "sigma_\\1", v)
  v <- sub("^r_([a-z]+)__sigma\\[(.+),Intercept\\]$", "b[sigma_(Intercept) \\1:\\2]", v)
  v <- sub("^r_([a-z]+)\\[(.+),Intercept\\]$", "b[(Intercept) \\1:\\2]", v)
  v <- sub("^bs_sigma_s([a-z]+)_([0-9]+)$", "sigma_s(\\1).fx\\2", v)
  v <- sub("^sds_sigma_s([a-z]+)_1$", "sds[sigma_s(\\1)]", v)
  v <- sub("^s_sigma_s([a-z]+)_1\\[([0-9]+)\\]$", "sigma_s(\\1).\\2", v)
  v <- sub("^b_Intercept$", "(Intercept)", v)
  v <- sub("^bs_s([a-z]+)_([0-9]+)$", "s(\\1).fx\\2", v)
  v <- sub("^sds_s([a-z]+)_1$", "sds[s(\\1)]", v)
  v <- sub("^s_s([a-z]+)_1\\[([0-9]+)\\]$", "s(\\1).\\2", v)
  sub("^b_", "", v)
}

# The largest |z| of the two posterior means, over the parameters both report by name.
agreement <- function(a, b, m) {
  b$variable <- vhmc_names(b$variable)
  both <- intersect(a$variable, b$variable)
  i <- match(both, a$variable)
  j <- match(both, b$variable)
  c(max_abs_z = max(abs(a$mean[i] - b$mean[j]) / sqrt(a$mcse_mean[i]^2 + b$mcse_mean[j]^2)), compared = length(both))
}

res <- compare_models(models, packages, run_vhmc, run_brms, agreement, out_file)
print(res)
