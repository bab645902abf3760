# The results files of the benchmarks against other packages (families_vs_brms.R,
# glmer_vs_rstanarm.R): rows of one model and package, merged into an earlier run's file, and
# vhmc's speed-up over the baseline package.

# res with the rows of out_file that it does not replace (same model and package).
merge_results <- function(res, out_file) {
  if (!file.exists(out_file)) return(res)
  old <- utils::read.csv(out_file)
  old <- old[!(paste(old$model, old$package) %in% paste(res$model, res$package)),
             intersect(names(old), names(res)), drop = FALSE]
  if (!nrow(old)) return(res)
  for (col in setdiff(names(res), names(old))) old[[col]] <- NA
  rbind(old[names(res)], res)
}

write_results <- function(res, out_file) {
  dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
  utils::write.csv(res, out_file, row.names = FALSE)
  invisible(res)
}

# For each model, vhmc's ess_per_second over the baseline's (NA where the baseline has no row).
add_speedup <- function(res, baseline) {
  res$vhmc_speedup <- NA_real_
  for (name in unique(res$model)) {
    i <- res$model == name
    base <- res$ess_per_second[i & res$package == baseline]
    if (length(base)) res$vhmc_speedup[i & res$package == "vhmc"] <- res$ess_per_second[i & res$package == "vhmc"] / base
  }
  res
}
