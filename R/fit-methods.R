# print, summary and plot methods for vhmc_fit objects.

# Header lines shared by print() and print(summary()).
fit_header <- function(x) {
  args <- x$args
  s <- x$sampler
  details <- character()
  if (!is.null(s$adapt_delta)) {
    details <- c(details, paste0("adapt_delta = ", s$adapt_delta))
  }
  if (!is.null(s$max_treedepth)) {
    details <- c(details, paste0("max_treedepth = ", s$max_treedepth))
  }
  line1 <- paste0("vhmc fit: ", sampler_label(s))
  if (length(details)) {
    line1 <- paste0(line1, "; ", paste(details, collapse = ", "))
  }
  if (!is.null(x$model$label)) {
    line1 <- paste0(line1, "\nmodel: ", x$model$label)
  } else if (!is.null(x$model$type) && !identical(x$model$type, "custom")) {
    line1 <- paste0(line1, "\nmodel: ", x$model$type)
  }
  line1 <- paste(c(line1, glmer_header(x), header_lines(s, x)), collapse = "\n")
  line2 <- paste0(
    fit_nchains(x), " chain", if (fit_nchains(x) == 1L) "" else "s", " x ",
    fit_niterations(x), " post-warmup draws (thin = ", fit_thin(x),
    "), warmup = ", warmup_label(x), start_label(x)
  )
  c(line1, line2)
}

# A multilevel fit's terms: levels, prior and how each is sampled.
glmer_header <- function(x) {
  g <- x$model$glmer
  if (is.null(g)) return(character())
  terms <- vapply(seq_along(g$terms), function(t) {
    ratio <- g$information_ratio[t]
    kappa <- if (length(ratio)) paste0(" (information ratio ", formatC(ratio, digits = 2, format = "fg"), ")") else ""
    sprintf("(%s) %d levels, %s%s", term_key(g$terms[[t]]), length(g$terms[[t]]$levels),
            if (isTRUE(g$marginal)) "integrated out (effects drawn from their conditional)" else
              if (isTRUE(g$centred[t])) "centred" else "non-centred", kappa)
  }, "")
  c(paste0("group-level terms: ", paste(terms, collapse = "; "),
           " (parameterization = \"", g$parameterization, "\")"),
    if (identical(g$likelihood, "cells")) {
      sprintf("gaussian likelihood from per-cell statistics: %s cells of the grouping factors, %s rows",
              format(g$cells, big.mark = ","), format(length(g$terms[[1L]]$group), big.mark = ","))
    })
}

# "1000", or "automatic, 200-260 iterations (at most 1000)".
warmup_label <- function(x) {
  if (!isTRUE(x$args$warmup_auto)) return(as.character(fit_warmup(x)))
  taken <- range(x$timing$warmup_iterations)
  sprintf("automatic, %s iterations (at most %d)",
          if (taken[1] == taken[2]) taken[1] else paste(taken, collapse = "-"), fit_warmup(x))
}

# "; start: posterior mode", or nothing for fits made before starts were recorded.
start_label <- function(x) {
  st <- x$start
  if (is.null(st)) return("")
  what <- switch(st$method, mode = "posterior mode (Laplace draws)", random = "random",
                 init = "user's init")
  paste0("; start: ", what, if (!is.null(st$reason)) " (no usable mode)")
}

# Format a numeric vector with `digits` significant digits, no scientific
# notation for moderate values, NA shown as "NA".
format_sig <- function(x, digits) {
  out <- formatC(x, digits = digits, format = "fg", flag = "#")
  out <- sub("\\.$", "", trimws(out))
  big <- !is.na(x) & (abs(x) >= 1e6 | (abs(x) < 1e-4 & x != 0))
  out[big] <- formatC(x[big], digits = max(digits - 1L, 1L), format = "e")
  out[is.na(x)] <- "NA"
  out
}

# Format a table of summaries for printing: estimates with `digits`
# significant digits, rhat with 3 decimals, ESS as integers.
format_summary_table <- function(tab, digits) {
  out <- data.frame(row.names = tab$variable)
  for (col in setdiff(names(tab), "variable")) {
    v <- as.numeric(tab[[col]])
    out[[col]] <- if (col == "rhat") {
      ifelse(is.na(v), "NA", formatC(v, digits = 3, format = "f"))
    } else if (startsWith(col, "ess_")) {
      ifelse(is.na(v), "NA", formatC(round(v), format = "d"))
    } else {
      format_sig(v, digits)
    }
  }
  out
}

# Divergence summary line (NULL when the sampler does not report them).
divergence_line <- function(x) {
  div <- fit_diagnostic(x, "divergent__")
  if (is.null(div)) {
    return(NULL)
  }
  n <- sum(unlist(div) != 0, na.rm = TRUE)
  total <- fit_ndraws(x)
  if (n == 0) {
    return(paste0("Divergences: none in ", total, " post-warmup transitions."))
  }
  paste0("Divergences: ", n, " of ", total, " post-warmup transitions (",
         format(round(100 * n / total, 1), nsmall = 1), "%); results may ",
         "be biased.\nTo fix: ", divergence_fix(x$sampler), divergence_hint(x), "; see sampler_diagnostics().")
}

#' Print a vhmc fit
#'
#' Shows the sampler and chain configuration, a table of the first `max_vars`
#' variables (posterior mean, sd, 5%, 50% and 95% quantiles, R-hat, bulk-ESS
#' and tail-ESS, all computed by \pkg{posterior}) and the total number of
#' divergent transitions.
#'
#' Estimates are shown with `digits` significant digits, R-hat with three
#' decimals and ESS rounded to whole numbers. Use [summary.vhmc_fit()] for all
#' summaries, Monte Carlo standard errors and per-chain diagnostics.
#'
#' @param x A `vhmc_fit` object.
#' @param digits Number of significant digits for the estimates.
#' @param max_vars Maximum number of variables to show.
#' @param ... Ignored.
#' @return `x`, invisibly.
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' fit
#' print(fit, digits = 4)
#' }
print.vhmc_fit <- function(x, digits = 3, max_vars = 20, ...) {
  check_count(digits, "digits")
  if (!identical(max_vars, Inf)) check_count(max_vars, "max_vars")
  cat(fit_header(x), sep = "\n")
  vars <- fit_variables(x)
  shown <- vars[seq_len(min(length(vars), max_vars))]
  cat("\n")
  if (length(shown)) {
    draws <- posterior::subset_draws(fit_draws(x), variable = shown)
    tab <- draws_summary_table(draws, c(0.05, 0.5, 0.95))
    tab <- tab[c("variable", "mean", "sd", "q5", "q50", "q95", "rhat", "ess_bulk", "ess_tail")]
    print(format_summary_table(tab, digits), quote = FALSE, right = TRUE)
  }
  hidden <- length(vars) - length(shown)
  if (hidden > 0) {
    cat("... ", hidden, " more variable", if (hidden == 1) "" else "s",
        " not shown; use print(fit, max_vars = Inf) or summary(fit).\n",
        sep = "")
  }
  dl <- divergence_line(x)
  if (!is.null(dl)) cat("\n", dl, "\n", sep = "")
  invisible(x)
}

#' Summarise a vhmc fit
#'
#' Posterior summaries of every variable and per-chain sampler diagnostics.
#'
#' `$variables` is the table [posterior::summarise_draws()] gives (class
#' `draws_summary`, a tibble; the same values, computed by vhmc's C++ core in
#' seconds for tens of thousands of variables) with the columns `variable`, `mean`, `median`,
#' `sd`, `mad`, one quantile column per element of `probs` (`q5`, `q50`,
#' `q95` by default), `rhat`, `ess_bulk`, `ess_tail`, `mcse_mean`,
#' `mcse_median`, `mcse_sd` and one `mcse_` column per element of `probs`
#' (posterior's default summary, convergence and MCSE measures, with the
#' quantiles taken at `probs`). Numeric columns are plain doubles.
#'
#' `$chains` has one row per chain: `chain`, `divergences` (post-warmup
#' divergent transitions), `treedepth_hits` (transitions that reached
#' `max_treedepth`), `ebfmi` (energy Bayesian fraction of missing information;
#' below 0.3 is a warning sign), `mean_accept_stat`, `step_size` (adapted step
#' size), `n_grad` (gradient evaluations, warmup included), `warmup_seconds`,
#' `sampling_seconds`. Entries are `NA` when the sampler does not report the
#' statistic (e.g. stochastic-gradient samplers have no energy).
#'
#' `$counts` and `$timing` are the fit's per-chain evaluation counts and wall
#' times; `$model_runs`, for a log density written in R, its calls by phase (see
#' [vhmc_sample()]).
#'
#' @param object A `vhmc_fit` object.
#' @param probs Probabilities of the quantiles to report.
#' @param ... Ignored.
#' @return An object of class `summary.vhmc_fit`: a list with `variables`,
#'   `chains`, `counts`, `model_runs`, `timing`, `probs` and `header` (printed text).
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' s <- summary(fit, probs = c(0.025, 0.5, 0.975))
#' s
#' s$variables$mean
#' s$chains
#' }
summary.vhmc_fit <- function(object, probs = c(0.05, 0.5, 0.95), ...) {
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) ||
      any(probs < 0 | probs > 1)) {
    stop("`probs` must be a numeric vector of probabilities in [0, 1].",
         call. = FALSE)
  }
  vars <- draws_summary_table(fit_draws(object), probs)
  structure(
    list(
      variables = vars,
      chains = chain_diagnostics(object),
      counts = object$counts,
      model_runs = object$model_runs,
      timing = object$timing,
      probs = probs,
      header = fit_header(object)
    ),
    class = "summary.vhmc_fit"
  )
}

#' @rdname summary.vhmc_fit
#' @param x A `summary.vhmc_fit` object.
#' @param digits Number of significant digits for the estimates.
#' @export
print.summary.vhmc_fit <- function(x, digits = 3, ...) {
  check_count(digits, "digits")
  cat(x$header, sep = "\n")
  cat("\nVariables:\n")
  tab <- as.data.frame(x$variables)
  # q50 and mcse_q50 repeat median and mcse_median: show them once
  for (dup in list(c("q50", "median"), c("mcse_q50", "mcse_median"))) {
    if (all(dup %in% names(tab)) && isTRUE(all.equal(tab[[dup[1]]],
                                                     tab[[dup[2]]]))) {
      tab[[dup[1]]] <- NULL
    }
  }
  print(format_summary_table(tab, digits), quote = FALSE, right = TRUE)

  cat("\nChains:\n")
  ch <- x$chains
  ch_out <- data.frame(
    chain = ch$chain,
    divergent = ifelse(is.na(ch$divergences), "NA",
                       as.character(ch$divergences)),
    max_depth = ifelse(is.na(ch$treedepth_hits), "NA",
                       as.character(ch$treedepth_hits)),
    ebfmi = ifelse(is.na(ch$ebfmi), "NA",
                   formatC(ch$ebfmi, digits = 2, format = "f")),
    accept = ifelse(is.na(ch$mean_accept_stat), "NA",
                    formatC(ch$mean_accept_stat, digits = 2, format = "f")),
    step_size = format_sig(ch$step_size, digits),
    n_grad = ifelse(is.na(ch$n_grad), "NA",
                    formatC(ch$n_grad, format = "d", big.mark = "")),
    warmup_s = ifelse(is.na(ch$warmup_seconds), "NA",
                      formatC(ch$warmup_seconds, digits = 2, format = "f")),
    sampling_s = ifelse(is.na(ch$sampling_seconds), "NA",
                        formatC(ch$sampling_seconds, digits = 2,
                                format = "f")),
    stringsAsFactors = FALSE
  )
  if (!is.null(x$counts$epochs)) {
    ch_out$epochs <- format_sig(x$counts$epochs[match(ch$chain, x$counts$chain)], digits)
  }
  print(ch_out, row.names = FALSE, right = TRUE)
  cat("(max_depth: transitions that hit max_treedepth; ebfmi < 0.3 is a ",
      "warning sign;\n accept: mean accept_stat__; times in seconds)\n",
      sep = "")

  print_model_runs(x)
  if (!is.null(x$counts$target_errors)) {
    n_err <- sum(x$counts$target_errors, na.rm = TRUE)
    if (n_err > 0) {
      cat("\nThe target function errored or returned a non-finite value ",
          n_err, " time", if (n_err == 1) "" else "s",
          " (treated as rejections).\n", sep = "")
    }
  }
  invisible(x)
}

#' Plot a vhmc fit
#'
#' Trace plots (one line per chain) or marginal density plots (one curve per
#' chain, overlaid) of the post-warmup draws, drawn with base graphics, one
#' panel per variable. Traces are plotted against the sampler's iteration
#' numbers (`warmup + 1`, `warmup + 1 + thin`, ...).
#'
#' The graphical parameters (`par()`) are restored on exit.
#'
#' @param x A `vhmc_fit` object.
#' @param pars Character vector of variable names to plot; by default the
#'   first six variables.
#' @param type `"trace"` or `"density"`.
#' @param ... Further graphical parameters passed to [graphics::matplot()]
#'   (trace) or [graphics::plot()] (density), e.g. `lwd`.
#' @return `x`, invisibly.
#' @importFrom graphics par matplot plot lines legend
#' @importFrom grDevices hcl.colors adjustcolor n2mfrow
#' @importFrom stats density
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' plot(fit)
#' plot(fit, pars = "a", type = "density")
#' }
plot.vhmc_fit <- function(x, pars = NULL, type = c("trace", "density"), ...) {
  type <- match.arg(type)
  vars <- fit_variables(x)
  if (is.null(pars)) {
    pars <- vars[seq_len(min(6L, length(vars)))]
  } else {
    if (!is.character(pars) || !length(pars) || anyNA(pars)) {
      stop("`pars` must be NULL or a character vector of variable names.",
           call. = FALSE)
    }
    unknown <- setdiff(pars, vars)
    if (length(unknown)) {
      stop("Unknown variable(s) in `pars`: ",
           paste0("'", unknown, "'", collapse = ", "), ". Available: ",
           format_names(paste0("'", vars, "'"), 20), ".", call. = FALSE)
    }
  }
  a <- unclass(fit_draws(x))
  n_chains <- dim(a)[2]
  cols <- if (n_chains == 1L) "black" else
    hcl.colors(n_chains, palette = "Dark 3")
  iters <- fit_saved_iterations(x)

  op <- par(mfrow = n2mfrow(length(pars)), mar = c(4, 4, 2, 1))
  on.exit(par(op), add = TRUE)
  for (v in pars) {
    m <- matrix(a[, , v], ncol = n_chains)
    if (type == "trace") {
      matplot(iters, m, type = "l", lty = 1,
              col = adjustcolor(cols, alpha.f = 0.8),
              xlab = "iteration", ylab = v, main = v, ...)
    } else {
      dens <- lapply(seq_len(n_chains), function(ch) {
        vals <- m[, ch]
        vals <- vals[is.finite(vals)]
        if (length(vals) < 2L || length(unique(vals)) < 2L) NULL else
          density(vals)
      })
      ok <- !vapply(dens, is.null, logical(1))
      if (!any(ok)) {
        empty_panel(v)
        next
      }
      xr <- range(unlist(lapply(dens[ok], `[[`, "x")))
      yr <- c(0, max(unlist(lapply(dens[ok], `[[`, "y"))))
      plot(xr, yr, type = "n", xlab = v, ylab = "density", main = v, ...)
      for (ch in which(ok)) {
        lines(dens[[ch]], col = cols[ch])
      }
    }
  }
  if (n_chains > 1L) {
    legend("topright", legend = paste("chain", seq_len(n_chains)),
           col = cols, lty = 1, bty = "n", cex = 0.7)
  }
  invisible(x)
}

# An empty panel for a variable that cannot be drawn (constant draws).
empty_panel <- function(v) {
  plot(0, 0, type = "n", axes = FALSE, xlab = "", ylab = "", main = v)
  graphics::text(0, 0, "constant or non-finite draws")
}

# The calls of the user's log density and gradient (a target written in R: the cost of an
# expensive model, whatever the machine), by phase (the start, each phase of the chains
# summed over chains) and in total.
print_model_runs <- function(x) {
  runs <- x$model_runs
  if (is.null(runs)) return(invisible())
  phases <- unique(runs$phase)
  by <- vapply(phases, function(p) colSums(runs[runs$phase == p, c("log_density", "gradient"), drop = FALSE]),
               numeric(2))
  ran <- phases == "start" | colSums(by) > 0  # a phase of no iterations (a hand-over that never came)
  phases <- phases[ran]
  by <- by[, ran, drop = FALSE]
  fmt <- function(v) if (v[2] > 0) sprintf("%s + %s", big(v[1]), big(v[2])) else big(v[1])
  parts <- vapply(seq_along(phases), function(i) sprintf("%s %s", phases[i], fmt(by[, i])), character(1))
  cat(sprintf("\nModel runs (log_density%s calls): %s; total %s\n",
              if (any(by[2, ] > 0)) " + gradient" else "", paste(parts, collapse = "; "), fmt(rowSums(by))))
  invisible()
}

big <- function(v) format(round(v), big.mark = ",", scientific = FALSE)
