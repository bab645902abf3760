#!/usr/bin/env Rscript
# Simulation-based calibration (SBC; Talts, Betancourt, Simpson, Vehtari and Gelman 2018) of
# vhmc's exact samplers. For each model and sampler, each replication draws parameters from
# the prior, simulates data from them, fits with one chain, thins the draws to L roughly
# independent ones and ranks the true values among them. When the sampler draws from the
# posterior, every rank is uniform on 0..L. Writes, in the output folder:
#   sbc_ranks.csv.gz model, sampler, replication, parameter, rank, L
#   sbc_fits.csv.gz  one row per fit: iterations, draws, seconds, smallest bulk ESS,
#                    divergences, warnings, errors
#   sbc_summary.csv  per model x sampler x parameter: chi-square and ECDF p-values, pass
#   sbc_ecdf_band.csv  the simultaneous 95% band of the ECDF difference per number of ranks
# A run over some models or samplers replaces their rows and keeps the others, so the study
# can be run in parts; the summary is recomputed from all rows.
#
# Usage (from the package's source folder, the package installed):
#   Rscript inst/validation/sbc.R [--reps=200] [--first=1] [--L=99] [--seed=20240]
#     [--models=logistic,gaussian,poisson,hierarchical] (also student, cumulative,
#     zero_inflated_poisson, beta: the families of sbc-families.R; smooth, smooth_logistic:
#     sbc-smooth.R; censored_gamma, censored_lognormal: sbc-censored.R; location_scale,
#     location_scale_group: sbc-dpars.R; crossed_binomial, varying_intercept,
#     varying_intercept_rich: sbc-multilevel.R)
#     [--samplers=nuts,hmc,rwm,rmhmc,surrogate_hmc] [--out=vignettes/results/validation]
# Each option can also be given as an environment variable VHMC_SBC_<NAME> (VHMC_SBC_REPS=20).
# --samplers=demc runs differential-evolution MCMC on the models written in R (hierarchical),
# with a population of 4 chains. --samplers=variational_hmc runs the approximate variational HMC as a contrast: it is
# labelled approximate and has no pass flag. sghmc() and sgld() are approximate too.
# --samplers=surrogate_kept runs surrogate_hmc(fallback = FALSE): the surrogate's dynamics
# even where cheap gradients would hand the chain over to NUTS.

script_dir <- function() {
  file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(file)) dirname(normalizePath(file[1])) else "inst/validation"
}
for (part in c("sbc-stats.R", "sbc-models.R", "sbc-families.R", "sbc-smooth.R", "sbc-censored.R", "sbc-dpars.R", "sbc-multilevel.R",
               "sbc-target.R", "sbc-run.R", "sbc-summary.R")) {
  source(file.path(script_dir(), part))
}

sbc_options <- function(args = commandArgs(TRUE)) {
  defaults <- list(reps = "200", first = "1", L = "99", seed = "20240",
                   models = "logistic,gaussian,poisson,hierarchical",
                   samplers = "nuts,hmc,rwm,rmhmc,surrogate_hmc",
                   out = file.path(script_dir(), "..", "..", "vignettes", "results", "validation"))
  opts <- lapply(stats::setNames(names(defaults), names(defaults)), function(name) {
    given <- sub(sprintf("^--%s=", name), "", grep(sprintf("^--%s=", name), args, value = TRUE))
    env <- Sys.getenv(paste0("VHMC_SBC_", toupper(name)), "")
    if (length(given)) given[length(given)] else if (nzchar(env)) env else defaults[[name]]
  })
  unknown <- setdiff(sub("=.*", "", sub("^--", "", args)), names(defaults))
  if (length(unknown)) stop("unknown option(s): ", paste(unknown, collapse = ", "))
  within(opts, {
    reps <- as.integer(reps); first <- as.integer(first); L <- as.integer(L)
    seed <- as.integer(seed)
    models <- strsplit(models, ",")[[1]]; samplers <- strsplit(samplers, ",")[[1]]
  })
}

main <- function() {
  opts <- sbc_options()
  suppressPackageStartupMessages(library(vhmc))
  dir.create(opts$out, showWarnings = FALSE, recursive = TRUE)
  message(sprintf("SBC: %d replications from %d, L = %d, models %s, samplers %s",
                  opts$reps, opts$first, opts$L, paste(opts$models, collapse = ","),
                  paste(opts$samplers, collapse = ",")))
  reps <- seq(opts$first, length.out = opts$reps)
  out <- sbc_study(opts$models, opts$samplers, reps, opts$L, opts$seed)
  sbc_write(out, opts$out)
  summary <- utils::read.csv(file.path(opts$out, "sbc_summary.csv"))
  print(summary[c("model", "sampler", "parameter", "replications", "chisq_p", "ecdf_p", "pass")],
        row.names = FALSE)
}

if (sys.nframe() == 0L) main()
