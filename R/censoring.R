# Censored responses of vhmc_glm(): brms's `y | cens(censored, y2) ~ ...` and survival's
# `Surv(time, status) ~ ...` (types right, left, interval, interval2). A censored row's
# likelihood is the probability of its interval, log F(y) (left), log(1 - F(y)) (right) or
# log(F(y2) - F(y)) (interval), in the core (inst/include/vhmc/model/glm/family/censored.hpp)
# and in log_lik(); posterior_predict() draws uncensored responses, as brms does. The
# families that can be censored are those whose core family says so (the registry's
# `censoring` trait).

# brms's codes: -1 left, 0 none, 1 right, 2 interval.
cens_code_names <- function() c(left = -1L, none = 0L, right = 1L, interval = 2L)

# The censoring of `y | cens(censored, y2)`: the response's expression and the cens()
# arguments' (y2 NULL without intervals), or NULL when the formula has none.
formula_censoring <- function(formula) {
  if (length(formula) != 3L || !bar_call(formula[[2L]])) return(NULL)
  add <- formula[[2L]][[3L]]
  if (!is.call(add) || !identical(add[[1L]], as.name("cens"))) return(NULL)
  args <- tryCatch(as.list(match.call(function(x, y2 = NULL) NULL, add))[-1L], error = function(e) NULL)
  if (is.null(args$x)) {
    stop_arg("formula", sprintf("has `%s`; cens() takes the censoring variable and, for intervals, their upper bounds",
                                deparse1(add)), "Write y | cens(censored) or y | cens(censored, y2).")
  }
  list(response = formula[[2L]][[2L]], cens = args$x, y2 = args$y2)
}

# The formula with `y | cens(...)` replaced by `y` (the model frame's response).
uncensored_formula <- function(formula, cens) {
  if (is.null(cens)) return(formula)
  formula[[2L]] <- cens$response
  formula
}

# The model frame call with the cens() arguments as extra variables, "(vhmc_cens)" and
# "(vhmc_y2)" in the frame (subset and na.action apply to them as to weights).
censoring_frame_call <- function(mf_call, cens) {
  if (is.null(cens)) return(mf_call)
  mf_call$vhmc_cens <- cens$cens
  if (!is.null(cens$y2)) mf_call$vhmc_y2 <- cens$y2
  mf_call
}

# The response and its censoring from a model frame's response `y` (a Surv object or plain)
# and the cens() variables `code` and `y2` (NULL without). Returns list(y, cens) with cens
# NULL when no row is censored, else list(code = integers, y2 = upper bounds, y where the row
# is not an interval).
response_censoring <- function(y, code, y2, family) {
  if (inherits(y, "Surv")) {
    s <- surv_censoring(y)
    y <- s$y
    code <- s$code
    y2 <- s$y2
  } else if (is.null(code)) {
    return(list(y = y, cens = NULL))
  } else {
    code <- cens_codes(code)
  }
  if (all(code == 0L)) return(list(y = y, cens = NULL))
  check_censoring_family(family)
  list(y = y, cens = list(code = code, y2 = cens_upper(y, code, y2)))
}

# brms's cens() values as codes: "left", "none", "right", "interval" (any case), -1, 0, 1,
# 2, or TRUE for right censored (as brms reads a logical).
cens_codes <- function(x) {
  if (is.factor(x)) x <- as.character(x)
  code <- if (is.logical(x)) as.integer(x) else if (is.character(x)) unname(cens_code_names()[tolower(x)]) else
    if (is.numeric(x) && all(x %in% c(-1, 0, 1, 2))) as.integer(x)
  if (is.null(code) || anyNA(code)) {
    bad <- if (is.null(code)) describe(x) else sprintf("\"%s\"", x[is.na(code)][1L])
    stop_arg("formula", sprintf("gives cens() the value %s", bad),
             "cens() takes \"left\", \"none\", \"right\", \"interval\" (or -1, 0, 1, 2, or TRUE for right censored).")
  }
  code
}

# Each interval's upper bound (finite and above y); y itself where the row is no interval.
cens_upper <- function(y, code, y2) {
  iv <- code == 2L
  if (!any(iv)) return(as.numeric(y))
  if (is.null(y2)) {
    stop_arg("formula", sprintf("marks %d rows as interval censored but gives no upper bounds", sum(iv)),
             "Write y | cens(censored, y2) with y2 the upper end of each interval.")
  }
  y2 <- as.numeric(y2)
  bad <- iv & !(is.finite(y2) & y2 > y)
  if (any(bad)) {
    stop_arg("formula", sprintf("gives %d interval-censored rows an upper bound that is missing, infinite or not above y (row %d)",
                                sum(bad), which(bad)[1L]),
             "An interval (y, y2) needs y < y2; for an open end use \"left\" (below y) or \"right\" (above y).")
  }
  ifelse(iv, y2, y)
}

# survival::Surv() types as codes: right (status 0 right censored), left (status 0 left
# censored), interval and interval2 (status 0 right, 1 exact, 2 left, 3 interval).
surv_censoring <- function(s) {
  type <- attr(s, "type")
  m <- unclass(s)
  if (type %in% c("right", "left")) {
    censored <- m[, "status"] == 0
    code <- ifelse(censored, if (type == "right") 1L else -1L, 0L)
    return(list(y = m[, "time"], code = as.integer(code), y2 = NULL))
  }
  if (type == "interval") {
    code <- c(1L, 0L, -1L, 2L)[m[, "status"] + 1L]
    return(list(y = m[, "time1"], code = code, y2 = ifelse(code == 2L, m[, "time2"], m[, "time1"])))
  }
  stop_arg("formula", sprintf("has a Surv() response of type \"%s\"", type),
           "vhmc reads Surv(time, status) (right or left censoring) and interval types; counting-process data have no vhmc model.")
}

check_censoring_family <- function(family) {
  if (isTRUE(family$traits$censoring)) return(invisible())
  can <- Filter(function(e) any(vapply(e$links, function(l) censoring_trait(e, l), logical(1))), family_registry())
  stop_arg("family", sprintf("is %s(%s), whose likelihood vhmc cannot censor", family$family, family$link),
           sprintf("Censored responses are for %s.", paste0(vapply(can, `[[`, "", "name"), "()", collapse = ", ")))
}

censoring_trait <- function(entry, link) {
  tab <- core_families()$families
  isTRUE(tab$censoring[tab$code == entry$core(link)])
}

# The censored rows' log likelihood in place of the density's: ll (S x N) from the family's
# log_lik(), y the response matrix, cens the codes and bounds of the N observations.
censored_log_lik <- function(ll, y, cens, parts) {
  idx <- which(cens$code != 0L)
  if (!length(idx)) return(ll)
  sub <- parts
  sub$eta <- parts$eta[, idx, drop = FALSE]
  S <- nrow(sub$eta)
  at <- function(v) matrix(v, S, length(idx), byrow = TRUE)
  lcdf <- parts$family$entry$log_cdf
  code <- at(cens$code[idx])
  lo <- lcdf(y[, idx, drop = FALSE], sub, FALSE)
  up <- lcdf(y[, idx, drop = FALSE], sub, TRUE)
  out <- ifelse(code == -1L, lo, up)
  if (any(code == 2L)) {
    y2 <- at(cens$y2[idx])
    lo2 <- lcdf(y2, sub, FALSE)
    up2 <- lcdf(y2, sub, TRUE)
    between <- ifelse(lo < log(0.5), lo2 + log1m_exp(lo - lo2), up + log1m_exp(up2 - up))
    out <- ifelse(code == 2L, between, out)
  }
  ll[, idx] <- out
  ll
}

log1m_exp <- function(a) ifelse(a > -log(2), log(-expm1(a)), log1p(-exp(a)))

# The censoring of newdata's rows (log_lik(newdata =), kfold()): the cens() variables
# evaluated in newdata, or its Surv() response.
newdata_censoring <- function(model, y, newdata) {
  ex <- model$censoring
  if (is.null(ex) && !inherits(y, "Surv")) return(list(y = y, cens = NULL))
  env <- environment(model$formula) %||% parent.frame()
  value <- function(e) if (!is.null(e)) eval(e, newdata, env)
  response_censoring(y, if (!is.null(ex)) value(ex$cens), if (!is.null(ex)) value(ex$y2), model$family)
}

# "12 right-censored, 3 left-censored" for the model's label; "" without censoring.
censoring_label <- function(cens) {
  if (is.null(cens)) return("")
  n <- table(factor(cens$code, levels = c(1L, -1L, 2L), labels = c("right", "left", "interval")))
  n <- n[n > 0]
  paste0(", ", paste(sprintf("%d %s-censored", as.integer(n), names(n)), collapse = ", "))
}
