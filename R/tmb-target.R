# Objectives taped by TMB or RTMB (TMB::MakeADFun(), RTMB::MakeADFun(); Kristensen et al.
# 2016) as targets of vhmc_sample(): the log density and its exact gradient come from the
# tape (the objective is a negative log density), the parameter names from the objective.
# As tmbstan (Monson et al. 2018) does, the random effects are sampled with the other
# parameters from the joint density by default, or integrated out by TMB's Laplace
# approximation with `laplace = TRUE` (then only the fixed parameters are sampled).

# An objective from MakeADFun(): a list with fn, gr, par and the environment holding the tape.
is_tmb_objective <- function(x) {
  is.list(x) && is.function(x$fn) && is.function(x$gr) && is.numeric(x$par) && is.environment(x$env)
}

# Names for the objective's parameters: TMB repeats a vector parameter's name for each of its
# elements; vhmc indexes them as name[1], name[2], ...
indexed_names <- function(nm) {
  i <- stats::ave(seq_along(nm), nm, FUN = seq_along)
  n <- stats::ave(seq_along(nm), nm, FUN = length)
  ifelse(n > 1, sprintf("%s[%d]", nm, i), nm)
}

# list(log_density, gradient, names, info): the functions vhmc_sample() samples. Without the
# Laplace approximation the joint density of every parameter (the tape's own function,
# env$f, which has no inner optimisation); with it, the objective's fn and gr, which
# integrate the random effects out at each evaluation.
tmb_functions <- function(obj, laplace) {
  laplace <- check_flag(laplace, "laplace")
  random <- obj$env$random
  if (laplace && length(random) == 0L) {
    stop_arg("laplace", "is TRUE, but the objective has no random effects to integrate out",
             "Give MakeADFun() a `random` argument, or drop laplace = TRUE.")
  }
  par <- if (laplace) obj$par else obj$env$par
  guard <- tmb_guard(obj)
  fns <- if (laplace) laplace_functions(obj, guard) else {
    f <- obj$env$f
    list(log_density = function(x) {
      guard()
      -as.numeric(f(unname(x), order = 0))
    }, gradient = function(x) {
      guard()
      -as.numeric(f(unname(x), order = 1))
    })
  }
  all_names <- indexed_names(names(obj$env$par))
  c(fns, list(names = indexed_names(names(par)),
              info = list(laplace = laplace, random = if (length(random)) all_names[random] else character())))
}

# The Laplace approximation's functions. TMB starts each inner optimisation from the best
# random effects found so far (its `last.par.best`), so a value would depend on which points
# were evaluated before, in this chain or, sequentially, in earlier ones; every evaluation
# starts from the objective's own values instead, so that the draws are the same whatever
# the order of evaluations and the number of cores.
laplace_functions <- function(obj, guard) {
  start <- obj$env$last.par.best
  at <- function(x, g) {
    guard()
    obj$env$last.par.best <- start
    as.numeric(g(unname(x)))
  }
  list(log_density = function(x) -at(x, obj$fn), gradient = function(x) -at(x, obj$gr))
}

# A tape that reaches another R process (a socket cluster's worker, a future) arrives as a
# null pointer, which TMB tapes again there from the objective's function, through the DLL
# that evaluates it: RTMB's namespace is loaded for that, and a compiled TMB model's DLL must
# already be loaded, or the chain stops with an error that says so (vhmc_malformed,
# R/r-target.R), not a point of zero density. Checked once per process.
tmb_guard <- function(obj) {
  state <- new.env(parent = emptyenv())
  state$pid <- Sys.getpid()
  function() {
    if (state$pid == Sys.getpid()) return(invisible())
    dll <- obj$env$DLL
    if (identical(dll, "RTMB")) loadNamespace("RTMB")
    if (!dll %in% names(getLoadedDLLs())) {
      stop(structure(class = c("vhmc_malformed", "error", "condition"), list(call = NULL, message = sprintf(paste(
        "the TMB model's DLL `%s` is not loaded in this R process (a socket cluster's worker or a",
        "future): dyn.load() it there, or run the chains sequentially or, on Unix, with `cores`"), dll))))
    }
    state$pid <- Sys.getpid()
  }
}

# Initial values named as the objective names its parameters (a vector parameter's name
# repeated, as in obj$par) get vhmc's indexed names.
tmb_init <- function(init, names) {
  if (is.numeric(init) && !is.null(names(init)) && length(init) == length(names) &&
      !identical(names(init), names) && identical(indexed_names(names(init)), names)) {
    names(init) <- names
  }
  init
}
