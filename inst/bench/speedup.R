# vhmc's speed-up over a baseline package in a benchmark's results, shared by
# families_vs_brms.R and glmer_vs_rstanarm.R: for each model, vhmc's ess_per_second over the
# baseline's (NA where the baseline has no row).
add_speedup <- function(res, baseline) {
  res$vhmc_speedup <- NA_real_
  for (name in unique(res$model)) {
    i <- res$model == name
    base <- res$ess_per_second[i & res$package == baseline]
    if (length(base)) res$vhmc_speedup[i & res$package == "vhmc"] <- res$ess_per_second[i & res$package == "vhmc"] / base
  }
  res
}
