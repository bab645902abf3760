# Sanity check of the Table 1 data builders of inst/bench/table1_data.R (a9a rebuilt from
# liver's adult, its random projection and unprojected design, liver's Bank Marketing subset
# and the paper-sized bank stand-in): dimensions, class balance, a9a's columns per original
# attribute against a9a's own, and a maximum-likelihood glm() per design, reporting
# convergence, warnings, aliased columns and columns that separate the classes on their own
# (which would make that coefficient's likelihood unbounded; the papers' N(0, 100 I) prior
# keeps the posterior proper, but a sampler then sees a long flat direction).
#
#   Rscript inst/bench/table1_data_check.R      (about 10 s; needs liver, see
#                                                bash tools/install-deps.sh --bench)
bench_dir <- if (file.exists(file.path("inst", "bench", "table1_data.R"))) {
  file.path("inst", "bench")
} else {
  system.file("bench", package = "vhmc")
}
source(file.path(bench_dir, "table1_data.R"))

# a9a's columns per attribute (LIBSVM's a9a: 123 = 5 + 8 + 5 + 16 + 5 + 7 + 14 + 6 + 5 + 2 + 2
# + 2 + 5 + 41, in adult's attribute order).
a9a_columns <- c(age = 5, workclass = 8, demogweight = 5, education = 16, education_num = 5,
                 marital_status = 7, occupation = 14, relationship = 6, race = 5, gender = 2,
                 capital_gain = 2, capital_loss = 2, hours_per_week = 5, native_country = 41)

describe_data <- function(name, D) {
  cat(sprintf("\n== %s\n", name))
  d <- if ("intercept" %in% colnames(D$X)) {
    sprintf("d = %d incl. intercept", ncol(D$X))
  } else {
    "no intercept column"
  }
  cat(sprintf("  X: %d x %d (%s); y = 1: %d of %d (%.2f%%)\n",
              nrow(D$X), ncol(D$X), d, sum(D$y), length(D$y), 100 * mean(D$y)))
  cat(paste0("  - ", D$notes, collapse = "\n"), "\n")
}

attribute_table <- function(b) {
  liver_cols <- table(factor(b$attribute, levels = names(a9a_columns)))
  tab <- data.frame(attribute = names(a9a_columns), liver = as.integer(liver_cols),
                    a9a = unname(a9a_columns))
  tab$diff <- tab$liver - tab$a9a
  cat("\n  columns per attribute (liver rebuild vs a9a):\n")
  print(tab, row.names = FALSE)
  cat(sprintf("  total: %d vs %d\n", sum(tab$liver), sum(tab$a9a)))
  cont <- names(a9a_cuts())
  cat("  bins of the continuous attributes (rows per bin):\n")
  for (a in cont) {
    cols <- b$attribute == a
    rows <- colSums(b$X[, cols, drop = FALSE])
    cat(sprintf("    %s\n", paste(sprintf("%s: %d", names(rows), rows), collapse = "  ")))
  }
}

# Columns that separate y on their own: the classes' ranges do not overlap (complete), or,
# for a two-valued column (an indicator, standardised or not), all rows at one of its values
# share one label (quasi-complete).
separating_columns <- function(X, y) {
  hits <- vapply(colnames(X), function(j) {
    x <- X[, j]
    v <- unique(x)
    if (length(v) < 2L) return("")
    r1 <- range(x[y == 1]); r0 <- range(x[y == 0])
    if (r1[1] > r0[2] || r0[1] > r1[2]) return("complete")
    if (length(v) == 2L) {
      pure <- vapply(v, function(u) length(unique(y[x == u])) == 1L, TRUE)
      n_pure <- vapply(v[pure], function(u) sum(x == u), 1L)
      if (any(pure)) return(sprintf("quasi (%d rows)", min(n_pure)))
    }
    ""
  }, "")
  hits[nzchar(hits)]
}

# Maximum likelihood by IRLS (glm.fit, X with its own intercept column), warnings kept.
fit_glm <- function(X, y) {
  warn <- character()
  fit <- withCallingHandlers(
    stats::glm.fit(X, y, family = stats::binomial(), intercept = FALSE,
                   control = stats::glm.control(maxit = 100)),
    warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") })
  list(fit = fit, warnings = unique(warn))
}

report_glm <- function(D) {
  t0 <- proc.time()[["elapsed"]]
  g <- fit_glm(D$X, D$y)
  f <- g$fit
  b <- f$coefficients
  aliased <- if (anyNA(b)) {
    sprintf("%d (%s)", sum(is.na(b)), paste(names(b)[is.na(b)], collapse = ", "))
  } else {
    "none"
  }
  cat(sprintf("  glm: converged %s in %d iterations (%.1f s); rank %d of %d; aliased: %s\n",
              f$converged, f$iter, proc.time()[["elapsed"]] - t0, f$rank, ncol(D$X), aliased))
  cat(sprintf("       max |coef| %.2f (%s); fitted p within 1e-8 of 0 or 1: %d rows; deviance %.1f\n",
              max(abs(b), na.rm = TRUE), names(which.max(abs(b))),
              sum(f$fitted.values < 1e-8 | f$fitted.values > 1 - 1e-8), f$deviance))
  warns <- if (length(g$warnings)) paste(g$warnings, collapse = "; ") else "none"
  cat(sprintf("       warnings: %s\n", warns))
  sep <- separating_columns(D$X[, colnames(D$X) != "intercept", drop = FALSE], D$y)
  sep <- if (length(sep)) paste(sprintf("%s [%s]", names(sep), sep), collapse = ", ") else "none"
  cat(sprintf("       columns separating y on their own: %s\n", sep))
}

t_start <- proc.time()[["elapsed"]]
b <- a9a_binary("train")
describe_data("a9a binary features (liver adult, adult.data part)", b)
attribute_table(b)

sets <- list("a9a, random projection to 60 columns + intercept" = a9a_projected(k = 60L),
             "a9a, all binary features standardised + intercept (no projection)" = a9a_full(),
             "Bank Marketing, liver's real subset" = bank_subset(),
             "Bank Marketing, paper-sized simulated stand-in" = bank_standin())
for (nm in names(sets)) {
  describe_data(nm, sets[[nm]])
  report_glm(sets[[nm]])
}
cat("\nbank subset reference levels:", paste(names(sets[[3]]$reference), sets[[3]]$reference,
                                             sep = "=", collapse = ", "), "\n")
cat(sprintf("\nwhole check %.0f s\n", proc.time()[["elapsed"]] - t_start))
