# The C++ summaries (R/draws-summary.R, diagnostics/variable_summary.hpp) against posterior's,
# which define them: equal to rounding on draws with autocorrelation, antithetic chains, ties,
# an odd number of iterations, one chain, a tiny scale, constants and non-finite values.

ar_chains <- function(n, m, rho, seed) {
  set.seed(seed)
  x <- matrix(0, n, m)
  x[1, ] <- rnorm(m)
  for (i in 2:n) x[i, ] <- rho * x[i - 1, ] + sqrt(1 - rho^2) * rnorm(m)
  x
}

posterior_reference <- function(d, probs) {
  ref <- suppressWarnings(posterior::summarise_draws(
    d, mean, median, sd, mad, ~ posterior::quantile2(.x, probs = probs), posterior::rhat,
    posterior::ess_bulk, posterior::ess_tail, posterior::mcse_mean, posterior::mcse_median,
    posterior::mcse_sd, ~ posterior::mcse_quantile(.x, probs = probs)))
  as.matrix(as.data.frame(ref)[-1])
}

expect_summaries_equal <- function(arr, probs = c(0.05, 0.5, 0.95)) {
  d <- posterior::as_draws_array(arr)
  new <- vhmc:::draws_summary_table(d, probs)
  expect_s3_class(new, "draws_summary")
  expect_identical(new$variable, posterior::variables(d))
  ref <- posterior_reference(d, probs)
  got <- as.matrix(as.data.frame(new)[-1])
  expect_identical(unname(is.na(got)), unname(is.na(ref)))
  ok <- !is.na(ref)
  expect_lt(max(abs(got[ok] - ref[ok]) / pmax(abs(ref[ok]), 1e-300)), 1e-7)
  conv <- vhmc:::convergence_table(d)
  expect_equal(as.matrix(conv[c("rhat", "ess_bulk", "ess_tail")]),
               unname(got[, c("rhat", "ess_bulk", "ess_tail")]), ignore_attr = TRUE, tolerance = 1e-12)
}

test_that("summaries and convergence measures equal posterior's", {
  n <- 300
  vars <- list(iid = ar_chains(n, 4, 0, 1), sticky = ar_chains(n, 4, 0.95, 2),
               antithetic = ar_chains(n, 4, -0.6, 3), skewed = exp(ar_chains(n, 4, 0.3, 4)),
               ties = round(ar_chains(n, 4, 0.5, 5), 1), apart = ar_chains(n, 4, 0.99, 6) + rep(0:3, each = n),
               counts = matrix(rpois(4 * n, 2), n, 4))
  arr <- array(unlist(vars), c(n, 4, length(vars)), dimnames = list(NULL, NULL, names(vars)))
  expect_summaries_equal(arr)
  expect_summaries_equal(arr[-1, , , drop = FALSE], probs = c(0.025, 0.975))   # odd n
  expect_summaries_equal(arr[, 1, , drop = FALSE])                             # one chain
})

test_that("a tiny scale is no constant, and a constant or non-finite variable has no statistics", {
  n <- 200
  tiny <- 1e-8 * ar_chains(n, 2, 0.2, 7)
  arr <- array(c(tiny, rep(3, 2 * n), replace(ar_chains(n, 2, 0, 8), 5, Inf)), c(n, 2, 3),
               dimnames = list(NULL, NULL, c("tiny", "constant", "infinite")))
  conv <- vhmc:::convergence_table(posterior::as_draws_array(arr))
  expect_true(all(is.finite(unlist(conv[1, -1]))))
  expect_true(all(is.na(unlist(conv[2:3, -1]))))
  tiny_ref <- posterior::summarise_draws(posterior::as_draws_array(arr[, , 1, drop = FALSE] * 1e8),
                                         posterior::rhat, posterior::ess_bulk, posterior::ess_tail)
  expect_equal(unlist(conv[1, -1]), unlist(tiny_ref[1, -1]), ignore_attr = TRUE, tolerance = 1e-10)
})
