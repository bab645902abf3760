# The cost of a fit's convergence check and of summary() on a model with 40,006 variables:
# y ~ x + (1 + x | g), gaussian, 20,000 levels with 4 rows each (issue 42: posterior's
# per-variable summaries took over 5 minutes for summary() and about 3 for the fit's own
# check). The C++ summaries (R/draws-summary.R) against posterior::summarise_draws() on the
# same draws, the latter timed on the first 2,000 variables and scaled to all (it is linear
# in them).
#
#   Rscript inst/bench/summary_scale.R       (about 3 minutes; run it alone on the machine)
#
# Writes vignettes/results/bench/summary_scale.csv.
library(vhmc)
set.seed(42)
J <- 20000
g <- rep(seq_len(J), each = 4)
x <- rnorm(length(g))
b <- cbind(rnorm(J, 0, 0.8), rnorm(J, 0, 0.4))
d <- data.frame(g = factor(g), x = x)
d$y <- rnorm(nrow(d), -0.3 + 0.5 * x + b[g, 1] + b[g, 2] * x, 1)

elapsed <- function(expr) system.time(expr)[["elapsed"]]
fit_s <- elapsed(fit <- suppressWarnings(vhmc_glm(y ~ x + (1 + x | g), data = d, family = gaussian(),
                                                  chains = 4, cores = 2, iter = 2000, seed = 1, progress = FALSE)))
draws <- fit$draws
V <- posterior::nvariables(draws)
check_s <- elapsed(conv <- vhmc:::convergence_table(draws))
summary_s <- elapsed(s <- summary(fit))
sub <- posterior::subset_draws(draws, variable = posterior::variables(draws)[1:2000])
posterior_s <- elapsed(ref <- suppressWarnings(posterior::summarise_draws(sub))) * V / 2000
check_posterior_s <- elapsed(suppressWarnings(posterior::summarise_draws(sub, posterior::rhat, posterior::ess_bulk,
                                                                        posterior::ess_tail))) * V / 2000
ours <- as.data.frame(s$variables)[1:2000, names(ref)[-1]]
agree <- max(abs(as.matrix(ours) - as.matrix(as.data.frame(ref)[-1])) / pmax(abs(as.matrix(as.data.frame(ref)[-1])), 1e-12),
             na.rm = TRUE)
res <- data.frame(variables = V, draws = posterior::ndraws(draws), fit_seconds = fit_s,
                  sampling_seconds = max(fit$timing$sampling_seconds), check_seconds = check_s,
                  check_posterior_seconds = round(check_posterior_s, 1), summary_seconds = summary_s,
                  summary_posterior_seconds = round(posterior_s, 1), max_relative_difference = signif(agree, 2))
print(res)
out <- file.path("vignettes", "results", "bench", "summary_scale.csv")
if (dir.exists(dirname(out))) utils::write.csv(res, out, row.names = FALSE)
