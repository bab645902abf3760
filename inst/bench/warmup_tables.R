# Tables of inst/bench/warmup.R (sourced by it after warmup_vhmc.R): running the fits,
# the Stan worker, rows, ratio rows, the printed summaries.

na_result <- function(note) list(summary = NULL, note = note)

# Every vhmc engine on every model. An explicit-metric engine whose metric is the default is
# the vhmc_after fit itself (no second run), noted as such.
run_vhmc_fits <- function(models) {
  engines <- vhmc_engines()
  engines <- engines[intersect(names(engines), engines_wanted)]
  out <- list()
  # Seeds follow the model's and engine's place in the full lists, so a subset run gives
  # the same fits as the full run.
  for (name in names(models)) {
    for (e in names(engines)) {
      seed <- 1000L + 10L * match(name, all_model_names) + match(e, names(vhmc_engines()))
      out[[name]][[e]] <- vhmc_fit_or_reason(models[[name]], engines[[e]], e, out[[name]], seed)
      message(sprintf("%-20s %-18s %s", e, name, if (is.null(out[[name]][[e]]$summary))
        out[[name]][[e]]$note else sprintf("done in %.1f s", out[[name]][[e]]$whole_seconds)))
    }
  }
  out
}

vhmc_fit_or_reason <- function(m, cfg, engine, done, seed) {
  if (!is.null(cfg$unavailable)) return(na_result(cfg$unavailable))
  same_as_default <- engine == paste0("vhmc_after_", default_metric) && !is.null(done$vhmc_after$summary)
  if (same_as_default) {
    r <- done$vhmc_after
    r$note <- sprintf("the vhmc_after fit (\"%s\" is the default metric)", default_metric)
    return(r)
  }
  r <- tryCatch(fit_vhmc(m, cfg, chains_glm, seed),
                error = function(e) na_result(paste("error:", conditionMessage(e))))
  r$fit <- NULL  # the GLM table needs only the summaries; fits hold their data
  r
}

# The Stan side in its own R process (warmup_stan.R), through a file of jobs.
run_stan_worker <- function(models) {
  jobs_file <- tempfile(fileext = ".rds"); out_file <- tempfile(fileext = ".rds")
  on.exit(unlink(c(jobs_file, out_file)))
  saveRDS(list(models = models,
               seeds = stats::setNames(as.list(2000L + match(names(models), all_model_names)),
                                       names(models)),
               run = list(chains = chains_glm, iter = iter, cores = cores, adapt_delta = adapt_delta,
                          max_treedepth = max_treedepth, stan_cache = stan_cache)), jobs_file)
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c(file.path(script_dir, "warmup_stan.R"), jobs_file, out_file))
  if (status != 0 || !file.exists(out_file)) stop("the Stan worker failed (status ", status, ")")
  res <- readRDS(out_file)
  lapply(res, function(r) if (!is.null(r$error)) na_result(paste("error:", r$error)) else r)
}

result_row <- function(model, engine, r, m) {
  ok <- !is.null(r$summary)
  val <- function(x) if (ok && !is.null(x)) x else NA_real_
  min_ess <- if (ok) min(r$summary$ess_bulk) else NA_real_
  data.frame(
    model = model, engine = engine, group = if (m$kind == "glm") "glm" else "custom",
    chains = chains_glm, iter = iter, warmup = val(r$warmup_iters),
    total_grads = val(r$total_grads), warmup_grads = val(r$warmup_grads),
    start_evals = val(r$start_evals), min_ess_bulk = min_ess,
    ess_per_grad = min_ess / val(r$total_grads), whole_call_seconds = val(r$whole_seconds),
    divergences = val(r$divergences), treedepth_hits = val(r$treedepth_hits),
    max_rhat = if (ok) max(r$summary$rhat) else NA_real_, max_mean_z = NA_real_,
    note = paste(c(if (nzchar(m$note %||% "")) m$note, r[["note"]]), collapse = "; "),
    conditions = short_notes(r[["conds"]]), stringsAsFactors = FALSE)
}

# Agreement of two fits' posterior means, parameter by parameter (matched by name).
max_mean_z <- function(a, b) {
  if (is.null(a) || is.null(b)) return(NA_real_)
  p <- intersect(rownames(a), rownames(b))
  if (length(p) < max(nrow(a), nrow(b))) warning("parameter names differ: ",
    paste(setdiff(union(rownames(a), rownames(b)), p), collapse = ", "))
  max(abs(a[p, "mean"] - b[p, "mean"]) / sqrt(a[p, "mcse_mean"]^2 + b[p, "mcse_mean"]^2))
}

ratio_cols <- c("warmup", "total_grads", "warmup_grads", "min_ess_bulk", "ess_per_grad",
                "whole_call_seconds")

ratio_row <- function(rows, num, den, res) {
  # Only when both fits ran: a ratio with a missing side says nothing.
  if (is.null(res[[num]]$summary) || is.null(res[[den]]$summary)) return(NULL)
  a <- rows[rows$engine == num, ]; b <- rows[rows$engine == den, ]
  out <- a
  out$engine <- paste0(num, "/", den)
  out[setdiff(names(out), c("model", "engine", "group", "chains", "iter"))] <- NA
  out[ratio_cols] <- a[ratio_cols] / b[ratio_cols]
  out$max_mean_z <- max_mean_z(res[[num]]$summary, res[[den]]$summary)
  out$note <- ""; out$conditions <- ""
  out
}

model_rows <- function(name, m, res) {
  stan_label <- if (m$kind == "glm") "rstanarm" else "rstan"
  names(res)[names(res) == "stan"] <- stan_label
  rows <- do.call(rbind, lapply(names(res), function(e) result_row(name, e, res[[e]], m)))
  pairs <- list(c("vhmc_after", stan_label), c("vhmc_after_diag", stan_label),
                c("vhmc_after_low_rank", stan_label), c("vhmc_before", stan_label),
                c("vhmc_after", "vhmc_before"))
  ratios <- lapply(pairs, function(p) ratio_row(rows, p[1], p[2], res))
  do.call(rbind, c(list(rows), ratios))
}

run_glm_table <- function() {
  models <- build_models(models_wanted, pdb_dir, n_obs)
  res <- run_vhmc_fits(models)
  if ("stan" %in% engines_wanted) {
    stan <- run_stan_worker(models)
    for (name in names(models)) res[[name]]$stan <- stan[[name]]
  }
  tab <- do.call(rbind, lapply(names(models), function(n) model_rows(n, models[[n]], res[[n]])))
  rownames(tab) <- NULL
  tab
}

# The issue's bars: over the GLM posteriors, median ESS per total gradient of vhmc_after at
# least 1.5x rstanarm's and none below 0.9x; no tree-depth hits on kilpis_sites.
print_glm_table <- function(tab) {
  show <- c("model", "engine", "warmup", "total_grads", "min_ess_bulk", "ess_per_grad",
            "whole_call_seconds", "divergences", "treedepth_hits", "max_rhat", "max_mean_z")
  op <- options(width = 200); on.exit(options(op))
  cat(sprintf("\nGLM table: %d chains x %d iterations, cores = %d\n", chains_glm, iter, cores))
  print(format(tab[show], digits = 3), row.names = FALSE)
  cat("\nESS per total gradient against rstanarm over the GLM posteriors (bar: median >= 1.5, min >= 0.9):\n")
  for (e in c("vhmc_before", "vhmc_after", "vhmc_after_diag", "vhmc_after_low_rank")) {
    r <- tab$ess_per_grad[tab$engine == paste0(e, "/rstanarm") & tab$group == "glm"]
    r <- r[is.finite(r)]
    if (length(r)) cat(sprintf("  %-20s median %.2f  min %.2f  (%d models)\n", e,
                               stats::median(r), min(r), length(r)))
    else cat(sprintf("  %-20s no ratios (not run)\n", e))
  }
  k <- tab[tab$model %in% c("kilpis_sites", "kilpisjarvi_mod") & !grepl("/", tab$engine), ]
  if (nrow(k)) {
    cat("\nMax tree-depth hits on the kilpisjarvi-like regressions (bar: 0 for vhmc_after):\n")
    print(format(k[c("model", "engine", "treedepth_hits", "divergences")]), row.names = FALSE)
  }
}

# ---------------------------------------------------------------------------------------
# Surrogate table

# Per-phase seconds of one fit, means over chains. surrogate_info() has train_seconds; the
# other phase columns are read if the installed vhmc reports them, else NA. The mode search
# is read from surrogate_info() or fit$start$seconds (made once, before the chains).
phase_seconds <- function(fit) {
  info <- if (!is.null(fit$surrogate)) vhmc::surrogate_info(fit) else list()
  col <- function(name) if (!is.null(info[[name]])) mean(info[[name]]) else NA_real_
  warm <- fit$timing$warmup_seconds; samp <- fit$timing$sampling_seconds
  mode <- col("mode_seconds")
  if (is.na(mode) && !is.null(fit$start$seconds)) mode <- fit$start$seconds
  data.frame(mode_seconds = mode, explore_seconds = col("explore_seconds"),
             train_seconds = col("train_seconds"), tuning_seconds = col("tuning_seconds"),
             explore_plus_tuning_seconds = mean(warm) - (if (is.na(col("train_seconds"))) 0
                                                         else col("train_seconds")),
             warmup_seconds = mean(warm),
             sampling_seconds = if (!is.na(col("sampling_seconds"))) col("sampling_seconds") else mean(samp),
             chains_max_seconds = max(warm + samp))
}

surrogate_fit <- function(dat, sampler, seed) {
  tc <- timed(vhmc::vhmc_glm(
    y ~ ., data = dat, family = "binomial", prior = vhmc::normal(0, 10, autoscale = FALSE),
    prior_intercept = vhmc::normal(0, 1, autoscale = FALSE), sampler = sampler,
    chains = chains_sur, iter = iter, cores = cores, seed = seed, progress = FALSE))
  r <- vhmc_result(tc$value, tc$seconds, tc$notes, sampler$max_treedepth %||% max_treedepth,
                   warmup_known = if (!new_api) iter %/% 2L)
  r$phases <- phase_seconds(tc$value)
  r$n_potential <- sum(tc$value$counts$n_potential)
  r$n_surrogate_grad <- if (!is.null(tc$value$surrogate))
    sum(vhmc::surrogate_info(tc$value)$n_surrogate_grad) else 0
  r$fit <- NULL
  r
}

surrogate_row <- function(n, engine, r) {
  min_ess <- min(r$summary$ess_bulk)
  ph <- r$phases
  ph$other_seconds <- r$whole_seconds - ph$chains_max_seconds
  ph$chains_max_seconds <- NULL
  cbind(data.frame(N = n, engine = engine, chains = chains_sur, iter = iter,
                   warmup = r$warmup_iters, min_ess_bulk = min_ess,
                   whole_call_seconds = r$whole_seconds, ess_per_second = min_ess / r$whole_seconds,
                   total_grads = r$total_grads, start_evals = r$start_evals,
                   n_potential = r$n_potential, n_surrogate_grad = r$n_surrogate_grad),
        ph, data.frame(divergences = r$divergences, treedepth_hits = r$treedepth_hits,
                       max_rhat = max(r$summary$rhat), max_mean_z = NA_real_,
                       conditions = short_notes(r[["conds"]]), stringsAsFactors = FALSE))
}

surrogate_rows <- function(n) {
  dat <- logistic_data(n)
  message(sprintf("surrogate table: N = %g", n))
  res <- list(nuts = surrogate_fit(dat, vhmc::nuts(), 3001L),
              surrogate_hmc = surrogate_fit(dat, vhmc::surrogate_hmc(), 3002L))
  rm(dat); invisible(gc())
  rows <- rbind(surrogate_row(n, "nuts", res$nuts), surrogate_row(n, "surrogate_hmc", res$surrogate_hmc))
  ratio <- rows[2, ]
  ratio$engine <- "surrogate_hmc/nuts"
  num <- c("warmup", "min_ess_bulk", "whole_call_seconds", "ess_per_second", "total_grads",
           "warmup_seconds", "sampling_seconds")
  ratio[setdiff(names(ratio), c("N", "engine", "chains", "iter", "conditions"))] <- NA
  ratio[num] <- rows[2, num] / rows[1, num]
  ratio$max_mean_z <- max_mean_z(res$surrogate_hmc$summary, res$nuts$summary)
  ratio$conditions <- ""
  rbind(rows, ratio)
}

run_surrogate_table <- function() {
  tab <- do.call(rbind, lapply(surrogate_n, surrogate_rows))
  rownames(tab) <- NULL
  tab
}

# The issue's bars: surrogate/nuts min ESS per whole-call second >= 10 at N = 1e5, >= 20 at
# 1e6, >= 1 at 1e4 (or the call says the surrogate will not pay off: see conditions).
print_surrogate_table <- function(tab) {
  op <- options(width = 220); on.exit(options(op))
  cat(sprintf("\nSurrogate table: seed 002 logistic, %d chains x %d iterations, cores = %d\n",
              chains_sur, iter, cores))
  show <- c("N", "engine", "warmup", "min_ess_bulk", "whole_call_seconds", "ess_per_second",
            "total_grads", "mode_seconds", "explore_seconds", "train_seconds", "tuning_seconds",
            "explore_plus_tuning_seconds", "sampling_seconds", "other_seconds", "max_mean_z")
  print(format(tab[show], digits = 3), row.names = FALSE)
  r <- tab[tab$engine == "surrogate_hmc/nuts", ]
  bar <- ifelse(r$N >= 1e6, 20, ifelse(r$N >= 1e5, 10, 1))
  cat("\nmin ESS per whole-call second, surrogate_hmc() / nuts():\n")
  cat(sprintf("  N = %-7g %6.2fx (bar %gx) %s\n", r$N, r$ess_per_second, bar,
              ifelse(r$ess_per_second >= bar, "met", "NOT met")), sep = "")
}
