# conditional_smooths(): each smooth term's estimated function with its credible band, as
# brms's conditional_smooths(). The function is the smooth's own part of the linear predictor
# (its unpenalised and penalised columns times their coefficients' draws, R/smooth-design.R)
# over a grid of its variables; the plots are those of conditional_effects()
# (R/conditional-effects-plot.R).

#' Estimated smooth functions
#'
#' `conditional_smooths()` shows each smooth term of a [vhmc_glm()] fit (`s()`, `t2()`) as
#' the function it adds to the linear predictor, with a central credible band, as
#' brms's `conditional_smooths()`: the smooth's columns on a grid of its variable times the
#' posterior draws of its coefficients. A smooth of one variable is shown over `resolution`
#' values from its smallest to its largest fitted value; a smooth of two variables over the
#' first, at the second's mean and mean -/+ one standard deviation (one curve each); a smooth
#' by a factor (`s(x, by = f)`) gives one function per level. The functions are centred as
#' mgcv centres them (each sums to zero over the fitted rows), on the scale of the linear
#' predictor: add the intercept, or use [conditional_effects()], for the response.
#'
#' @param x A fit from [vhmc_glm()] with smooth terms.
#' @param smooths Labels of the smooths to show, as mgcv labels them (`"s(times)"`); `NULL`
#'   (default) for all.
#' @inheritParams conditional_effects
#' @param ... Must be empty.
#' @return An object of class `vhmc_conditional_effects` (so that [plot()][plot.vhmc_conditional_effects]
#'   draws it), a list with one data frame per smooth, named by its label: its variables,
#'   `cond__`, `effect1__` (and for two variables `effect2__`), `estimate__`, `se__`,
#'   `lower__`, `upper__`.
#' @seealso [conditional_effects()], [vhmc_glm()]
#' @examples
#' \donttest{
#' data(mcycle, package = "MASS")
#' fit <- vhmc_glm(accel ~ s(times), data = mcycle, chains = 2, iter = 1000, seed = 1,
#'                 progress = FALSE)
#' cs <- conditional_smooths(fit)
#' head(cs[["s(times)"]][, c("times", "estimate__", "lower__", "upper__")])
#' if (requireNamespace("ggplot2", quietly = TRUE)) plot(cs)
#' }
#' @export
conditional_smooths <- function(x, ...) UseMethod("conditional_smooths")

#' @rdname conditional_smooths
#' @export
#' @exportS3Method brms::conditional_smooths vhmc_fit
conditional_smooths.vhmc_fit <- function(x, smooths = NULL, prob = 0.95, resolution = 100, ndraws = NULL,
                                         robust = TRUE, ...) {
  check_no_dots(list(...), "conditional_smooths")
  check_ce_fit(x)
  settings <- list(prob = check_number(prob, "prob", 0, 1, open = c(TRUE, TRUE)), robust = check_flag(robust, "robust"),
                   resolution = check_count(resolution, "resolution", min = 2))
  terms <- cs_terms(x, smooths)
  vars <- ce_variables(x, integer())
  draws <- glm_draws(x, ndraws)$m
  out <- lapply(terms, cs_smooth, vars = vars, draws = draws, settings = settings)
  structure(stats::setNames(out, vapply(terms, `[[`, "", "label")), class = "vhmc_conditional_effects",
            response = "smooth")
}

# The smooths asked for.
cs_terms <- function(x, smooths) {
  terms <- x$model$smooths$terms
  if (is.null(terms)) {
    stop_arg("x", "has no smooth terms", "Add s() or t2() terms to the formula, or use conditional_effects().")
  }
  labels <- vapply(terms, `[[`, "", "label")
  if (is.null(smooths)) return(terms)
  unknown <- setdiff(smooths, labels)
  if (!is.character(smooths) || length(unknown)) {
    stop_arg("smooths", sprintf("names %s, which the fit does not have", paste0("\"", unknown, "\"", collapse = ", ")),
             sprintf("Its smooths are %s.", paste0("\"", labels, "\"", collapse = ", ")))
  }
  terms[match(smooths, labels)]
}

# One smooth's function on its grid, summarised over the draws.
cs_smooth <- function(term, vars, draws, settings) {
  sm <- term$smooth
  effect <- sm$term[seq_len(min(2L, length(sm$term)))]
  grid <- ce_newdata(effect, vars, data.frame(cond__ = "1"), settings$resolution)
  for (v in setdiff(sm$term, effect)) grid[[v]] <- ce_reference(vars$vars[[v]])
  if (!identical(sm$by, "NA")) grid[[sm$by]] <- if (is.null(sm$by.level)) 1 else factor(sm$by.level, levels = vars$vars[[sm$by]]$values)
  X <- smooth_columns(list(term), grid)
  f <- draws[, colnames(X), drop = FALSE] %*% t(X)
  out <- grid[c(effect, setdiff(names(grid), c(effect, "cond__")))]
  out$cond__ <- factor(grid$cond__)
  out <- cbind(ce_effect_columns(out, effect, vars), ce_summary(f, settings$prob, settings$robust))
  rownames(out) <- NULL
  structure(out, effects = effect, response = term$label, categorical = FALSE)
}
