# Methods of multilevel GLM fits (class vhmc_glmer), with rstanarm's conventions: point
# summaries are posterior medians; fixef() and ranef() are nlme's generics, re-exported.

#' Fixed and group-level effects of a multilevel fit
#'
#' For fits of [vhmc_glm()] with group-level terms: `fixef()` gives the posterior medians
#' of the fixed effects (a distributional formula's too, as brms: `sigma_(Intercept)`,
#' `sigma_z`; and its group-level effects in `ranef()` and `coef()` as `sigma_(Intercept)`), `ranef()` those of the group-level effects (one data frame per
#' grouping factor, one row per level), `coef()` their sums per level (fixed plus
#' group-level, as lme4 and rstanarm), `VarCorr()` the posterior medians of each term's
#' standard deviations and correlations (and of sigma), `ngrps()` the numbers of levels and
#' `sigma()` the posterior median of sigma. All are summaries of the draws, which
#' [as.matrix()][as.matrix.vhmc_fit] and the posterior conversions give in full.
#'
#' @param object A fit of [vhmc_glm()] with group-level terms (`fixef()`, `coef()`,
#'   `sigma()`: any GLM fit without a formula of sigma).
#' @param x A fit (for `VarCorr()`), or a `vhmc_VarCorr` object (for `print()`).
#' @param digits Significant digits printed.
#' @param sigma Unused (nlme's argument).
#' @param ... Must be empty.
#' @return `fixef()`: a named vector; `ranef()`, `coef()`: a list of data frames, named by
#'   grouping factor; `VarCorr()`: a `vhmc_VarCorr` list as lme4's, one covariance matrix
#'   per term named by its grouping factor (a factor of several terms: `g`, `g.1`, ...), with
#'   attributes `stddev` and `correlation`, and sigma as attribute `sc`; `ngrps()`: a named integer vector; `sigma()`:
#'   a number.
#' @examples
#' \donttest{
#' if (requireNamespace("lme4", quietly = TRUE)) {
#'   fit <- vhmc_glm(Reaction ~ Days + (Days | Subject), data = lme4::sleepstudy,
#'                   chains = 2, iter = 1000, seed = 1, progress = FALSE)
#'   fixef(fit)
#'   head(ranef(fit)$Subject)
#'   VarCorr(fit)
#'   ngrps(fit)
#' }
#' }
#' @name glmer-methods
NULL

#' @importFrom nlme fixef
#' @export
nlme::fixef

#' @importFrom nlme ranef
#' @export
nlme::ranef

#' @importFrom nlme VarCorr
#' @export
nlme::VarCorr

#' @rdname glmer-methods
#' @method fixef vhmc_glm
#' @export
fixef.vhmc_glm <- function(object, ...) {
  check_no_dots(list(...), "fixef")
  m <- glm_draws(object)$m
  dp <- unlist(lapply(object$model$dpars, dpar_coef_names), use.names = FALSE)  # brms's sigma_(Intercept), ...
  apply(m[, c(object$model$coef_names, dp), drop = FALSE], 2L, stats::median)
}

#' @rdname glmer-methods
#' @method ranef vhmc_glmer
#' @export
ranef.vhmc_glmer <- function(object, ...) {
  check_no_dots(list(...), "ranef")
  med <- apply(as.matrix(object), 2L, stats::median)
  by_factor(object, function(term) {
    nm <- term_user_names(term)[seq_len(length(term$levels) * term$p)]
    m <- matrix(med[nm], ncol = term$p, byrow = TRUE, dimnames = list(term$levels, term$cnms))
    as.data.frame(m, check.names = FALSE)
  })
}

#' @rdname glmer-methods
#' @export
coef.vhmc_glmer <- function(object, ...) {
  check_no_dots(list(...), "coef")
  fe <- fixef(object)
  re <- ranef(object)
  lapply(re, function(r) {
    out <- matrix(fe, nrow(r), length(fe), byrow = TRUE, dimnames = list(rownames(r), names(fe)))
    for (cn in names(r)) out[, cn] <- (if (cn %in% names(fe)) out[, cn] else 0) + r[[cn]]
    as.data.frame(out, check.names = FALSE)
  })
}

#' @rdname glmer-methods
#' @method VarCorr vhmc_glmer
#' @export
VarCorr.vhmc_glmer <- function(x, sigma = 1, ...) {
  check_no_dots(list(...), "VarCorr")
  med <- apply(as.matrix(x), 2L, stats::median)
  terms <- x$model$glmer$terms
  out <- lapply(terms, function(term) {
    S <- term_sigma(term, med)
    dimnames(S) <- list(term$cnms, term$cnms)
    sd <- sqrt(diag(S))
    structure(S, stddev = stats::setNames(sd, term$cnms),
              correlation = if (term$p > 1L) stats::cov2cor(S) else matrix(1, 1, 1, dimnames = dimnames(S)))
  })
  names(out) <- make.unique(vapply(terms, `[[`, "", "group_name"))  # as lme4's for a factor's terms
  structure(out, sc = if ("sigma" %in% x$model$family$aux_names && !"sigma" %in% names(x$model$dpars)) med[["sigma"]],
            class = "vhmc_VarCorr")
}

#' @rdname glmer-methods
#' @export
print.vhmc_VarCorr <- function(x, digits = 3, ...) {
  rows <- list()
  for (g in names(x)) {
    sd <- attr(x[[g]], "stddev")
    cr <- attr(x[[g]], "correlation")
    for (k in seq_along(sd)) {
      cor <- if (k > 1L) paste(format(round(cr[k, seq_len(k - 1L)], 2), nsmall = 2), collapse = " ") else ""
      rows[[length(rows) + 1L]] <- data.frame(Groups = if (k == 1L) g else "", Name = names(sd)[k],
                                              Std.Dev. = signif(sd[[k]], digits), Corr = cor)
    }
  }
  if (!is.null(attr(x, "sc"))) rows[[length(rows) + 1L]] <- data.frame(Groups = "Residual", Name = "", Std.Dev. = signif(attr(x, "sc"), digits), Corr = "")
  cat("Posterior medians of the standard deviations and correlations:\n")
  print(do.call(rbind, rows), row.names = FALSE)
  invisible(x)
}

#' @rdname glmer-methods
#' @param row.names,optional Unused (the arguments of [as.data.frame()]).
#' @details `as.data.frame(VarCorr(fit))` has lme4's layout: one row per variance and
#'   covariance, columns `grp`, `var1`, `var2`, `vcov` and `sdcor` (standard deviations and
#'   correlations), and a `Residual` row for sigma.
#' @export
as.data.frame.vhmc_VarCorr <- function(x, row.names = NULL, optional = FALSE, ...) {
  rows <- lapply(names(x), function(g) {
    S <- x[[g]]
    idx <- which(lower.tri(S, diag = TRUE), arr.ind = TRUE)
    idx <- idx[order(idx[, 1] != idx[, 2], idx[, 2], idx[, 1]), , drop = FALSE]
    diag_ <- idx[, 1] == idx[, 2]
    cn <- colnames(S)
    data.frame(grp = g, var1 = cn[idx[, 2]], var2 = ifelse(diag_, NA_character_, cn[idx[, 1]]),
               vcov = S[idx], sdcor = ifelse(diag_, sqrt(S[idx]), attr(S, "correlation")[idx]),
               stringsAsFactors = FALSE)
  })
  if (!is.null(attr(x, "sc"))) {
    rows[[length(rows) + 1L]] <- data.frame(grp = "Residual", var1 = NA_character_, var2 = NA_character_,
                                            vcov = attr(x, "sc")^2, sdcor = attr(x, "sc"))
  }
  do.call(rbind, rows)
}

#' @rdname glmer-methods
#' @export
ngrps <- function(object, ...) UseMethod("ngrps")

#' @rdname glmer-methods
#' @export
#' @rawNamespace S3method(lme4::ngrps, vhmc_glmer)
ngrps.vhmc_glmer <- function(object, ...) {
  check_no_dots(list(...), "ngrps")
  object$model$glmer$ngrps
}

#' @rdname glmer-methods
#' @importFrom stats sigma
#' @export
sigma.vhmc_glm <- function(object, ...) {
  check_no_dots(list(...), "sigma")
  if (!"sigma" %in% object$model$family$aux_names) {
    stop_arg("object", sprintf("is a %s fit, which has no sigma", object$model$family$family))
  }
  if ("sigma" %in% names(object$model$dpars)) {
    stop_arg("object", "models sigma with a formula, so it has one sigma per observation",
             "Use posterior_epred(object, dpar = \"sigma\").")
  }
  stats::median(as.matrix(object)[, "sigma"])
}

# f(term) for each term, the results of the terms of one grouping factor side by side.
by_factor <- function(object, f) {
  terms <- object$model$glmer$terms
  groups <- vapply(terms, `[[`, "", "group_name")
  out <- lapply(unique(groups), function(g) do.call(cbind, lapply(terms[groups == g], f)))
  stats::setNames(out, unique(groups))
}
