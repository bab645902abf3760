# brms's formula syntax in a vhmc_glm() formula: an error that says it is brms's and shows
# how vhmc writes the same model (or that vhmc has no such term), before model.frame() fails
# with "could not find function" or lme4's texts.

# brms's special terms: what each means and vhmc's spelling (NULL: no equivalent yet).
brms_terms <- function() {
  list(
    trials = c("a binomial response with its numbers of trials", "cbind(y, n - y) ~ ... (as glm())"),
    weights = c("weights", "the argument weights = w"),
    cens = c("a censored response", "y | cens(censored, y2) with cens() alone on the left"),
    se = c("known measurement errors of the response", NA),
    mi = c("missing values imputed in the model", NA),
    rate = c("an exposure", "+ offset(log(exposure)) in the formula"),
    trunc = c("a truncated response", NA),
    thres = c("the number of thresholds of an ordinal model", "an ordered factor response with family = cumulative()"),
    gp = c("a Gaussian process", NA),
    mo = c("a monotonic effect", "factor(x) (an effect per level) or x itself"),
    me = c("a predictor with measurement error", NA),
    gr = c("a grouping factor with options", "(1 | g)"),
    mm = c("a multi-membership grouping", NA),
    cs = c("a category-specific effect", NA), cse = c("a category-specific effect", NA),
    car = c("a conditional autoregressive term", NA), arma = c("an ARMA term", NA), ar = c("an AR term", NA))
}

check_brms_syntax <- function(formula) {
  if (length(formula) == 3L && bar_call(formula[[2L]]) && is.null(formula_censoring(formula))) {
    add <- formula[[2L]][[3L]]
    name <- if (is.call(add)) as.character(add[[1L]]) else deparse1(add)
    brms_error(deparse1(formula[[2L]]), name, "on the left of ~")
  }
  rhs <- formula[[length(formula)]]
  # brms's terms of the right-hand side (those of the left, such as trunc(), are also R's).
  known <- c("gp", "mo", "me", "mi", "gr", "mm", "cs", "cse", "car", "arma", "ar")
  used <- intersect(all.names(rhs, functions = TRUE, unique = TRUE), known)
  calls <- Filter(function(f) called(rhs, f), used)
  if (length(calls)) brms_error(sprintf("%s()", calls[1L]), calls[1L], "")
  id <- find_bar_id(rhs)
  if (!is.null(id)) {
    stop_arg("formula", sprintf("has (%s), brms's syntax for terms whose effects correlate across formulas", id),
             "vhmc's group-level effects do not correlate across formulas: write the term without the ID, e.g. (1 | g), in each formula that has it.")
  }
  invisible()
}

bar_call <- function(e) is.call(e) && identical(e[[1L]], as.name("|"))

# Whether `name` is called somewhere in the expression.
called <- function(e, name) {
  if (!is.call(e)) return(FALSE)
  if (identical(e[[1L]], as.name(name))) return(TRUE)
  any(vapply(as.list(e)[-1L], called, logical(1), name = name))
}

# The first bar term written (a | b | g), brms's ID syntax, as text; NULL if none.
find_bar_id <- function(e) {
  if (!is.call(e)) return(NULL)
  if (bar_call(e) && bar_call(e[[2L]])) return(deparse1(e))
  for (a in as.list(e)[-1L]) {
    id <- find_bar_id(a)
    if (!is.null(id)) return(id)
  }
  NULL
}

brms_error <- function(written, name, where) {
  what <- brms_terms()[[name]]
  if (is.null(what)) {
    stop_arg("formula", sprintf("has `%s` %s, which is brms's syntax, not vhmc's", written, where),
             "Write the response as glm() does; group-level terms as (x | g).")
  }
  fix <- if (is.na(what[2L])) sprintf("vhmc does not have %s yet.", what[1L]) else sprintf("In vhmc write %s.", what[2L])
  stop_arg("formula", sprintf("has `%s`%s, brms's syntax for %s", written, if (nzchar(where)) paste0(" ", where) else "",
                              what[1L]), fix)
}
