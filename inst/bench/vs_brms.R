# What the benchmarks against brms share (families_vs_brms.R, distributional_vs_brms.R): the
# convergence summary of a fit's draws, a timed vhmc_glm() call and a timed brms::brm() call
# with its compilation apart, and the rows of the results file with vhmc's speed-up.
source(file.path("inst", "bench", "speedup.R"))

# Debian's r-cran-bh is an empty stand-in for BH (Boost is libboost-dev's, in /usr/include),
# where rstan looks for Boost by default: point it at the system's headers.
use_system_boost <- function(packages) {
  if ("brms" %in% packages && !file.exists(rstan::rstan_options("boost_lib")) && dir.exists("/usr/include/boost")) {
    rstan::rstan_options(boost_lib = "/usr/include")
  }
}

convergence <- function(draws) {
  s <- suppressWarnings(posterior::summarise_draws(draws, "mean", "mcse_mean", "rhat", "ess_bulk", "ess_tail"))
  s <- data.frame(variable = s$variable, lapply(s[-1L], as.numeric))
  list(summary = s, values = c(min_ess_bulk = min(s$ess_bulk, na.rm = TRUE), min_ess_tail = min(s$ess_tail, na.rm = TRUE),
                               max_rhat = max(s$rhat, na.rm = TRUE)))
}

# vhmc_glm(args), timed as a whole call.
timed_vhmc <- function(args) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(do.call(vhmc::vhmc_glm, args))
  whole <- proc.time()[["elapsed"]] - t0
  cv <- convergence(fit$draws)
  list(summary = cv$summary,
       values = c(whole_seconds = whole, compile_seconds = 0, sampling_seconds = max(fit$timing$sampling_seconds),
                  cv$values, gradients_per_chain = mean(fit$counts$n_grad),
                  divergences = sum(vhmc::sampler_diagnostics(fit)$divergent__)))
}

# brms::brm() compiled once (chains = 0, timed apart), then its whole call update(recompile =
# FALSE) with 4 chains on 2 cores; the draws of the variables matching `keep` summarised.
timed_brms <- function(formula, data, family, prior, keep) {
  t0 <- proc.time()[["elapsed"]]
  compiled <- suppressWarnings(suppressMessages(brms::brm(formula, data = data, family = family, prior = prior,
                                                          chains = 0, refresh = 0)))
  compile <- proc.time()[["elapsed"]] - t0
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(suppressMessages(stats::update(compiled, recompile = FALSE, chains = 4, cores = 2,
                                                         iter = 2000, seed = 1, refresh = 0)))
  whole <- proc.time()[["elapsed"]] - t0
  cv <- convergence(posterior::subset_draws(posterior::as_draws_array(fit), variable = keep, regex = TRUE))
  sp <- rstan::get_sampler_params(fit$fit, inc_warmup = TRUE)
  list(summary = cv$summary,
       values = c(whole_seconds = whole, compile_seconds = compile,
                  sampling_seconds = max(rstan::get_elapsed_time(fit$fit)[, "sample"]), cv$values,
                  gradients_per_chain = mean(vapply(sp, function(s) sum(s[, "n_leapfrog__"]), 1)),
                  divergences = sum(vapply(sp, function(s) sum(s[-seq_len(1000), "divergent__"]), 1))))
}

# The rows merged into out_file's, with ESS per second and vhmc's speed-up over brms.
save_rows <- function(res, out_file) {
  res <- merge_results(res, out_file)
  res$ess_per_second <- res$min_ess_bulk / res$whole_seconds
  res$ess_per_second_sampling <- res$min_ess_bulk / res$sampling_seconds
  write_results(add_speedup(res, "brms"), out_file)
}

# Each model fitted by each package (run_vhmc(m), run_brms(m)), the rows written after each
# model; agreement(vhmc summary, brms summary, m) gives the vhmc row's agreement columns.
compare_models <- function(models, packages, run_vhmc, run_brms, agreement, out_file) {
  rows <- list()
  for (name in names(models)) {
    m <- models[[name]]()
    out <- list()
    for (pkg in packages) {
      cat(sprintf("%s / %s ...\n", name, pkg))
      out[[pkg]] <- if (pkg == "vhmc") run_vhmc(m) else run_brms(m)
    }
    z <- if (length(out) == 2L) agreement(out$vhmc$summary, out$brms$summary, m)
    if (!is.null(z) && is.null(names(z))) z <- c(max_abs_z = z)
    for (pkg in names(out)) {
      agree <- as.list(if (is.null(z)) c(max_abs_z = NA) else if (pkg == "vhmc") z else replace(z, TRUE, NA))
      rows[[length(rows) + 1L]] <- data.frame(model = name, rows = nrow(m$data), package = pkg, t(out[[pkg]]$values),
                                              agree)
    }
    res <- save_rows(do.call(rbind, rows), out_file)
    print(utils::tail(res, length(out)))
  }
  invisible(res)
}
