# Sampler diagnostics (SPEC A7): per-transition Stan-style statistics,
# per-chain summaries (divergences, tree-depth saturation, E-BFMI, acceptance,
# costs) and the post-sampling checks that warn the user.
#
# R-hat, ESS and MCSE come from posterior (never re-implemented here).

#' Per-transition sampler diagnostics of a vhmc fit
#'
#' Returns the sampler's per-iteration statistics for the saved post-warmup
#' draws of every chain, one row per draw, in the same order as
#' [as.data.frame.vhmc_fit()] and [posterior::as_draws_df()], so the two can
#' be joined by `.chain` and `.iteration` (or `.draw`).
#'
#' The columns are `.chain`, `.iteration` (1-based within a chain, counting
#' saved draws), `.draw` (1-based over all chains), then the Stan-named
#' statistics the sampler reports:
#'
#' * `accept_stat__`: acceptance statistic (Metropolis acceptance probability
#'   for static HMC, average over the tree for NUTS);
#' * `stepsize__`: leapfrog step size;
#' * `treedepth__`: NUTS tree depth (NUTS only);
#' * `n_leapfrog__`: number of leapfrog steps (= gradient evaluations);
#' * `divergent__`: 1 if the trajectory diverged, else 0;
#' * `energy__`: Hamiltonian at the end of the transition (used for E-BFMI).
#'
#' Samplers without some statistics (e.g. stochastic-gradient samplers, which
#' report only `stepsize__`) simply lack those columns.
#'
#' @param fit A `vhmc_fit` object.
#' @param inc_warmup Logical. Warmup transitions are not kept in a `vhmc_fit`,
#'   so only `FALSE` (the default) is supported; `TRUE` is an error.
#' @return A data.frame as described above.
#' @seealso [summary.vhmc_fit()] for per-chain summaries of these statistics.
#' @export
#' @examples
#' \donttest{
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, init = c(a = 0, b = 0),
#'                    chains = 2, iter = 1000, seed = 1, progress = FALSE)
#' sd <- sampler_diagnostics(fit)
#' head(sd)
#' sum(sd$divergent__)
#' tapply(sd$accept_stat__, sd$.chain, mean)
#' }
sampler_diagnostics <- function(fit, inc_warmup = FALSE) {
  assert_vhmc_fit(fit)
  if (!is.logical(inc_warmup) || length(inc_warmup) != 1L ||
      is.na(inc_warmup)) {
    stop("`inc_warmup` must be TRUE or FALSE.", call. = FALSE)
  }
  if (inc_warmup) {
    stop("`inc_warmup = TRUE` is not available: a vhmc_fit keeps only the ",
         "post-warmup transitions. Use `inc_warmup = FALSE`.", call. = FALSE)
  }
  n_iter <- fit_niterations(fit)
  n_chains <- fit_nchains(fit)
  present <- unique(unlist(lapply(fit$diagnostics, names)))
  cols <- c(intersect(sampler_diagnostic_columns, present),
            setdiff(present, sampler_diagnostic_columns))
  out <- list(
    .chain = rep(seq_len(n_chains), each = n_iter),
    .iteration = rep(seq_len(n_iter), times = n_chains),
    .draw = seq_len(n_iter * n_chains)
  )
  for (col in cols) {
    vals <- lapply(fit$diagnostics, function(d) {
      if (is.null(d[[col]])) rep(NA, n_iter) else d[[col]]
    })
    out[[col]] <- unlist(vals, use.names = FALSE)
  }
  as.data.frame(out, check.names = FALSE, stringsAsFactors = FALSE)
}

#' Energy Bayesian fraction of missing information
#'
#' E-BFMI of one chain (SPEC A7; Betancourt 2016):
#' `sum((E[n] - E[n-1])^2, n = 2..N) / sum((E[n] - mean(E))^2)`.
#' Values below 0.3 suggest the momentum resampling cannot move the chain
#' through the energy levels of the posterior (heavy tails, funnels).
#'
#' @param energy Numeric vector of post-warmup energies (`energy__`).
#' @return A single number; `NA` with fewer than two finite energies or when
#'   all energies are equal.
#' @keywords internal
#' @noRd
ebfmi <- function(energy) {
  energy <- as.numeric(energy)
  if (length(energy) < 2L || anyNA(energy) || any(!is.finite(energy))) {
    return(NA_real_)
  }
  denom <- sum((energy - mean(energy))^2)
  if (!is.finite(denom) || denom <= 0) {
    return(NA_real_)
  }
  sum(diff(energy)^2) / denom
}

#' Per-chain sampler diagnostics
#'
#' One row per chain: `chain`, `divergences` (post-warmup divergent
#' transitions), `treedepth_hits` (transitions with
#' `treedepth__ == max_treedepth`), `ebfmi`, `mean_accept_stat`, `step_size`
#' (adapted step size, else the mean of `stepsize__`), `n_grad` (total gradient
#' evaluations), `warmup_seconds`, `sampling_seconds`. `NA` wherever the
#' sampler does not report the underlying statistic.
#'
#' @param fit A `vhmc_fit` object.
#' @return A data.frame.
#' @keywords internal
#' @noRd
chain_diagnostics <- function(fit) {
  n_chains <- fit_nchains(fit)
  max_td <- fit$sampler$max_treedepth
  per_chain <- function(ch) {
    d <- fit$diagnostics[[ch]]
    div <- d[["divergent__"]]
    td <- d[["treedepth__"]]
    acc <- d[["accept_stat__"]]
    en <- d[["energy__"]]
    ss <- fit$adaptation[[ch]]$step_size
    if (is.null(ss) || length(ss) != 1L || is.na(ss)) {
      ss <- if (is.null(d[["stepsize__"]])) NA_real_ else
        mean(d[["stepsize__"]], na.rm = TRUE)
    }
    data.frame(
      chain = ch,
      divergences = if (is.null(div)) NA_integer_ else
        as.integer(sum(div != 0, na.rm = TRUE)),
      treedepth_hits = if (is.null(td) || is.null(max_td)) NA_integer_ else
        as.integer(sum(td >= max_td, na.rm = TRUE)),
      ebfmi = if (is.null(en)) NA_real_ else ebfmi(en),
      mean_accept_stat = if (is.null(acc)) NA_real_ else
        mean(acc, na.rm = TRUE),
      step_size = as.numeric(ss),
      n_grad = chain_table_value(fit$counts, "n_grad", ch),
      warmup_seconds = chain_table_value(fit$timing, "warmup_seconds", ch),
      sampling_seconds = chain_table_value(fit$timing, "sampling_seconds", ch)
    )
  }
  out <- do.call(rbind, lapply(seq_len(n_chains), per_chain))
  rownames(out) <- NULL
  out
}

# Value of `column` for chain `ch` in a one-row-per-chain table (NA if absent).
chain_table_value <- function(tab, column, ch) {
  if (is.null(tab) || is.null(tab[[column]])) {
    return(NA_real_)
  }
  row <- if (!is.null(tab$chain)) match(ch, tab$chain) else ch
  if (is.na(row)) NA_real_ else as.numeric(tab[[column]][row])
}

# R-hat, bulk-ESS and tail-ESS per variable as a plain data.frame.
convergence_table <- function(draws) {
  s <- summarise_quietly(
    draws,
    rhat = posterior::rhat,
    ess_bulk = posterior::ess_bulk,
    ess_tail = posterior::ess_tail
  )
  data.frame(
    variable = s$variable,
    rhat = as.numeric(s$rhat),
    ess_bulk = as.numeric(s$ess_bulk),
    ess_tail = as.numeric(s$ess_tail),
    stringsAsFactors = FALSE
  )
}

# posterior::summarise_draws() without its per-variable "The ESS has been capped" warning:
# draws can have an ESS above their number when they are antithetic (NUTS and surrogate
# HMC on near-Gaussian targets do that by design), which asks no action of the user.
summarise_quietly <- function(...) {
  withCallingHandlers(posterior::summarise_draws(...), warning = function(w) {
    if (grepl("ESS has been capped", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  })
}

# Why R-hat or ESS are NA for some variables, and the fix.
na_diagnostics_message <- function(fit, vars) {
  n <- fit_niterations(fit)
  why <- if (n < 4L) {
    c(sprintf("there %s only %d draw%s per chain", if (n == 1L) "is" else "are", n, if (n == 1L) "" else "s"),
      "run more post-warmup iterations (iter - warmup, at least a few hundred)")
  } else {
    c("their draws do not change: the chains did not move (every proposal rejected, or a step size far too small)",
      "leave `step_size` to the warmup adaptation, check the model at the initial values, and run a longer warmup")
  }
  paste0("R-hat and ESS could not be computed for ", length(vars), " variable(s): ",
         format_names(vars), ", because ", why[1], ". The draws cannot be trusted. To fix: ",
         why[2], ".")
}

# "a, b, c and 4 more" style listing.
format_names <- function(x, max = 8L) {
  x <- as.character(x)
  if (length(x) <= max) {
    return(paste(x, collapse = ", "))
  }
  paste0(paste(x[seq_len(max)], collapse = ", "), " and ",
         length(x) - max, " more")
}

#' Check a fit and warn about sampling problems
#'
#' Emits one Stan-like [warning()] per problem found, each naming a fix:
#'
#' * R-hat (posterior's rank-normalised, split, max of bulk and tail) at or
#'   above `rhat_threshold` for any variable;
#' * bulk-ESS or tail-ESS below `ess_threshold` for any variable (one warning
#'   each);
#' * any post-warmup divergent transition;
#' * transitions that saturated the maximum tree depth (NUTS);
#' * E-BFMI below `ebfmi_threshold` in any chain.
#'
#' * R-hat or ESS that cannot be computed (`NA`: too few draws, or draws that
#'   never change), which means the chains cannot be judged at all.
#'
#' Checks whose statistic the sampler does not report are skipped.
#'
#' @param fit A `vhmc_fit` object.
#' @param rhat_threshold,ess_threshold,ebfmi_threshold Thresholds (SPEC A7).
#' @param warn If `FALSE`, only compute and return the findings.
#' @return Invisibly, a list with elements `rhat` (named numeric: R-hat of the
#'   flagged variables), `ess_bulk`, `ess_tail` (likewise), `divergences`
#'   (total post-warmup divergences, `NA` if not reported), `treedepth_hits`
#'   (total, `NA` if not reported), `ebfmi` (named numeric: E-BFMI of the
#'   flagged chains, names are chain ids) and `flagged`, a character vector
#'   naming the checks that fired (a subset of `"rhat"`, `"ess_bulk"`,
#'   `"ess_tail"`, `"divergences"`, `"treedepth"`, `"ebfmi"`, `"na"`; empty when the
#'   fit is clean).
#' @keywords internal
#' @noRd
check_fit <- function(fit, rhat_threshold = 1.01, ess_threshold = 400,
                      ebfmi_threshold = 0.3, warn = TRUE) {
  assert_vhmc_fit(fit)
  flagged <- character()
  messages <- character()
  total <- fit_ndraws(fit)

  # --- divergences (validity) -----------------------------------------------
  chains_tab <- chain_diagnostics(fit)
  n_div <- if (all(is.na(chains_tab$divergences))) NA_integer_ else
    sum(chains_tab$divergences, na.rm = TRUE)
  if (!is.na(n_div) && n_div > 0) {
    flagged <- c(flagged, "divergences")
    fix <- divergence_fix(fit$sampler)
    messages <- c(messages, paste0(
      n_div, " of ", total, " transitions after warmup ended with a ",
      "divergence. The posterior may be biased. To fix: ", fix,
      ". See sampler_diagnostics(fit)."
    ))
  }

  # --- tree depth (efficiency) -----------------------------------------------
  n_td <- if (all(is.na(chains_tab$treedepth_hits))) NA_integer_ else
    sum(chains_tab$treedepth_hits, na.rm = TRUE)
  if (!is.na(n_td) && n_td > 0) {
    flagged <- c(flagged, "treedepth")
    max_td <- fit$sampler$max_treedepth
    messages <- c(messages, paste0(
      n_td, " of ", total, " transitions after warmup hit the maximum tree ",
      "depth of ", max_td, ". This is an efficiency problem, not a validity ",
      "one. To fix: increase max_treedepth, e.g. nuts(max_treedepth = ",
      max_td + 2, "), or reparameterise the model."
    ))
  }

  # --- E-BFMI ----------------------------------------------------------------
  low <- !is.na(chains_tab$ebfmi) & chains_tab$ebfmi < ebfmi_threshold
  ebfmi_flag <- stats::setNames(chains_tab$ebfmi[low],
                                as.character(chains_tab$chain[low]))
  if (any(low)) {
    flagged <- c(flagged, "ebfmi")
    messages <- c(messages, paste0(
      sum(low), " of ", nrow(chains_tab), " chains had an E-BFMI below ",
      ebfmi_threshold, " (chain ",
      paste0(names(ebfmi_flag), ": ", format(signif(ebfmi_flag, 2)),
             collapse = ", "),
      "). The sampler may not explore the posterior's tails. To fix: ",
      "reparameterise the model (e.g. a non-centred parameterisation)."
    ))
  }

  # --- R-hat and ESS ---------------------------------------------------------
  conv <- convergence_table(fit_draws(fit))
  na_conv <- is.na(conv$rhat) | is.na(conv$ess_bulk) | is.na(conv$ess_tail)
  if (any(na_conv)) {
    flagged <- c(flagged, "na")
    messages <- c(messages, na_diagnostics_message(fit, conv$variable[na_conv]))
  }
  bad_rhat <- !is.na(conv$rhat) & conv$rhat >= rhat_threshold
  rhat_flag <- stats::setNames(conv$rhat[bad_rhat], conv$variable[bad_rhat])
  if (any(bad_rhat)) {
    flagged <- c(flagged, "rhat")
    messages <- c(messages, paste0(
      "R-hat is ", rhat_threshold, " or higher for ", sum(bad_rhat),
      " variable(s): ", format_names(names(rhat_flag)), " (max ",
      format(round(max(rhat_flag), 3), nsmall = 3), "). The chains have not ",
      "mixed, so the estimates are unreliable. To fix: run more iterations ",
      "(iter) or reparameterise the model."
    ))
  }
  low_ess <- function(column, label, consequence) {
    bad <- !is.na(conv[[column]]) & conv[[column]] < ess_threshold
    flag <- stats::setNames(conv[[column]][bad], conv$variable[bad])
    if (any(bad)) {
      flagged <<- c(flagged, column)
      messages <<- c(messages, paste0(
        label, " effective sample size (ESS) is below ", ess_threshold, " for ",
        sum(bad), " variable(s): ", format_names(names(flag)), " (min ",
        round(min(flag)), "). ", consequence, " To fix: run more iterations (iter)."
      ))
    }
    flag
  }
  bulk_flag <- low_ess("ess_bulk", "Bulk", "Posterior means and medians may be unreliable.")
  tail_flag <- low_ess("ess_tail", "Tail", "Posterior quantiles and intervals may be unreliable.")

  if (isTRUE(warn)) {
    for (msg in messages) warning(msg, call. = FALSE)
  }
  invisible(list(
    rhat = rhat_flag,
    ess_bulk = bulk_flag,
    ess_tail = tail_flag,
    divergences = n_div,
    treedepth_hits = n_td,
    ebfmi = ebfmi_flag,
    flagged = flagged
  ))
}
