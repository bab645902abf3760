# The one function that runs the chains of every fit, behind vhmc_sample(), vhmc_glm() and
# vhmc_ardl(). A front end describes its posterior as a target (below) and resolves the
# initial values; fit_chains() settles the sampler's settings, lets the sampler compute what
# its chains share, runs the chains wherever they run (R/chains.R), and builds the fit.
#
# A target is a list:
#   par_names, internal_names  names of the reported parameters and of the sampler's
#                              coordinates (the adapted metric is on the latter)
#   run(config, extras, init, run)   one chain in the core; returns its result list
#   run_threads(config, extras, inits, runs, workers)   optional, for a potential in C++ alone:
#                              the chains (their extras, inits and runs as lists) on `workers`
#                              threads of this process; returns their result lists
#   value_grad(theta)          list(value = U, gradient = grad U) at internal theta
#   potential_values(rows)     U at each row of a matrix of internal draws
#   mode(init)                 Newton mode with the analytic Hessian, or NULL
#   user_values(theta)         internal theta -> named reported values
#   to_user(rows)              internal draws -> reported draws (NULL: the same); may give
#                              more columns than rows has (one per par_names entry)
#   minibatch, n_obs           whether minibatch gradients exist, and over how many rows
#   metric_tensor              whether the model has a metric tensor for rmhmc() (a GLM's Fisher
#                              information in the core, or the user's function)
#   after_chains(results)      optional, after every chain succeeded
#   model_runs()               optional: the calls of the user's functions so far (R targets)
#   globals()                  optional: the user's objects and packages that run() needs in
#                              another R process (R/globals.R)
#   start()                    optional: the chains' start, found by the front end itself
#                              (multilevel GLMs and horseshoe priors, R/start-noncentred.R),
#                              as start_chains() gives it

fit_chains <- function(target, sampler, args, seed, inits, user_init, progress, call, model) {
  check_target(sampler, target)
  args$warmup_auto <- isTRUE(args$warmup_auto) && auto_warmup(sampler)
  config <- sampler_config(sampler, args, target)
  start <- catch_interrupt(if (!is.null(target$start)) target$start() else
    start_chains(sampler, target, inits, user_init, seed, progress))
  sm <- start_metric_config(config, start)
  config <- sm$config
  start$info$correlation_directions <- sm$directions
  if (!is.null(target$model_runs)) start$info$model_runs <- target$model_runs()
  start$info$metric <- config$metric
  prep <- catch_interrupt(prepare_fit(sampler, target, start$inits, user_init))
  chain_max_runs(args, start$info, args$chains)  # an error now if the start spent the budget
  runners <- chain_runners(target, config, args, seed, start, prep, progress)
  results <- catch_interrupt(run_sampler_chains(sampler, runners$one, args, target, runners$threads))
  stop_on_chain_failure(results)
  cut <- cut_to_budget(results, args)
  results <- cut$results
  args <- cut$args
  if (!is.null(target$after_chains)) target$after_chains(results)
  parts <- collect_chains(results, target, start$info)
  fit <- new_vhmc_fit(
    draws = parts$draws, diagnostics = parts$diagnostics, adaptation = parts$adaptation,
    counts = parts$counts, timing = parts$timing, sampler = sampler, model = model,
    args = c(args[c("chains", "iter", "warmup", "thin")],
             list(seed = seed, cores = args$cores, warmup_auto = args$warmup_auto)),
    inits = prep$inits$user, call = call
  )
  fit$start <- start$info
  fit$model_runs <- phase_runs_table(results, start$info)
  fit[names(prep$stored)] <- prep$stored
  fit$config <- config
  fit <- add_report(sampler, fit, results, target)
  check_fit(fit)
  check_report(sampler, fit)
  fit
}

# How the chains run: `one(chain)`, one chain (or, for a population sampler, every chain's
# state in one run of the core: `population`, the initial values one after the other); and
# for a target whose chains need no R (its run_threads()), `threads(ids, workers)`, the
# chains on threads of this process (R/chains.R), NULL otherwise.
chain_runners <- function(target, config, args, seed, start, prep, progress) {
  refresh <- if (progress) max(1L, args$iter %/% 10L) else 0L
  refresh_seconds <- progress_seconds()
  inputs <- function(chain, population = FALSE) {
    run <- list(iter = args$iter, warmup = args$warmup, thin = args$thin, seed = seed, chain = chain,
                refresh = refresh, refresh_seconds = refresh_seconds, warmup_auto = args$warmup_auto,
                max_runs = chain_max_runs(args, start$info, if (population) args$chains else 1L),
                runs_per_gradient = args$runs_per_gradient)
    extras <- prep$extras
    if (!population) extras$inv_metric <- start$inv_metric[[chain]]
    extras$laplace <- extras$laplace %||% start$laplace[[chain]]
    init <- if (population) unlist(prep$inits$internal, use.names = FALSE) else prep$inits$internal[[chain]]
    list(extras = extras, init = init, run = run)
  }
  one <- function(chain, population = FALSE) {
    i <- inputs(chain, population)
    target$run(config, i$extras, i$init, i$run)
  }
  threads <- if (!is.null(target$run_threads)) function(ids, workers) {
    i <- lapply(ids, inputs)
    target$run_threads(config, lapply(i, `[[`, "extras"), lapply(i, `[[`, "init"), lapply(i, `[[`, "run"), workers)
  }
  list(one = one, threads = threads)
}

# Chain results (lists from the core) -> the pieces of a vhmc_fit. The draws are mapped to
# the reported scale once, on all chains at a time, and wrapped once.
collect_chains <- function(results, target, start) {
  # Chains on threads may have saved their draws, already reported, into one array
  # (src/glue_glm.cpp): the fit's only copy of them.
  arr <- attr(results, "reported_draws") %||% reported_draws(results, target)
  dimnames(arr) <- list(iteration = seq_len(dim(arr)[1]), chain = seq_len(dim(arr)[2]), variable = target$par_names)
  list(draws = as_draws_array_in_place(arr),
       diagnostics = lapply(results, function(r) as.data.frame(r$diagnostics)),
       adaptation = lapply(results, chain_adaptation, names = target$internal_names),
       counts = chain_counts(results, start), timing = chain_timing(results))
}

# posterior's draws_array of an iterations x chains x variables array with its dimnames set:
# the object posterior::as_draws_array() returns (tested), without its copy of the draws.
as_draws_array_in_place <- function(arr) {
  class(arr) <- c("draws_array", "draws", "array")
  arr
}

# The chains' draws as one iterations x chains x variables array on the reported scale.
reported_draws <- function(results, target) {
  n_chain <- length(results)
  n_iter <- nrow(results[[1]]$draws)
  d <- ncol(results[[1]]$draws)
  arr <- array(NA_real_, dim = c(n_iter, n_chain, d))
  for (c in seq_len(n_chain)) arr[, c, ] <- results[[c]]$draws
  # to_user may report more values than the sampler has coordinates (effects integrated out
  # and drawn afterwards, R/glmer-model.R). dim<- reshapes in place: with tens of megabytes
  # of draws every copy is an allocation that can set off a full garbage collection.
  if (!is.null(target$to_user)) {
    dim(arr) <- c(n_iter * n_chain, d)
    arr <- target$to_user(arr)
    dim(arr) <- c(n_iter, n_chain, length(target$par_names))
  }
  arr
}

# The final step size and inverse metric of a chain, named by the sampler's coordinates, and
# for a split leapfrog its stiff rows and inner steps per step.
chain_adaptation <- function(r, names) {
  inv <- r$adaptation$inv_metric
  if (is.matrix(inv)) dimnames(inv) <- list(names, names) else inv <- stats::setNames(as.numeric(inv), names)
  out <- list(step_size = r$adaptation$step_size, inv_metric = inv)
  if (!is.null(r$adaptation$stiff_rows)) {
    out$stiff_rows <- as.integer(r$adaptation$stiff_rows)
    out$inner_steps <- as.integer(r$adaptation$inner_steps)
  }
  out
}

# Evaluations per chain; n_grad counts every gradient (start, warmup and sampling); the start's
# analytic Hessians (GLM Newton search, made once and counted on chain 1) apart.
chain_counts <- function(results, start) {
  num <- function(field) vapply(results, function(r) as.numeric(r$counts[[field]]), numeric(1))
  counts <- data.frame(
    chain = seq_along(results),
    n_grad = start$evaluations + num("n_grad_warmup") + num("n_grad_sampling"),
    n_grad_warmup = num("n_grad_warmup"),
    n_grad_sampling = num("n_grad_sampling"),
    n_potential = num("n_potential"),
    target_errors = vapply(results, function(r) as.numeric(r$target_errors %||% 0), numeric(1)),
    n_grad_start = start$evaluations, n_hessian_start = start$hessians
  )
  if (is.null(results[[1]]$model_runs)) return(counts)
  # R targets: the calls of the user's functions in each chain (model runs, R/r-target.R)
  runs <- function(what) vapply(results, function(r) as.numeric(r$model_runs[[what]]), numeric(1))
  counts$log_density_calls <- runs("log_density")
  counts$gradient_calls <- runs("gradient")
  counts
}

# Model runs of a target written in R by phase (NULL for other targets): the start's, then
# each chain's phases in order, as the core labels them ("warmup", "warmup: exploration",
# "warmup: surrogate", "sampling", ...).
phase_runs_table <- function(results, start) {
  if (is.null(results[[1]]$phase_runs)) return(NULL)
  first <- start$model_runs %||% c(log_density = 0, gradient = 0)
  rows <- lapply(seq_along(results), function(c) cbind(chain = c, results[[c]]$phase_runs))
  out <- rbind(data.frame(chain = NA_integer_, phase = "start", log_density = first[["log_density"]],
                          gradient = first[["gradient"]], stringsAsFactors = FALSE),
               do.call(rbind, rows))
  rownames(out) <- NULL
  out
}

chain_timing <- function(results) {
  num <- function(field) vapply(results, function(r) as.numeric(r[[field]]), numeric(1))
  data.frame(chain = seq_along(results), warmup_seconds = num("warmup_seconds"),
             sampling_seconds = num("sampling_seconds"), warmup_iterations = num("warmup_iterations"))
}

# Iterations and chains, checked before anything runs. warmup = NULL: automatic, at most
# floor(iter / 2) iterations for samplers that can end warmup early (fixed otherwise).
check_run_args <- function(chains, iter, warmup, thin, cores) {
  chains <- check_count(chains, "chains")
  iter <- check_count(iter, "iter")
  auto <- is.null(warmup)
  warmup <- if (auto) iter %/% 2L else check_count(warmup, "warmup", 0)
  thin <- check_count(thin, "thin")
  if (warmup >= iter) {
    stop_arg("warmup", sprintf("(%d) must be smaller than `iter` (%d)", warmup, iter),
             "Increase `iter` or lower `warmup`: post-warmup iterations are the draws kept.")
  }
  if (thin > iter - warmup) {
    stop_arg("thin", sprintf("(%d) exceeds the %d post-warmup iterations", thin, iter - warmup))
  }
  cores <- check_count(cores, "cores")
  list(chains = chains, iter = iter, warmup = warmup, thin = thin, cores = cores, warmup_auto = auto)
}
