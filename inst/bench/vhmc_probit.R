# Variational HMC on a Bayesian probit regression (Zhang, Shahbaba and Zhao 2018,
# Figure 3): RMSE of the posterior-mean estimate against theta_true as a
# function of the number of likelihood evaluations (per-observation terms: a full gradient
# costs N), with the Laplace approximation as the fixed-form baseline and NUTS for reference.
# Data: N = 10000, d = 5, x_n ~ N(0, I_5), theta_true ~ N(0, I_5) (seed 2018), prior N(0, 100 I),
# no intercept. variational_hmc(hidden = 100) with the paper's schedule 5 and with vhmc's
# default train_until / 10, each in vhmc's default form (base = "laplace": the network fits
# the residual of the Laplace quadratic; start = "laplace": chains start from a draw of the
# Laplace approximation) and in the paper's (base = "none": the network alone; start at
# init = 0, as the paper does, and from vhmc's random inits, uniform in (-2, 2), where a
# transient far from the posterior feeds the trainer), train_until in {10, 20, 50, 100, 200, 400} (warmup =
# train_until), then 1000 draws of q; outside_frac is the fraction of draws beyond the
# region of the training states (variational_info()'s n_outside: q extrapolates); NUTS
# with iter = 2 x warmup for warmup in {25, 50, 100, 200, 400}. 1 chain each, the same seeds.
# Evaluations: VHMC = (Laplace evaluations + true gradients in training) x N; Laplace = its
# evaluations x N; NUTS = gradients (warmup included) x N. The paper's baselines VBEM and
# FF-Minibatch are not in vhmc; the Laplace approximation is the fixed-form one here.
#
#   Rscript inst/bench/vhmc_probit.R   (about a minute; writes vignettes/results/bench/vhmc_probit.csv)
suppressPackageStartupMessages(library(vhmc))
out_file <- Sys.getenv("VHMC_BENCH_OUT", file.path("vignettes", "results", "bench", "vhmc_probit.csv"))
set.seed(2018)
N <- 10000
d <- 5
X <- matrix(stats::rnorm(N * d), N, d, dimnames = list(NULL, paste0("x", 1:d)))
theta_true <- stats::rnorm(d)
dat <- data.frame(y = stats::rbinom(N, 1, stats::pnorm(drop(X %*% theta_true))), X)
rmse <- function(est) sqrt(mean((est - theta_true)^2))
fit_glm <- function(sampler, iter, warmup, init = NULL) {
  suppressWarnings(vhmc_glm(y ~ 0 + ., data = dat, family = stats::binomial(link = "probit"),
                            prior = normal(0, 10, autoscale = FALSE), sampler = sampler,
                            chains = 1, iter = iter, warmup = warmup, seed = 5, init = init,
                            progress = FALSE))
}
# The posterior itself (a long NUTS run), to see the estimates' error against the posterior
# mean, below the statistical floor of the RMSE against theta_true: err_sd = max over
# coefficients of |estimate - posterior mean| / posterior sd.
ref <- as.matrix(fit_glm(nuts(), iter = 6000L, warmup = 1000L))
post_mean <- colMeans(ref)
post_sd <- apply(ref, 2, stats::sd)
err_sd <- function(est) max(abs(est - post_mean) / post_sd)
rows <- list()
for (form in c("vhmc", "paper", "paper, random init")) for (schedule in c("paper", "default")) {
  for (t0 in c(10L, 20L, 50L, 100L, 200L, 400L)) {
    sampler <- variational_hmc(hidden = 100, schedule = if (schedule == "paper") 5 else NULL,
                               base = if (form == "vhmc") "laplace" else "none",
                               start = if (form == "vhmc") "laplace" else "init")
    # vhmc_glm's default init (NULL) is random; the paper starts at 0.
    fit <- fit_glm(sampler, iter = t0 + 1000L, warmup = t0,
                   init = if (form == "paper") rep(0, d))
    info <- variational_info(fit)
    est <- colMeans(as.matrix(fit))
    rows[[length(rows) + 1L]] <- data.frame(
      method = paste0("variational_hmc, schedule ", if (schedule == "paper") "5" else "t0/10",
                      ", ", form, " form"),
      setting = t0, evaluations = (info$laplace_evals + sum(fit$counts$n_grad)) * N,
      rmse = rmse(est), err_sd = err_sd(est), true_gradients = sum(fit$counts$n_grad),
      laplace_evals = info$laplace_evals, outside_frac = info$n_outside / 1000)
    if (t0 == 10L && schedule == "paper" && form == "vhmc") {
      la <- fit$laplace
      rows[[length(rows) + 1L]] <- data.frame(method = "Laplace", setting = NA,
        evaluations = la$evaluations * N, rmse = rmse(la$mode), err_sd = err_sd(la$mode),
        true_gradients = NA,
        laplace_evals = la$evaluations, outside_frac = NA)
    }
  }
}
for (w in c(25L, 50L, 100L, 200L, 400L)) {
  fit <- fit_glm(nuts(), iter = 2L * w, warmup = w)
  rows[[length(rows) + 1L]] <- data.frame(method = "NUTS", setting = w,
    evaluations = sum(fit$counts$n_grad) * N, rmse = rmse(colMeans(as.matrix(fit))),
    err_sd = err_sd(colMeans(as.matrix(fit))),
    true_gradients = sum(fit$counts$n_grad), laplace_evals = NA, outside_frac = NA)
}
tab <- do.call(rbind, rows)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, out_file, row.names = FALSE)
print(format(tab, digits = 3), row.names = FALSE)
