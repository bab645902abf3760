# A budget of model runs for a log density written in R (vhmc_sample(max_runs = )): the
# whole call, start included, makes at most about max_runs calls of the user's functions.
# What the start used is taken off; the rest is shared by the chains (each runs in its own
# process and cannot see the others' counts), or given whole to a population run in one. The
# core stops a chain once its runs reach its share (ChainConfig::max_runs), keeping its draws;
# the fit then keeps as many draws per chain as the shortest chain saved.

check_max_runs <- function(max_runs) {
  if (is.null(max_runs)) return(NULL)
  check_number(max_runs, "max_runs", 1, Inf)
}

# Calls of the user's functions per potential evaluation (1) and per gradient: the log
# density and the gradient, or with finite differences the log density 2 d + 1 times.
runs_per_gradient <- function(gradient, d) if (is.null(gradient)) 2 * d + 1 else 2

# The share of the budget of one run of the core (`chains` chains in it), after the start's
# runs; an error when the start spent it all.
chain_max_runs <- function(args, start, chains) {
  if (is.null(args$max_runs)) return(NULL)
  used <- sum(start$model_runs %||% 0)
  left <- args$max_runs - used
  if (left <= 0) {
    stop_arg("max_runs", sprintf("(%s) was spent by the start: %s model runs (initial values, their checks, the mode search)",
                                 big(args$max_runs), big(used)),
             "Raise `max_runs`, or give `init` values (init = \"random\" skips the mode search).")
  }
  left * chains / args$chains
}

# Chains stopped by the budget: every chain keeps the draws of the shortest (the fit's chains
# have equal lengths), with a warning of class "vhmc_budget" that says how many; an error
# when a chain spent its share before sampling.
cut_to_budget <- function(results, args) {
  spent <- vapply(results, function(r) isTRUE(r$budget_spent), logical(1))
  if (!any(spent)) return(list(results = results, args = args))
  n <- min(vapply(results, function(r) nrow(r$draws), integer(1)))
  if (n == 0L) {
    stop_arg("max_runs", sprintf("(%s) was spent before sampling began (during warmup)", big(args$max_runs)),
             "Raise `max_runs`, or shorten the warmup (`warmup`); fit$model_runs of a fit without a budget shows where runs go.")
  }
  results <- lapply(results, function(r) {
    keep <- seq_len(n)
    r$draws <- r$draws[keep, , drop = FALSE]
    r$diagnostics <- lapply(r$diagnostics, function(v) v[keep])
    r
  })
  wanted <- saved_draws_per_chain(args$iter, args$warmup, args$thin)
  args$iter <- args$warmup + n * args$thin
  warning(structure(class = c("vhmc_budget", "warning", "condition"), list(message = sprintf(
    "The budget of %s model runs was reached: each chain keeps %d of its %d draws. To fix: raise `max_runs` for more draws.",
    big(args$max_runs), n, wanted), call = NULL)))
  list(results = results, args = args)
}
