#' Forecasts from a fitted model
#'
#' Generic for h-step-ahead forecasts. vhmc provides a method for ARDL fits,
#' [forecast.vhmc_ardl()]; the generic does not depend on the forecast package.
#'
#' @param object A fitted model.
#' @param ... Arguments passed to methods.
#' @return See the method.
#' @export
forecast <- function(object, ...) UseMethod("forecast")

#' Forecasts from an ARDL fit
#'
#' h-step-ahead forecasts by recursing on the posterior draws: for every draw of the
#' coefficients (and sigma), the model is run forward from the last observed values,
#' adding a fresh normal error with the draw's noise sd at every step; forecasts of the
#' response replace its unobserved lags. The draws of the forecasts are therefore draws of
#' the posterior predictive distribution, with parameter and noise uncertainty.
#' Future values of the regressors (at lags 0..q) must be given in `newdata`.
#'
#' @param object A fit from [vhmc_ardl()].
#' @param newdata Future values of the regressors: a data frame (or `ts`/`mts`, or list)
#'   with `h` rows and the variables of the formula's right-hand side. Needed when the model
#'   has regressors; ignored otherwise. If it has the fit's `time` column, its values label
#'   the forecasts.
#' @param h Forecast horizon (number of steps). Defaults to the number of rows of `newdata`
#'   when that is given.
#' @param level Probabilities of the central predictive intervals.
#' @param ndraws Use only `ndraws` posterior draws, evenly spaced over all chains (all by
#'   default).
#' @param seed Optional seed for the simulated errors; the user's random number stream is
#'   left untouched when given.
#' @param ... Unused.
#' @return An object of class `vhmc_forecast`: a list with `forecast` (a data frame with one
#'   row per horizon: `h`, `time`, `mean`, `median`, and `lower_<level>`/`upper_<level>`
#'   columns in percent, e.g. `lower_80`), `draws` (an S x h matrix of predictive draws),
#'   `level`, and the `history` (time and observed response) used by `plot()`.
#' @seealso [vhmc_ardl()], [plot.vhmc_forecast()]
#' @examples
#' \donttest{
#' fit <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                  progress = FALSE)
#' fc <- forecast(fit, h = 8, seed = 1)
#' fc
#' dim(fc$draws)
#' plot(fc)
#' }
#' @export
forecast.vhmc_ardl <- function(object, newdata = NULL, h = 1, level = c(0.8, 0.95),
                               ndraws = NULL, seed = NULL, ...) {
  if (...length() > 0L) {
    stop_arg("...", "must be empty", "Check the argument names against ?forecast.vhmc_ardl.")
  }
  a <- object$ardl
  m <- length(a$regressors)
  if (!is.numeric(level) || length(level) == 0L || anyNA(level) || any(level <= 0 | level >= 1)) {
    stop_arg("level", sprintf("must be probabilities strictly between 0 and 1, not %s", describe(level)))
  }
  level <- sort(unique(level))
  if (missing(h) && !is.null(newdata) && m > 0L) h <- NROW(newdata)
  h <- check_count(h, "h")
  xfut <- ardl_future_x(object, newdata, h)
  dr <- ardl_draws(object)
  w <- dr$w
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws")
    if (ndraws > nrow(w)) stop_arg("ndraws", sprintf("(%d) exceeds the %d draws in the fit", ndraws, nrow(w)))
    keep <- unique(round(seq(1, nrow(w), length.out = ndraws)))
    w <- w[keep, , drop = FALSE]
    dr$sigma <- dr$sigma[keep]
  }
  sim <- function() ardl_recursion(w, dr$sigma, a, xfut, h, stats::rnorm(nrow(w) * h))
  draws <- if (is.null(seed)) sim() else with_local_seed(resolve_seed(seed), sim())
  colnames(draws) <- paste0("h", seq_len(h))
  times <- ardl_future_time(a, newdata, h)
  tab <- data.frame(h = seq_len(h), time = times, mean = colMeans(draws),
                    median = apply(draws, 2L, stats::median))
  for (lv in level) {
    pr <- c((1 - lv) / 2, (1 + lv) / 2)
    qs <- apply(draws, 2L, stats::quantile, probs = pr, names = FALSE)
    tab[[paste0("lower_", format(100 * lv))]] <- qs[1, ]
    tab[[paste0("upper_", format(100 * lv))]] <- qs[2, ]
  }
  rownames(tab) <- NULL
  structure(list(forecast = tab, draws = draws, level = level, h = h,
                 response = a$response, p = a$p, q = a$q,
                 history = data.frame(time = a$time, y = a$series)),
            class = "vhmc_forecast")
}

# The recursion itself: w S x d (design order), sigma length S, xfut h x m future regressors,
# eps the S * h standard normal errors. Returns the S x h matrix of simulated responses.
ardl_recursion <- function(w, sigma, a, xfut, h, eps) {
  S <- nrow(w)
  p <- a$p
  q <- a$q
  m <- length(a$regressors)
  qmax <- if (m) max(q) else 0L
  eps <- matrix(eps, S, h)
  ybuf <- matrix(0, S, p + h)
  if (p) ybuf[, seq_len(p)] <- rep(a$last_y, each = S)
  xall <- rbind(a$last_x, xfut)
  col <- 0L
  icol <- if (a$intercept) {
    col <- 1L
    1L
  }
  ycols <- col + seq_len(p)
  col <- col + p
  xterms <- NULL
  if (m) {
    for (l in 0:qmax) for (i in seq_len(m)) if (l <= q[i]) {
      col <- col + 1L
      xterms <- rbind(xterms, c(col = col, lag = l, i = i))
    }
  }
  for (k in seq_len(h)) {
    mu <- if (!is.null(icol)) w[, icol] else numeric(S)
    for (j in seq_len(p)) mu <- mu + w[, ycols[j]] * ybuf[, p + k - j]
    if (!is.null(xterms)) {
      for (r in seq_len(nrow(xterms))) {
        mu <- mu + w[, xterms[r, "col"]] * xall[qmax + k - xterms[r, "lag"], xterms[r, "i"]]
      }
    }
    ybuf[, p + k] <- mu + sigma * eps[, k]
  }
  ybuf[, p + seq_len(h), drop = FALSE]
}

# Future regressor values (h x m) from newdata, evaluated as the formula's terms.
ardl_future_x <- function(object, newdata, h) {
  a <- object$ardl
  m <- length(a$regressors)
  if (m == 0L) return(matrix(0, h, 0L))
  if (is.null(newdata)) {
    stop_arg("newdata", sprintf("is needed: the model has regressors (%s) at lags 0..q, so forecasts need their future values",
                                paste0("`", a$regressors, "`", collapse = ", ")),
             sprintf("Give a data frame with %d row%s and those variables.", h, if (h > 1) "s" else ""))
  }
  if (stats::is.ts(newdata) || is.matrix(newdata)) newdata <- as.data.frame(unclass(newdata))
  if (!is.data.frame(newdata) && !is.list(newdata)) {
    stop_arg("newdata", sprintf("must be a data frame, not %s", describe(newdata)))
  }
  n <- NROW(newdata[[1L]])
  if (is.data.frame(newdata)) n <- nrow(newdata)
  if (n != h) {
    stop_arg("newdata", sprintf("has %d row%s but h = %d", n, if (n == 1) "" else "s", h),
             "Give one row of future regressor values per forecast step.")
  }
  env <- environment(a$formula)
  x <- matrix(NA_real_, h, m, dimnames = list(NULL, a$regressors))
  for (lab in a$regressors) {
    v <- tryCatch(eval(str2lang(lab), newdata, env %||% baseenv()), error = function(e) NULL)
    if (is.null(v) || NROW(v) != h) {
      stop_arg("newdata", sprintf("does not give the regressor `%s`", lab),
               sprintf("Add a column for it with %d future value%s.", h, if (h > 1) "s" else ""))
    }
    check_series_new(v, lab)
    x[, lab] <- as.numeric(v)
  }
  x
}

check_series_new <- function(v, lab) {
  if (anyNA(v)) stop_arg("newdata", sprintf("regressor `%s` has missing values", lab),
                         "Forecasts need every future regressor value.")
  if (!is.numeric(v) || is.factor(v)) stop_arg("newdata", sprintf("regressor `%s` is not numeric", lab))
  if (any(!is.finite(v))) stop_arg("newdata", sprintf("regressor `%s` has non-finite values", lab))
}

# Time labels of the forecasts: newdata's time column, else continued from the fit's index.
ardl_future_time <- function(a, newdata, h) {
  if (!is.null(a$time_name) && !is.null(newdata) && !is.null(newdata[[a$time_name]]) &&
      length(newdata[[a$time_name]]) == h) {
    return(newdata[[a$time_name]])
  }
  if (!is.null(a$tsp)) return(a$tsp[2L] + seq_len(h) / a$tsp[3L])
  tm <- a$time
  n <- length(tm)
  if (n >= 2L && inherits(tm, "Date")) {
    # Calendar steps: months, quarters and years have days that vary.
    steps <- diff(as.numeric(tm))
    by <- if (all(steps >= 28 & steps <= 31)) "month" else if (all(steps >= 89 & steps <= 92))
      "quarter" else if (all(steps >= 365 & steps <= 366)) "year"
    if (!is.null(by)) return(seq(tm[n], by = by, length.out = h + 1L)[-1L])
  }
  if (n >= 2L && (is.numeric(tm) || inherits(tm, c("Date", "POSIXt")))) {
    steps <- diff(as.numeric(tm))
    if (all(abs(steps - steps[1L]) <= 1e-8 * max(1, abs(steps[1L])))) {
      return(tm[n] + seq_len(h) * steps[1L])
    }
  }
  if (is.numeric(tm)) return(rep(NA_real_, h))
  tm[rep(NA_integer_, h)]
}

#' @rdname forecast.vhmc_ardl
#' @param x A `vhmc_forecast` object.
#' @param digits Significant digits.
#' @export
print.vhmc_forecast <- function(x, digits = 4, ...) {
  cat(sprintf("Forecasts of %s from an %s fit: %d step%s ahead, %d predictive draws\n",
              x$response, ardl_order_label(x), x$h, if (x$h > 1) "s" else "", nrow(x$draws)))
  tab <- x$forecast
  if (all(is.na(tab$time))) {
    tab$time <- NULL
  } else if (is.numeric(tab$time)) {
    tab$time <- format(tab$time, digits = 7)
  }
  print(tab, digits = digits, row.names = FALSE)
  invisible(x)
}

#' Plot a forecast
#'
#' Base-graphics plot of the observed series and the forecasts: the predictive mean as a
#' line and one shaded band per predictive interval (darker for narrower).
#'
#' @param x A `vhmc_forecast` object from [forecast.vhmc_ardl()].
#' @param n_history Number of last observations shown (all by default).
#' @param col Colour of the forecast line and bands.
#' @param xlab,ylab,main Axis labels and title.
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @examples
#' \donttest{
#' fit <- vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 2, iter = 500, seed = 1,
#'                  progress = FALSE)
#' plot(forecast(fit, h = 10, seed = 1), n_history = 30)
#' }
#' @importFrom graphics polygon
#' @export
plot.vhmc_forecast <- function(x, n_history = NULL, col = "steelblue", xlab = "time",
                               ylab = x$response, main = NULL, ...) {
  hist <- x$history
  if (!is.null(n_history)) {
    n_history <- check_count(n_history, "n_history")
    hist <- utils::tail(hist, n_history)
  }
  tab <- x$forecast
  ft <- tab$time
  if (all(is.na(ft))) {
    # No time labels to continue: use positions after the history's.
    hist$time <- seq_len(nrow(hist))
    ft <- nrow(hist) + seq_len(nrow(tab))
  }
  tx <- hist$time
  if (!(inherits(tx, c("Date", "POSIXct")) && inherits(ft, class(tx)[1L]))) {
    tx <- as.numeric(tx)
    ft <- as.numeric(ft)
  }
  bands <- unlist(tab[grepl("^(lower|upper)_", names(tab))])
  ylim <- range(c(hist$y, tab$mean, bands), finite = TRUE)
  xlim <- range(c(tx, ft), na.rm = TRUE)
  if (is.null(main)) main <- sprintf("Forecasts of %s, %d step%s ahead", x$response, x$h,
                                     if (x$h > 1) "s" else "")
  graphics::plot(tx, hist$y, type = "l", xlim = xlim, ylim = ylim, xlab = xlab, ylab = ylab,
                 main = main, ...)
  # Bands join the last observation so that the forecast starts from it.
  x0 <- as.numeric(utils::tail(tx, 1))
  y0 <- utils::tail(hist$y, 1)
  xs <- c(x0, as.numeric(ft))
  for (i in rev(seq_along(x$level))) {
    lv <- format(100 * x$level[i])
    lo <- c(y0, tab[[paste0("lower_", lv)]])
    up <- c(y0, tab[[paste0("upper_", lv)]])
    alpha <- 0.2 + 0.25 * (length(x$level) - i) / max(1, length(x$level) - 1)
    graphics::polygon(c(xs, rev(xs)), c(lo, rev(up)), border = NA,
                      col = grDevices::adjustcolor(col, alpha.f = alpha))
  }
  graphics::lines(xs, c(y0, tab$mean), col = col, lwd = 2)
  graphics::legend("topleft", bty = "n", lwd = c(1, 2), col = c("black", col),
                   legend = c("observed", sprintf("forecast mean, %s%% intervals",
                                                  paste(format(100 * x$level), collapse = "/"))),
                   cex = 0.8)
  invisible(x)
}

# GLM methods with `newdata` would need the lagged columns: point ARDL users to forecast().
ardl_no_newdata <- function(object, newdata, what) {
  if (!is.null(newdata)) {
    stop_arg("newdata", sprintf("is not supported by %s() for ARDL fits (new rows need the series' lags)", what),
             "Use forecast(fit, newdata, h) for out-of-sample predictions.")
  }
}

#' @noRd
#' @export
predict.vhmc_ardl <- function(object, newdata = NULL, ...) {
  ardl_no_newdata(object, newdata, "predict")
  NextMethod()
}

# The GLM methods below serve both noise models: predictive_parts() refuses `newdata` for ARDL
# fits and gives the lagged design (and, with a fixed noise precision, the known noise sd).
#' @noRd
#' @export
#' @rawNamespace S3method(rstantools::posterior_predict, vhmc_ardl)
posterior_predict.vhmc_ardl <- function(object, ...) posterior_predict.vhmc_glm(object, ...)

#' @noRd
#' @export
#' @rawNamespace S3method(rstantools::posterior_linpred, vhmc_ardl)
posterior_linpred.vhmc_ardl <- function(object, ...) posterior_linpred.vhmc_glm(object, ...)

#' @noRd
#' @export
#' @rawNamespace S3method(rstantools::log_lik, vhmc_ardl)
log_lik.vhmc_ardl <- function(object, ...) log_lik.vhmc_glm(object, ...)
