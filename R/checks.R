# Argument checks shared by every constructor and fitting function. Each error names the
# argument and says what would be accepted, and is raised before any C++ runs.

stop_arg <- function(arg, problem, fix = NULL) {
  msg <- sprintf("`%s` %s.", arg, problem)
  if (!is.null(fix)) msg <- paste(msg, fix)
  stop(msg, call. = FALSE)
}

# A whole number in [min, .Machine$integer.max] (counts become C++ ints).
is_count <- function(x, min = 1) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x == round(x) && x >= min &&
    x <= .Machine$integer.max
}

check_count <- function(x, arg, min = 1) {
  if (!is_count(x, min)) {
    too_big <- is.numeric(x) && length(x) == 1L && isTRUE(x > .Machine$integer.max)
    stop_arg(arg, sprintf("must be a single whole number %s, not %s",
                          if (too_big) sprintf("between %s and %d", min, .Machine$integer.max)
                          else sprintf(">= %s", min), describe(x)))
  }
  as.integer(x)
}

check_number <- function(x, arg, lower = -Inf, upper = Inf, open = c(FALSE, FALSE)) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x)) {
    stop_arg(arg, sprintf("must be a single finite number, not %s", describe(x)))
  }
  below <- if (open[1]) x <= lower else x < lower
  above <- if (open[2]) x >= upper else x > upper
  if (below || above) {
    # an infinite bound is never included: the number must be finite
    range <- sprintf("%s%s, %s%s", if (open[1] || is.infinite(lower)) "(" else "[", lower, upper,
                     if (open[2] || is.infinite(upper)) ")" else "]")
    stop_arg(arg, sprintf("must lie in %s, not %s", range, format(x)))
  }
  as.numeric(x)
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg(arg, sprintf("must be TRUE or FALSE, not %s", describe(x)))
  }
  x
}

describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.character(x) && length(x) == 1L && !is.na(x)) return(sprintf("\"%s\" (a character string)", x))
  if (length(x) == 1L && is.atomic(x)) return(format(x))
  sprintf("a %s of length %d", class(x)[1], length(x))
}

# `...` of the model functions only catches misspelt argument names: anything there is an
# error naming what was passed.
check_no_dots <- function(dots, fun) {
  if (length(dots) == 0L) return(invisible())
  nm <- names(dots)
  stop_arg("...", sprintf("must be empty, but has %s", if (is.null(nm) || !all(nzchar(nm)))
    "unnamed arguments" else paste0("`", nm, "`", collapse = ", ")),
    sprintf("Check the argument names against ?%s.", fun))
}

# One of `choices`; the full default vector means the first.
match_choice <- function(x, arg, choices) {
  if (identical(x, choices)) return(choices[1])
  if (!is.character(x) || length(x) != 1L || !x %in% choices) {
    stop_arg(arg, sprintf("must be one of %s, not %s",
                          paste0("\"", choices, "\"", collapse = ", "), describe(x)))
  }
  x
}

match_metric <- function(metric) match_choice(metric, "metric", c("low_rank", "diag", "dense", "unit"))

# Stops unless a package vhmc only suggests is installed; `what` names the function needing it.
require_suggested <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    stop(sprintf("%s needs the %s package. Install it with install.packages(\"%s\").", what, pkg, pkg),
         call. = FALSE)
  }
  invisible()
}

# A formula with group-level terms (as lme4 finds them, R/glmer-terms.R) where they are not
# fitted: model.matrix() would read their bar as R's logical OR and fit another model
# silently, so stop instead.
check_no_bar_terms <- function(formula, fun) {
  bars <- glmer_bars(formula)
  if (is.null(bars)) return(invisible())
  stop_arg("formula", sprintf(paste("has group-level terms %s, which %s() does not fit (R would",
                                    "read the bar as a logical OR and fit another model)"),
                              paste0("(", vapply(bars, deparse1, ""), ")", collapse = ", "), fun),
           "Fit a multilevel model with vhmc_glm(), or remove the terms with a bar.")
}
