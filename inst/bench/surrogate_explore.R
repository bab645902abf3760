# How long surrogate_hmc() explores, on a9a's full design (d = 118; inst/bench/table1_data.R,
# the papers' prior N(0, 10^2)), with the surrogate kept (fallback = FALSE) so that its own
# draws are measured: the automatic exploration (NUTS until the training set holds enough
# gradients, 30-42 iterations here) against fixed explorations of 60, 100, 150, 200 and 400
# iterations, 2 chains of 1000 draws after an automatic warmup, and nuts() with defaults in
# the same run as the baseline. Columns: seed, sampler, explore (NUTS iterations per chain),
# training points, the quadratic base and its held-out gradient error, bases kept, the
# surrogate's held-out gradient error, its tuned step size and steps, sampling acceptance
# per chain, min bulk ESS, max R-hat, whole-call seconds, the slowest chain's sampling
# seconds and min bulk ESS per second of the whole call. Each call is timed once: run alone.
# Environment: VHMC_BENCH_SEEDS (comma separated; 2017), VHMC_BENCH_OUT.
#   Rscript inst/bench/surrogate_explore.R
suppressPackageStartupMessages(library(vhmc))
source(Find(file.exists, c(file.path("inst", "bench", "table1_data.R"),
                           system.file("bench", "table1_data.R", package = "vhmc"))))

seeds <- as.integer(strsplit(Sys.getenv("VHMC_BENCH_SEEDS", "2017"), ",")[[1]])
out_file <- Sys.getenv("VHMC_BENCH_OUT", file.path("vignettes", "results", "bench", "surrogate_explore.csv"))
D <- a9a_full()
dat <- data.frame(y = D$y, D$X[, colnames(D$X) != "intercept", drop = FALSE], check.names = FALSE)

fit_a9a <- function(sampler, seed) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(vhmc_glm(
    y ~ ., data = dat, family = stats::binomial(), prior = normal(0, 10, autoscale = FALSE),
    prior_intercept = normal(0, 10, autoscale = FALSE), sampler = sampler, chains = 2, cores = 2,
    iter = 2000, warmup = NULL, seed = seed, progress = FALSE)))
  list(fit = fit, seconds = proc.time()[["elapsed"]] - t0)
}

per_chain <- function(x, digits = 3) paste(format(round(x, digits), nsmall = digits), collapse = "/")

bench_row <- function(seed, label, explore, run) {
  fit <- run$fit
  s <- posterior::summarise_draws(fit$draws, "rhat", "ess_bulk")
  ess <- min(as.numeric(s$ess_bulk), na.rm = TRUE)
  si <- if (is.null(fit$surrogate)) NULL else surrogate_info(fit)
  info <- function(col, digits = 3) if (is.null(si)) NA else per_chain(si[[col]], digits)
  data.frame(seed = seed, sampler = label, explore = as.character(explore),
             explored = if (is.null(si)) NA else paste(si$explore, collapse = "/"),
             n_train = if (is.null(si)) NA else paste(si$n_train, collapse = "/"),
             quadratic = if (is.null(si)) NA else paste(si$quadratic, collapse = "/"),
             quadratic_error = if (is.null(si)) NA else per_chain(vapply(fit$surrogate, function(x) x$quadratic_error, 0)),
             hidden = if (is.null(si)) NA else paste(si$hidden, collapse = "/"),
             grad_rel_error = info("grad_rel_error"), step_size = info("step_size"),
             steps = if (is.null(si)) NA else paste(si$steps, collapse = "/"),
             accept = per_chain(vapply(fit$diagnostics, function(x) mean(x$accept_stat__), 0), 2),
             min_ess_bulk = round(ess), max_rhat = round(max(as.numeric(s$rhat), na.rm = TRUE), 4),
             seconds = round(run$seconds, 1), sampling_seconds = round(max(fit$timing$sampling_seconds), 1),
             ess_per_second = round(ess / run$seconds, 1))
}

rows <- list()
for (seed in seeds) {
  rows[[length(rows) + 1]] <- bench_row(seed, "nuts()", "", fit_a9a(nuts(), seed))
  for (ex in list(NULL, 60L, 100L, 150L, 200L, 400L)) {
    label <- if (is.null(ex)) "auto" else ex
    run <- fit_a9a(surrogate_hmc(fallback = FALSE, explore = ex), seed)
    rows[[length(rows) + 1]] <- bench_row(seed, "surrogate_hmc(fallback = FALSE)", label, run)
    print(rows[[length(rows)]])
  }
}
res <- do.call(rbind, rows)
print(res)
utils::write.csv(res, out_file, row.names = FALSE)
