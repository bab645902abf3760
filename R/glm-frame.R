# The model frame of vhmc_glm(), exactly as glm() builds it, and the rules for the response,
# weights and offset.

# The model frame exactly as glm() builds it, but without a copy of the data when nothing is
# missing: na.omit() (the default na.action) subsets every column even when it omits no row,
# so the frame is built with na.pass first and the user's na.action applied only when a
# variable has missing values (then rebuilding the frame with it, so that unused factor
# levels are dropped after the rows are, as in glm()).
glm_model_frame <- function(mf_call, env, formula, data) {
  mf_call$drop.unused.levels <- TRUE
  mf_call[[1L]] <- quote(stats::model.frame)
  build <- function(call) tryCatch(eval(call, env), error = function(e) model_frame_error(e, formula, data))
  user_na <- mf_call$na.action
  mf_call$na.action <- quote(stats::na.pass)
  mf <- build(mf_call)
  if (!any(vapply(mf, anyNA, logical(1)))) return(mf)
  mf_call$na.action <- user_na
  build(mf_call)
}

# model.frame() failures, rephrased: missing values under na.fail name their columns.
model_frame_error <- function(e, formula, data) {
  msg <- conditionMessage(e)
  if (grepl("missing values", msg) && !missing(data) && is.data.frame(data)) {
    vars <- intersect(all.vars(formula), names(data))
    bad <- vars[vapply(vars, function(v) anyNA(data[[v]]), logical(1))]
    stop_arg("data", sprintf("has missing values in %s and na.action is na.fail",
                             paste0("`", bad, "`", collapse = ", ")),
             "Remove those rows or use na.action = na.omit.")
  }
  stop(sprintf("could not build the model frame: %s", msg), call. = FALSE)
}

# Response, design matrix, weights and offset from the model frame, checked. With `fixed`
# (the fixed part of a formula with group-level terms), the design is that formula's, read
# from the frame of the whole formula as lme4 does.
glm_model <- function(mf, family, contrasts, fixed = NULL, response_levels = NULL) {
  if (nrow(mf) == 0L) {
    stop_arg("data", "has no rows left after `subset` and `na.action`",
             "Check `subset` and the missing values in the model's variables.")
  }
  mt <- if (is.null(fixed)) attr(mf, "terms") else fixed_terms(fixed, attr(mf, "terms"))
  if (attr(mt, "response") == 0L) stop_arg("formula", "has no response (left-hand side)")
  # Cutpoints, or group-level terms (y ~ 0 + (1 | g), as lme4), can stand without fixed effects.
  X <- glm_design_matrix(mt, mf, contrasts, allow_empty = isTRUE(family$traits$thresholds) || !is.null(fixed))
  intercept <- attr(mt, "intercept") == 1L
  # A family's cutpoints take the intercept's place (cumulative models, as polr()).
  if (intercept && isTRUE(family$traits$thresholds)) {
    X <- X[, -1L, drop = FALSE]
    intercept <- FALSE
  }
  prior_weights <- glm_frame_weights(mf)
  offset <- stats::model.offset(mf)
  if (!is.null(offset)) {
    offset <- as.numeric(offset)
    if (length(offset) != nrow(X) || any(!is.finite(offset))) {
      stop_arg("offset", sprintf("must be %d finite numbers (one per observation)", nrow(X)))
    }
  }
  check_weight_support(prior_weights, nrow(X), family)
  y <- stats::model.response(mf)
  # An ordinal model's categories are those its response declares, observed or not.
  if (family$entry$ordinal && is.ordered(y) && length(response_levels) > nlevels(y)) {
    y <- factor(as.character(y), levels = response_levels, ordered = TRUE)
  }
  censored <- response_censoring(y, mf[["(vhmc_cens)"]], mf[["(vhmc_y2)"]], family)
  resp <- glm_response(censored$y, family, prior_weights, deparse1(mt[[2L]]))
  columns <- design_columns(X, resp$weights)
  # The fit keeps the design once and no copy of the data (no model frame), and the row
  # names only when they are not 1..n (model.matrix() spells those out: 12 MiB at N = 2e5).
  list(type = "glm", family = family, terms = mt, x = X, y = resp$y,
       weights = resp$weights, prior_weights = prior_weights, trials = resp$trials,
       response_matrix = resp$matrix, cens = censored$cens, offset = offset, intercept = intercept,
       levels = resp$levels, n_cutpoints = if (!is.null(resp$levels)) length(resp$levels) - 1L else 0L,
       coef_names = colnames(X), xlevels = stats::.getXlevels(mt, mf),
       contrasts = attr(X, "contrasts"), na.action = attr(mf, "na.action"),
       row_names = frame_row_names(mf), columns = columns,
       nobs = if (is.null(resp$weights)) nrow(X) else sum(resp$weights != 0))
}

# The terms of a formula's fixed part, with the predictor variables and data classes of the
# whole formula's frame, so that model.matrix() and prediction read that frame's columns.
fixed_terms <- function(fixed, mt_full) {
  mt <- stats::terms(fixed)
  vars <- vapply(as.list(attr(mt, "variables"))[-1L], deparse1, "")
  full <- vapply(as.list(attr(mt_full, "variables"))[-1L], deparse1, "")
  pv <- as.list(attr(mt_full, "predvars"))[-1L]
  attr(mt, "predvars") <- as.call(c(as.name("list"), pv[match(vars, full)]))
  attr(mt, "dataClasses") <- attr(mt_full, "dataClasses")[vars]
  mt
}

# The frame's row names unless they are 1..n (then NULL: kept implicit).
frame_row_names <- function(mf) {
  rn <- attr(mf, "row.names")
  if (is.integer(rn) && (.row_names_info(mf) < 0L || identical(rn, seq_len(length(rn))))) return(NULL)
  rn
}

# The model matrix, without its row names, checked; with allow_empty, the intercept may be
# its only column (a family whose cutpoints replace the intercept).
glm_design_matrix <- function(mt, mf, contrasts, allow_empty = FALSE) {
  check_factor_levels(mt, mf)
  X <- stats::model.matrix(mt, mf, contrasts)
  if (!is.double(X)) storage.mode(X) <- "double"
  vhmc_drop_row_names(X)  # in place: dimnames<- would copy the matrix (see src/glue_glm.cpp)
  if (attr(mt, "intercept") == 1L && colnames(X)[1] != "(Intercept)") {
    stop("internal: intercept column expected first")
  }
  if (ncol(X) == 0L && !allow_empty) stop_arg("formula", "has no coefficients (no intercept and no predictors)")
  X
}

# A factor (or character) predictor needs two levels among the fitted rows to have contrasts;
# model.matrix() would stop with its own "contrasts can be applied only to factors with 2
# or more levels".
check_factor_levels <- function(mt, mf) {
  vars <- setdiff(names(mf), c(names(mf)[attr(mt, "response")], "(weights)", "(offset)", "(vhmc_cens)", "(vhmc_y2)"))
  for (v in vars) {
    x <- mf[[v]]
    if (!is.factor(x) && !is.character(x)) next
    lev <- if (is.factor(x)) levels(droplevels(x)) else unique(x)
    if (length(lev) >= 2L) next
    stop_arg("data", sprintf("gives the factor `%s` a single level (%s) among the rows fitted, so it has no effect to estimate",
                             v, if (length(lev)) sprintf("\"%s\"", lev) else "none"),
             sprintf("Drop `%s` from the formula, or check `subset` and the missing values.", v))
  }
}

# Per-column statistics of the design (computed in C++ without copying a column): means,
# sds, weighted sds, two-valued columns, all-zero columns; non-finite columns are an error.
design_columns <- function(X, weights) {
  cols <- vhmc_column_summary(X, weights)
  bad <- which(!cols$finite)
  if (length(bad)) {
    stop_arg("data", sprintf("gives non-finite values (Inf or NaN) in the model matrix column %s",
                             paste0("`", colnames(X)[bad], "`", collapse = ", ")),
             "Remove or fix those rows.")
  }
  cols
}

glm_frame_weights <- function(mf) {
  w <- stats::model.weights(mf)
  if (is.null(w)) return(NULL)
  if (!is.numeric(w) || any(!is.finite(w)) || any(w < 0)) stop_arg("weights", "must be non-negative finite numbers")
  as.numeric(w)
}

# Enough observations with positive weight to identify the model: one for most families,
# two for those whose sigma needs a spread (the family's `min_rows`).
check_weight_support <- function(w, n, family) {
  n_pos <- if (is.null(w)) n else sum(w > 0)
  if (n_pos == 0L) {
    stop_arg("weights", "are all zero, so no observation enters the likelihood",
             "Give positive weights to the observations the model should fit.")
  }
  if (n_pos < family$entry$min_rows) {
    what <- if (is.null(w)) "`data` has" else "`weights` leave"
    stop(sprintf(paste("%s only one observation; a %s model needs at least two with",
                       "positive weight, since one observation cannot separate the mean from the",
                       "noise sd sigma. Add observations."), what, family$family), call. = FALSE)
  }
  invisible()
}


# The response on the core's scale: y (proportions for binomial) and the weights the
# likelihood uses (prior weights times binomial trials), by the family's rules
# (R/family-registry.R).
glm_response <- function(y, family, prior_weights, name, fitting = TRUE) {
  bad_y <- function(problem, fix = NULL) stop_arg("data", sprintf("response `%s` %s", name, problem), fix)
  if (is.matrix(y) && ncol(y) == 1L) y <- y[, 1L]
  if (is.matrix(y) && !family$entry$trials) {
    bad_y(sprintf("has %d columns, but the %s family takes one response per observation",
                  ncol(y), family$family),
          sprintf("Only %s takes a two-column response, cbind(successes, failures); fit one model per column.",
                  paste0(names(Filter(function(e) e$trials, family_registry())), "()", collapse = " or ")))
  }
  r <- family$entry$response(y, prior_weights, bad_y)
  if (fitting && !is.null(family$entry$spread_identifies)) not_constant(r, bad_y, family$entry$spread_identifies)
  r
}
