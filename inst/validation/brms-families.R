#!/usr/bin/env Rscript
# Long brms runs of multilevel models y ~ x + (1 | g) in nine families, the reference
# posteriors against which vhmc's new GLM families are validated: student, lognormal, beta,
# cumulative (logit), zero-inflated and hurdle poisson and negative binomial, and inverse
# gaussian (log link). Each family gets its own simulated data set (fixed seed; 400 rows, a
# grouping factor g with 20 levels "g01".."g20" of 20 rows, x ~ N(0, 1), group effects
# N(0, 0.6^2)) and explicit priors, the ones the vhmc side uses:
#   b normal(0, 1); Intercept normal(0, 5) (for cumulative: every threshold); sd
#   student_t(3, 0, 1); sigma exponential(1); nu gamma(2, 0.1) (nu >= 1); phi gamma(0.01, 0.01);
#   shape gamma(0.01, 0.01); zi beta(1, 1); hu beta(1, 1).
# As always in brms, the Intercept prior is on the intercept (thresholds) at the predictors'
# means, as in vhmc_glm(), which centres the predictors.
# Every fit: 4 chains x 6000 iterations (1000 warmup), seed 1234, adapt_delta 0.95 (raised
# per family where noted in `families` below).
#
# Writes tests/testthat/fixtures/brms_families.rds: a list named by family, each with
#   data         the simulated data frame (y, x, g)
#   summary      data frame: variable, mean, sd, mcse_mean, ess_bulk, rhat (posterior's
#                summarise_draws), under vhmc's names: "(Intercept)", "x", the thresholds
#                "1|2", "2|3", "3|4" (cumulative), b[(Intercept) g:g01] ..., the auxiliary
#                parameter by its name (sigma, nu, phi, shape, zi, hu; brms's inverse gaussian
#                shape as "lambda") and Sigma[g:(Intercept),(Intercept)], the group VARIANCE
#                (draws of sd_g__Intercept^2)
#   divergences  divergent transitions after warmup (all chains)
#   brms_family  the family call, a string such as "zero_inflated_poisson()"
#   priors       prior_summary() of the fit as a plain data frame
#   settings     list: chains, iter, warmup, seed, adapt_delta, brms (version string)
#   truth        the simulation's parameter values, under the same names
#   seconds      wall time of brm() (compilation and sampling) and of sampling alone
#
# Usage (from the package's source folder; brms, rstan and posterior installed; about a
# minute of compilation per family plus sampling, roughly half an hour in all on one core):
#   Rscript inst/validation/brms-families.R               # all families
#   Rscript inst/validation/brms-families.R beta student  # refit these, keep the others
# On a shared machine: nice -n 10 Rscript inst/validation/brms-families.R

suppressPackageStartupMessages({
  library(brms)
  library(posterior)
})

source(file.path("inst", "validation", "stan-boost.R"))

out_file <- file.path("tests", "testthat", "fixtures", "brms_families.rds")
if (!dir.exists(dirname(out_file))) stop("run from the package's source folder")

n_groups <- 20L
n_per_group <- 20L
sd_group <- 0.6

# x and the group effects, the same recipe for every family (its own seed).
sim_base <- function() {
  n <- n_groups * n_per_group
  levels <- sprintf("g%02d", seq_len(n_groups))
  g <- factor(rep(levels, each = n_per_group), levels = levels)
  x <- stats::rnorm(n)
  b_g <- stats::setNames(stats::rnorm(n_groups, 0, sd_group), levels)
  list(n = n, g = g, x = x, b_g = b_g, eff = unname(b_g[as.integer(g)]))
}

# The truth under vhmc's names: fixed effects, group effects, auxiliary, group variance.
truth_of <- function(fixed, b_g, aux = NULL) {
  c(fixed, stats::setNames(b_g, sprintf("b[(Intercept) g:%s]", names(b_g))), aux,
    "Sigma[g:(Intercept),(Intercept)]" = sd_group^2)
}

# Zero-truncated poisson and negative binomial draws by inversion of the CDF above P(0).
rztpois <- function(n, mu) stats::qpois(stats::runif(n, stats::dpois(0, mu), 1), mu)
rztnbinom <- function(n, mu, size) {
  stats::qnbinom(stats::runif(n, stats::dnbinom(0, size = size, mu = mu), 1), size = size, mu = mu)
}

# Inverse gaussian (mean mu, shape lambda; variance mu^3 / lambda) by the transformation
# with multiple roots of Michael, Schucany and Haas (1976).
rinvgauss <- function(n, mu, lambda) {
  v <- stats::rnorm(n)^2
  r <- mu + mu^2 * v / (2 * lambda) - mu / (2 * lambda) * sqrt(4 * mu * lambda * v + mu^2 * v^2)
  ifelse(stats::runif(n) <= mu / (mu + r), r, mu^2 / r)
}

sim_student <- function() {
  set.seed(101)
  s <- sim_base()
  y <- 1 + 0.5 * s$x + s$eff + 1.0 * stats::rt(s$n, df = 4)
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 1, x = 0.5), s$b_g, c(sigma = 1, nu = 4)))
}

sim_lognormal <- function() {
  set.seed(102)
  s <- sim_base()
  y <- exp(stats::rnorm(s$n, 0.5 + 0.4 * s$x + s$eff, 0.6))
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.4), s$b_g, c(sigma = 0.6)))
}

sim_beta <- function() {
  set.seed(103)
  s <- sim_base()
  mu <- stats::plogis(-0.3 + 0.6 * s$x + s$eff)
  phi <- 20
  y <- stats::rbeta(s$n, mu * phi, (1 - mu) * phi)
  stopifnot(all(y > 0 & y < 1))
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = -0.3, x = 0.6), s$b_g, c(phi = phi)))
}

# brms's cumulative model: P(y <= k) = F(tau_k - eta), the thresholds tau of the latent scale.
sim_cumulative <- function() {
  set.seed(104)
  s <- sim_base()
  tau <- c(-1, 0.3, 1.5)
  latent <- 0.8 * s$x + s$eff + stats::rlogis(s$n)
  y <- factor(findInterval(latent, tau) + 1L, levels = 1:4, labels = c("1", "2", "3", "4"),
              ordered = TRUE)
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("1|2" = tau[1], "2|3" = tau[2], "3|4" = tau[3], x = 0.8), s$b_g))
}

sim_zero_inflated_poisson <- function() {
  set.seed(105)
  s <- sim_base()
  mu <- exp(0.5 + 0.4 * s$x + s$eff)
  zi <- 0.3
  y <- ifelse(stats::runif(s$n) < zi, 0L, stats::rpois(s$n, mu))
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.4), s$b_g, c(zi = zi)))
}

sim_zero_inflated_negbinomial <- function() {
  set.seed(106)
  s <- sim_base()
  mu <- exp(0.5 + 0.4 * s$x + s$eff)
  zi <- 0.3
  shape <- 3
  y <- ifelse(stats::runif(s$n) < zi, 0L, stats::rnbinom(s$n, size = shape, mu = mu))
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.4), s$b_g, c(shape = shape, zi = zi)))
}

sim_hurdle_poisson <- function() {
  set.seed(107)
  s <- sim_base()
  mu <- exp(0.5 + 0.4 * s$x + s$eff)
  hu <- 0.35
  y <- ifelse(stats::runif(s$n) < hu, 0, rztpois(s$n, mu))
  list(data = data.frame(y = as.integer(y), x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.4), s$b_g, c(hu = hu)))
}

sim_hurdle_negbinomial <- function() {
  set.seed(108)
  s <- sim_base()
  mu <- exp(0.5 + 0.4 * s$x + s$eff)
  hu <- 0.35
  shape <- 3
  y <- ifelse(stats::runif(s$n) < hu, 0, rztnbinom(s$n, mu, shape))
  list(data = data.frame(y = as.integer(y), x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.4), s$b_g, c(shape = shape, hu = hu)))
}

sim_inverse_gaussian <- function() {
  set.seed(109)
  s <- sim_base()
  mu <- exp(0.5 + 0.3 * s$x + s$eff)
  lambda <- 5
  y <- rinvgauss(s$n, mu, lambda)
  stopifnot(all(y > 0))
  list(data = data.frame(y = y, x = s$x, g = s$g),
       truth = truth_of(c("(Intercept)" = 0.5, x = 0.3), s$b_g, c(lambda = lambda)))
}

# Per family: the brms family call, its auxiliary parameters (brms name = vhmc name) and their
# priors, and adapt_delta.
families <- list(
  student = list(family = "student()", aux = c(sigma = "sigma", nu = "nu"),
                 aux_prior = c(sigma = "exponential(1)", nu = "gamma(2, 0.1)")),
  lognormal = list(family = "lognormal()", aux = c(sigma = "sigma"),
                   aux_prior = c(sigma = "exponential(1)")),
  beta = list(family = "Beta()", aux = c(phi = "phi"), aux_prior = c(phi = "gamma(0.01, 0.01)")),
  cumulative = list(family = "cumulative(\"logit\")", aux = character(), aux_prior = character()),
  zero_inflated_poisson = list(family = "zero_inflated_poisson()", aux = c(zi = "zi"),
                               aux_prior = c(zi = "beta(1, 1)")),
  zero_inflated_negbinomial = list(family = "zero_inflated_negbinomial()",
                                   aux = c(shape = "shape", zi = "zi"),
                                   aux_prior = c(shape = "gamma(0.01, 0.01)", zi = "beta(1, 1)")),
  hurdle_poisson = list(family = "hurdle_poisson()", aux = c(hu = "hu"),
                        aux_prior = c(hu = "beta(1, 1)")),
  hurdle_negbinomial = list(family = "hurdle_negbinomial()", aux = c(shape = "shape", hu = "hu"),
                            aux_prior = c(shape = "gamma(0.01, 0.01)", hu = "beta(1, 1)")),
  inverse_gaussian = list(family = "inverse.gaussian(link = \"log\")", aux = c(shape = "lambda"),
                          aux_prior = c(shape = "gamma(0.01, 0.01)"))
)
settings <- list(chains = 4L, iter = 6000L, warmup = 1000L, seed = 1234L, adapt_delta = 0.95)

family_priors <- function(spec) {
  p <- c(set_prior("normal(0, 1)", class = "b"),
         set_prior("normal(0, 5)", class = "Intercept"),
         set_prior("student_t(3, 0, 1)", class = "sd"))
  for (cl in names(spec$aux_prior)) p <- c(p, set_prior(spec$aux_prior[[cl]], class = cl))
  p
}

# posterior's summary of the draws renamed to vhmc's names.
vhmc_summary <- function(fit, spec) {
  brms_vars <- variables(fit)
  r_vars <- grep("^r_g\\[", brms_vars, value = TRUE)
  levels <- sub("^r_g\\[(.*),Intercept\\]$", "\\1", r_vars)
  fixed <- if (grepl("^cumulative", spec$family)) {
    c("b_Intercept[1]" = "1|2", "b_Intercept[2]" = "2|3", "b_Intercept[3]" = "3|4", b_x = "x")
  } else {
    c(b_Intercept = "(Intercept)", b_x = "x")
  }
  map <- c(fixed, stats::setNames(sprintf("b[(Intercept) g:%s]", levels), r_vars), spec$aux,
           Sigma_g = "Sigma[g:(Intercept),(Intercept)]")
  draws <- as_draws_array(fit, variable = c(setdiff(names(map), "Sigma_g"), "sd_g__Intercept"))
  draws <- mutate_variables(draws, Sigma_g = sd_g__Intercept^2)
  draws <- subset_draws(draws, variable = names(map))
  variables(draws) <- unname(map[variables(draws)])
  s <- summarise_draws(draws, "mean", "sd", "mcse_mean", "ess_bulk", "rhat")
  data.frame(variable = s$variable, mean = as.numeric(s$mean), sd = as.numeric(s$sd),
             mcse_mean = as.numeric(s$mcse_mean), ess_bulk = as.numeric(s$ess_bulk),
             rhat = as.numeric(s$rhat), stringsAsFactors = FALSE)
}

record <- function(name) {
  spec <- families[[name]]
  sim <- get(paste0("sim_", name))()
  adapt_delta <- spec$adapt_delta %||% settings$adapt_delta
  family <- eval(str2lang(spec$family), envir = asNamespace("brms"))
  priors <- family_priors(spec)
  t0 <- Sys.time()
  fit <- brm(y ~ x + (1 | g), data = sim$data, family = family, prior = priors,
             chains = settings$chains, cores = 1, iter = settings$iter, warmup = settings$warmup,
             seed = settings$seed, refresh = 0, control = list(adapt_delta = adapt_delta))
  total <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  sampling <- sum(rstan::get_elapsed_time(fit$fit))
  # Every prior is ours: brms's prior summary lists no default (other than flat priors on
  # nothing, i.e. vectorised entries that inherit ours).
  ps <- prior_summary(fit, all = TRUE)
  used <- as.data.frame(unclass(ps), stringsAsFactors = FALSE)
  stray <- used[used$prior != "" & used$source == "default", , drop = FALSE]
  if (nrow(stray) > 0) stop(name, ": brms default priors in use:\n", paste(capture.output(print(stray)), collapse = "\n"))
  summary <- vhmc_summary(fit, spec)
  stopifnot(setequal(summary$variable, names(sim$truth)))
  list(data = sim$data, summary = summary, divergences = rstan::get_num_divergent(fit$fit),
       treedepth_hits = rstan::get_num_max_treedepth(fit$fit), brms_family = spec$family,
       priors = used,
       settings = list(chains = settings$chains, iter = settings$iter, warmup = settings$warmup,
                       seed = settings$seed, adapt_delta = adapt_delta,
                       brms = as.character(utils::packageVersion("brms"))),
       truth = sim$truth, seconds = c(total = total, sampling = sampling))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

report <- function(name, rec) {
  s <- rec$summary
  cat(sprintf("\n== %s  (%s; %.0f s, of which sampling %.0f s)\n", name, rec$brms_family,
              rec$seconds[["total"]], rec$seconds[["sampling"]]))
  cat(sprintf("max rhat %.4f, min ess_bulk %.0f, divergences %d, max treedepth hits %d\n",
              max(s$rhat), min(s$ess_bulk), rec$divergences, rec$treedepth_hits))
  keep <- !grepl("^b\\[", s$variable)
  shown <- data.frame(s[keep, c("variable", "mean", "sd", "mcse_mean", "ess_bulk", "rhat")],
                      truth = unname(rec$truth[s$variable[keep]]))
  print(shown, row.names = FALSE, digits = 3)
  b <- s[!keep, ]
  b_true <- rec$truth[b$variable]
  cat(sprintf(paste("group effects: cor(mean, truth) %.3f, mean |mean - truth| / sd %.2f;",
                    "simulated ones' mean %.3f, variance %.3f\n"),
              stats::cor(b$mean, b_true), mean(abs(b$mean - b_true) / b$sd), mean(b_true),
              mean((b_true - mean(b_true))^2)))
}

args <- commandArgs(trailingOnly = TRUE)
todo <- if (length(args)) args else names(families)
unknown <- setdiff(todo, names(families))
if (length(unknown)) stop("unknown families: ", paste(unknown, collapse = ", "))
out <- if (length(args) && file.exists(out_file)) readRDS(out_file) else list()
for (name in todo) {
  out[[name]] <- record(name)
  report(name, out[[name]])
  out <- out[intersect(names(families), names(out))]
  saveRDS(out, out_file, compress = "xz", version = 2)
}
cat(sprintf("\nwrote %s (%.0f kB)\n", out_file, file.size(out_file) / 1024))
