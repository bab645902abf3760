# The illustrations of Zhang, Shahbaba and Zhao (2017) (Figures 2-5): how the acceptance rate
# of surrogate HMC depends on the number of bases and of training points, on
#   banana   - the 2-d banana of the paper's code: y_i ~ N(theta1 + theta2^2, 4), i = 1..100,
#              y = 1 + 2 N(0, 1) (seed 2016), prior N(0, I_2); the paper's HMC settings
#              eps = 0.0967, L = 15 (unit metric), start (-1, 1.5); 500 exploration and 500
#              sampling iterations; hidden in {5, 10, 20, 40, 80, 160} (the paper: 40)
#   gauss32  - the 32-d Gaussian N(0, Sigma), Sigma = 0.01 I + 0.99 11'/32 (eigenvalue 1 along
#              (1..1)/sqrt(32), 0.01 in the 31 others); the paper's HMC settings eps = 0.108,
#              L = 30 (unit metric), start 0; 1000 bases; exploration of {50, 100, 200, 400,
#              800} iterations (the training points are every leapfrog state after its first
#              fifth, so their number grows with it); 500 sampling iterations
# each with the papers' value training (ELM) and vhmc's default gradient training
# (quadratic base plus bases). Both targets are R functions with analytic gradients, run
# through vhmc_sample with 2 chains; the steps are drawn uniformly in 1..L as in the papers.
# Reported per setting: mean sampling acceptance rate, training points, held-out relative
# gradient error, and for reference plain HMC with the same eps and L (true gradients).
# The paper: banana acceptance 0.97 (HMC) and 0.88 (40 bases, value training); 32-d
# Gaussian, 1000 bases: acceptance rises with training points to HMC's ~0.7 by ~2000
# points (its Figure 3, with noisy value targets from iid draws rather than chain states).
#
#   Rscript inst/bench/seed002_illustrations.R   (a few minutes; writes
#   vignettes/results/bench/seed002_illustrations.csv)
suppressPackageStartupMessages(library(vhmc))
out_file <- Sys.getenv("VHMC_BENCH_OUT",
                       file.path("vignettes", "results", "bench", "seed002_illustrations.csv"))

set.seed(2016)
y_b <- 1 + 2 * stats::rnorm(100)
banana <- list(
  log_density = function(th) -sum((y_b - th[1] - th[2]^2)^2) / 8 - sum(th^2) / 2,
  gradient = function(th) {
    r <- sum(y_b - th[1] - th[2]^2) / 4
    c(r - th[1], 2 * th[2] * r - th[2])
  },
  init = c(theta1 = -1, theta2 = 1.5), eps = 0.0967, L = 15L
)
d32 <- 32L
S32 <- 0.01 * diag(d32) + 0.99 * matrix(1, d32, d32) / d32
P32 <- solve(S32)
gauss32 <- list(
  log_density = function(th) -0.5 * sum(th * (P32 %*% th)),
  gradient = function(th) -as.vector(P32 %*% th),
  init = stats::setNames(rep(0, d32), sprintf("theta%02d", seq_len(d32))), eps = 0.108, L = 30L
)

run <- function(target, sampler, explore, n_samp = 500L, seed = 1) {
  fit <- suppressWarnings(vhmc_sample(target$log_density, target$gradient, init = target$init,
                                      sampler = sampler, chains = 2, cores = 2,
                                      iter = explore + n_samp, warmup = explore, seed = seed,
                                      progress = FALSE))
  acc <- mean(vapply(fit$diagnostics, function(x) mean(x$accept_stat__), 0))
  info <- if (!is.null(fit$surrogate)) surrogate_info(fit)
  data.frame(accept = acc,
             n_train = if (is.null(info)) NA else mean(info$n_train),
             grad_rel_error = if (is.null(info)) NA else mean(info$grad_rel_error),
             min_ess_bulk = min(summary(fit)$variables$ess_bulk))
}

rows <- list()
add <- function(target, setting, train_on, hidden, explore, res) {
  rows[[length(rows) + 1L]] <<- cbind(data.frame(target = target, setting = setting,
                                                 train_on = train_on, hidden = hidden,
                                                 explore = explore), res)
  message(sprintf("  %-8s %-9s %-8s hidden %5s explore %4d: accept %.3f", target, setting,
                  train_on, hidden, explore, res$accept))
}

# Banana: acceptance against the number of bases.
add("banana", "HMC", NA, NA, 500L,
    run(banana, hmc(step_size = banana$eps, steps = banana$L, metric = "unit"), 500L))
for (train_on in c("value", "gradient")) {
  for (s in c(5L, 10L, 20L, 40L, 80L, 160L)) {
    sampler <- surrogate_hmc(hidden = s, train_on = train_on, steps = banana$L,
                             step_size = banana$eps, metric = "unit", explore = 500)
    add("banana", "surrogate", train_on, s, 500L, run(banana, sampler, 500L))
  }
}

# 32-d Gaussian: acceptance against the number of training points (exploration length).
add("gauss32", "HMC", NA, NA, 400L,
    run(gauss32, hmc(step_size = gauss32$eps, steps = gauss32$L, metric = "unit"), 400L))
for (train_on in c("value", "gradient")) {
  for (ex in c(50L, 100L, 200L, 400L, 800L)) {
    sampler <- surrogate_hmc(hidden = 1000, train_on = train_on, steps = gauss32$L,
                             step_size = gauss32$eps, metric = "unit", explore = ex)
    add("gauss32", "surrogate", train_on, 1000L, ex, run(gauss32, sampler, ex))
  }
}

tab <- do.call(rbind, rows)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)
print(format(tab, digits = 3), row.names = FALSE)
