# conditional_effects(): the predicted response against one predictor (or two), the others
# held at reference values, as brms's conditional_effects(). The predictions are the fit's
# own posterior_epred(), posterior_predict() or posterior_linpred() on a grid of new data
# (R/glm-predictive.R, R/glm-methods.R, R/glmer-predict.R); the variables and their
# reference values come from R/conditional-effects-data.R, the plots from
# R/conditional-effects-plot.R.

#' Conditional effects of the predictors
#'
#' `conditional_effects()` shows how the predicted response changes with each predictor of a
#' [vhmc_glm()] fit while the other predictors are held at reference values, as brms's
#' `conditional_effects()`: for every effect, the posterior median (or mean) of the
#' predictions over a grid of the predictor's values, with a central credible band. Use
#' `plot()` on the result (or print it) to draw them with ggplot2.
#'
#' **Effects.** By default one effect per predictor variable of the formula's fixed part, and
#' one per interaction of two variables that the formula has (as brms). A numeric predictor
#' is varied over `resolution` values from its smallest to its largest fitted value; a factor
#' (or a character or logical variable, or a number the formula uses only through
#' `factor()`, such as `am` in `mpg ~ wt + factor(am)`) takes each of its levels. In an
#' interaction such as `"wt:am"` the first variable is varied as alone and the second takes
#' its levels, or if numeric its mean and the mean plus and minus one standard deviation.
#'
#' **Reference values.** The variables that are not varied are held at their mean
#' (numeric) or first level (factor), as brms, unless `conditions` gives them: one set of
#' curves per row of `conditions` (a data frame whose columns are variables of the model;
#' those it leaves out keep their reference values, and a column `cond__` labels the rows,
#' otherwise the row names do). Group-level terms are left out by default (`re_formula =
#' NA`); with `re_formula = NULL` (or a formula of some terms) they are included and
#' `conditions` must give the levels of their grouping variables (new levels need
#' `allow_new_levels = TRUE`, passed on through `...`).
#'
#' **Ordinal models.** For [cumulative()] models `posterior_epred()` gives one probability
#' per category. With `categorical = TRUE` each category gets its own curve of its
#' probability (the column `cats__`). Without it (the default, as brms, with brms's
#' warning) the expected category number \eqn{\sum_k k P(y = k)} is shown
#' (`posterior_predict`: the predicted category numbers; `posterior_linpred`: the linear
#' predictor), which treats the categories as equally spaced numbers.
#'
#' The fit keeps no copy of its data, so `conditional_effects()` reads the fitted rows again
#' from the fit's call (`data`, `subset`, `na.action`, in the environment where the model was
#' fitted, as [update()][update.vhmc_fit] does): the data must still be there, unchanged.
#'
#' @param x A fit from [vhmc_glm()], with or without group-level terms.
#' @param effects Names of the effects to show: variables of the model's fixed part, or two
#'   of them joined by `:` (`"wt:am"`); `NULL` (default) for all, as above.
#' @param conditions `NULL`, or a data frame of values at which to hold other variables, one
#'   row per condition (see Details).
#' @param re_formula Which group-level terms enter the predictions: `NA` (default) none,
#'   `NULL` all, or a formula of some of them, as `re.form` of [posterior_epred()].
#' @param prob Probability mass of the credible bands, in (0, 1).
#' @param method The predictions shown: `"posterior_epred"` (default, the expected
#'   response: for the binomial family the success probability), `"posterior_predict"`
#'   (new observations; binomial ones of one trial unless `trials` is passed on) or
#'   `"posterior_linpred"` (the linear predictor).
#' @param resolution Number of values a numeric effect is varied over.
#' @param ndraws Use only `ndraws` posterior draws, evenly spaced over the chains (all by
#'   default).
#' @param robust `TRUE` (default, as brms): the estimate is the posterior median and `se__`
#'   the median absolute deviation ([stats::mad()]); `FALSE`: mean and standard deviation.
#' @param categorical For ordinal models with `method = "posterior_epred"`: one curve per
#'   category of its probability (interactions are then dropped, as in brms).
#' @param dpar For distributional models ([bf()]): an auxiliary parameter (`"sigma"`,
#'   `"zi"`, ...) to show instead of the response, as brms's `dpar`; the default effects are
#'   then the variables of its formula, and there are no observations to plot as points.
#' @param ... Passed on to the prediction method, e.g. `allow_new_levels`, `seed`, `trials`.
#' @return An object of class `vhmc_conditional_effects`: a list with one data frame per
#'   effect, named as the effect (`"wt"`, `"wt:am"`). Each has the effect variable(s), the
#'   other variables at their values, `cond__` (the condition, a factor), `effect1__` (the
#'   varied values; a factor for factors), for interactions and categories `effect2__` (a
#'   factor: the second variable's levels, rounded values, or the categories, `cats__`), and
#'   the summaries `estimate__`, `se__`, `lower__` and `upper__`. Attributes: `effects`,
#'   `response` (the response's name), `categorical`, and `points` (the fitted rows'
#'   effect variables and response, `resp__`, that match each condition's factor values, for
#'   `plot(points = TRUE)`; the response is on the scale of `posterior_epred()`: binomial
#'   proportions, ordinal category numbers). The list has the attribute `response` too.
#' @seealso [plot.vhmc_conditional_effects()] to draw them; [posterior_epred()],
#'   [posterior_predict()], [posterior_linpred()] for the predictions.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt + factor(am), data = mtcars, chains = 2, iter = 1000, seed = 2,
#'                 progress = FALSE)
#' ce <- conditional_effects(fit)
#' names(ce)                 # "wt" "am"
#' head(ce$wt[, c("wt", "am", "estimate__", "lower__", "upper__")])
#' ce$am                     # one row per level of factor(am)
#' ce2 <- conditional_effects(fit, effects = "wt:am", prob = 0.9)
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   plot(ce2, points = TRUE)
#' }
#' }
#' @export
conditional_effects <- function(x, ...) UseMethod("conditional_effects")

#' @rdname conditional_effects
#' @export
#' @exportS3Method brms::conditional_effects vhmc_fit
conditional_effects.vhmc_fit <- function(x, effects = NULL, conditions = NULL, re_formula = NA, prob = 0.95,
                                         method = c("posterior_epred", "posterior_predict", "posterior_linpred"),
                                         resolution = 100, ndraws = NULL, robust = TRUE, categorical = FALSE,
                                         dpar = NULL, ...) {
  check_ce_fit(x)
  settings <- list(method = match_choice(method, "method", c("posterior_epred", "posterior_predict", "posterior_linpred")),
                   prob = check_number(prob, "prob", 0, 1, open = c(TRUE, TRUE)),
                   resolution = check_count(resolution, "resolution", min = 2),
                   robust = check_flag(robust, "robust"), categorical = check_flag(categorical, "categorical"))
  if (!is.null(ndraws)) ndraws <- check_count(ndraws, "ndraws")
  dots <- ce_dots(list(...))
  settings$dpar <- check_ce_dpar(x, dpar, settings)
  if (!is.null(dpar)) dots$dpar <- dpar
  check_ce_categorical(x, settings)
  re <- ce_re_formula(x, re_formula)
  vars <- ce_variables(x, re$terms, settings$dpar)
  effects <- ce_effects(effects, vars, settings$categorical)
  conditions <- ce_conditions(conditions, vars, isTRUE(dots$allow_new_levels))
  fun <- switch(settings$method, posterior_epred = posterior_epred, posterior_predict = posterior_predict,
                posterior_linpred = posterior_linpred)
  predict <- function(newdata) do.call(fun, c(list(x, newdata = newdata, ndraws = ndraws), re$args, dots))
  warn_ce_ordinal(x, settings)
  response <- settings$dpar %||% deparse1(x$model$terms[[2L]])
  out <- lapply(effects, ce_effect, x = x, vars = vars, conditions = conditions, predict = predict,
                settings = settings, response = response)
  names(out) <- vapply(effects, paste, "", collapse = ":")
  structure(out, class = "vhmc_conditional_effects", response = response)
}

# `dpar`: NULL, or an auxiliary parameter of the family, shown by posterior_epred().
check_ce_dpar <- function(x, dpar, settings) {
  if (is.null(dpar)) return(NULL)
  check_dpar_name(dpar, x$model$family)
  if (settings$method != "posterior_epred" || settings$categorical) {
    stop_arg("dpar", "shows a parameter's draws, which only method = \"posterior_epred\" without categorical gives")
  }
  dpar
}

check_ce_fit <- function(x) {
  if (inherits(x, "vhmc_glm") && !inherits(x, "vhmc_ardl")) return(invisible())
  ardl <- inherits(x, "vhmc_ardl")
  stop_arg("x", sprintf("is %s, which has no formula predictors whose effects could be shown",
                        if (ardl) "an ARDL fit (vhmc_ardl())" else if (is_vhmc_fit(x))
                          "a vhmc_sample() fit of an R log density" else describe_class(x)),
           if (ardl) "Use forecast() for an ARDL fit's predictions." else
             "Fit the model with vhmc_glm(), or compute predictions from as_draws_df(fit) yourself.")
}

# `...` goes to the prediction method; what conditional_effects() sets itself cannot.
ce_dots <- function(dots) {
  if (length(dots) && (is.null(names(dots)) || !all(nzchar(names(dots))))) {
    stop_arg("...", "must hold named arguments of the prediction method", "E.g. seed = 1 or allow_new_levels = TRUE.")
  }
  own <- intersect(names(dots), c("object", "newdata", "ndraws", "re.form"))
  if (length(own)) {
    stop_arg("...", sprintf("sets %s, which conditional_effects() sets itself", paste0("`", own, "`", collapse = ", ")),
             "Use `conditions` for the values of the variables, `re_formula` for the group-level terms.")
  }
  dots
}

# categorical = TRUE needs a family whose expected value is one probability per category
# (the registry's `ordinal`), and posterior_epred(), which gives them.
check_ce_categorical <- function(x, settings) {
  if (!settings$categorical) return(invisible())
  family <- x$model$family
  if (!isTRUE(family$entry$ordinal)) {
    ordinal <- Filter(function(e) isTRUE(e$ordinal), family_registry())
    stop_arg("categorical", sprintf("is TRUE, but a %s model's expected response is one number, not a probability per category",
                                    family$family),
             sprintf("categorical = TRUE is for %s models; leave it out here.", paste0(names(ordinal), "()", collapse = ", ")))
  }
  if (settings$method != "posterior_epred") {
    stop_arg("categorical", sprintf("is TRUE, which shows the categories' probabilities from posterior_epred(), not %s()",
                                    settings$method), "Use method = \"posterior_epred\".")
  }
}

# brms's warning: without `categorical` an ordinal response is shown as category numbers.
warn_ce_ordinal <- function(x, settings) {
  if (!isTRUE(x$model$family$entry$ordinal) || settings$categorical || settings$method == "posterior_linpred") return()
  warning(sprintf("The ordinal response is shown as category numbers 1..%d (%s), as if equally spaced. ",
                  length(x$model$levels), if (settings$method == "posterior_epred") "their expected value" else "predicted ones"),
          "Set categorical = TRUE for the probability of each category.", call. = FALSE)
}

# re_formula (brms's name) as the prediction methods' re.form, and the terms it includes.
ce_re_formula <- function(x, re_formula) {
  if (is.null(x$model$glmer)) {
    if (identical(re_formula, NA) || is.null(re_formula)) return(list(args = list(), terms = integer()))
    stop_arg("re_formula", "applies to models with group-level terms only", "Leave it out for this fit.")
  }
  if (!identical(re_formula, NA) && !is.null(re_formula) && !inherits(re_formula, "formula")) {
    stop_arg("re_formula", sprintf("must be NA, NULL or a formula of group-level terms, not %s", describe(re_formula)))
  }
  terms <- tryCatch(re_terms(x, re_formula),
                    error = function(e) stop(sub("^`re.form`", "`re_formula`", conditionMessage(e)), call. = FALSE))
  list(args = list(re.form = re_formula), terms = terms)
}

# The effects as a list of one or two variable names each.
ce_effects <- function(effects, vars, categorical) {
  available <- unique(c(unlist(vars$effects), vars$groups))
  if (is.null(effects)) {
    effects <- lapply(vars$effects, function(e) e[order(!vapply(e, function(v) isFALSE(vars$vars[[v]]$factor), NA))])
    if (!length(effects)) stop_arg("x", "has no predictor variables in its formula's fixed part, so no effects to show")
  } else {
    effects <- ce_named_effects(effects, available, vars)
  }
  for (v in unique(unlist(effects))) {
    if (is.na(vars$vars[[v]]$factor)) {
      stop_arg("effects", sprintf("includes `%s`, a %s, which cannot be varied along a grid", v, vars$vars[[v]]$class),
               "Leave it out of `effects`.")
    }
  }
  if (categorical && any(lengths(effects) == 2L)) {
    warning("Interactions are dropped with categorical = TRUE (the categories take the second variable's place), as in brms; ",
            "show them one condition at a time with `conditions`.", call. = FALSE)
    effects <- effects[lengths(effects) == 1L]
    if (!length(effects)) stop_arg("effects", "has only interactions, which categorical = TRUE cannot show")
  }
  effects
}

ce_named_effects <- function(effects, available, vars) {
  if (!is.character(effects) || !length(effects) || anyNA(effects)) {
    stop_arg("effects", sprintf("must be names of predictor variables such as \"wt\" or \"wt:am\", not %s", describe(effects)))
  }
  hint <- sprintf("The model's variables: %s; join two with `:` for an interaction.", paste(available, collapse = ", "))
  parts <- strsplit(effects, ":", fixed = TRUE)
  unknown <- setdiff(unlist(parts), available)
  if (length(unknown)) {
    grouping <- intersect(unknown, vars$all_groups)
    if (length(grouping)) {
      hint <- sprintf("`%s` groups a group-level term, which the predictions include with re_formula = NULL (or a formula naming it).",
                      grouping[1L])
    }
    stop_arg("effects", sprintf("names %s, not a predictor variable of the model%s", paste0("`", unknown, "`", collapse = ", "),
                                if (length(grouping)) "'s fixed part" else ""), hint)
  }
  bad <- effects[lengths(parts) > 2L | vapply(parts, anyDuplicated, 0L) > 0L]
  if (length(bad)) {
    stop_arg("effects", sprintf("has \"%s\": an effect is one variable or two different ones", bad[1L]),
             "Hold further variables at chosen values with `conditions`.")
  }
  unique(parts)
}

# User conditions, checked and in the types of the fitted data, with their labels `cond__`.
ce_conditions <- function(conditions, vars, allow_new_levels) {
  if (is.null(conditions)) return(data.frame(cond__ = "1"))
  if (!is.data.frame(conditions) || !nrow(conditions)) {
    stop_arg("conditions", sprintf("must be a data frame with at least one row (one per condition), not %s",
                                   if (is.data.frame(conditions)) "one with no rows" else describe(conditions)),
             "E.g. conditions = data.frame(wt = c(2.5, 3.5)).")
  }
  unknown <- setdiff(names(conditions), c(vars$needed, "cond__"))
  if (length(unknown)) {
    stop_arg("conditions", sprintf("has columns that are not variables of the model's predictions: %s",
                                   paste0("`", unknown, "`", collapse = ", ")),
             sprintf("Its columns can be %s, and `cond__` for the conditions' labels.", paste0("`", vars$needed, "`", collapse = ", ")))
  }
  out <- data.frame(row.names = seq_len(nrow(conditions)))
  for (v in setdiff(names(conditions), "cond__")) {
    out[[v]] <- ce_condition_values(conditions[[v]], vars$vars[[v]], allow_new_levels)
  }
  out$cond__ <- as.character(conditions$cond__ %||% rownames(conditions))
  if (anyDuplicated(out$cond__)) stop_arg("conditions", "has repeated labels in `cond__`", "Give each row its own label.")
  out
}

# A condition's values of one variable, in the type of the fitted data. A grouping
# variable's may be new levels when the prediction method is told to allow them.
ce_condition_values <- function(values, desc, allow_new_levels) {
  v <- desc$name
  if (anyNA(values)) stop_arg("conditions", sprintf("has missing values in `%s`", v))
  if (isTRUE(desc$factor)) {
    i <- match(as.character(values), as.character(desc$values))
    if (desc$group && (allow_new_levels || !anyNA(i))) return(values)
    if (anyNA(i)) {
      levels <- paste(utils::head(as.character(desc$values), 10L), collapse = ", ")
      stop_arg("conditions", sprintf("gives `%s` the value %s, which is not one of its levels in the fitted data",
                                     v, as.character(values[is.na(i)][1L])),
               if (!desc$group) sprintf("Its levels: %s.", levels) else
                 sprintf("Give one of them (%s), or pass allow_new_levels = TRUE (a new level's effects are drawn as sample_new_levels says).",
                         levels))
    }
    return(desc$values[i])
  }
  if (isFALSE(desc$factor) && (!is.numeric(values) || any(!is.finite(values)))) {
    stop_arg("conditions", sprintf("must give the numeric variable `%s` finite numbers, not %s", v, describe(values)))
  }
  values
}

# One effect's data frame: the grid of the effect's values under every condition, the
# predictions' summaries and the attributes plot() reads.
ce_effect <- function(effect, x, vars, conditions, predict, settings, response) {
  newdata <- ce_newdata(effect, vars, conditions, settings$resolution)
  draws <- predict(newdata[setdiff(names(newdata), "cond__")])
  out <- newdata[c(effect, setdiff(vars$needed, effect))]
  out$cond__ <- factor(newdata$cond__, levels = conditions$cond__)
  shown <- effect
  if (settings$categorical) {
    cats <- dimnames(draws)[[3L]] %||% as.character(seq_len(dim(draws)[3L]))
    out <- do.call(rbind, lapply(seq_along(cats), function(k) cbind(out, cats__ = factor(cats[k], levels = cats))))
    draws <- do.call(cbind, lapply(seq_along(cats), function(k) matrix(draws[, , k], dim(draws)[1L])))
    shown <- c(effect, "cats__")
  } else if (length(dim(draws)) == 3L) {
    # brms's ordinal_probs_continuous(): the expected category number, sum_k k P(y = k).
    draws <- Reduce(`+`, lapply(seq_len(dim(draws)[3L]), function(k) k * matrix(draws[, , k], dim(draws)[1L])))
  }
  out <- cbind(ce_effect_columns(out, shown, vars), ce_summary(draws, settings$prob, settings$robust))
  rownames(out) <- NULL
  structure(out, effects = shown, response = response, categorical = settings$categorical,
            points = if (!settings$categorical && is.null(settings$dpar)) ce_points(effect, vars, newdata, x$model$y))
}

# The grid of an effect's values (the first effect varying slowest, as brms orders it),
# repeated for each condition with the other variables at their values.
ce_newdata <- function(effect, vars, conditions, resolution) {
  values <- lapply(seq_along(effect), function(i) ce_effect_values(vars$vars[[effect[i]]], i, resolution))
  n <- lengths(values)
  grid <- data.frame(row.names = seq_len(prod(n)))
  grid[[effect[1L]]] <- values[[1L]][rep(seq_len(n[1L]), each = prod(n[-1L]))]
  if (length(effect) == 2L) grid[[effect[2L]]] <- values[[2L]][rep(seq_len(n[2L]), times = n[1L])]
  other <- setdiff(vars$needed, effect)
  blocks <- lapply(seq_len(nrow(conditions)), function(j) {
    for (v in other) {
      value <- if (!is.null(conditions[[v]])) conditions[[v]][j] else ce_reference(vars$vars[[v]])
      grid[[v]] <- rep(value, nrow(grid))
    }
    grid$cond__ <- rep(conditions$cond__[j], nrow(grid))
    grid
  })
  do.call(rbind, blocks)
}

# A factor's levels; a number's range in `resolution` steps when it is the first effect,
# its mean and mean -/+ one sd when it is the second (brms).
ce_effect_values <- function(desc, position, resolution) {
  if (isTRUE(desc$factor)) return(desc$values)
  if (position == 1L) return(seq(desc$range[1L], desc$range[2L], length.out = resolution))
  desc$mean + c(-1, 0, 1) * desc$sd
}

# effect1__, effect2__: the varied values, factors for factors (in the levels' order); a
# numeric second effect as its values rounded to 2 digits, largest first (brms).
ce_effect_columns <- function(out, shown, vars) {
  for (i in seq_along(shown)) {
    col <- out[[shown[i]]]
    desc <- vars$vars[[shown[i]]]
    if (isTRUE(desc$factor)) col <- factor(as.character(col), levels = unique(as.character(desc$values)))
    if (i == 2L && is.numeric(col)) col <- factor(round(col, 2), levels = sort(unique(round(col, 2)), decreasing = TRUE))
    out[[paste0("effect", i, "__")]] <- col
  }
  out
}

# Posterior summaries of each column of the draws: median and MAD (robust) or mean and sd,
# and the central interval of mass `prob`.
ce_summary <- function(draws, prob, robust) {
  q <- apply(draws, 2L, stats::quantile, probs = c((1 - prob) / 2, (1 + prob) / 2), names = FALSE)
  data.frame(estimate__ = if (robust) apply(draws, 2L, stats::median) else colMeans(draws),
             se__ = apply(draws, 2L, if (robust) stats::mad else stats::sd),
             lower__ = q[1L, ], upper__ = q[2L, ])
}

# The fitted rows for plot(points = TRUE): their effect variables and response (on the
# scale of posterior_epred()), under each condition the rows whose factor variables have
# the condition's levels (brms's rule; numeric variables do not select rows).
ce_points <- function(effect, vars, newdata, y) {
  data <- vars$data
  points <- data.frame(row.names = seq_len(nrow(data)))
  for (v in effect) points[[v]] <- data[[v]]
  points$resp__ <- as.numeric(y)
  conds <- newdata[!duplicated(newdata$cond__), , drop = FALSE]
  keys <- Filter(function(v) isTRUE(vars$vars[[v]]$factor), setdiff(vars$needed, effect))
  blocks <- lapply(seq_len(nrow(conds)), function(j) {
    keep <- rep(TRUE, nrow(points))
    for (v in keys) keep <- keep & as.character(data[[v]]) == as.character(conds[[v]][j])
    block <- points[keep, , drop = FALSE]
    block$cond__ <- rep(conds$cond__[j], nrow(block))
    block
  })
  points <- do.call(rbind, blocks)
  points$cond__ <- factor(points$cond__, levels = conds$cond__)
  factors <- effect[vapply(effect, function(v) isTRUE(vars$vars[[v]]$factor), NA)]
  points <- ce_effect_columns(points, effect[effect %in% c(effect[1L], factors)], vars)
  rownames(points) <- NULL
  points
}
