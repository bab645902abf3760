# The group-level part of the linear predictor of a multilevel fit, for the fitted rows or
# new ones: which terms enter (re.form, as lme4 and rstanarm) and what a level the fit has
# not seen gets (allow_new_levels, sample_new_levels, as brms):
#   "gaussian"     an independent draw of N(0, Sigma) for each new level and each posterior
#                  draw (two new levels never share a value: rstanarm#461, brms#956);
#   "uncertainty"  for each new level and posterior draw, the effects of a level of the fit
#                  chosen at random;
#   "old_levels"   for each new level, one level of the fit chosen at random, for all draws.
# A new level of a nested term (g1:g2) is new in that term only: the g1 term still uses its
# level (rstanarm#300).

# Checked options of the group-level part; NULL for fits without group-level terms.
re_options <- function(object, re.form, allow_new_levels, sample_new_levels, seed) {
  if (is.null(object$model$glmer)) {
    if (!is.null(re.form) || !isFALSE(allow_new_levels)) {
      stop_arg(if (!is.null(re.form)) "re.form" else "allow_new_levels",
               "applies to models with group-level terms only", "Leave it out for this fit.")
    }
    return(NULL)
  }
  list(terms = re_terms(object, re.form), allow_new_levels = check_flag(allow_new_levels, "allow_new_levels"),
       sample_new_levels = match_choice(sample_new_levels, "sample_new_levels", c("gaussian", "uncertainty", "old_levels")),
       seed = seed)
}

# The indices of the terms that re.form includes: NULL all, NA or ~0 none, or a formula of
# some of the fit's terms.
re_terms <- function(object, re.form) {
  terms <- object$model$glmer$terms
  if (is.null(re.form)) return(seq_along(terms))
  if (identical(re.form, NA) || (inherits(re.form, "formula") && is.null(glmer_bars(re.form)))) return(integer())
  if (!inherits(re.form, "formula")) stop_arg("re.form", sprintf("must be NULL, NA, ~0 or a formula of group-level terms, not %s", describe(re.form)))
  wanted <- vapply(glmer_bars(re.form), deparse1, "")
  labels <- vapply(terms, `[[`, "", "label")
  unknown <- setdiff(wanted, labels)
  if (length(unknown)) {
    stop_arg("re.form", sprintf("names terms the fit does not have: %s", paste0("(", unknown, ")", collapse = ", ")),
             sprintf("The fit's terms: %s.", paste0("(", labels, ")", collapse = ", ")))
  }
  which(labels %in% wanted)
}

# S x N draws of the group-level part of each linear predictor, from the draws matrix `m` (S
# rows): `eta` the mean's, and one named after each distributional parameter with terms (one
# stream of new levels' draws for all).
glmer_linpreds <- function(object, m, newdata, re) {
  out <- list(eta = matrix(0, nrow(m), if (is.null(newdata)) length(object$model$y) else nrow(as.data.frame(newdata))))
  if (!length(re$terms) || ncol(out$eta) == 0L) return(out)
  sample <- function() {
    for (t in re$terms) {
      term <- object$model$glmer$terms[[t]]
      key <- term$dpar %||% "eta"
      out[[key]] <- (out[[key]] %||% 0) + term_linpred(term, m, term_rows(object, t, newdata), re)
    }
    out
  }
  if (is.null(re$seed)) sample() else with_local_seed(resolve_seed(re$seed), sample())
}

# The rows' levels (indices into the fit's levels, NA for new ones, with their names) and
# columns for term t: the fit's own, or newdata's through lme4's machinery.
term_rows <- function(object, t, newdata) {
  term <- object$model$glmer$terms[[t]]
  if (is.null(newdata)) return(list(level = term$group + 1L, new = character(), Z = term$Z))
  bar <- str2lang(term$label)
  frame <- tryCatch(stats::model.frame(reformulas::subbars(stats::as.formula(call("~", bar))),
                                       as.data.frame(newdata), na.action = stats::na.pass,
                                       xlev = object$model$glmer$xlevels),
                    error = function(e) stop_arg("newdata", sprintf("does not fit the term (%s): %s", term$label, conditionMessage(e))))
  new_term <- glmer_terms(list(bar), frame)[[1L]]
  if (!is.null(term$dpar)) new_term$cnms <- dpar_prefixed(term$dpar, new_term$cnms)
  if (!identical(new_term$cnms, term$cnms)) {
    stop_arg("newdata", sprintf("gives the term (%s) the columns %s, not the fit's %s", term$label,
                                paste(new_term$cnms, collapse = ", "), paste(term$cnms, collapse = ", ")))
  }
  names <- new_term$levels[new_term$group + 1L]
  level <- match(names, term$levels)
  list(level = level, new = unique(names[is.na(level)]), names = names, Z = new_term$Z)
}

# S x N draws of one term's part of eta at the rows `rows`.
term_linpred <- function(term, m, rows, re) {
  p <- term$p
  J <- length(term$levels)
  b <- m[, term_user_names(term)[seq_len(J * p)], drop = FALSE]
  if (length(rows$new)) {
    if (!re$allow_new_levels) {
      stop_arg("newdata", sprintf("has levels of `%s` the fit has not seen: %s", term$group_name,
                                  paste(utils::head(rows$new, 10L), collapse = ", ")),
               "Set allow_new_levels = TRUE (their effects are drawn as sample_new_levels says), or re.form = NA to leave the group-level terms out.")
    }
    b <- cbind(b, new_level_effects(term, m, b, length(rows$new), re$sample_new_levels))
    rows$level[is.na(rows$level)] <- J + match(rows$names[is.na(rows$level)], rows$new)
  }
  Z <- rows$Z %||% matrix(1, length(rows$level), 1L)
  out <- 0
  for (c in seq_len(p)) out <- out + b[, (rows$level - 1L) * p + c, drop = FALSE] * rep(Z[, c], each = nrow(m))
  unname(out)
}

# S x (n_new p) effects of new levels, level by level as the fit's.
new_level_effects <- function(term, m, b, n_new, how) {
  S <- nrow(m)
  p <- term$p
  J <- length(term$levels)
  pick <- function(levels) b[cbind(rep(seq_len(S), p), (rep(levels, p) - 1L) * p + rep(seq_len(p), each = S))]
  out <- matrix(0, S, n_new * p)
  for (k in seq_len(n_new)) {
    cols <- (k - 1L) * p + seq_len(p)
    out[, cols] <- switch(how,
      gaussian = gaussian_effects(term, m),
      uncertainty = matrix(pick(sample.int(J, S, replace = TRUE)), S, p),
      old_levels = matrix(pick(rep(sample.int(J, 1L), S)), S, p))
  }
  out
}

# S draws of N(0, Sigma_s), one per posterior draw s (S x p).
gaussian_effects <- function(term, m) {
  p <- term$p
  sig <- m[, utils::tail(term_user_names(term), p * (p + 1L) / 2L), drop = FALSE]
  draws <- vapply(seq_len(nrow(m)), function(s) {
    S <- matrix(0, p, p)
    S[lower.tri(S, diag = TRUE)] <- sig[s, ]
    S <- S + t(S) - diag(diag(S), p)
    drop(crossprod(chol(S), stats::rnorm(p)))
  }, numeric(p))
  matrix(draws, nrow(m), p, byrow = TRUE)
}
