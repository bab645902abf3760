# Posterior summaries and convergence diagnostics of a fit's draws, computed variable by
# variable in C++ (diagnostics/variable_summary.hpp): the values of posterior's default
# measures (summarise_draws()), in seconds for tens of thousands of variables, where calling
# posterior per variable took minutes.

# The draws as a numeric array, iterations x chains x variables (a draws_array is one: no
# copy of what may be a large array).
draws_numeric_array <- function(draws) {
  a <- posterior::as_draws_array(draws)
  if (storage.mode(a) != "double") storage.mode(a) <- "double"
  list(array = a, variables = posterior::variables(a))
}

# R-hat, bulk-ESS and tail-ESS per variable as a plain data.frame.
convergence_table <- function(draws) {
  a <- draws_numeric_array(draws)
  m <- vhmc_convergence(a$array)
  data.frame(variable = a$variables, rhat = m[, 1], ess_bulk = m[, 2], ess_tail = m[, 3],
             stringsAsFactors = FALSE)
}

# posterior's default summary, convergence and MCSE measures with the quantiles at `probs`,
# as the table summarise_draws() returns (class draws_summary, a tibble).
draws_summary_table <- function(draws, probs = c(0.05, 0.95)) {
  a <- draws_numeric_array(draws)
  m <- vhmc_draws_summary(a$array, as.numeric(probs))
  pct <- paste0(probs * 100)
  colnames(m) <- c("mean", "median", "sd", "mad", paste0("q", pct), "rhat", "ess_bulk", "ess_tail",
                   "mcse_mean", "mcse_median", "mcse_sd", paste0("mcse_q", pct))
  out <- data.frame(variable = a$variables, m, stringsAsFactors = FALSE, check.names = FALSE)
  rownames(out) <- NULL
  class(out) <- c("draws_summary", "tbl_df", "tbl", "data.frame")
  out
}
