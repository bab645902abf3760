#!/usr/bin/env Rscript
# Agreement of vhmc_glm()'s posteriors with maximum likelihood and with the reference
# posteriors of posteriordb, recorded for the "Validation" vignette (which reads these files
# instead of refitting). The fits and criteria are those of the package's tests, whose
# helpers this script sources: tests/testthat/helper-glm-mle.R (the flat-prior fits of
# test-glm-vs-glm.R and test-glm-families.R) and helper-posteriordb.R (test-glm-posteriordb.R,
# its fixture tests/testthat/fixtures/posteriordb.rds). Writes, in the output folder:
#   agreement_glm.csv          per case x coefficient: the estimate, its standard error, the
#                              posterior mean, sd and MCSE, criterion = |mean - MLE| /
#                              (4 MCSE + 0.05 se) (below 1 to pass) and sd / se (within 10 %)
#   agreement_posteriordb.csv  per posterior x variable: the reference mean and sd, the
#                              posterior mean and sd, z = |difference of means| / combined
#                              MCSE (at most 4), sd ratio (within 10 %), ESS of the sd
#
# Usage (from the package's source folder, the package and MASS installed; about a minute):
#   Rscript inst/validation/agreement.R [--out=vignettes/results/validation]

suppressPackageStartupMessages(library(vhmc))
test_path <- function(...) file.path("tests", "testthat", ...)
for (helper in c("helper-glm-mle.R", "helper-posteriordb.R")) source(test_path(helper))

# The cases of test-glm-vs-glm.R's first test and of test-glm-families.R's flat-prior tests,
# with the same data, seeds and standard errors.
mle_cases <- function() {
  glm_case <- function(nm) function() {
    d <- sim_data(nm)
    f <- if (nm == "poisson") y ~ x1 + x2 + g + offset(log(expo)) else y ~ x1 + x2 + g
    ref <- stats::glm(f, data = d, family = families[[nm]])
    list(fit = flat_glm(f, d, families[[nm]]), est = stats::coef(ref), se = sqrt(diag(stats::vcov(ref))),
         reference = "glm()")
  }
  cases <- lapply(stats::setNames(nm = names(families)), glm_case)
  cases$neg_binomial_2 <- function() {
    d <- sim_counts()
    ref <- MASS::glm.nb(k ~ x1 + g + offset(log(expo)), data = d)
    list(fit = flat_fit(k ~ x1 + g + offset(log(expo)), d, neg_binomial_2()),
         est = stats::coef(ref), se = sqrt(diag(stats::vcov(ref))), reference = "MASS::glm.nb()")
  }
  cases$Gamma_log <- function() {
    d <- sim_counts(seed = 2)
    ref <- stats::glm(y ~ x1 + g, data = d, family = stats::Gamma(link = "log"))
    # glm()'s standard errors use the moment estimate of the dispersion; the posterior
    # follows the likelihood's curvature at the ML shape.
    shape <- MASS::gamma.shape(ref)
    list(fit = flat_fit(y ~ x1 + g, d, stats::Gamma(link = "log")), est = stats::coef(ref),
         se = sqrt(diag(stats::vcov(ref, dispersion = 1 / shape$alpha))),
         reference = "glm() with the ML shape")
  }
  cases
}

agreement_glm <- function() {
  rows <- lapply(mle_cases(), function(case) {
    r <- case()
    cbind(reference = r$reference, rows = stats::nobs(r$fit), mle_agreement(r$fit, r$est, r$se))
  })
  out <- do.call(rbind, Map(function(nm, d) cbind(case = nm, d), names(rows), rows))
  out$pass <- out$criterion < 1 & abs(out$sd_ratio - 1) < 0.1
  out
}

# The posteriors and settings of test-glm-posteriordb.R.
agreement_posteriordb <- function() {
  settings <- list(
    "kidiq-kidscore_momiq" = list(seed = 11), "kidiq-kidscore_interaction" = list(seed = 11),
    "earnings-logearn_interaction_z" = list(seed = 11), "sblrc-blr" = list(seed = 11),
    "arK-arK" = list(seed = 11),
    "diamonds-diamonds" = list(iter = 3000, seed = 3, sampler = nuts(metric = "dense")))
  rows <- lapply(names(settings), function(name) {
    r <- suppressWarnings(do.call(fit_posteriordb, c(list(name), settings[[name]])))
    m <- compare_reference(r$draws, r$reference)
    data.frame(posterior = name, variable = m$variable, mean_ref = m$mean_ref, sd_ref = m$sd_ref,
               mean = m$mean, sd = m$sd, z = m$z, sd_ratio = m$sd_ratio, ess_sd = m$ess_sd,
               pass = m$z <= 4 & abs(m$sd_ratio - 1) <= 0.1 & m$ess_sd > 400)
  })
  do.call(rbind, rows)
}

main <- function() {
  args <- commandArgs(TRUE)
  out <- sub("^--out=", "", grep("^--out=", args, value = TRUE))
  out <- if (length(out)) out[1] else file.path("vignettes", "results", "validation")
  dir.create(out, showWarnings = FALSE, recursive = TRUE)
  write <- function(d, file) {
    num <- vapply(d, is.double, logical(1))
    d[num] <- lapply(d[num], signif, digits = 6)
    utils::write.csv(d, file.path(out, file), row.names = FALSE)
    message(sprintf("%s: %d rows, %d pass", file, nrow(d), sum(d$pass)))
  }
  write(agreement_glm(), "agreement_glm.csv")
  write(agreement_posteriordb(), "agreement_posteriordb.csv")
}

if (sys.nframe() == 0L) main()
