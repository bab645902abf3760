# update(): refit through the stored call with some arguments changed.

#' Refit a model with changed arguments
#'
#' Refits through the call stored in the fit (`fit$call`), as [stats::update()] does, with
#' the arguments given here changed or added: a new sampler, priors, numbers of chains or
#' iterations, lag orders, a new formula, ... Everything else is as in the original call.
#'
#' Where arguments are evaluated: the arguments of the original call in the environment of
#' the model formula (where the fit was made, as lme4 and rstanarm do), so that a fit made
#' inside a function can be updated elsewhere; the new arguments in the frame `update()` is
#' called from, as for any function call, except `subset`, `weights` and `offset`, which
#' refer to the data and are evaluated with it. Fits of [vhmc_sample()] have no formula:
#' their call is evaluated in the calling frame.
#'
#' The seed is kept: unless `seed` is given, the refit uses the seed of the original fit
#' (`fit$args$seed`, also when that was drawn at random), so `update(fit)` reproduces `fit`
#' and an update differs from the original only by what was changed. Give `seed = NULL` for
#' a new random seed.
#'
#' @param object A fit from [vhmc_glm()], [vhmc_ardl()] or [vhmc_sample()].
#' @param formula. Changes to the model formula, as in [stats::update.formula()]
#'   (`. ~ . + x`, `. ~ . - x`, `log(.) ~ .`).
#' @param ... Named arguments of the fitting function to change or add, e.g.
#'   `sampler = hmc()`, `prior = normal(0, 1)`, `chains = 2`, `iter = 1000`, `p = 2`.
#'   `name = NULL` sets an argument to `NULL`.
#' @param evaluate If `FALSE`, return the updated call instead of fitting.
#' @return A new fit (or with `evaluate = FALSE` the call), whose `call` records the update.
#' @examples
#' \donttest{
#' fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' fit_hmc <- update(fit, sampler = hmc())
#' fit_hp <- update(fit, . ~ . + hp, prior = normal(0, 1))
#' fit_hp$call
#' coef(fit_hp)
#' ar <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                 progress = FALSE)
#' coef(update(ar, p = 2))
#' }
#' @importFrom stats update
#' @export
update.vhmc_fit <- function(object, formula., ..., evaluate = TRUE) {
  fit_call <- object$call
  if (!is.call(fit_call)) {
    stop_arg("object", "has no stored call to refit", "update() needs a fit made by vhmc_glm(), vhmc_ardl() or vhmc_sample().")
  }
  if (any(grepl("^\\.\\.[0-9]+$", all.names(fit_call)))) {
    stop_arg("object", sprintf("was fitted through a wrapper function: its call, %s, refers to the wrapper's `...`",
                               deparse1(fit_call)),
             "Refit with a direct call to the fitting function, or call it with the new arguments yourself.")
  }
  check_flag(evaluate, "evaluate")
  extras <- match.call(expand.dots = FALSE)$...
  if (length(extras) && (is.null(names(extras)) || !all(nzchar(names(extras))))) {
    stop_arg("...", "must hold named arguments", "Name each argument to change, e.g. update(fit, sampler = hmc()).")
  }
  formula_fit <- inherits(object, c("vhmc_glm", "vhmc_ardl"))
  if (!missing(formula.)) {
    if (!formula_fit) {
      stop_arg("formula.", "is given, but the fit (of an R log density) has no model formula",
               "Give the new target by name, e.g. update(fit, log_density = f).")
    }
    if (!inherits(formula., "formula")) {
      stop_arg("formula.", sprintf("must be a formula such as . ~ . + x, not %s", describe(formula.)),
               "Name the other arguments to change, e.g. update(fit, sampler = hmc()).")
    }
    f <- formula(object)
    fit_call$formula <- if (inherits(f, "vhmc_bf")) bf_update(f, formula.) else stats::update.formula(f, formula.)
  }
  if (is.null(fit_call$seed)) fit_call$seed <- object$args$seed
  record <- fit_call
  for (a in names(extras)) record[a] <- list(extras[[a]])
  if (!evaluate) return(record)
  # The new arguments, evaluated now in the caller's frame, except those referring to the
  # data; quote() keeps a value that is itself a call (a formula) from being evaluated again.
  run <- record
  caller <- parent.frame()
  for (a in setdiff(names(extras), c("subset", "weights", "offset"))) {
    value <- eval(extras[[a]], caller)
    run[a] <- list(if (is.language(value)) call("quote", value) else value)
  }
  fun <- utils::tail(as.character(fit_call[[1L]]), 1L)
  if (fun %in% c("vhmc_glm", "vhmc_ardl", "vhmc_sample")) run[[1L]] <- get(fun, envir = asNamespace("vhmc"))
  fit <- eval(run, if (formula_fit) fit_environment(object) else caller)
  fit$call <- record
  fit
}
