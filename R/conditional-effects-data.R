# The predictor variables behind conditional_effects(): which variables a GLM fit's formula
# uses, their values in the fitted rows and the reference values (numeric: the mean; factor:
# the first level, as brms).
#
# A fit keeps its design matrix but no copy of the data (R/glm-frame.R), and a design column
# such as `factor(am)1` or `log(hp)` does not give back the variable a user varies. So the
# data are read again from the fit's call -- `data`, `subset`, `weights`, `offset` and
# `na.action` evaluated where the model was fitted, as update() and emmeans's recover_data()
# do -- into the model frame of the fit with the raw variables added: the same rows (a raw
# variable is missing wherever an expression of it is), checked against the fit's.

# list(data = the fitted rows' frame (raw variables and model-frame columns), vars = the
# descriptor of every variable (ce_describe()), effects = brms's default effects: the
# variables of each fixed term with at most two, needed = the variables a prediction reads,
# groups = the grouping variables among them, all_groups = those of every group-level term).
# With `dpar`, the default effects are those of that parameter's formula.
ce_variables <- function(x, re_terms, dpar = NULL) {
  model <- x$model
  fixed <- model$terms
  exprs <- as.list(attr(fixed, "variables"))[-1L]
  if (attr(fixed, "response") > 0L) exprs <- exprs[-attr(fixed, "response")]
  exprs <- c(exprs, lapply(setdiff(model_smooth_variables(model), vapply(exprs, deparse1, "")), str2lang))
  exprs <- c(exprs, lapply(setdiff(dpar_variables(model), vapply(exprs, deparse1, "")), as.name))
  bars <- c(glmer_bars(model$formula), unlist(dpar_bars(model$dpar_formulas), recursive = FALSE, use.names = FALSE))
  labels <- vapply(model$glmer$terms[re_terms], `[[`, "", "label")
  included <- bars[match(labels, vapply(bars, deparse1, ""))]
  known <- ce_data_vars(x, unique(c(all.vars(as.call(c(as.name("list"), exprs, bars))), free_variables(x$call$offset))))
  combos <- ce_combos(model, dpar, known)
  groups <- intersect(unlist(lapply(included, function(b) all.vars(b[[3L]]))), known)
  needed <- intersect(unique(c(all.vars(as.call(c(as.name("list"), exprs))), free_variables(x$call$offset),
                               unlist(lapply(included, all.vars)))), known)
  data <- ce_fitted_data(x, exprs, bars, known)
  vars <- lapply(stats::setNames(needed, needed), ce_describe, data = data, model = model, groups = groups)
  list(data = data, vars = vars, effects = unique(combos[lengths(combos) %in% 1:2]), needed = needed,
       groups = groups, all_groups = intersect(unlist(lapply(bars, function(b) all.vars(b[[3L]]))), known))
}

# The variables of each default effect: of each term of every formula (each can move the
# expected response, as brms's), or of the shown parameter's formula when it has one.
ce_combos <- function(model, dpar, known) {
  forms <- if (is.null(dpar)) c(list(model), model$dpars) else if (!is.null(model$dpars[[dpar]])) model$dpars[dpar] else list(model)
  labels <- unlist(lapply(forms, function(f) attr(f$terms, "term.labels")))
  smooths <- unlist(lapply(forms, function(f) f$smooths$terms), recursive = FALSE)
  c(lapply(labels, function(l) intersect(all.vars(str2lang(l)), known)),
    lapply(smooths, function(s) intersect(smooth_variables(s$smooth), known)))
}

# The variables of the distributional formulas (held at their reference values).
dpar_variables <- function(model) {
  unique(unlist(lapply(model$dpar_formulas, function(f) all.vars(reformulas::nobars(f)[[3L]]))))
}

# The names among `candidates` that are variables of the data, not constants a formula
# also reads (the knots of ns(x, knots = k), the `mtcars` of offset = log(mtcars$hp)): the
# columns of `data`, and vectors of the formula's environment with one value per row of
# `data` (more than one value without `data`), which model.frame() reads as variables too.
ce_data_vars <- function(x, candidates) {
  env <- fit_environment(x)
  data <- if (!is.null(x$call$data)) tryCatch(eval(x$call$data, env), error = function(e) NULL)
  in_data <- if (is.environment(data)) vapply(candidates, exists, NA, envir = data) else candidates %in% names(data)
  rows <- if (is.data.frame(data)) nrow(data) else NA
  in_env <- vapply(candidates, function(v) {
    value <- tryCatch(get(v, envir = env), error = function(e) NULL)
    is.atomic(value) && if (is.na(rows)) NROW(value) > 1L else NROW(value) == rows
  }, NA)
  candidates[in_data | in_env]
}

# The fitted rows: the fit's model frame (its fixed part's variables, `exprs`, and the raw
# variables of its group-level terms, `bars`) plus the raw variables `vars`.
ce_fitted_data <- function(x, exprs, bars, vars) {
  fit_call <- x$call
  if (!is.call(fit_call) || any(grepl("^\\.\\.[0-9]+$", all.names(fit_call)))) {
    stop_arg("x", "has no call that gives its data again (it was fitted through a wrapper function)",
             "Call vhmc_glm() directly: conditional_effects() reads the fitted data again from the call.")
  }
  model <- x$model
  rhs <- c(exprs, lapply(unique(c(unlist(lapply(bars, all.vars)), vars)), as.name))
  frame_formula <- stats::as.formula(call("~", model$terms[[2L]], Reduce(function(a, b) call("+", a, b), rhs, 1)),
                                     env = fit_environment(x))
  mf_call <- fit_call[c(1L, match(c("data", "subset", "weights", "na.action", "offset"), names(fit_call), 0L))]
  mf_call$formula <- frame_formula
  fix <- paste("conditional_effects() reads the fitted data again from the fit's call, in the environment",
               "where the model was fitted: keep the data there under the same name, unchanged.")
  data <- tryCatch(glm_model_frame(mf_call, environment(frame_formula), frame_formula),
                   error = function(e) stop_arg("x", sprintf("needs its data again, but its call's data (%s) give an error: %s",
                                                            deparse1(fit_call$data %||% quote(NULL)), conditionMessage(e)), fix))
  if (nrow(data) != nrow(model$x) || !identical(frame_row_names(data), model$row_names)) {
    stop_arg("x", sprintf("was fitted to %d rows, but its call's data (%s) now give %d", nrow(model$x),
                          deparse1(fit_call$data %||% quote(NULL)), nrow(data)), fix)
  }
  data
}

# A variable's descriptor: list(name, factor = TRUE/FALSE, or NA for a variable without a
# reference value (a matrix, a date); group: a grouping variable of an included term;
# values: a factor's levels in the data's own type, the reference first; numeric: mean, sd,
# range).
ce_describe <- function(v, data, model, groups) {
  raw <- data[[v]]
  out <- list(name = v, factor = TRUE, group = v %in% groups)
  # brms shows a grouping variable level by level, whatever its type.
  if (v %in% groups || is.factor(raw) || is.character(raw) || is.logical(raw)) {
    out$values <- if (is.factor(raw)) factor(levels(raw), levels(raw), ordered = is.ordered(raw)) else sort(unique(raw))
    return(out)
  }
  out$values <- ce_wrapped_levels(v, data, model)
  if (!is.null(out$values)) return(out)
  if (!is.numeric(raw) || !is.null(dim(raw))) return(list(name = v, factor = NA, class = class(raw)[1L]))
  list(name = v, factor = FALSE, mean = mean(raw), sd = stats::sd(raw), range = range(raw))
}

# A number that the formula uses only through one factor of it (factor(am), ordered(cyl)),
# one value per level: the values that give the factor's levels, in the levels' order (so
# `am` is shown at 0 and 1, and held at the reference level's value). NULL otherwise.
ce_wrapped_levels <- function(v, data, model) {
  classes <- attr(model$terms, "dataClasses")
  classes <- classes[names(classes) != deparse1(model$terms[[2L]])]
  uses <- names(classes)[vapply(names(classes), function(e) v %in% all.vars(str2lang(e)), NA)]
  if (length(uses) != 1L || uses == v || !classes[[uses]] %in% c("factor", "ordered")) return(NULL)
  levels <- model$xlevels[[uses]]
  if (length(all.vars(str2lang(uses))) != 1L || length(unique(data[[v]])) != length(levels)) return(NULL)
  data[[v]][match(levels, as.character(data[[uses]]))]
}

# The value a variable takes when not varied: the mean of a number, a factor's first level.
# A grouping variable has none: with its term in `re_formula` the level is the user's choice.
ce_reference <- function(desc) {
  if (isTRUE(desc$factor) && !desc$group) return(desc$values[1L])
  if (isFALSE(desc$factor)) return(desc$mean)
  group <- isTRUE(desc$group)
  stop_arg("conditions", sprintf("must give `%s`, which has no reference value (it is %s)", desc$name,
                                 if (group) "a grouping variable of a term `re_formula` includes" else sprintf("a %s", desc$class)),
           sprintf("Give its value(s), e.g. conditions = data.frame(%s = ...)%s.", desc$name,
                   if (group) ", or leave the group-level terms out (re_formula = NA)" else ""))
}
