# Running the simulation-based calibration (sbc.R): the samplers and models, one
# replication, the study, and the files it writes.

# Exact samplers are judged; approximate ones (variational HMC, SGHMC, SGLD) are run only as a
# contrast.
# iter: iterations of the one chain (half warmup); doubled, at most three times, while the
# smallest bulk ESS of the ranked quantities is below L.
sbc_sampler_table <- function() list(
  nuts = list(make = vhmc::nuts, iter = 1000, exact = TRUE),
  hmc = list(make = vhmc::hmc, iter = 1000, exact = TRUE),
  rwm = list(make = vhmc::rwm, iter = 8000, exact = TRUE),
  demc = list(make = vhmc::demc, iter = 8000, exact = TRUE),
  rmhmc = list(make = vhmc::rmhmc, iter = 1000, exact = TRUE),
  surrogate_hmc = list(make = vhmc::surrogate_hmc, iter = 1000, exact = TRUE),
  # the surrogate's own dynamics, where cheap gradients would hand the chain over to NUTS
  surrogate_kept = list(make = function() vhmc::surrogate_hmc(fallback = FALSE), iter = 1000, exact = TRUE),
  variational_hmc = list(make = vhmc::variational_hmc, iter = 1000, exact = FALSE),
  sghmc = list(make = vhmc::sghmc, iter = 1000, exact = FALSE),
  sgld = list(make = vhmc::sgld, iter = 1000, exact = FALSE)
)

sbc_model_table <- function() list(
  logistic = function() sbc_glm_model(stats::binomial(), n = 100),
  gaussian = function() sbc_glm_model(stats::gaussian(), n = 30),
  poisson = function() sbc_glm_model(stats::poisson(), n = 40),
  hierarchical = function() sbc_hier_model(),
  student = function() sbc_family_model("student"),
  cumulative = function() sbc_family_model("cumulative"),
  zero_inflated_poisson = function() sbc_family_model("zero_inflated_poisson"),
  beta = function() sbc_family_model("beta"),
  smooth = function() sbc_smooth_model(stats::gaussian(), n = 60),
  smooth_logistic = function() sbc_smooth_model(stats::binomial(), n = 150),
  censored_gamma = function() sbc_censored_model("Gamma", n = 60),
  censored_lognormal = function() sbc_censored_model("lognormal", n = 60),
  location_scale = function() sbc_dpar_model(n = 60),
  location_scale_group = function() sbc_dpar_group_model(),
  crossed_binomial = function() sbc_crossed_model(),
  varying_intercept = function() sbc_varying_intercept_model(),
  varying_intercept_rich = function() sbc_varying_intercept_model(J = 8, n = 60, exact = c("nuts", "rwm", "surrogate_hmc", "surrogate_kept"))
)

# One fit with its warnings and messages caught (counted, the first warning kept).
sbc_quiet_fit <- function(model, data, sampler, iter, seed) {
  warns <- character()
  start <- proc.time()[["elapsed"]]
  fit <- tryCatch(withCallingHandlers(
    model$fit(data, sampler, iter, seed),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) invokeRestart("muffleMessage")),
    error = function(e) e)
  list(fit = if (!inherits(fit, "error")) fit, error = if (inherits(fit, "error")) conditionMessage(fit),
       warnings = warns, seconds = proc.time()[["elapsed"]] - start)
}

# A message as one CSV field without quotes: its first 200 characters, commas and line
# breaks replaced.
sbc_text <- function(x) {
  if (length(x) == 0L || is.na(x)) return("")
  substr(gsub("[,\r\n\"]+", ";", x), 1L, 200L)
}

sbc_divergences <- function(fit) {
  d <- tryCatch(sampler_diagnostics(fit), error = function(e) NULL)
  if (is.null(d) || is.null(d$divergent__)) 0L else as.integer(sum(d$divergent__))
}

# One replication: simulate from the prior (seeded by the replication, so every sampler sees
# the same data), fit, refit longer while ESS < L, rank the truth among L thinned draws.
sbc_replication <- function(model_name, model, sampler_name, sampler, rep, L, seed,
                            max_doublings = 3L) {
  set.seed(seed + rep)
  sim <- model$simulate()
  iter <- if (is.null(model$iter[[sampler_name]])) sampler$iter else model$iter[[sampler_name]]
  seconds <- 0
  for (attempt in 0:max_doublings) {
    made <- do.call(sampler$make, as.list(model$sampler_args[[sampler_name]]))
    res <- sbc_quiet_fit(model, sim$data, made, iter, seed + rep)
    seconds <- seconds + res$seconds
    if (!is.null(res$error)) break
    q <- model$quantities(res$fit)
    ess <- suppressWarnings(apply(q, 2L, posterior::ess_bulk)) # capped above N log10(N)
    # A chain that never moved has no ESS (NA): it counts as too few draws.
    if (isTRUE(min(ess) >= L) || attempt == max_doublings) break
    iter <- 2 * iter
  }
  ok <- is.null(res$error)
  ranks <- if (ok) sbc_rank(q, sim$truth, L) else stats::setNames(rep(NA_integer_, length(sim$truth)), names(sim$truth))
  fit_row <- data.frame(model = model_name, sampler = sampler_name, replication = rep,
                        iter = iter, attempts = attempt + 1L, draws = if (ok) nrow(q) else NA_integer_,
                        seconds = round(seconds, 3), min_ess = if (ok) round(min(ess), 1) else NA,
                        divergent = if (ok) sbc_divergences(res$fit) else NA_integer_,
                        warnings = length(res$warnings),
                        warning = sbc_text(res$warnings[1]), error = sbc_text(res$error))
  rank_rows <- data.frame(model = model_name, sampler = sampler_name, replication = rep,
                          parameter = names(ranks), rank = as.integer(ranks), L = L)
  list(ranks = rank_rows, fit = fit_row)
}

# Every replication of every model x sampler pair the model supports (its exact samplers,
# and any approximate sampler asked for).
sbc_study <- function(models, samplers, reps, L, seed) {
  model_table <- sbc_model_table()
  sampler_table <- sbc_sampler_table()
  bad <- c(setdiff(models, names(model_table)), setdiff(samplers, names(sampler_table)))
  if (length(bad)) stop("unknown model(s) or sampler(s): ", paste(bad, collapse = ", "))
  out <- list()
  for (m in models) {
    model <- model_table[[m]]()
    for (s in samplers) {
      if (sampler_table[[s]]$exact && !s %in% model$exact_samplers) next
      start <- proc.time()[["elapsed"]]
      res <- lapply(reps, function(r) sbc_replication(m, model, s, sampler_table[[s]], r, L, seed))
      message(sprintf("%s x %s: %d replications in %.0f s", m, s, length(reps),
                      proc.time()[["elapsed"]] - start))
      out <- c(out, res)
    }
  }
  list(ranks = do.call(rbind, lapply(out, `[[`, "ranks")),
       fits = do.call(rbind, lapply(out, `[[`, "fit")))
}
