# The files of the simulation-based calibration (sbc.R): rows of a new run replace those of
# the same model, sampler and replication; the summary and the ECDF bands are recomputed
# from every row.

# Reads a file written here: text columns that are all empty come back as text, not NA.
sbc_read_csv <- function(path) {
  d <- utils::read.csv(path, stringsAsFactors = FALSE, check.names = FALSE)
  for (col in intersect(c("warning", "error"), names(d))) {
    d[[col]] <- ifelse(is.na(d[[col]]), "", as.character(d[[col]]))
  }
  d
}

sbc_merge_csv <- function(new, path) {
  if (file.exists(path)) {
    old <- sbc_read_csv(path)
    key <- function(d) paste(d$model, d$sampler, d$replication)
    new <- rbind(old[!key(old) %in% key(new), names(new)], new)
  }
  new <- new[order(new$model, new$sampler, new$replication), ]
  # Unquoted: no field holds a comma (warning and error texts have theirs replaced).
  # Compressed, since the installed package should stay small (read.csv() reads it as is).
  con <- gzfile(path, "w")
  on.exit(close(con))
  utils::write.csv(new, con, row.names = FALSE, quote = FALSE)
  new
}

# Bins of the chi-square test: the most (dividing L + 1) with at least 5 ranks expected each.
sbc_bins <- function(N, L) {
  divisors <- Filter(function(b) (L + 1L) %% b == 0L, 2:20)
  max(c(2L, divisors[N / divisors >= 5]))
}

# Per model x sampler x parameter: the tests of uniformity and what the fits cost.
sbc_summarise <- function(ranks, fits, nulls) {
  exact <- vapply(sbc_sampler_table(), `[[`, logical(1), "exact")
  groups <- split(ranks, list(ranks$model, ranks$sampler, ranks$parameter), drop = TRUE)
  rows <- lapply(groups, function(g) {
    r <- g$rank[!is.na(g$rank)]
    L <- g$L[1]
    f <- fits[fits$model == g$model[1] & fits$sampler == g$sampler[1], ]
    chi <- sbc_chisq(r, L, sbc_bins(length(r), L))
    key <- as.character(length(r))
    if (is.null(nulls[[key]])) nulls[[key]] <<- sbc_ecdf_null(length(r), L)
    ecdf_p <- sbc_ecdf_p(r, L, nulls[[key]])
    is_exact <- exact[[g$sampler[1]]]
    data.frame(model = g$model[1], sampler = g$sampler[1], parameter = g$parameter[1],
               exact = is_exact, replications = length(r), failed = sum(f$error != ""), L = L,
               bins = chi$df + 1L, chisq = round(chi$statistic, 2), chisq_p = signif(chi$p_value, 3),
               ecdf_p = signif(ecdf_p, 3),
               pass = if (is_exact) chi$p_value >= 0.01 && ecdf_p >= 0.01 && all(f$error == "") else NA,
               min_ess = suppressWarnings(min(f$min_ess, na.rm = TRUE)), refits = sum(f$attempts > 1L),
               divergent_fits = sum(f$divergent > 0, na.rm = TRUE),
               warned_fits = sum(f$warnings > 0), mean_seconds = round(mean(f$seconds), 3))
  })
  list(summary = do.call(rbind, rows), nulls = nulls)
}

sbc_write <- function(out, dir) {
  ranks <- sbc_merge_csv(out$ranks, file.path(dir, "sbc_ranks.csv.gz"))
  if (length(unique(ranks$L)) != 1L) stop("the ranks in ", dir, " mix values of L: use another --out")
  fits <- sbc_merge_csv(out$fits, file.path(dir, "sbc_fits.csv.gz"))
  s <- sbc_summarise(ranks, fits, list())
  summary <- s$summary[order(s$summary$model, s$summary$sampler, s$summary$parameter), ]
  utils::write.csv(summary, file.path(dir, "sbc_summary.csv"), row.names = FALSE)
  bands <- do.call(rbind, lapply(names(s$nulls), function(N) {
    sbc_ecdf_band(as.integer(N), ranks$L[1], s$nulls[[N]])
  }))
  utils::write.csv(signif(bands, 5), file.path(dir, "sbc_ecdf_band.csv"), row.names = FALSE)
  invisible(summary)
}
