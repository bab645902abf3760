# A Gaussian target evaluated in C++ (src/glue_gaussian.cpp): one chain of the engine
# without R in its loop, for benchmarks (inst/bench/nuts_targets.R) and tests. The counts
# come back at the top level of the result, next to the draws.
vhmc_chain_gaussian <- function(mean, cov, init, sampler, run) {
  res <- vhmc_run_gaussian(mean, cov, init, sampler_config(sampler, run, NULL), list(), run)
  c(res, res$counts)
}
