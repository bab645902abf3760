# Targets written as R functions (vhmc_sample()): the checks at the initial values, the
# potential the core evaluates, and what happens when the user's functions fail.

# The user's functions must work at the initial values before any chain starts.
check_target_at <- function(log_density, gradient, theta) {
  lp <- tryCatch(log_density(theta), error = function(e) {
    stop_arg("log_density", sprintf("failed at the initial values: %s", conditionMessage(e)))
  })
  if (!is.numeric(lp) || length(lp) != 1L || !is.finite(lp)) {
    stop_arg("log_density", sprintf("must return a single finite number at the initial values, but returned %s",
                                     describe(lp)), "Check the function or choose other `init` values.")
  }
  if (is.null(gradient)) return(invisible())
  gr <- tryCatch(gradient(theta), error = function(e) {
    stop_arg("gradient", sprintf("failed at the initial values: %s", conditionMessage(e)))
  })
  if (!is.numeric(gr) || length(gr) != length(theta)) {
    stop_arg("gradient", sprintf("must return a numeric vector of length %d (one per parameter), but returned %s",
                                 length(theta), describe(gr)))
  }
  if (any(!is.finite(gr))) {
    stop_arg("gradient", "returned non-finite values at the initial values",
             "Check the function or choose other `init` values.")
  }
  invisible()
}

# The potential the core evaluates: U = -log_density and grad U, returned together as
# c(U, grad U). A value of the right shape that is not finite (NA, NaN, Inf) is a point of
# zero density, as is an R error in the user's function: the core rejects or marks the
# trajectory divergent, and both are counted (n_errors) and, for errors, the first message
# kept. A value of the wrong shape (numeric(0), a string, a vector of the wrong length) is a
# programming error, not a region of zero density: it comes back as a message (a character
# string), which the core (src/glue_sample.cpp) turns into an error that stops the chain.
r_potential <- function(log_density, gradient, par_names) {
  n_errors <- 0
  first_error <- NULL  # the first R error's message, and the function that raised it
  first_error_from <- NULL
  env <- environment()
  d <- length(par_names)
  ld <- checked_call(log_density, "log_density", 1L, par_names)
  grad_fun <- if (is.null(gradient)) function(theta) fd_gradient(ld, theta) else
    checked_call(gradient, "gradient", d, par_names)
  function(theta, need_grad) {
    names(theta) <- par_names
    from <- "log_density"  # finite differences call log_density
    out <- tryCatch({
      lp <- ld(theta)
      if (!need_grad) -lp else {
        if (!is.null(gradient)) from <- "gradient"
        c(-lp, -grad_fun(theta))
      }
    }, vhmc_malformed = function(e) conditionMessage(e), error = function(e) {
      record_target_error(env, from, e)
      NaN
    })
    if (is.character(out)) return(out)
    if (!all(is.finite(out))) {
      n_errors <<- n_errors + 1
      return(NaN)
    }
    as.numeric(out)
  }
}

# Keeps the first R error of the user's functions, and which function raised it, in `env`
# (the environment of r_potential()'s closure).
record_target_error <- function(env, from, e) {
  if (!is.null(env$first_error)) return(invisible())
  env$first_error <- conditionMessage(e)
  env$first_error_from <- from
  invisible()
}

# The chain's count of non-finite evaluations and, when the user's function raised R errors,
# the first message: appended to the chain's own error so that it is never hidden.
target_error_report <- function(res, env) {
  res$target_errors <- env$n_errors
  res$first_target_error <- env$first_error
  res$first_target_error_from <- env$first_error_from
  if (nzchar(res$error) && !is.null(env$first_error)) {
    res$error <- sprintf("%s (`%s` raised an R error during sampling; the first: %s)",
                         res$error, env$first_error_from, env$first_error)
  }
  res
}

# R errors inside the user's functions are points of zero density, but say so.
warn_target_errors <- function(results) {
  first <- Find(function(r) !is.null(r$first_target_error), results)
  if (is.null(first)) return(invisible())
  warning(sprintf(paste("`%s` raised an R error during sampling (the first: %s); those points were",
                        "treated as having zero density. If that was not intended, fix the function."),
                  first$first_target_error_from, first$first_target_error), call. = FALSE)
}

# f(theta), checked to be numeric of length `len` (NA/NaN/Inf allowed, and a logical NA, the
# NA that R code returns most often: zero density as documented); anything else signals a
# "vhmc_malformed" condition naming the function, what it returned and where.
checked_call <- function(f, what, len, par_names) {
  function(theta) {
    v <- f(theta)
    if (is.logical(v) && length(v) == len && all(is.na(v))) return(rep(NA_real_, len))
    if (!is.numeric(v) || length(v) != len) {
      at <- paste(sprintf("%s = %s", par_names, format(signif(theta, 4), trim = TRUE)), collapse = ", ")
      msg <- sprintf(paste("`%s` returned %s at (%s) during sampling, where it must return %s.",
                           "A malformed value is a programming error, not a point of zero density;",
                           "fix the function (return NA or -Inf for zero density)"),
                     what, describe(v), at,
                     if (len == 1L) "a single number" else sprintf("a numeric vector of length %d", len))
      stop(structure(class = c("vhmc_malformed", "error", "condition"),
                     list(message = msg, call = NULL)))
    }
    as.numeric(v)
  }
}

# Central differences with steps scaled to each coordinate (relative error about 1e-10).
fd_gradient <- function(f, theta) {
  h <- 6e-6 * pmax(1, abs(theta))
  vapply(seq_along(theta), function(j) {
    e <- theta
    e[j] <- theta[j] + h[j]
    up <- f(e)
    e[j] <- theta[j] - h[j]
    (up - f(e)) / (2 * h[j])
  }, numeric(1))
}

# Model runs: calls of the user's log density (finite differences included) and gradient,
# which for an expensive model are the cost that counts (machine-independent). The counter
# wraps the user's functions before anything calls them (vhmc_sample(), user_target()): the
# start (initial values, checks, mode search, in this process) reads it directly; each chain
# reports what it added in its own process (forked, a worker, or this one in turn).
run_counter <- function() {
  n <- c(log_density = 0, gradient = 0)
  list(
    wrap = function(f, what) {
      force(f)
      function(theta) {
        n[[what]] <<- n[[what]] + 1
        f(theta)
      }
    },
    counts = function() n
  )
}

# The model runs of one chain by phase: mark(label), called by the core after each phase,
# reads the counter; table() gives each phase's runs (what followed the last phase, a chain
# that stopped early, as "unfinished"). NULL mark without a counter.
phase_marks <- function(runs) {
  if (is.null(runs)) return(list(mark = NULL, table = function() NULL))
  start <- runs$counts()
  labels <- character()
  at <- list(start)
  list(
    mark = function(label) {
      labels <<- c(labels, label)
      at[[length(at) + 1L]] <<- runs$counts()
    },
    table = function() {
      ends <- c(at, list(runs$counts()))
      n <- do.call(rbind, lapply(seq_len(length(ends) - 1L), function(i) ends[[i + 1L]] - ends[[i]]))
      out <- data.frame(phase = c(labels, "unfinished"), log_density = n[, "log_density"],
                        gradient = n[, "gradient"], stringsAsFactors = FALSE)
      out[out$phase != "unfinished" | out$log_density + out$gradient > 0, , drop = FALSE]
    }
  )
}

# A log density written in R as a target of fit_chains() (R/fit-chains.R): each chain calls
# the user's functions through the closure of r_potential(), made in the chain's own process.
# `runs`: the run_counter() whose wrapped functions log_density and gradient are (NULL: none).
r_target <- function(log_density, gradient, par_names, metric_tensor = NULL, runs = NULL) {
  grad_fun <- gradient %||% function(theta) fd_gradient(log_density, theta)
  value_grad <- function(theta) {
    names(theta) <- par_names
    list(value = -log_density(theta), gradient = -grad_fun(theta))
  }
  list(
    par_names = par_names, internal_names = par_names,
    run = function(config, extras, init, run) {
      marks <- phase_marks(runs)
      potential <- r_potential(log_density, gradient, par_names)
      metric <- if (!is.null(metric_tensor)) r_metric(metric_tensor, par_names, environment(potential))
      res <- vhmc_run_r_target(potential, init, config, extras, run, metric, marks$mark)
      if (!is.null(runs)) {
        res$phase_runs <- marks$table()
        res$model_runs <- colSums(res$phase_runs[c("log_density", "gradient")])
      }
      target_error_report(res, environment(potential))
    },
    model_runs = runs$counts,  # NULL without a counter
    value_grad = value_grad,
    potential_values = function(rows) {
      apply(rows, 1L, function(row) -log_density(stats::setNames(row, par_names)))
    },
    mode = NULL,
    user_values = function(theta) stats::setNames(as.numeric(theta), par_names),
    to_user = NULL, minibatch = FALSE, n_obs = NA_integer_, metric_tensor = !is.null(metric_tensor),
    has_mode = TRUE, description = "a log density written as an R function",
    # a population sampler (demc()) may spread its states over the sampler's coordinates:
    # uniform in (-2, 2) for each (1 would be uniform over a box on its logit scale)
    population = TRUE, scatter = numeric(length(par_names)),
    after_chains = warn_target_errors,
    globals = function() user_globals(list(log_density, gradient, metric_tensor))
  )
}

# The user's metric tensor at the initial values: list(G, dG) of the right shapes, finite,
# G symmetric positive definite.
check_metric_at <- function(metric_tensor, theta) {
  m <- tryCatch(metric_tensor(theta), error = function(e) {
    stop_arg("metric_tensor", sprintf("failed at the initial values: %s", conditionMessage(e)))
  })
  problem <- metric_shape_problem(m, length(theta))
  if (!is.null(problem)) stop_arg("metric_tensor", sprintf("%s at the initial values", problem))
  if (!all(is.finite(m$G)) || !all(is.finite(m$dG))) {
    stop_arg("metric_tensor", "returned non-finite values at the initial values",
             "Check the function or choose other `init` values.")
  }
  sym <- max(abs(m$G - t(m$G))) <= 1e-8 * max(abs(m$G))
  if (!sym || inherits(try(chol(m$G), silent = TRUE), "try-error")) {
    stop_arg("metric_tensor", "returned a G that is not symmetric positive definite at the initial values",
             "A metric tensor must be symmetric positive definite, e.g. the Fisher information plus the prior precision.")
  }
  invisible()
}

# NULL when m is list(G = d x d numeric matrix, dG = d x d x d numeric array); otherwise what
# is wrong with it.
metric_shape_problem <- function(m, d) {
  ok_dim <- function(x, shape) is.numeric(x) && identical(as.integer(dim(x)), as.integer(shape))
  if (!is.list(m) || !ok_dim(m$G, c(d, d)) || !ok_dim(m$dG, c(d, d, d))) {
    return(sprintf(paste("must return list(G = a %d x %d matrix, dG = a %d x %d x %d array),",
                         "but returned %s"), d, d, d, d, d, describe(m)))
  }
  NULL
}

# The metric tensor the core evaluates (src/glue_sample.cpp): c(G, dG) as one vector; NaN
# where the user's function fails or returns non-finite values (the proposal is rejected,
# counted with the target's errors in `env`, the environment of r_potential()'s closure);
# a message where it returns the wrong shape, which stops the chain.
r_metric <- function(metric_tensor, par_names, env) {
  d <- length(par_names)
  function(theta) {
    names(theta) <- par_names
    failed <- FALSE
    m <- tryCatch(metric_tensor(theta), error = function(e) {
      record_target_error(env, "metric_tensor", e)
      failed <<- TRUE
    })
    if (failed) {
      env$n_errors <- env$n_errors + 1
      return(NaN)
    }
    problem <- metric_shape_problem(m, d)
    if (!is.null(problem)) return(sprintf("`metric_tensor` %s during sampling", problem))
    out <- c(as.numeric(m$G), as.numeric(m$dG))
    if (!all(is.finite(out))) {
      env$n_errors <- env$n_errors + 1
      return(NaN)
    }
    out
  }
}
