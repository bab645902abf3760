# Smooth terms of a vhmc_glm() formula: mgcv's s() and t2() (te() has no mixed-model form
# and is refused with a pointer to t2()), built by mgcv's own
# constructors as gamm4 and brms build them. smoothCon() makes each smooth's basis with its
# identifiability constraint absorbed; smooth2random() rewrites its penalties as random
# effects (Wood 2017, "Generalized Additive Models", 2nd ed.): an unpenalised part, fixed
# effects, and one block of columns per penalty whose coefficients are iid N(0, sd^2). The
# fixed columns join the model matrix after the formula's own; the penalised ones go last,
# and the core samples them non-centred with one standard deviation per block
# (inst/include/vhmc/model/glm/smooths.hpp). New data get the same columns from mgcv's
# PredictMat() and the stored transformation.

smooth_functions <- c("s", "t2", "te")

is_smooth_call <- function(e) {
  is.call(e) && is.name(e[[1L]]) && as.character(e[[1L]]) %in% smooth_functions
}

# The smooth calls among the formula's summands (NULL without any); an error for a smooth
# anywhere else (inside an interaction or a function), which would not be one.
formula_smooths <- function(formula) {
  rhs <- formula[[length(formula)]]
  calls <- summand_smooths(rhs)
  if (any(vapply(smooth_functions, function(f) called(drop_smooths(rhs) %||% 1, f), logical(1)))) {
    stop_arg("formula", sprintf("has a smooth inside another term (%s)", deparse1(rhs)),
             "Add each smooth as a term of its own, e.g. y ~ x + s(z); for a smooth by a factor, s(z, by = f).")
  }
  if (length(calls)) calls
}

# The smooths among the summands of a right-hand side (through + and the left of -).
summand_smooths <- function(e) {
  if (is_smooth_call(e)) return(list(e))
  if (is_sum(e)) return(c(summand_smooths(e[[2L]]), if (identical(e[[1L]], as.name("+"))) summand_smooths(e[[3L]])))
  list()
}

is_sum <- function(e) is.call(e) && length(e) == 3L && (identical(e[[1L]], as.name("+")) || identical(e[[1L]], as.name("-")))

# The right-hand side without its smooth summands (NULL when nothing is left).
drop_smooths <- function(e) {
  if (is_smooth_call(e)) return(NULL)
  if (!is_sum(e)) return(e)
  plus <- identical(e[[1L]], as.name("+"))
  l <- drop_smooths(e[[2L]])
  r <- if (plus) drop_smooths(e[[3L]]) else e[[3L]]
  if (is.null(r)) return(l)
  if (is.null(l)) return(if (plus) r else call("-", 1, r))
  call(as.character(e[[1L]]), l, r)
}

# The formula without its smooths (the intercept's 1 where nothing is left).
formula_without_smooths <- function(formula) {
  formula[[length(formula)]] <- drop_smooths(formula[[length(formula)]]) %||% 1
  formula
}

# The formula with each smooth replaced by the sum of its variables (the model frame's).
smooth_frame_formula <- function(formula, specs) {
  replace <- function(e) {
    if (is_smooth_call(e)) return(specs[[deparse1(e)]]$vars_call)
    if (is.call(e)) for (i in seq_along(e)[-1L]) e[[i]] <- replace(e[[i]])
    e
  }
  formula[[length(formula)]] <- replace(formula[[length(formula)]])
  formula
}

# Each smooth call evaluated by mgcv's own s(), t2(), te() (not another package's s(), such
# as gam's, found first on the search path), with its variables; named by the call's text.
smooth_specs <- function(calls, env) {
  specs <- lapply(calls, function(cl) {
    cl[[1L]] <- call("::", as.name("mgcv"), cl[[1L]])
    spec <- tryCatch(eval(cl, env), error = function(e) {
      stop_arg("formula", sprintf("has the smooth %s, which mgcv cannot read: %s", sub("^mgcv::", "", deparse1(cl)),
                                  conditionMessage(e)))
    })
    if (inherits(spec, "tensor.smooth.spec") && !inherits(spec, "t2.smooth.spec")) {
      stop_arg("formula", sprintf("has %s: mgcv's te() smooths have no mixed-model form (smooth2random())", deparse1(cl)),
               sprintf("Write the tensor product as t2(), e.g. %s, as gamm4 and brms do.", sub("^mgcv::te", "t2", deparse1(cl))))
    }
    spec$vars_call <- str2lang(paste(smooth_variables(spec), collapse = " + "))
    spec
  })
  stats::setNames(specs, vapply(calls, deparse1, ""))
}
