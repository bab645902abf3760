# The data and lags of an ARDL model, checked before any sampling: the series, the lagged
# design and response, what forecasts start from.

# Everything about the data and lags, checked, before any sampling: the series, the lagged
# design Z and response y (Asaad 2017, eq. 8), and what forecasts start from.
ardl_build <- function(formula, data, p, q, time = NULL) {
  p <- check_lag(p, "p")
  series <- ardl_series(formula, data, time, environment(formula))
  m <- ncol(series$x)
  q <- check_q(q, m, colnames(series$x))
  if (p == 0L && m == 0L) {
    stop_arg("p", "is 0 and the formula has no regressors, so the model has no lagged terms",
             "Use p >= 1 for an autoregression, or add regressors to the formula.")
  }
  t0 <- max(p, q, 0L)
  n_series <- length(series$y)
  d <- as.integer(series$intercept) + p + sum(q + 1L)
  min_rows <- d + 2L
  if (n_series - t0 < min_rows) {
    stop_arg("data", sprintf(paste("has %d observations, too few for ARDL(p = %d, q = %s): %d are lost",
                                   "to the lags and the %d coefficients need at least %d more rows"),
                             n_series, p, if (m) paste(q, collapse = ", ") else "-", t0, d, min_rows),
             "Use smaller lag orders `p` and `q`, or a longer series.")
  }
  design <- ardl_design(series$y, series$x, p, q, series$intercept, series$yname)
  list(p = p, q = q, formula = formula, response = series$yname,
       regressors = colnames(series$x), intercept = series$intercept,
       Z = design$Z, y = design$y, t0 = t0, series = series$y, x = series$x,
       time = series$time, time_name = series$time_name, tsp = series$tsp,
       last_y = series$y[seq.int(n_series - p + 1L, length.out = p)],
       last_x = series$x[seq.int(n_series - (if (m) max(q) else 0L) + 1L, length.out = if (m) max(q) else 0L), ,
                         drop = FALSE])
}

ardl_order_label <- function(a) {
  q <- a$q
  qs <- if (!length(q)) "-" else if (length(unique(q)) == 1L) q[1] else
    sprintf("(%s)", paste(q, collapse = ", "))
  sprintf("ARDL(%d, %s)", a$p, qs)
}

check_lag <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x)) {
    stop_arg(arg, sprintf("must be a single whole number >= 0, not %s", describe(x)))
  }
  if (x < 0) stop_arg(arg, sprintf("must be >= 0 (a number of lags), not %s", format(x)))
  if (x != round(x)) stop_arg(arg, sprintf("must be a whole number of lags, not %s", format(x)),
                              sprintf("Use %d or %d.", floor(x), ceiling(x)))
  as.integer(x)
}

# q: one lag order per regressor (recycled from a single value).
check_q <- function(q, m, regressors) {
  if (m == 0L) return(integer())
  if (is.null(q)) {
    stop_arg("q", "is NULL, but the formula has regressors",
             "Give the largest regressor lag (e.g. q = 0 for contemporaneous regressors only).")
  }
  if (!is.numeric(q) || anyNA(q) || any(!is.finite(q)) || length(q) == 0L) {
    stop_arg("q", sprintf("must be whole numbers >= 0, not %s", describe(q)))
  }
  if (length(q) != 1L && length(q) != m) {
    stop_arg("q", sprintf("has length %d, but the formula has %d regressor%s (%s)", length(q), m,
                          if (m > 1) "s" else "", paste0("`", regressors, "`", collapse = ", ")),
             "Give one lag order for all regressors or one per regressor, in the formula's order.")
  }
  if (any(q < 0)) stop_arg("q", sprintf("must be >= 0 (numbers of lags), not %s", paste(q, collapse = ", ")))
  if (any(q != round(q))) stop_arg("q", sprintf("must be whole numbers of lags, not %s", paste(q, collapse = ", ")))
  stats::setNames(rep_len(as.integer(q), m), regressors)
}

# The response and regressor series (numeric, complete, in time order) from the formula.
ardl_series <- function(formula, data, time, env) {
  if (!is.null(time) && (!is.character(time) || length(time) != 1L || is.na(time))) {
    stop_arg("time", sprintf("must be the name of a column of `data`, not %s", describe(time)))
  }
  d <- ardl_data_frame(data, time, all.vars(formula[[2L]]))
  if (!is.null(time)) d <- ardl_time_column(d, time, formula)
  data <- d$data
  check_formula_variables(formula, data, env)
  mf <- tryCatch(stats::model.frame(formula, data = data %||% env, na.action = stats::na.pass),
                 error = function(e) stop_arg("formula", sprintf("could not be evaluated: %s", conditionMessage(e))))
  tt <- attr(mf, "terms")
  if (!is.null(attr(tt, "offset"))) stop_arg("formula", "must not contain an offset")
  labels <- attr(tt, "term.labels")
  if (any(attr(tt, "order") > 1L)) {
    stop_arg("formula", sprintf("has interaction terms (%s)",
                                paste0("`", labels[attr(tt, "order") > 1L], "`", collapse = ", ")),
             "Compute the product as its own numeric column.")
  }
  y <- stats::model.response(mf)
  if (is.null(d$time) && stats::is.ts(y)) d[c("tsp", "time")] <- list(stats::tsp(y), as.numeric(stats::time(y)))
  check_series(y, deparse1(formula[[2L]]), "response")
  list(y = as.numeric(y), x = ardl_regressors(mf, labels), yname = deparse1(formula[[2L]]),
       intercept = attr(tt, "intercept") == 1L, time = d$time %||% seq_along(y),
       time_name = d$time_name, tsp = d$tsp)
}

# `data` as a data frame: a ts (its time index kept) or mts, a data frame, a matrix with
# column names or a list of equal-length series.
ardl_data_frame <- function(data, time, lhs_vars) {
  out <- list(data = data, time = NULL, time_name = NULL, tsp = NULL)
  if (is.null(data) || is.data.frame(data)) return(out)
  if (stats::is.ts(data)) {
    if (!is.null(time)) stop_arg("time", "is not used with a ts object (its time index is used)", "Leave `time` out.")
    out$tsp <- stats::tsp(data)
    out$time <- as.numeric(stats::time(data))
    if (is.matrix(data)) {
      out$data <- as.data.frame(unclass(data))
      if (is.null(colnames(data))) stop_arg("data", "is an mts without column names", "Name its columns.")
    } else {
      if (length(lhs_vars) != 1L) stop_arg("formula", "must name the univariate ts `data` by its response")
      out$data <- stats::setNames(data.frame(as.numeric(data)), lhs_vars)
    }
  } else if (is.matrix(data) && !is.null(colnames(data))) {
    out$data <- as.data.frame(data)
  } else if (is.list(data)) {
    out$data <- tryCatch(as.data.frame(data, optional = TRUE), error = function(e)
      stop_arg("data", "is a list whose elements do not form a data frame", "Use series of equal length."))
  } else {
    stop_arg("data", sprintf("must be a data frame, a ts or an mts object, not %s", describe(data)))
  }
  out
}

# Rows ordered by the `time` column, which must be complete, unique and equally spaced; the
# column becomes the time index and leaves the data.
ardl_time_column <- function(d, time, formula) {
  data <- d$data
  if (is.null(data)) stop_arg("time", "names a column, but `data` is missing", "Give `data`.")
  if (!time %in% names(data)) {
    stop_arg("time", sprintf("is \"%s\", which is not a column of `data`", time),
             sprintf("Use one of %s.", paste0("\"", utils::head(names(data), 8), "\"", collapse = ", ")))
  }
  tv <- data[[time]]
  if (anyNA(tv)) stop_arg("time", sprintf("column \"%s\" has missing values", time))
  if (anyDuplicated(tv)) stop_arg("time", sprintf("column \"%s\" has repeated values", time),
                                  "An ARDL model needs one row per time point.")
  o <- order(tv)
  check_time_spacing(tv[o], time)
  if (time %in% all.vars(formula)) {
    stop_arg("formula", sprintf("uses the time column `%s`", time),
             "Add a trend as its own numeric column if you want one.")
  }
  data <- data[o, , drop = FALSE]
  data[[time]] <- NULL
  list(data = data, time = tv[o], time_name = time, tsp = NULL)
}

# Variables the formula needs but neither `data` nor the formula's environment has.
check_formula_variables <- function(formula, data, env) {
  vars <- setdiff(all.vars(formula), ".")
  absent <- vars[!vapply(vars, function(v) (!is.null(data) && v %in% names(data)) ||
                           exists(v, envir = env), logical(1))]
  if (length(absent)) {
    stop_arg("formula", sprintf("uses %s, not found in `data`", paste0("`", absent, "`", collapse = ", ")),
             if (!is.null(data)) sprintf("Check the spelling; `data` has %s.",
                                          paste0("`", utils::head(names(data), 10), "`", collapse = ", ")))
  }
  invisible()
}

# The regressor series as the columns of a matrix, each checked.
ardl_regressors <- function(mf, labels) {
  x <- matrix(0, nrow = nrow(mf), ncol = length(labels), dimnames = list(NULL, labels))
  for (lab in labels) {
    v <- mf[[lab]]
    if (is.matrix(v) && ncol(v) != 1L) {
      stop_arg("formula", sprintf("term `%s` has %d columns", lab, ncol(v)),
               "Enter each regressor as its own term.")
    }
    check_series(v, lab, "regressor")
    x[, lab] <- as.numeric(v)
  }
  x
}

# Lags count rows, so the rows must be equally spaced in time: constant numeric steps, or for
# dates a constant number of days (or seconds) or of calendar months (monthly, quarterly,
# yearly data). A gap is reported in the unit of the data's own spacing: months only when
# every step crosses a month (monthly and coarser data); days, or seconds scaled to a
# readable unit, otherwise (daily, weekly, hourly data).
check_time_spacing <- function(tv, name) {
  if (length(tv) < 3L) return(invisible())
  step <- diff(as.numeric(tv))
  if (all(abs(step - step[1L]) <= 1e-8 * abs(step[1L]))) return(invisible())
  unit <- if (inherits(tv, "Date")) "days" else if (inherits(tv, "POSIXt")) "secs" else ""
  if (inherits(tv, c("Date", "POSIXt"))) {
    lt <- as.POSIXlt(tv)
    months <- diff(lt$year * 12 + lt$mon)
    if (all(months == months[1L]) && months[1L] > 0 && length(unique(lt$mday)) == 1L) return(invisible())
    if (all(months > 0)) {
      step <- months
      unit <- "months"
    }
  }
  gap <- which.max(abs(step - stats::median(step)))
  stop_arg("time", sprintf(paste("column \"%s\" is not equally spaced: the step from %s to %s is %s,",
                                 "where the typical step is %s; lags need equally spaced observations"),
                           name, format(tv[gap]), format(tv[gap + 1L]), format_step(step[gap], unit),
                           format_step(stats::median(step), unit)),
           "Fill the missing periods (e.g. by imputation) or fit a complete stretch of rows.")
}

# A step of time in its unit ("3 days", "1 month"); seconds of date-times in the largest unit
# that keeps the typical steps readable ("2 hours", "15 mins").
format_step <- function(x, unit) {
  if (identical(unit, "")) return(format(x))
  if (identical(unit, "secs")) {
    per <- c(weeks = 604800, days = 86400, hours = 3600, mins = 60, secs = 1)
    unit <- names(per)[which(abs(x) >= per | names(per) == "secs")[1]]
    x <- x / per[[unit]]
  }
  if (abs(x) == 1) unit <- sub("s$", "", unit)
  paste(format(signif(x, 6)), unit)
}

check_series <- function(v, name, what) {
  if (!is.numeric(v) || is.factor(v)) {
    stop_arg("data", sprintf("%s `%s` is not numeric (it is %s)", what, name,
                             if (is.factor(v)) "a factor" else class(v)[1]),
             "ARDL regressors must be numeric series; code categories as 0/1 columns.")
  }
  bad <- which(is.na(v))
  if (length(bad)) {
    stop_arg("data", sprintf("has missing values inside the series `%s` (at position%s %s)", name,
                             if (length(bad) > 1) "s" else "",
                             paste(utils::head(bad, 6), collapse = ", ")),
             "Lags need complete, equally spaced series: impute the values or keep a complete stretch of rows.")
  }
  bad <- which(!is.finite(v))
  if (length(bad)) {
    stop_arg("data", sprintf("has non-finite values in the series `%s` (at position%s %s)", name,
                             if (length(bad) > 1) "s" else "", paste(utils::head(bad, 6), collapse = ", ")))
  }
  invisible()
}

# The lagged design Z (N x d, intercept, the response's lags, then each regressor lag by lag) and response for rows t0 + 1, ..., T.
ardl_design <- function(y, x, p, q, intercept, yname) {
  n <- length(y)
  m <- ncol(x)
  t0 <- max(p, q, 0L)
  rows <- seq.int(t0 + 1L, n)
  cols <- list()
  nm <- character()
  if (intercept) {
    cols[[1L]] <- rep(1, length(rows))
    nm <- "(Intercept)"
  }
  for (k in seq_len(p)) {
    cols[[length(cols) + 1L]] <- y[rows - k]
    nm <- c(nm, sprintf("L%d.%s", k, yname))
  }
  if (m) {
    for (l in 0:max(q)) {
      for (i in seq_len(m)) {
        if (l <= q[i]) {
          cols[[length(cols) + 1L]] <- x[rows - l, i]
          nm <- c(nm, sprintf("L%d.%s", l, colnames(x)[i]))
        }
      }
    }
  }
  Z <- matrix(unlist(cols, use.names = FALSE), nrow = length(rows), dimnames = list(NULL, nm))
  list(Z = Z, y = y[rows], rows = rows)
}

