# Benchmark: NUTS efficiency of vhmc against rstan on two Gaussian targets (a 100-d Gaussian of widely varying scales and a strongly correlated 2-d one):
#   gauss100 - 100-d iid Gaussian, sds log-spaced from 0.01 to 100 (diag metric)
#   corr2    - 2-d Gaussian, unit variances, correlation 0.99 (diag and dense metrics)
# Reports min bulk ESS per gradient evaluation (the algorithmic efficiency, comparable
# across implementations) and per second of sampling. vhmc runs its engine on a C++
# Gaussian potential (the cost of the engine itself) and on the same target written as R
# functions (what vhmc_sample users pay). rstan is used only when installed.
#
#   Rscript inst/bench/nuts_targets.R [reps]      (writes vignettes/results/bench/nuts_targets.csv)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 5L
if (!(length(args) > 1 && args[2] == "--stan-worker")) suppressPackageStartupMessages(library(vhmc))
chains <- 4L; iter <- 2000L; warmup <- 1000L

targets <- list(
  gauss100 = list(mean = rep(0, 100), cov = diag((10^seq(-2, 2, length.out = 100))^2)),
  corr2 = list(mean = c(0, 0), cov = matrix(c(1, 0.99, 0.99, 1), 2))
)
runs <- list(
  list(target = "gauss100", metric = "diag"),
  list(target = "corr2", metric = "diag"),
  list(target = "corr2", metric = "dense")
)

min_ess <- function(arr) min(apply(arr, 3, posterior::ess_bulk))

vhmc_cpp <- function(tg, metric, seed) {
  sampler <- nuts(metric = metric)
  d <- length(tg$mean)
  res <- lapply(seq_len(chains), function(ch) {
    vhmc:::vhmc_chain_gaussian(tg$mean, tg$cov, rep(0.5, d), sampler,
      list(iter = iter, warmup = warmup, thin = 1L, seed = seed, chain = ch, refresh = 0L))
  })
  arr <- simplify2array(lapply(res, `[[`, "draws"))          # iter x d x chains
  arr <- aperm(arr, c(1, 3, 2))
  c(ess = min_ess(arr), grads = sum(sapply(res, `[[`, "n_grad_sampling")),
    seconds = sum(sapply(res, `[[`, "sampling_seconds")))
}

vhmc_r <- function(tg, metric, seed) {
  P <- solve(tg$cov)
  d <- length(tg$mean)
  fit <- suppressWarnings(vhmc_sample(
    function(th) -0.5 * sum(th * (P %*% th)), function(th) -as.vector(P %*% th),
    init = stats::setNames(rep(0.5, d), sprintf("x[%d]", seq_len(d))), sampler = nuts(metric = metric),
    chains = chains, iter = iter, warmup = warmup, seed = seed, progress = FALSE))
  c(ess = min(posterior::summarise_draws(fit$draws, "ess_bulk")$ess_bulk),
    grads = sum(fit$counts$n_grad_sampling), seconds = sum(fit$timing$sampling_seconds))
}

stan_code <- "
data { int<lower=1> d; vector[d] mu; matrix[d, d] L; }
parameters { vector[d] x; }
model { x ~ multi_normal_cholesky(mu, L); }
"
stan_code_diag <- "
data { int<lower=1> d; vector[d] mu; vector[d] s; }
parameters { vector[d] x; }
model { x ~ normal(mu, s); }
"
# rstan runs in its own R process: its compiled models and vhmc's library are never loaded
# together, so neither can interfere with the other.
have_rstan <- requireNamespace("rstan", quietly = TRUE)
stan_worker <- length(args) > 1 && args[2] == "--stan-worker"
load_models <- function() {
  rstan::rstan_options(boost_lib = "/usr/include", auto_write = TRUE)
  list(diag = rstan::stan_model(model_code = stan_code_diag),
       dense = rstan::stan_model(model_code = stan_code))
}
rstan_run <- function(tg, metric, seed) {
  d <- length(tg$mean)
  diagonal <- all(tg$cov[upper.tri(tg$cov)] == 0)
  data <- if (diagonal) list(d = d, mu = tg$mean, s = sqrt(diag(tg$cov)))
          else list(d = d, mu = tg$mean, L = t(chol(tg$cov)))
  model <- models[[if (diagonal) "diag" else "dense"]]
  fit <- rstan::sampling(model, data = data, chains = chains, iter = iter, warmup = warmup,
                         seed = seed, refresh = 0, init = function() list(x = rep(0.5, d)),
                         control = list(metric = paste0(metric, "_e")))
  arr <- rstan::extract(fit, pars = "x", permuted = FALSE)
  sp <- rstan::get_sampler_params(fit, inc_warmup = FALSE)
  c(ess = min_ess(arr), grads = sum(sapply(sp, function(s) sum(s[, "n_leapfrog__"]))),
    seconds = sum(rstan::get_elapsed_time(fit)[, "sample"]))
}

measure <- function(engine) {
  lapply(runs, function(r) sapply(seq_len(reps), function(k) engine(targets[[r$target]], r$metric, 1000L + k)))
}
if (stan_worker) {
  models <- load_models()
  saveRDS(measure(rstan_run), args[3])
  quit(save = "no")
}
results <- list(vhmc_cpp = measure(vhmc_cpp), vhmc_r = measure(vhmc_r))
if (have_rstan) {
  rds <- tempfile(fileext = ".rds")
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  status <- system2(file.path(R.home("bin"), "Rscript"), c(script, reps, "--stan-worker", rds))
  if (status == 0 && file.exists(rds)) results$rstan <- readRDS(rds)
}

rows <- list()
for (i in seq_along(runs)) {
  r <- runs[[i]]
  for (eng in names(results)) {
    m <- results[[eng]][[i]]
    rows[[length(rows) + 1]] <- data.frame(
      target = r$target, metric = r$metric, engine = eng, reps = reps,
      min_ess_bulk = mean(m["ess", ]), grads = mean(m["grads", ]),
      ess_per_grad = mean(m["ess", ] / m["grads", ]),
      ess_per_grad_se = stats::sd(m["ess", ] / m["grads", ]) / sqrt(reps),
      ess_per_sec = mean(m["ess", ] / m["seconds", ]))
  }
}
tab <- do.call(rbind, rows)
if ("rstan" %in% names(results)) {
  base <- tab[tab$engine == "rstan", c("target", "metric", "ess_per_grad", "ess_per_sec")]
  names(base)[3:4] <- c("stan_epg", "stan_eps")
  tab <- merge(tab, base, by = c("target", "metric"), sort = FALSE)
  tab$ess_per_grad_vs_stan <- tab$ess_per_grad / tab$stan_epg
  tab$ess_per_sec_vs_stan <- tab$ess_per_sec / tab$stan_eps
  tab$stan_epg <- tab$stan_eps <- NULL
}
out_dir <- file.path("vignettes", "results", "bench")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, file.path(out_dir, "nuts_targets.csv"), row.names = FALSE)
print(format(tab, digits = 3), row.names = FALSE)
