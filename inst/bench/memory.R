# Memory of a fit: peak resident memory during vhmc_glm() (above the R session with the data
# already loaded) and the size of the fit object, against the size of the design matrix,
# for gaussian and logistic models with N = 2e5 and 1e6 rows and d = 20 predictors, one
# chain of 300 iterations; and rstanarm's stan_glm() at N = 2e5 for comparison (when
# installed). Each measurement runs in a fresh R process, which resets its peak (Linux
# /proc/self/status VmHWM after writing to /proc/self/clear_refs).
#   Rscript inst/bench/memory.R            # writes vignettes/results/bench/memory.csv

args <- commandArgs(trailingOnly = TRUE)
if (length(args) && args[1] == "--one") {
  # child: --one <package> <family> <N> <d>
  pkg <- args[2]; family <- args[3]; n <- as.numeric(args[4]); d <- as.integer(args[5])
  suppressPackageStartupMessages(library(pkg, character.only = TRUE))
  status <- function(field) {
    line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
    as.numeric(sub("^[^0-9]*([0-9]+).*$", "\\1", line)) / 1024  # MiB
  }
  set.seed(1)
  X <- matrix(rnorm(n * d), n, d, dimnames = list(NULL, sprintf("x%d", seq_len(d))))
  beta <- seq(-1, 1, length.out = d) / sqrt(d)
  eta <- drop(X %*% beta)
  dat <- data.frame(X)
  dat$y <- if (family == "gaussian") eta + rnorm(n) else rbinom(n, 1, plogis(eta))
  rm(X, eta)
  fam <- if (family == "gaussian") gaussian() else binomial()
  invisible(gc())
  base <- status("VmRSS")
  writeLines("5", "/proc/self/clear_refs")
  t0 <- Sys.time()
  fit <- if (pkg == "vhmc") {
    suppressWarnings(vhmc_glm(y ~ ., data = dat, family = fam, chains = 1, iter = 300, seed = 1,
                              progress = FALSE))
  } else {
    suppressWarnings(rstanarm::stan_glm(y ~ ., data = dat, family = fam, chains = 1, iter = 300,
                                        seed = 1, refresh = 0))
  }
  secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  peak <- status("VmHWM")
  design <- n * (d + 1) * 8 / 2^20
  cat(sprintf("%s,%s,%.0f,%d,%.1f,%.1f,%.1f,%.1f\n", pkg, family, n, d, design, peak - base,
              as.numeric(utils::object.size(fit)) / 2^20, secs))
  quit(save = "no")
}

runs <- expand.grid(family = c("gaussian", "logistic"), n = c(2e5, 1e6), stringsAsFactors = FALSE)
runs$pkg <- "vhmc"
if (requireNamespace("rstanarm", quietly = TRUE)) {
  runs <- rbind(runs, data.frame(family = c("gaussian", "logistic"), n = 2e5, pkg = "rstanarm"))
}
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
rows <- lapply(seq_len(nrow(runs)), function(i) {
  r <- runs[i, ]
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c(script, "--one", r$pkg, r$family, format(r$n, scientific = FALSE), "20"),
                 stdout = TRUE)
  line <- utils::tail(out, 1)
  cat(line, "\n")
  utils::read.csv(text = line, header = FALSE,
                  col.names = c("package", "family", "n", "d", "design_mib", "peak_increase_mib",
                                "fit_mib", "seconds"))
})
res <- do.call(rbind, rows)
res$peak_over_design <- round(res$peak_increase_mib / res$design_mib, 2)
res$fit_over_design <- round(res$fit_mib / res$design_mib, 2)
print(res, row.names = FALSE)
dir.create("vignettes/results/bench", showWarnings = FALSE)
utils::write.csv(res, "vignettes/results/bench/memory.csv", row.names = FALSE)
