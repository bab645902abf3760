# plot() and print() of conditional_effects(): one ggplot per effect (ggplot2 is a Suggests).

#' Plot conditional effects
#'
#' Draws each effect of [conditional_effects()] with ggplot2, as brms does: for a numeric
#' effect the estimate as a line over its credible band, for a factor points with error
#' bars; an interaction's second variable (or an ordinal model's categories) in colour, and
#' one panel per condition when `conditions` had several rows. `print()` draws them too.
#'
#' @param x The result of [conditional_effects()].
#' @param points Add the fitted observations (their response against the effect, on the
#'   scale of `posterior_epred()`; under each condition those rows whose factor variables
#'   have the condition's levels, as brms). Not for `categorical = TRUE`.
#' @param ncol Number of columns of the panels of several conditions.
#' @param line_args,cat_args,errorbar_args,point_args,ribbon_args Lists of arguments that
#'   replace or add to the defaults of [ggplot2::geom_line()] (numeric effects),
#'   [ggplot2::geom_point()] (factor effects), [ggplot2::geom_errorbar()],
#'   [ggplot2::geom_point()] (the observations) and [ggplot2::geom_ribbon()] (the bands).
#' @param theme A ggplot2 theme added to every plot, e.g. `ggplot2::theme_bw()`.
#' @param ask Whether to ask before each new page when several plots are drawn on an
#'   interactive device.
#' @param plot Draw the plots; `FALSE` only returns them.
#' @param ... Must be empty (`print()`: passed on to `plot()`).
#' @return Invisibly, a named list of ggplot objects, one per effect, which can be modified
#'   further (`p$wt + ggplot2::labs(title = ...)`). `print()` returns `x` invisibly.
#' @seealso [conditional_effects()]
#' @examples
#' \donttest{
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   fit <- vhmc_glm(vs ~ mpg + factor(am), data = mtcars, family = binomial(), chains = 2,
#'                   iter = 1000, seed = 1, progress = FALSE)
#'   p <- plot(conditional_effects(fit), points = TRUE, plot = FALSE)
#'   p$mpg + ggplot2::labs(y = "P(straight engine)")
#' }
#' }
#' @export
plot.vhmc_conditional_effects <- function(x, points = FALSE, ncol = NULL, line_args = list(), cat_args = list(),
                                          errorbar_args = list(), point_args = list(), ribbon_args = list(),
                                          theme = NULL, ask = TRUE, plot = TRUE, ...) {
  check_no_dots(list(...), "plot.vhmc_conditional_effects")
  require_suggested("ggplot2", "plot() of conditional effects")
  check_flag(points, "points")
  check_flag(ask, "ask")
  check_flag(plot, "plot")
  if (!is.null(ncol)) ncol <- check_count(ncol, "ncol")
  args <- list(line = line_args, cat = cat_args, errorbar = errorbar_args, point = point_args, ribbon = ribbon_args)
  for (a in names(args)) {
    if (!is.list(args[[a]])) stop_arg(paste0(a, "_args"), sprintf("must be a list of arguments, not %s", describe(args[[a]])))
  }
  plots <- lapply(x, ce_plot, points = points, ncol = ncol, args = args, theme = theme)
  if (plot) {
    if (ask && length(plots) > 1L && grDevices::dev.interactive()) {
      old <- grDevices::devAskNewPage(TRUE)
      on.exit(grDevices::devAskNewPage(old), add = TRUE)
    }
    for (p in plots) print(p)
  }
  invisible(plots)
}

#' @rdname plot.vhmc_conditional_effects
#' @export
print.vhmc_conditional_effects <- function(x, ...) {
  plot(x, ...)
  invisible(x)
}

# One effect's ggplot.
ce_plot <- function(df, points, ncol, args, theme) {
  effects <- attr(df, "effects")
  two <- length(effects) == 2L
  map <- c(x = "effect1__", y = "estimate__", ymin = "lower__", ymax = "upper__")
  if (two) map <- c(map, colour = "effect2__", fill = "effect2__")
  p <- ggplot2::ggplot(df, ce_aes(map))
  if (points && !is.null(attr(df, "points"))) p <- p + ce_points_layer(attr(df, "points"), two, args$point)
  if (is.numeric(df$effect1__)) {
    p <- p + do.call(ggplot2::geom_ribbon, utils::modifyList(list(alpha = 0.25, colour = NA), args$ribbon)) +
      do.call(ggplot2::geom_line, args$line)
  } else {
    dodge <- ggplot2::position_dodge(width = if (two) 0.4 else 0)
    p <- p + do.call(ggplot2::geom_point, utils::modifyList(list(position = dodge, size = 2), args$cat)) +
      do.call(ggplot2::geom_errorbar, utils::modifyList(list(position = dodge, width = 0.3), args$errorbar))
  }
  if (nlevels(df$cond__) > 1L) p <- p + ggplot2::facet_wrap("cond__", ncol = ncol)
  categorical <- isTRUE(attr(df, "categorical"))
  # An ordinal model's categories are the response's: the legend names it, the axis says probability.
  legend <- if (categorical) attr(df, "response") else effects[2L]
  p <- p + ggplot2::labs(x = effects[1L], y = if (categorical) "Probability" else attr(df, "response"),
                         colour = legend, fill = legend)
  if (!is.null(theme)) p <- p + theme
  p
}

# The observations as points, coloured by a factor second effect (a numeric one has no
# colour of its values among the three curves).
ce_points_layer <- function(points, two, point_args) {
  map <- c(x = "effect1__", y = "resp__")
  if (two && !is.null(points$effect2__)) map <- c(map, colour = "effect2__")
  do.call(ggplot2::geom_point, utils::modifyList(list(data = points, mapping = ce_aes(map), inherit.aes = FALSE,
                                                      alpha = 0.5), point_args))
}

# aes() of column names: the names as symbols, which aes() quotes like typed ones.
ce_aes <- function(map) do.call(ggplot2::aes, lapply(map, as.name))
