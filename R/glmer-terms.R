# Group-level terms of a vhmc_glm() formula, read by lme4's own formula machinery (the
# reformulas package, which lme4, glmmTMB and rstanarm use): findbars() finds and expands
# the terms ((x || g) into uncorrelated terms, g1/g2 into g1 and g1:g2), mkReTrms() builds
# their grouping factors, columns and order exactly as lme4 does. From its transposed
# model matrices the core gets each row's level and the columns left of the bar, never a
# dense Z.

# The formula's group-level terms, NULL without any.
glmer_bars <- function(formula) {
  bars <- reformulas::findbars(formula)
  if (length(bars)) bars
}

# The model frame's formula: bars replaced by + so that every variable is in the frame.
glmer_frame_formula <- function(formula) reformulas::subbars(formula)

# Each term of mkReTrms() in lme4's order: its label, grouping factor's name and levels, the
# columns' names (cnms), p, each row's level (0-based) and the columns (N x p; NULL for a
# lone intercept, whose column is all ones).
glmer_terms <- function(bars, frame) {
  re <- tryCatch(reformulas::mkReTrms(bars, frame),
                 error = function(e) stop_arg("formula", sprintf("has group-level terms lme4 cannot build: %s",
                                                                 conditionMessage(e))))
  assign <- attr(re$flist, "assign")
  labels <- names(re$Ztlist)
  if (anyDuplicated(labels)) {
    stop_arg("formula", sprintf("has the group-level term (%s) twice", labels[anyDuplicated(labels)]),
             "Drop the repeated term.")
  }
  # A factor of several terms names them apart as lme4's VarCorr() does: g, g.1, ...
  names <- make.unique(names(re$flist)[assign])
  lapply(seq_along(re$Ztlist), function(t) {
    f <- re$flist[[assign[t]]]
    cn <- re$cnms[[t]]
    group <- as.integer(f)
    Z <- term_columns(re$Ztlist[[t]], group, length(cn))
    if (length(cn) == 1L && cn == "(Intercept)" && all(Z == 1)) Z <- NULL
    list(label = labels[t], group_name = names[t], factor = names(re$flist)[assign[t]], levels = levels(f),
         cnms = cn, p = length(cn), group = group - 1L, Z = Z)
  })
}

# The N x p columns of a term from its transposed model matrix Zt (J p x N, lme4's layout:
# level j's p rows together), row i's entries at rows (g_i - 1) p + 1..p; entries Matrix
# left out are zeros.
term_columns <- function(Zt, group, p) {
  tr <- Matrix::summary(methods::as(Zt, "CsparseMatrix"))
  level <- (tr$i - 1L) %/% p + 1L
  if (any(level != group[tr$j])) stop("internal: a term's matrix and its grouping factor disagree")
  Z <- matrix(0, length(group), p)
  Z[cbind(tr$j, (tr$i - 1L) %% p + 1L)] <- tr$x
  Z
}

# The transposed model matrix of a term rebuilt from the core's view (for tests against
# lme4).
term_matrix <- function(term) {
  n <- length(term$group)
  Z <- term$Z %||% matrix(1, n, 1L)
  p <- term$p
  Matrix::sparseMatrix(i = rep(term$group * p, p) + rep(seq_len(p), each = n), j = rep(seq_len(n), p),
                       x = as.numeric(Z), dims = c(length(term$levels) * p, n))
}

# Reported names, as rstanarm's: b[(Intercept) g:level] for the effects, level by level, and
# Sigma[g:a,b] for the covariance's lower triangle by columns.
term_user_names <- function(term) {
  b <- sprintf("b[%s %s:%s]", rep(term$cnms, length(term$levels)), term$group_name,
               rep(term$levels, each = term$p))
  idx <- which(lower.tri(diag(term$p), diag = TRUE), arr.ind = TRUE)
  idx <- idx[order(idx[, 2], idx[, 1]), , drop = FALSE]
  c(b, sprintf("Sigma[%s:%s,%s]", term$group_name, term$cnms[idx[, 1]], term$cnms[idx[, 2]]))
}

# The reported names of a fit's group-level effects (character() for a fit without terms).
group_effect_names <- function(fit) {
  terms <- fit$model$glmer$terms
  unlist(lapply(terms, function(term) term_user_names(term)[seq_len(length(term$levels) * term$p)]))
}
