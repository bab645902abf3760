# Initial values given by the user (or drawn), one named vector per chain, checked before
# anything runs.

# Initial values, one named vector per chain. Random inits are drawn under a local seed
# derived from `seed`, so they are reproducible and leave the user's RNG alone.
resolve_inits <- function(init, parameters, chains, seed, log_density) {
  if (is.character(init) && !identical(init, "random")) {
    stop_arg("init", sprintf("must be NULL, \"random\" or initial values, not %s", describe(init)))
  }
  if (is.null(init) || identical(init, "random")) {
    given <- if (is.null(init)) "NULL" else "\"random\""
    par_names <- parameter_names(parameters, given)
    return(with_local_seed(seed, lapply(seq_len(chains), function(chain) {
      for (attempt in seq_len(100)) {
        th <- stats::setNames(stats::runif(length(par_names), -2, 2), par_names)
        lp <- tryCatch(log_density(th), error = function(e) NA_real_)
        if (is.numeric(lp) && length(lp) == 1L && is.finite(lp)) return(th)
      }
      stop_arg("init", sprintf(paste("is %s, but 100 random starting points drawn uniformly",
                                     "in (-2, 2) all gave a non-finite log density (chain %d)"),
                               given, chain),
               "Supply `init` values where `log_density` is finite.")
    })))
  }
  if (is.function(init)) {
    inits <- lapply(seq_len(chains), function(chain) {
      if (length(formals(init)) == 0L) init() else init(chain)
    })
  } else if (is.list(init)) {
    if (length(init) != chains) {
      stop_arg("init", sprintf("is a list of length %d but there are %d chains", length(init), chains),
               "Give one vector per chain, or a single vector for all chains.")
    }
    inits <- init
  } else {
    inits <- rep(list(init), chains)
  }
  par_names <- if (is.null(parameters)) NULL else parameter_names(parameters)
  lapply(seq_along(inits), function(chain) normalize_init(inits[[chain]], chain, par_names,
                                                          names(inits[[1]])))
}

normalize_init <- function(x, chain, par_names, first_names) {
  if (!is.numeric(x) || length(x) == 0L || anyNA(x) || any(!is.finite(x))) {
    stop_arg("init", sprintf("must give finite numeric values (chain %d has %s)", chain, describe(x)))
  }
  x <- unlist(x)
  d <- length(x)
  nm <- names(x)
  if (!is.null(nm) && (anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm))) {
    bad <- if (anyNA(nm) || any(!nzchar(nm))) "empty names" else
      sprintf("duplicated names (%s)", paste0("`", unique(nm[duplicated(nm)]), "`", collapse = ", "))
    stop_arg("init", sprintf("for chain %d has %s; every parameter needs its own name", chain, bad),
             "Name each value once, e.g. c(a = 0, b = 1), or give `parameters`.")
  }
  if (is.null(par_names)) par_names <- first_names %||% sprintf("theta[%d]", seq_len(d))
  if (length(par_names) != d) {
    stop_arg("init", sprintf("has length %d for chain %d, but %d parameters are expected (%s)",
                             d, chain, length(par_names), paste(utils::head(par_names, 5), collapse = ", ")))
  }
  if (!is.null(names(x)) && !identical(names(x), par_names)) {
    stop_arg("init", sprintf("for chain %d has names (%s) that differ from the parameter names (%s)",
                             chain, paste(names(x), collapse = ", "), paste(par_names, collapse = ", ")))
  }
  stats::setNames(as.numeric(x), par_names)
}

# The names of the parameters; `given` is the `init` that needs them ("NULL" or "\"random\"").
parameter_names <- function(parameters, given = "NULL") {
  if (is.null(parameters)) {
    stop_arg("init", sprintf("is %s and `parameters` is not given, so the number of parameters is unknown",
                             given),
             "Give `init` values or `parameters` (their names or number).")
  }
  if (is.character(parameters) && length(parameters) > 0 && !anyNA(parameters)) {
    if (anyDuplicated(parameters)) stop_arg("parameters", "must not contain duplicated names")
    return(parameters)
  }
  if (is_count(parameters)) return(sprintf("theta[%d]", seq_len(parameters)))
  stop_arg("parameters", sprintf("must be parameter names or their number, not %s", describe(parameters)))
}

