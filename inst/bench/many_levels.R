# Memory and time of a multilevel fit with many levels: binomial `(1 | g)` with 2 rows per
# level (5 trials each), levels = 1e4, 3e4 and 1e5, 2 chains on 2 cores (threads), default
# iterations (2,000: 1,000 warmup). Each fit runs in a fresh R process, which resets its peak
# resident memory (Linux /proc/self/status VmHWM after writing to /proc/self/clear_refs).
# Reported: peak resident memory above the session with the data loaded, the size of the
# fit's draws (2 chains x 1,000 x (levels + 2) doubles, the floor of any fit that keeps
# every group effect), whole-call seconds, min bulk ESS and max R-hat.
#   Rscript inst/bench/many_levels.R                 # writes vignettes/results/bench/many_levels.csv
#   VHMC_BENCH_LEVELS=100000 Rscript inst/bench/many_levels.R   # one size
#   VHMC_BENCH_ITER=1000 ...                                    # other iterations

args <- commandArgs(trailingOnly = TRUE)
if (length(args) && args[1] == "--one") {
  suppressPackageStartupMessages(library(vhmc))
  J <- as.integer(args[2])
  iter <- as.integer(Sys.getenv("VHMC_BENCH_ITER", "2000"))
  status <- function(field) {
    line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
    as.numeric(sub("^[^0-9]*([0-9]+).*$", "\\1", line)) / 1024  # MiB
  }
  set.seed(1)
  g <- factor(rep(seq_len(J), each = 2))
  x <- rnorm(2 * J)
  b <- rnorm(J, 0, 0.5)
  dat <- data.frame(g = g, x = x, n = 5L)
  dat$y <- rbinom(2 * J, 5, plogis(-0.5 + 0.3 * x + b[as.integer(g)]))
  invisible(gc())
  base <- status("VmRSS")
  writeLines("5", "/proc/self/clear_refs")
  t0 <- Sys.time()
  fit <- suppressWarnings(vhmc_glm(cbind(y, n - y) ~ x + (1 | g), data = dat, family = binomial(),
                                   chains = 2, cores = 2, seed = 1, progress = FALSE, iter = iter))
  secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  peak <- status("VmHWM")
  draws_mib <- length(fit$draws) * 8 / 2^20
  conv <- vhmc:::convergence_table(fit$draws)
  cat(sprintf("%d,%.0f,%.0f,%.1f,%.0f,%.3f\n", J, peak - base, draws_mib, secs,
              min(conv$ess_bulk, na.rm = TRUE), max(conv$rhat, na.rm = TRUE)))
  quit(save = "no")
}

levels <- as.integer(strsplit(Sys.getenv("VHMC_BENCH_LEVELS", "10000,30000,100000"), ",")[[1]])
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
rows <- lapply(levels, function(J) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, "--one", J), stdout = TRUE)
  line <- utils::tail(out, 1)
  cat(line, "\n")
  utils::read.csv(text = line, header = FALSE,
                  col.names = c("levels", "peak_increase_mib", "draws_mib", "seconds",
                                "min_ess_bulk", "max_rhat"))
})
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
dir.create("vignettes/results/bench", showWarnings = FALSE)
utils::write.csv(res, "vignettes/results/bench/many_levels.csv", row.names = FALSE)
