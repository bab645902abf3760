# Which parameterisation of a group-level term mixes better, and what parameterization =
# "auto" chooses, on a grid of simulated models (issue 42, item 4): y ~ x + (1 | g) with 50
# levels, rows per level in {2, 8, 32}, group sd in {0.25, 1, 3}, family gaussian, binomial
# or poisson, fitted to the data and (at 8 rows per level) with prior_PD = TRUE; and lme4's
# grouseticks negative binomial model, (1 | BROOD) + (1 | LOCATION). Each cell is fitted
# centred and non-centred, 4 chains of 1000 warmup and 1000 sampling iterations on 2 cores;
# the measure is the min bulk ESS per 1,000 gradients (machine-independent), with max R-hat,
# and the information ratio kappa the auto rule computes (R/glmer-start.R).
#
#   Rscript inst/bench/parameterization_grid.R    (about 10 minutes)
#
# Writes vignettes/results/bench/parameterization_grid.csv.
library(vhmc)
seeds <- as.integer(strsplit(Sys.getenv("VHMC_BENCH_SEEDS", "1"), ",")[[1]])

simulate <- function(family, n_per, sd, seed, J = 50) {
  set.seed(seed)
  g <- rep(seq_len(J), each = n_per)
  x <- rnorm(length(g))
  eta <- 0.3 + 0.5 * x + rnorm(J, 0, sd)[g]
  y <- switch(family, gaussian = rnorm(length(g), eta, 1), binomial = rbinom(length(g), 1, plogis(eta)),
              poisson = rpois(length(g), exp(pmin(eta, 5))))
  data.frame(y = y, x = x, g = factor(g))
}

fit_one <- function(formula, data, family, form, seed, prior_PD = FALSE) {
  t <- system.time(fit <- suppressWarnings(vhmc_glm(formula, data = data, family = family, chains = 4, cores = 2,
                                                     seed = seed, progress = FALSE, prior_PD = prior_PD,
                                                     parameterization = form)))
  conv <- vhmc:::convergence_table(fit$draws)
  data.frame(form = form, chosen = if (isTRUE(all(fit$model$glmer$centred))) "centered" else "noncentered",
             kappa = paste(signif(fit$model$glmer$information_ratio %||% NA, 3), collapse = "/"),
             min_ess = min(conv$ess_bulk), max_rhat = max(conv$rhat), gradients = sum(fit$counts$n_grad),
             ess_per_1000_grad = 1000 * min(conv$ess_bulk) / sum(fit$counts$n_grad),
             divergences = sum(vhmc::sampler_diagnostics(fit)$divergent__), seconds = t[["elapsed"]])
}

`%||%` <- function(a, b) if (is.null(a)) b else a

cell <- function(label, formula, data, family, seed, prior_PD = FALSE) {
  auto <- fit_one(formula, data, family, "auto", seed, prior_PD)
  other <- if (auto$chosen == "centered") "noncentered" else "centered"
  rows <- rbind(transform(auto, form = auto$chosen), fit_one(formula, data, family, other, seed, prior_PD))
  rows$chosen <- auto$chosen
  rows$kappa <- auto$kappa
  cbind(cell = label, seed = seed, rows)
}

grid <- expand.grid(family = c("gaussian", "binomial", "poisson"), n_per = c(2, 8, 32), sd = c(0.25, 1, 3),
                    prior_PD = FALSE, stringsAsFactors = FALSE)
grid <- rbind(grid, data.frame(family = c("gaussian", "binomial", "poisson"), n_per = 8, sd = 1, prior_PD = TRUE))
res <- list()
for (seed in seeds) {
  for (i in seq_len(nrow(grid))) {
    gr <- grid[i, ]
    fam <- switch(gr$family, gaussian = gaussian(), binomial = binomial(), poisson = poisson())
    label <- sprintf("%s n=%d sd=%g%s", gr$family, gr$n_per, gr$sd, if (gr$prior_PD) " prior_PD" else "")
    res[[length(res) + 1]] <- cell(label, y ~ x + (1 | g), simulate(gr$family, gr$n_per, gr$sd, seed), fam, seed, gr$prior_PD)
    print(res[[length(res)]])
  }
  if (requireNamespace("lme4", quietly = TRUE)) {
    gt <- lme4::grouseticks
    res[[length(res) + 1]] <- cell("grouseticks negbin", TICKS ~ YEAR + scale(HEIGHT) + (1 | BROOD) + (1 | LOCATION),
                                   gt, neg_binomial_2(), seed)
    print(res[[length(res)]])
  }
}
res <- do.call(rbind, res)
out <- file.path("vignettes", "results", "bench", "parameterization_grid.csv")
if (dir.exists(dirname(out))) utils::write.csv(res, out, row.names = FALSE)
