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
  f <- obj$env$f
  fns <- if (laplace) {
    list(log_density = function(x) -obj$fn(unname(x)), gradient = function(x) -as.numeric(obj$gr(unname(x))))
  } else {
    list(log_density = function(x) -f(unname(x), order = 0),
         gradient = function(x) -as.numeric(f(unname(x), order = 1)))
  }
  all_names <- indexed_names(names(obj$env$par))
  c(fns, list(names = indexed_names(names(par)),
              info = list(laplace = laplace, random = if (length(random)) all_names[random] else character())))
}
