# Sampler diagnostics: per-transition Stan-style statistics,
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
#' fit <- vhmc_sample(function(th) -sum(th^2) / 2, function(th) -th, init = c(a = 0, b = 0),
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
#' E-BFMI of one chain (Betancourt 2016):
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

# Why R-hat or ESS are NA for some variables, and the fix: one sentence per reason, naming
# only the statistics that are NA (a variable whose R-hat was computed, and flagged as high,
# is not also said to have none).
na_diagnostics_message <- function(fit, conv) {
  arr <- unclass(posterior::as_draws_array(fit_draws(fit)))
  # By position: a name looked up in 100,000 names hashed them all again for each variable.
  at <- match(conv$variable, dimnames(arr)[[3L]])
  reason <- vapply(at, function(j) na_reason(arr[, , j, drop = FALSE]), character(1))
  stats <- na_statistics(conv)
  groups <- unique(data.frame(reason, stats))
  paste(vapply(seq_len(nrow(groups)), function(g) {
    vars <- conv$variable[reason == groups$reason[g] & stats == groups$stats[g]]
    why <- na_reasons[[groups$reason[g]]](fit_niterations(fit))
    paste0(groups$stats[g], " could not be computed for ", length(vars), " variable(s): ",
           format_names(vars), ", because ", why[1], ". The draws cannot be trusted. To fix: ",
           why[2], ".")
  }, character(1)), collapse = " ")
}

# "R-hat and ESS", "tail ESS", ...: for each row of convergence_table(), its statistics that are NA.
na_statistics <- function(conv) {
  bulk <- is.na(conv$ess_bulk)
  tail <- is.na(conv$ess_tail)
  ess <- ifelse(bulk & tail, "ESS", ifelse(bulk, "bulk ESS", ifelse(tail, "tail ESS", "")))
  rhat <- ifelse(is.na(conv$rhat), "R-hat", "")
  ifelse(nzchar(rhat) & nzchar(ess), paste(rhat, "and", ess), paste0(rhat, ess))
}

# Why posterior gives NA for a variable's draws (iterations x chains).
na_reason <- function(x) {
  x <- matrix(x, nrow = dim(x)[1])
  if (nrow(x) < 4L) return("few")
  if (length(unique(as.vector(x))) == 1L) return("constant")
  if (all(apply(x, 2L, function(ch) length(unique(ch)) == 1L))) return("stuck")
  "discrete"
}

na_reasons <- list(
  few = function(n) {
    c(sprintf("there %s only %d draw%s per chain", if (n == 1L) "is" else "are", n, if (n == 1L) "" else "s"),
      "run more post-warmup iterations (iter - warmup, at least a few hundred)")
  },
  constant = function(n) {
    c("their draws do not change: the chains did not move (every proposal rejected, or a step size far too small)",
      "leave `step_size` to the warmup adaptation, check the model at the initial values, and run a longer warmup")
  },
  stuck = function(n) {
    c("each chain stayed at one value (its own): the chains did not move (every proposal rejected, or a step size far too small)",
      "leave `step_size` to the warmup adaptation, check the model at the initial values, and run a longer warmup")
  },
  discrete = function(n) {
    c(paste("their draws take so few distinct values that a tail quantile (5% or 95%) cannot be",
            "told from the rest: the chains seldom moved, or the quantity has few possible values"),
      "look at the trace plots; if the chains seldom moved, run a longer warmup or reparameterise the model")
  }
)

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
#' @param rhat_threshold,ess_threshold,ebfmi_threshold Thresholds (Vehtari et al. 2021; Betancourt 2016).
#' @param warn If `FALSE`, only compute and return the findings.
#' @return Invisibly, a list with elements `rhat` (named numeric: R-hat of the
#'   flagged variables), `ess_bulk`, `ess_tail` (likewise), `divergences`
#'   (total post-warmup divergences, `NA` if not reported), `treedepth_hits`
#'   (total, `NA` if not reported), `ebfmi` (named numeric: E-BFMI of the
#'   flagged chains, names are chain ids) and `flagged`, a character vector
#'   naming the checks that fired (a subset of `"rhat"`, `"modes"`, `"ridge"`, `"ess_bulk"`,
#'   `"ess_tail"`, `"divergences"`, `"treedepth"`, `"ebfmi"`, `"na"`; empty when the
#'   fit is clean).
#' @keywords internal
#' @noRd
check_fit <- function(fit, rhat_threshold = 1.01, ess_threshold = 400,
                      ebfmi_threshold = 0.3, warn = TRUE) {
  assert_vhmc_fit(fit)
  tab <- chain_diagnostics(fit)
  conv <- convergence_table(fit_draws(fit))
  total <- fit_ndraws(fit)
  findings <- list(
    divergences = divergence_finding(fit, tab, total),
    treedepth = treedepth_finding(fit, tab, total),
    ebfmi = ebfmi_finding(tab, ebfmi_threshold),
    na = na_finding(fit, conv),
    rhat = rhat_finding(conv, rhat_threshold, multilevel_fix_hint(fit)),
    modes = modes_finding(fit, conv, rhat_threshold),
    ridge = ridge_finding(fit, conv, rhat_threshold, ess_threshold),
    ess_bulk = ess_finding(conv, "ess_bulk", "Bulk", ess_threshold,
                           "Posterior means and medians may be unreliable.", multilevel_fix_hint(fit)),
    ess_tail = ess_finding(conv, "ess_tail", "Tail", ess_threshold,
                           "Posterior quantiles and intervals may be unreliable.")
  )
  fired <- Filter(function(f) !is.null(f$message), findings)
  if (isTRUE(warn)) for (f in fired) warning(f$message, call. = FALSE)
  invisible(list(
    rhat = findings$rhat$value, ess_bulk = findings$ess_bulk$value,
    ess_tail = findings$ess_tail$value, divergences = findings$divergences$value,
    treedepth_hits = findings$treedepth$value, ebfmi = findings$ebfmi$value,
    flagged = names(fired)
  ))
}

# What a fit with group-level terms can change to mix better: the other parameterisation,
# or (the sampler says) another sampler.
multilevel_fix_hint <- function(fit) {
  g <- fit$model$glmer
  if (is.null(g)) return("")
  other <- multilevel_hint(fit$sampler)
  if (isTRUE(g$marginal)) return(other)
  form <- if (any(g$centred)) "noncentered" else "centered"
  paste0(other, "; for the group-level terms, try parameterization = \"", form, "\"")
}

# Each finding: the statistic (`value`) and, when it calls for action, a `message`.
divergence_finding <- function(fit, tab, total) {
  n <- if (all(is.na(tab$divergences))) NA_integer_ else sum(tab$divergences, na.rm = TRUE)
  if (is.na(n) || n == 0) return(list(value = n))
  list(value = n, message = paste0(
    n, " of ", total, " transitions after warmup ended with a divergence. The posterior may be ",
    "biased. To fix: ", divergence_fix(fit$sampler), divergence_hint(fit), ". See sampler_diagnostics(fit)."))
}

# What the model adds to the sampler's fix: horseshoe priors diverge at adapt_delta 0.8 (1-4 %
# of transitions on the validation problem, R/priors-horseshoe.R), rarely at rstanarm's 0.99.
divergence_hint <- function(fit) {
  prior <- fit$model$priors$prior$adjusted
  if (is.null(prior) || !is_horseshoe(prior)) return("")
  "; with a horseshoe prior, nuts(adapt_delta = 0.99), rstanarm's default for these priors"
}

treedepth_finding <- function(fit, tab, total) {
  n <- if (all(is.na(tab$treedepth_hits))) NA_integer_ else sum(tab$treedepth_hits, na.rm = TRUE)
  if (is.na(n) || n == 0) return(list(value = n))
  max_td <- fit$sampler$max_treedepth
  list(value = n, message = paste0(
    n, " of ", total, " transitions after warmup hit the maximum tree depth of ", max_td,
    ". This is an efficiency problem, not a validity one. To fix: increase max_treedepth, ",
    "e.g. nuts(max_treedepth = ", max_td + 2, "), or reparameterise the model."))
}

ebfmi_finding <- function(tab, threshold) {
  low <- !is.na(tab$ebfmi) & tab$ebfmi < threshold
  flag <- stats::setNames(tab$ebfmi[low], as.character(tab$chain[low]))
  if (!any(low)) return(list(value = flag))
  list(value = flag, message = paste0(
    sum(low), " of ", nrow(tab), " chains had an E-BFMI below ", threshold, " (chain ",
    paste0(names(flag), ": ", format(signif(flag, 2)), collapse = ", "),
    "). The sampler may not explore the posterior's tails. To fix: reparameterise the model ",
    "(e.g. a non-centred parameterisation)."))
}

na_finding <- function(fit, conv) {
  na <- is.na(conv$rhat) | is.na(conv$ess_bulk) | is.na(conv$ess_tail)
  if (!any(na)) return(list(value = character()))
  list(value = conv$variable[na], message = na_diagnostics_message(fit, conv[na, , drop = FALSE]))
}

rhat_finding <- function(conv, threshold, reparameterise_hint = "") {
  bad <- !is.na(conv$rhat) & conv$rhat >= threshold
  flag <- stats::setNames(conv$rhat[bad], conv$variable[bad])
  if (!any(bad)) return(list(value = flag))
  worst <- sort(flag, decreasing = TRUE)
  list(value = flag, message = paste0(
    "R-hat is ", threshold, " or higher for ", sum(bad), " variable(s), the worst first: ",
    format_names(names(worst)), " (max ", format(round(max(flag), 3), nsmall = 3),
    "). The chains have not mixed, so the estimates are unreliable. To fix: run more ",
    "iterations (iter) or reparameterise the model", reparameterise_hint, "."))
}

# Chains that sit apart: for the variable with the worst R-hat, the chains' means sorted fall
# into groups separated by gaps of more than 4 within-chain sds (of the chains on either
# side), so that no chain visited the other groups' region. Then the chains are in
# different modes (or stuck on a ridge) rather than slow, and more iterations will not help:
# the message names the groups and, where the sampler records the energy, which group sits
# at the lower potential (mean energy, whose kinetic part has the same mean in every chain).
modes_finding <- function(fit, conv, threshold) {
  bad <- !is.na(conv$rhat) & conv$rhat >= threshold
  if (!any(bad) || fit_nchains(fit) < 2L) return(list(value = NULL))
  v <- conv$variable[bad][which.max(conv$rhat[bad])]
  x <- matrix(posterior::extract_variable_matrix(fit_draws(fit), v), ncol = fit_nchains(fit))
  groups <- chain_groups(colMeans(x), apply(x, 2, stats::sd))
  if (length(groups) < 2L) return(list(value = NULL))
  energy <- vapply(fit$diagnostics, function(d) mean(d[["energy__"]] %||% NA_real_), numeric(1))
  desc <- vapply(groups, function(g) sprintf("chain%s %s near %s = %s%s", if (length(g) > 1) "s" else "",
                                             paste(g, collapse = ", "), v, format(signif(mean(colMeans(x)[g]), 3)),
                                             if (all(is.na(energy))) "" else
                                               sprintf(" (mean energy %s)", format(signif(mean(energy[g]), 4)))),
                 character(1))
  list(value = groups, message = paste0(
    "The chains sit in different places and never met: ", paste(desc, collapse = "; "), ". The ",
    "posterior has several modes, or a ridge the chains cannot travel along; more iterations ",
    "will not join them. To fix: look at pairs plots of the parameters, check that every ",
    "parameter is identified (parameters that enter the model only together form a ridge), ",
    "start every chain in the main mode (init; the lower mean energy marks the more probable ",
    "region) or give informative priors."))
}

# Parameters determined only through their product (or ratio): where the chains mixed
# badly, two positive variables whose logs are correlated beyond 0.95 in absolute value lie
# on a ridge log a + log b = const (or log a - log b), along which HMC moves slowly; in
# BayesianTools' VSEM, LUE and GAMMA enter only as LUE (1 - GAMMA), KEXT and LAR only as
# KEXT LAR. Looked for in fits of at most 50 variables (a correlation matrix of them), among
# the parameters declared positive (declared_positive()): a coefficient whose draws all
# happen to be positive is no such parameter.
ridge_finding <- function(fit, conv, rhat_threshold, ess_threshold) {
  slow <- (!is.na(conv$rhat) & conv$rhat >= rhat_threshold) | (!is.na(conv$ess_bulk) & conv$ess_bulk < ess_threshold)
  if (!any(slow) || nrow(conv) > 50L) return(list(value = NULL))
  x <- posterior::as_draws_matrix(fit_draws(fit))
  pos <- intersect(declared_positive(fit), colnames(x))
  pos <- pos[apply(unclass(x)[, pos, drop = FALSE], 2, function(v) all(v > 0) && stats::sd(v) > 0)]
  if (length(pos) < 2L) return(list(value = NULL))
  r <- suppressWarnings(stats::cor(log(unclass(x)[, pos, drop = FALSE])))
  hit <- which(upper.tri(r) & abs(r) > 0.95, arr.ind = TRUE)
  if (!nrow(hit)) return(list(value = NULL))
  pairs <- sprintf("%s and %s (correlation of their logs %s)", pos[hit[, 1]], pos[hit[, 2]],
                   formatC(r[hit], digits = 4, format = "f"))
  list(value = pairs, message = paste0(
    "Some parameters are determined almost only through their product or ratio: ",
    paste(utils::head(pairs, 4), collapse = "; "), ". The posterior is a narrow ridge along which ",
    "the chains move slowly. To fix: sample the product (or ratio) and one of the two instead, ",
    "or give one of them an informative prior."))
}

# The parameters a fit declares positive: an R log density's with a lower bound >= 0
# (vhmc_sample()'s `lower`, fit$model$parameters), a GLM family's auxiliary parameters on the
# log scale above a bound >= 0 (sigma, shape, nu, ...).
declared_positive <- function(fit) {
  p <- fit$model$parameters
  if (is.data.frame(p)) return(p$parameter[is.finite(p$lower) & p$lower >= 0])
  aux <- fit$model$family$aux
  if (is.data.frame(aux)) return(aux$name[aux$transform == "log" & aux$lower >= 0 & !aux$sized_by_data])
  character()
}

# Chains (ids) grouped by their means m: sorted, split where the gap exceeds 4 times the
# larger within-chain sd s of the two chains beside it.
chain_groups <- function(m, s) {
  o <- order(m)
  gap <- diff(m[o]) > 4 * pmax(s[o][-1], s[o][-length(o)])
  if (!any(gap, na.rm = TRUE)) return(list(o))
  lapply(split(o, cumsum(c(TRUE, gap %in% TRUE))), sort)
}

ess_finding <- function(conv, column, label, threshold, consequence, reparameterise_hint = "") {
  bad <- !is.na(conv[[column]]) & conv[[column]] < threshold
  flag <- stats::setNames(conv[[column]][bad], conv$variable[bad])
  if (!any(bad)) return(list(value = flag))
  list(value = flag, message = paste0(
    label, " effective sample size (ESS) is below ", threshold, " for ", sum(bad),
    " variable(s), the lowest first: ", format_names(names(sort(flag))), " (min ", round(min(flag)), "). ",
    consequence, " To fix: run more iterations (iter)", reparameterise_hint, "."))
}
