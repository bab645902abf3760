# NUTS gradients per second of the GLM potential, one family at a time, for one or more
# installed builds of vhmc measured in the same run (each fit in its own R process, builds
# alternating, repeated): the check that composing the potential from parts (0.4.0) cost no
# speed. The same seed gives the same draws in builds whose draws agree bit for bit, so both
# builds evaluate the same number of gradients at the same points.
#
#   VHMC_BENCH_LIBS="base=/path/to/old/library,new=/path/to/new/library" \
#     Rscript inst/bench/glm_gradients.R
#
# Settings (environment): VHMC_BENCH_N (rows, default 1e5), VHMC_BENCH_K (predictors, 20),
# VHMC_BENCH_REPS (repetitions, 3), VHMC_BENCH_FAMILIES (comma-separated subset). Writes vignettes/results/bench/glm_gradients.csv: per build
# and family the median over repetitions of gradients per second over warmup and sampling
# (1 chain, 200 warmup + 200 draws from random inits, Stan's adaptation), and each build's
# ratio to the first. Run it alone on the machine (check with top).

n <- as.numeric(Sys.getenv("VHMC_BENCH_N", "1e5"))
k <- as.integer(Sys.getenv("VHMC_BENCH_K", "20"))
reps <- as.integer(Sys.getenv("VHMC_BENCH_REPS", "3"))
libs_spec <- Sys.getenv("VHMC_BENCH_LIBS", "")
libs <- if (nzchar(libs_spec)) {
  parts <- strsplit(strsplit(libs_spec, ",")[[1]], "=")
  stats::setNames(vapply(parts, `[`, "", 2), vapply(parts, `[`, "", 1))
} else c(installed = "")
families <- c("gaussian", "logit", "probit", "poisson", "neg_binomial_2", "Gamma")
fam_spec <- Sys.getenv("VHMC_BENCH_FAMILIES", "")
if (nzchar(fam_spec)) families <- intersect(families, strsplit(fam_spec, ",")[[1]])

# The child: simulate, fit, print "gradients seconds" (or "NA NA" when the build lacks the
# family).
child <- sprintf('
  suppressMessages(library(vhmc))
  fam <- commandArgs(TRUE)[1]
  set.seed(1)
  X <- matrix(rnorm(%1$.0f * %2$d), %1$.0f, %2$d, dimnames = list(NULL, paste0("x", 1:%2$d)))
  eta <- 0.2 + drop(X %%*%% rep(c(0.3, -0.2), length.out = %2$d)) / sqrt(%2$d)
  y <- switch(fam, gaussian = eta + rnorm(%1$.0f), logit = rbinom(%1$.0f, 1, plogis(eta)),
              probit = rbinom(%1$.0f, 1, pnorm(eta)), poisson = rpois(%1$.0f, exp(eta)),
              neg_binomial_2 = rnbinom(%1$.0f, size = 3, mu = exp(eta)),
              Gamma = rgamma(%1$.0f, shape = 3, rate = 3 / exp(eta)))
  family <- switch(fam, gaussian = gaussian(), logit = binomial(), probit = binomial(link = "probit"),
                   poisson = poisson(), neg_binomial_2 = if (exists("neg_binomial_2", asNamespace("vhmc")))
                   vhmc::neg_binomial_2(), Gamma = Gamma(link = "log"))
  fit <- tryCatch(suppressWarnings(vhmc_glm(y ~ X, data = data.frame(y = y), family = family,
                  sampler = nuts(adaptation = "stan"), chains = 1, iter = 400, warmup = 200,
                  init = "random", seed = 1, progress = FALSE)), error = function(e) NULL)
  if (is.null(fit)) { cat("NA NA\\n"); quit(save = "no") }
  g <- fit$counts$n_grad_warmup + fit$counts$n_grad_sampling
  s <- fit$timing$warmup_seconds + fit$timing$sampling_seconds
  cat(g, s, "\\n")', n, k)
script <- tempfile(fileext = ".R")
writeLines(child, script)

run_one <- function(lib, fam) {
  env <- if (nzchar(lib)) sprintf("R_LIBS=%s", lib) else character()
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, fam), stdout = TRUE, env = env)
  suppressWarnings(as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]]))  # "NA NA": no family
}

rows <- list()
for (fam in families) {
  for (r in seq_len(reps)) {
    for (b in names(libs)) {
      v <- run_one(libs[[b]], fam)
      rows[[length(rows) + 1L]] <- data.frame(build = b, family = fam, rep = r, gradients = v[1],
                                              seconds = v[2])
    }
  }
  cat(sprintf("%s done\n", fam))
}
raw <- do.call(rbind, rows)
raw$grad_per_second <- raw$gradients / raw$seconds
print(raw[order(raw$family, raw$build), ], row.names = FALSE)
res <- aggregate(cbind(gradients, grad_per_second) ~ build + family, data = raw, FUN = stats::median,
                 na.action = stats::na.pass)
base <- res[res$build == names(libs)[1], c("family", "grad_per_second")]
res$ratio_to_first <- res$grad_per_second / base$grad_per_second[match(res$family, base$family)]
res$n <- n
res$k <- k
res <- res[order(res$family, match(res$build, names(libs))), ]
print(res, row.names = FALSE)
out <- file.path("vignettes", "results", "bench", "glm_gradients.csv")
if (dir.exists(dirname(out))) utils::write.csv(res, out, row.names = FALSE)
