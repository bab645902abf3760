# The families added to the registry: vhmc_glm() against brms::brm() with the same formula,
# data and priors, 4 chains on 2 cores, each package's default sampler settings (vhmc: NUTS
# with its automatic warmup of at most 1000 iterations, 1000 draws; brms: 1000 warmup and
# 1000 draws), both fitted in this run. brms's compilation is timed apart (brm(chains = 0))
# and excluded: its whole call is update(compiled, recompile = FALSE). Reported per model and
# package: the whole call in seconds, sampling seconds alone, min bulk and tail ESS over every
# parameter (fixed effects, auxiliary parameters, the group variance and the group effects;
# bulk ESS is rank-based, so brms's sd and vhmc's variance compare), max R-hat, gradients
# (vhmc) or leapfrog steps (brms) per chain, divergences, min bulk ESS per second of the whole
# call and of sampling alone, and for vhmc its ratio to brms and the largest |z| of the
# difference of the two posterior means of the fixed effects and auxiliary parameters
# (combined MCSE). Models:
#   sim_<family>  y ~ x + (1 | g), 10,000 simulated rows and 100 groups, for student,
#                 lognormal, beta, cumulative, zero_inflated_poisson,
#                 zero_inflated_negbinomial, hurdle_poisson, hurdle_negbinomial and
#                 inverse_gaussian (log link)
#   inhaler       brms's inhaler data, rating ~ treat + period + carry + (1 | subject),
#                 cumulative (572 rows, 286 subjects)
#   bio_<family>  pscl's bioChemists, art ~ fem + mar + kid5 + phd + ment (915 rows, no
#                 groups), zero-inflated and hurdle Poisson and negative binomial
# Priors, the same in both: b normal(0, 2.5), Intercept normal(0, 10) (cutpoints
# student_t(3, 0, 2.5)), sd student_t(3, 0, 2.5) (vhmc's lkj(scale = 2.5, df = 3)), sigma
# exponential(1), nu gamma(2, 0.1), phi, shape and inverse gaussian's shape gamma(0.01, 0.01),
# zi and hu beta(1, 1).
#
#   Rscript inst/bench/families_vs_brms.R          (run it alone on the machine: check top)
#
# Settings (environment): VHMC_BENCH_MODELS (comma-separated subset; their rows replace those
# of an earlier run, the others' are kept), VHMC_BENCH_PACKAGES (vhmc,brms: which sides run).
# Writes vignettes/results/bench/families_vs_brms.csv.

suppressMessages(library(vhmc))
source(file.path("inst", "bench", "vs_brms.R"))
use_system_boost(strsplit(Sys.getenv("VHMC_BENCH_PACKAGES", "vhmc,brms"), ",")[[1]])
out_file <- file.path("vignettes", "results", "bench", "families_vs_brms.csv")

simulate_family <- function(name, n = 1e4, J = 100, seed = 1) {
  set.seed(seed)
  g <- factor(sprintf("g%03d", sample(J, n, TRUE)), levels = sprintf("g%03d", seq_len(J)))
  x <- rnorm(n)
  b <- rnorm(J, 0, 0.5)[g]
  mu <- exp(0.5 + 0.4 * x + b)
  pos <- function(p0, q) ifelse(runif(n) < 0.3, 0, q(runif(n, p0, 1)))
  y <- switch(name,
    student = 1 + 0.5 * x + b + rt(n, 4),
    lognormal = exp(0.5 + 0.4 * x + b + rnorm(n, 0, 0.6)),
    beta = {
      m <- plogis(-0.3 + 0.6 * x + b)
      rbeta(n, m * 20, (1 - m) * 20)
    },
    cumulative = cut(0.8 * x + b + rlogis(n), c(-Inf, -1, 0.3, 1.5, Inf), labels = 1:4, ordered_result = TRUE),
    zero_inflated_poisson = ifelse(runif(n) < 0.3, 0, rpois(n, mu)),
    zero_inflated_negbinomial = ifelse(runif(n) < 0.3, 0, rnbinom(n, size = 3, mu = mu)),
    hurdle_poisson = pos(dpois(0, mu), function(u) qpois(u, mu)),
    hurdle_negbinomial = pos(dnbinom(0, size = 3, mu = mu), function(u) pmax(1, qnbinom(u, size = 3, mu = mu))),
    inverse_gaussian = vhmc:::rinvgauss(n, exp(0.5 + 0.3 * x + b), 5))
  data.frame(y = y, x = x, g = g)
}

# The family in both packages, and the priors of its auxiliary parameters.
family_pair <- function(name) {
  switch(name,
    student = list(vhmc = student(), brms = brms::student(), aux = list(sigma = "exponential(1)", nu = "gamma(2, 0.1)")),
    lognormal = list(vhmc = lognormal(), brms = brms::lognormal(), aux = list(sigma = "exponential(1)")),
    beta = list(vhmc = Beta(), brms = brms::Beta(), aux = list(phi = "gamma(0.01, 0.01)")),
    cumulative = list(vhmc = cumulative(), brms = brms::cumulative(), aux = list()),
    zero_inflated_poisson = list(vhmc = zero_inflated_poisson(), brms = brms::zero_inflated_poisson(),
                                 aux = list(zi = "beta(1, 1)")),
    zero_inflated_negbinomial = list(vhmc = zero_inflated_negbinomial(), brms = brms::zero_inflated_negbinomial(),
                                     aux = list(shape = "gamma(0.01, 0.01)", zi = "beta(1, 1)")),
    hurdle_poisson = list(vhmc = hurdle_poisson(), brms = brms::hurdle_poisson(), aux = list(hu = "beta(1, 1)")),
    hurdle_negbinomial = list(vhmc = hurdle_negbinomial(), brms = brms::hurdle_negbinomial(),
                              aux = list(shape = "gamma(0.01, 0.01)", hu = "beta(1, 1)")),
    inverse_gaussian = list(vhmc = inverse.gaussian(link = "log"), brms = stats::inverse.gaussian(link = "log"),
                            aux = list(lambda = "gamma(0.01, 0.01)")))
}

# vhmc's prior objects from the strings above.
vhmc_prior <- function(text) {
  args <- as.numeric(regmatches(text, gregexpr("[0-9.]+", text))[[1]])
  switch(sub("\\(.*", "", text), exponential = exponential(args[1]), gamma = gamma_prior(args[1], args[2]),
         beta = beta_prior(args[1], args[2]))
}

models <- c(
  lapply(stats::setNames(nm = c("student", "lognormal", "beta", "cumulative", "zero_inflated_poisson",
                                "zero_inflated_negbinomial", "hurdle_poisson", "hurdle_negbinomial",
                                "inverse_gaussian")),
         function(name) function() c(list(formula = y ~ x + (1 | g), data = simulate_family(name)), family_pair(name))),
  list(inhaler = function() c(list(formula = rating ~ treat + period + carry + (1 | subject), data = brms::inhaler),
                              family_pair("cumulative"))),
  lapply(stats::setNames(nm = c("zero_inflated_poisson", "zero_inflated_negbinomial", "hurdle_poisson",
                                "hurdle_negbinomial")),
         function(name) function() c(list(formula = art ~ fem + mar + kid5 + phd + ment,
                                          data = pscl::bioChemists), family_pair(name))))
names(models)[1:9] <- paste0("sim_", names(models)[1:9])
names(models)[11:14] <- paste0("bio_", names(models)[11:14])
chosen <- Sys.getenv("VHMC_BENCH_MODELS", "")
if (nzchar(chosen)) models <- models[strsplit(chosen, ",")[[1]]]
packages <- strsplit(Sys.getenv("VHMC_BENCH_PACKAGES", "vhmc,brms"), ",")[[1]]

has_groups <- function(m) !is.null(reformulas::findbars(m$formula))

run_vhmc <- function(m) {
  ordinal <- inherits(m$vhmc, "family") && m$vhmc$family == "cumulative"
  args <- list(m$formula, data = m$data, family = m$vhmc, prior = normal(0, 2.5),
               prior_intercept = if (ordinal) student_t(3, 0, 2.5) else normal(0, 10),
               prior_aux = if (length(m$aux)) lapply(m$aux, vhmc_prior), chains = 4, cores = 2, iter = 2000,
               seed = 1, progress = FALSE)
  if (has_groups(m)) args$prior_covariance <- lkj(scale = 2.5, df = 3, autoscale = FALSE)
  timed_vhmc(args)
}

brms_priors <- function(m) {
  ordinal <- m$vhmc$family == "cumulative"
  p <- c(brms::set_prior("normal(0, 2.5)", class = "b"),
         brms::set_prior(if (ordinal) "student_t(3, 0, 2.5)" else "normal(0, 10)", class = "Intercept"))
  if (has_groups(m)) p <- c(p, brms::set_prior("student_t(3, 0, 2.5)", class = "sd"))
  for (nm in names(m$aux)) p <- c(p, brms::set_prior(m$aux[[nm]], class = if (nm == "lambda") "shape" else nm))
  p
}

run_brms <- function(m) {
  timed_brms(m$formula, m$data, m$brms, brms_priors(m), "^(b_|sd_|r_|sigma|nu|phi|shape|zi|hu)")
}

# brms's names of the fixed effects and auxiliary parameters, as vhmc names them.
vhmc_names <- function(variables, m) {
  v <- sub("^b_Intercept$", "(Intercept)", variables)
  v <- sub("^b_", "", v)
  if (m$vhmc$family == "cumulative") {
    lev <- if (is.factor(m$data[[all.vars(m$formula)[1]]])) levels(m$data[[all.vars(m$formula)[1]]]) else
      as.character(seq_len(max(m$data[[all.vars(m$formula)[1]]])))
    k <- as.integer(sub("^Intercept\\[([0-9]+)\\]$", "\\1", v[grepl("^Intercept\\[", v)]))
    v[grepl("^Intercept\\[", v)] <- paste(lev[k], lev[k + 1L], sep = "|")
  }
  if (m$vhmc$family == "inverse.gaussian") v[v == "shape"] <- "lambda"
  v
}

# The largest |z| of the two posterior means, over the parameters both report by name.
agreement <- function(a, b, m) {
  b$variable <- vhmc_names(b$variable, m)
  both <- intersect(a$variable, b$variable)
  both <- both[!startsWith(both, "b[") & !startsWith(both, "Sigma[")]
  i <- match(both, a$variable)
  j <- match(both, b$variable)
  max(abs(a$mean[i] - b$mean[j]) / sqrt(a$mcse_mean[i]^2 + b$mcse_mean[j]^2))
}

res <- compare_models(models, packages, run_vhmc, run_brms, agreement, out_file)
print(res)
