# Gaussian multilevel models with several group-level terms: the three exact ways vhmc
# computes their likelihood, measured in one run on the same data (issue 23, item 3):
#   rows      the row pass per gradient, effects sampled (options(vhmc.glmer_cells = FALSE),
#             parameterization = "auto" among centred and non-centred)
#   cells     per-cell statistics, effects sampled (inst/include/vhmc/model/glm/gaussian_cells.hpp)
#   marginal  nested effects integrated out, drawn afterwards from their conditional
#             (inst/include/vhmc/model/glm/marginal_gaussian.hpp; parameterization = "auto")
# Models:
#   nested      simulated, y ~ x + (1 | g1/g2), 100,000 rows, 50 outer x 20 inner levels
#   nested_thin simulated, the same with 2,000 rows (2 rows per inner level: the data say
#               little about each inner effect, where sampling the effects fares best)
#   nested_x    simulated, y ~ x + (1 + x | g1/g2), 100,000 rows, 50 x 20 levels
#   crossed     simulated crossed factors with few cells, y ~ x + (1 | a) + (1 | b),
#               100,000 rows, 30 x 40 levels (1,200 cells): cells against rows only
# Per model and way: the whole call in seconds, sampling seconds (slowest chain), min bulk
# and tail ESS over every parameter, max R-hat, gradients per chain, divergences, min bulk
# ESS per second of the whole call, and gradients per second of the potential alone (value
# and gradient at one point, repeated; no sampler). 4 chains of 2000 on 2 cores, seed 1.
# Then each way's ratio to the row pass.
#
#   Rscript inst/bench/glmer_cells.R      (run it alone on the machine: check top)
#
# Settings (environment): VHMC_BENCH_MODELS (comma-separated subset), VHMC_BENCH_WAYS
# (rows,cells,marginal). Writes vignettes/results/bench/glmer_cells.csv.

suppressMessages(library(vhmc))
out_file <- file.path("vignettes", "results", "bench", "glmer_cells.csv")

nested_sim <- function(n, outer, per, slope, seed) {
  set.seed(seed)
  g1 <- sample(outer, n, TRUE)
  g2 <- sample(per, n, TRUE)
  x <- rnorm(n)
  inner <- (g1 - 1) * per + g2
  b1 <- rnorm(outer, 0, 0.8)
  b2 <- rnorm(outer * per, 0, 0.5)
  s2 <- if (slope) rnorm(outer * per, 0, 0.3) else 0 * b2
  s1 <- if (slope) rnorm(outer, 0, 0.3) else 0 * b1
  y <- 0.5 + 0.5 * x + b1[g1] + b2[inner] + (s1[g1] + s2[inner]) * x + rnorm(n)
  data.frame(y = y, x = x, g1 = factor(g1), g2 = factor(g2))
}

crossed_sim <- function(n, na, nb, seed) {
  set.seed(seed)
  a <- sample(na, n, TRUE)
  b <- sample(nb, n, TRUE)
  x <- rnorm(n)
  y <- 0.5 + 0.5 * x + rnorm(na, 0, 0.7)[a] + rnorm(nb, 0, 0.4)[b] + rnorm(n)
  data.frame(y = y, x = x, a = factor(a), b = factor(b))
}

models <- list(
  nested = function() list(formula = y ~ x + (1 | g1 / g2), data = nested_sim(1e5, 50, 20, FALSE, 1)),
  nested_thin = function() list(formula = y ~ x + (1 | g1 / g2), data = nested_sim(2000, 50, 20, FALSE, 2)),
  crossed = function() list(formula = y ~ x + (1 | a) + (1 | b), data = crossed_sim(1e5, 30, 40, 4)),
  nested_x = function() list(formula = y ~ x + (1 + x | g1 / g2), data = nested_sim(1e5, 50, 20, TRUE, 3))
)
chosen <- Sys.getenv("VHMC_BENCH_MODELS", "")
if (nzchar(chosen)) models <- models[strsplit(chosen, ",")[[1]]]
ways <- strsplit(Sys.getenv("VHMC_BENCH_WAYS", "rows,cells,marginal"), ",")[[1]]

# The way's settings: the option for the likelihood, and the parameterisation.
way_settings <- function(way) {
  switch(way,
         rows = list(cells = FALSE, parameterization = "auto_sampled"),
         cells = list(cells = TRUE, parameterization = "auto_sampled"),
         marginal = list(cells = "auto", parameterization = "marginal"))
}

# "auto" among the sampled parameterisations: the centred/non-centred choice vhmc_glm()
# makes when the effects are not integrated out.
fit_way <- function(m, way) {
  s <- way_settings(way)
  old <- options(vhmc.glmer_cells = s$cells)
  on.exit(options(old))
  par <- if (s$parameterization == "auto_sampled") "auto" else s$parameterization
  if (s$parameterization == "auto_sampled") {
    # vhmc_glm()'s "auto" integrates nested gaussian effects out; sample them as it would
    # otherwise: the centred/non-centred rule of R/glmer-start.R, through the internals.
    old_marg <- vhmc:::glmer_marginal
    utils::assignInNamespace("glmer_marginal", function(...) FALSE, "vhmc")
    on.exit(utils::assignInNamespace("glmer_marginal", old_marg, "vhmc"), add = TRUE)
  }
  vhmc_glm(m$formula, data = m$data, chains = 4, cores = 2, iter = 2000, seed = 1, progress = FALSE,
           parameterization = par)
}

convergence <- function(draws) {
  s <- suppressWarnings(posterior::summarise_draws(draws, "rhat", "ess_bulk", "ess_tail"))
  c(min_ess_bulk = min(s$ess_bulk, na.rm = TRUE), min_ess_tail = min(s$ess_tail, na.rm = TRUE),
    max_rhat = max(s$rhat, na.rm = TRUE))
}

# Gradients per second of the fit's potential alone, at theta = 0.1 (the cost of a gradient
# does not depend on where it is taken).
gradient_rate <- function(fit, m, way, seconds = 3) {
  model <- fit$model
  family <- vhmc:::resolve_family(gaussian())
  spec <- vhmc:::glm_spec(model, family, model$priors)
  marginal <- identical(model$glmer$likelihood, "marginal")
  spec$groups <- vhmc:::glmer_spec_groups(model, model$priors, spec$y_scale, model$glmer$centred, marginal)
  spec$cells <- identical(model$glmer$likelihood, "cells")
  ptr <- vhmc:::vhmc_glm_model(spec)
  d <- vhmc:::vhmc_glm_layout(ptr)$dim
  theta <- matrix(0.1, 1L, d)
  reps <- 10L
  repeat {
    th <- theta[rep(1L, reps), , drop = FALSE]
    t <- system.time(vhmc:::vhmc_glm_potential(ptr, th))[["elapsed"]]
    if (t > seconds / 4) return(reps / t)
    reps <- reps * 4L
  }
}

run_way <- function(m, way) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(suppressMessages(fit_way(m, way)))
  whole <- proc.time()[["elapsed"]] - t0
  g <- fit$model$glmer
  c(whole_seconds = whole, sampling_seconds = max(fit$timing$sampling_seconds), convergence(fit$draws),
    gradients_per_chain = mean(fit$counts$n_grad), divergences = sum(sampler_diagnostics(fit)$divergent__),
    gradients_per_second = gradient_rate(fit, m, way), cells = g$cells, rows = nrow(m$data),
    centred = sum(g$centred), likelihood = match(g$likelihood, c("rows", "cells", "marginal")))
}

results <- list()
for (name in names(models)) {
  m <- models[[name]]()
  for (way in ways) {
    if (name == "crossed" && way == "marginal") next
    cat(sprintf("%s / %s ...\n", name, way))
    load <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
    r <- run_way(m, way)
    results[[length(results) + 1L]] <- data.frame(model = name, way = way, t(r), load_before = load)
    print(results[[length(results)]])
    out <- do.call(rbind, results)
    out$ess_per_second <- out$min_ess_bulk / out$whole_seconds
    base <- out[out$way == "rows", c("model", "ess_per_second", "gradients_per_second")]
    names(base)[2:3] <- c("rows_ess_per_second", "rows_gradients_per_second")
    out <- merge(out, base, by = "model", all.x = TRUE, sort = FALSE)
    out$ess_ratio <- out$ess_per_second / out$rows_ess_per_second
    out$gradient_ratio <- out$gradients_per_second / out$rows_gradients_per_second
    out$rows_ess_per_second <- out$rows_gradients_per_second <- NULL
    utils::write.csv(out, out_file, row.names = FALSE)
  }
}
print(utils::read.csv(out_file))
