# The columns of a model's smooths (R/smooth-terms.R): built once from the fitted rows by
# mgcv's smoothCon() and smooth2random(), and again for new rows by PredictMat() and the same
# transformation, so that fitted and new rows get the same basis.

# Each smooth of the specs (a smooth by a factor gives one per level) with what predicts it
# on new rows: mgcv's smooth, smooth2random()'s transformation (columns X U diag(D), in the
# order of pen.ind: 0 for the unpenalised columns, b for penalty block b), the column names.
build_smooths <- function(specs, mf) {
  smooths <- unlist(lapply(specs, function(spec) {
    tryCatch(mgcv::smoothCon(spec, data = mf, knots = NULL, absorb.cons = TRUE, modCon = 3L, diagonal.penalty = TRUE),
             error = function(e) stop_arg("formula", sprintf("has the smooth %s, which mgcv cannot build on these data: %s",
                                                             spec$label, conditionMessage(e)),
                                          "Check the smooth's variables, or give fewer basis functions (k = ...)."))
  }), recursive = FALSE)
  lapply(smooths, function(sm) {
    r <- tryCatch(mgcv::smooth2random(sm, names(mf), type = 2L), error = function(e) {
      stop_arg("formula", sprintf("has the smooth %s, which mgcv cannot write in mixed-model form: %s", sm$label,
                                  conditionMessage(e)),
               "Use another basis (bs = \"tp\", \"cr\", \"ps\", \"cc\", ...), as in gamm4 and brms.")
    })
    pen <- as.integer(r$pen.ind %||% rep(0L, ncol(sm$X)))  # none for an unpenalised smooth (fx = TRUE)
    blocks <- sort(unique(pen[pen > 0L]))
    label <- sm$label
    list(smooth = without_rows(sm), U = r$trans.U %||% diag(length(pen)), D = r$trans.D %||% rep(1, length(pen)), pen = pen, label = label,
         fixed_names = if (any(pen == 0L)) sprintf("%s.fx%d", label, seq_len(sum(pen == 0L))),
         random_names = sprintf("%s.%d", label, seq_len(sum(pen > 0L))),
         sizes = vapply(blocks, function(b) sum(pen == b), 1L),
         sd_names = if (length(blocks) == 1L) sprintf("sds[%s]", label) else sprintf("sds[%s_%d]", label, blocks))
  })
}

# A smooth without its model matrix (and its margins', for tensor products): the fit keeps
# the columns once, in its design, and PredictMat() needs only the basis (measured at 10,000
# rows: a t2() smooth 2.7 MB -> 27 kB, s() 882 -> 179 kB, the rest its knots).
without_rows <- function(sm) {
  sm$X <- NULL
  for (i in seq_along(sm$margin)) sm$margin[[i]]$X <- NULL
  sm
}

# The variables of a smooth (its covariates and its `by` variable), from mgcv's smooth or
# its specification.
smooth_variables <- function(sm) setdiff(c(sm$term, sm$by), "NA")

# Every variable of a model's smooths.
model_smooth_variables <- function(model) unique(unlist(lapply(model$smooths$terms, function(s) smooth_variables(s$smooth))))

# The smooths' columns for the rows of `data`: every smooth's unpenalised columns, then every
# smooth's penalised ones block by block (the order of the model matrix and of the core's
# smooth block).
smooth_columns <- function(smooths, data) {
  parts <- lapply(smooths, function(s) {
    X <- mgcv::PredictMat(s$smooth, data) %*% s$U
    X <- sweep(X, 2L, s$D, `*`)
    ord <- order(s$pen[s$pen > 0L])
    list(fixed = X[, s$pen == 0L, drop = FALSE], random = X[, s$pen > 0L, drop = FALSE][, ord, drop = FALSE])
  })
  X <- do.call(cbind, c(lapply(parts, `[[`, "fixed"), lapply(parts, `[[`, "random")))
  dimnames(X) <- list(NULL, smooth_names(smooths))
  X
}

smooth_names <- function(smooths) {
  c(unlist(lapply(smooths, `[[`, "fixed_names")), unlist(lapply(smooths, `[[`, "random_names")))
}

# The model of vhmc_glm() with its smooths' columns after the formula's own, and what the
# fit keeps of them (`model$smooths`): the smooths, the penalty blocks' sizes and sds' names,
# the number of penalised columns (the model matrix's last).
add_smooths <- function(model, specs, mf) {
  smooths <- build_smooths(specs, mf)
  S <- smooth_columns(smooths, mf)
  model$x <- cbind(model$x, S)
  model$coef_names <- colnames(model$x)
  model$columns <- design_columns(model$x, model$weights)
  model$smooths <- list(terms = smooths, sizes = unlist(lapply(smooths, `[[`, "sizes")),
                        sd_names = unlist(lapply(smooths, `[[`, "sd_names")), n_columns = ncol(S),
                        n_random = sum(unlist(lapply(smooths, `[[`, "sizes"))))
  model
}

# The model matrix of new rows: the formula's own columns, then the smooths'.
with_smooth_columns <- function(x, model, newdata) {
  if (is.null(model$smooths)) return(x)
  S <- tryCatch(smooth_columns(model$smooths$terms, newdata),
                error = function(e) stop_arg("newdata", sprintf("does not fit the model's smooths: %s", conditionMessage(e)),
                                             "Give every variable of the smooths, of the types fitted."))
  if (anyNA(S)) stop_arg("newdata", "has missing values in the variables of the smooths", "Predictions need every predictor.")
  cbind(x, S)
}

# Whether the model has penalised smooth columns (a smooth with fx = TRUE has none: its
# columns are fixed effects, and the model an ordinary GLM).
has_penalised <- function(model) isTRUE(model$smooths$n_random > 0L)

# The indices of the penalised columns among the model's coefficients (without intercept).
smooth_random_columns <- function(model) {
  k <- ncol(model$x) - model$intercept
  n <- model$smooths$n_random %||% 0L
  if (n == 0L) integer() else seq.int(k - n + 1L, k)
}

# The coefficients' names of the formula's own columns (all of them without smooths).
fixed_coef_names <- function(model) {
  utils::head(model$coef_names, length(model$coef_names) - (model$smooths$n_columns %||% 0L))
}
