# Bounds and priors declared for a target written in R (vhmc_sample(lower =, upper =,
# prior =)): the user writes the log density (a likelihood, or any log density) of the
# parameters on their natural scale; the sampler runs on unconstrained coordinates, with the
# transforms, their Jacobians and the priors added in the core (inst/include/vhmc/model/
# bounded.hpp, src/glue_bounded.cpp), as Stan does for <lower, upper> and BayesianTools for
# createUniformPrior(lower, upper).

# TRUE when any of lower, upper, prior is given.
declares_parameters <- function(lower, upper, prior) !is.null(lower) || !is.null(upper) || !is.null(prior)

# Parameter names when `init` gives none: `parameters`, else the names of `lower`, `upper`
# and `prior` (which must then name every parameter).
declared_names <- function(parameters, lower, upper, prior, given) {
  if (!is.null(parameters)) return(parameter_names(parameters, given))
  nm <- unique(c(names(lower), names(upper), if (!is_prior(prior)) names(prior)))
  if (length(nm) == 0L || any(!nzchar(nm))) {
    stop_arg("init", sprintf("is %s and neither `parameters` nor named `lower`/`upper` give the parameters", given),
             "Give `parameters` (their names), named bounds such as lower = c(a = 0, b = 0), or `init` values.")
  }
  nm
}

# One bound per parameter: a named vector (the parameters it names; the others get
# `default`), an unnamed one of length 1 (every parameter) or of one per parameter.
bound_vector <- function(b, arg, par_names, default) {
  d <- length(par_names)
  if (is.null(b)) return(rep(default, d))
  if (!is.numeric(b) || length(b) == 0L || anyNA(b)) {
    stop_arg(arg, sprintf("must be a numeric vector of bounds (-Inf/Inf for none), not %s", describe(b)))
  }
  if (is.null(names(b))) {
    if (!length(b) %in% c(1L, d)) {
      stop_arg(arg, sprintf("has length %d, but there are %d parameters (%s)", length(b), d,
                            paste(utils::head(par_names, 5), collapse = ", ")),
               "Give one bound per parameter, a single bound for all, or name them: c(a = 0).")
    }
    return(rep_len(as.numeric(b), d))
  }
  if (any(is.na(names(b)) | !nzchar(names(b)))) {
    stop_arg(arg, "names some bounds and not others", "Name every bound, e.g. c(a = 0, b = 1), or none.")
  }
  unknown <- setdiff(names(b), par_names)
  if (length(unknown) > 0L) {
    stop_arg(arg, sprintf("names %s, which %s not a parameter (the parameters: %s)",
                          paste0("`", unknown, "`", collapse = ", "), if (length(unknown) > 1) "are" else "is",
                          paste(par_names, collapse = ", ")))
  }
  out <- stats::setNames(rep(default, d), par_names)
  out[names(b)] <- as.numeric(b)
  unname(out)
}

# The prior of each parameter (flat() where none is given), from `prior`: NULL, one
# vhmc_prior for every parameter, or a named list of them.
declared_priors <- function(prior, par_names) {
  out <- stats::setNames(rep(list(flat()), length(par_names)), par_names)
  if (is.null(prior)) return(out)
  if (is_prior(prior)) prior <- stats::setNames(rep(list(prior), length(par_names)), par_names)
  if (!is.list(prior) || is.null(names(prior)) || any(!nzchar(names(prior)))) {
    stop_arg("prior", sprintf("must be a prior such as normal(0, 1) or a named list of them, not %s", describe(prior)),
             "Write e.g. prior = list(a = normal(0, 1), sigma = exponential(1)).")
  }
  for (nm in names(prior)) out[[nm]] <- check_declared_prior(prior[[nm]], nm, par_names)
  out
}

check_declared_prior <- function(p, nm, par_names) {
  arg <- sprintf("prior$%s", nm)
  if (!nm %in% par_names) {
    stop_arg("prior", sprintf("names `%s`, which is not a parameter (the parameters: %s)", nm,
                              paste(par_names, collapse = ", ")))
  }
  if (!is_prior(p)) stop_arg(arg, sprintf("must be a prior such as normal(0, 1), not %s", describe(p)))
  if (is_horseshoe(p)) {
    stop_arg(arg, "is a horseshoe prior, a hierarchy over the coefficients of vhmc_glm(), not a prior of one parameter",
             "Give a prior such as normal(), student_t() or cauchy().")
  }
  if (isTRUE(p$autoscale)) {
    stop_arg(arg, "has autoscale = TRUE, but a log density written in R has no data to scale it by",
             "Give the prior's scale yourself.")
  }
  lens <- lengths(p[c("location", "scale", "df")])
  if (any(lens > 1L)) stop_arg(arg, "must have a single location, scale and df: it is the prior of one parameter")
  p
}

# The declared parameters, checked: bounds (a prior's support bounds the parameter where no
# bound is declared, and a declared bound must lie inside it), priors, and the names of the
# sampler's coordinates. `core` is what src/glue_bounded.cpp reads.
declared_parameters <- function(par_names, lower, upper, prior) {
  priors <- declared_priors(prior, par_names)
  lo <- bound_vector(lower, "lower", par_names, -Inf)
  hi <- bound_vector(upper, "upper", par_names, Inf)
  for (j in seq_along(par_names)) {
    s <- prior_support(priors[[j]])
    lo[j] <- check_in_support(lo[j], s, "lower", par_names[j], priors[[j]])
    hi[j] <- check_in_support(hi[j], s, "upper", par_names[j], priors[[j]])
    if (!(lo[j] < hi[j])) {
      stop_arg("upper", sprintf("of `%s` (%s) must be above its lower bound (%s)", par_names[j],
                                format(hi[j]), format(lo[j])))
    }
  }
  list(names = par_names, lower = lo, upper = hi, priors = priors,
       internal_names = unconstrained_names(par_names, lo, hi),
       core = list(lower = lo, upper = hi, priors = unname(lapply(priors, prior_for_core))))
}

# A bound, or the support's bound in its place when none is declared.
check_in_support <- function(b, s, arg, nm, prior) {
  if (arg == "lower" && b == -Inf) return(s[1])
  if (arg == "upper" && b == Inf) return(s[2])
  if (b < s[1] || b > s[2]) {
    stop_arg(arg, sprintf("of `%s` is %s, outside (%s, %s), where its prior %s is a density",
                          nm, format(b), format(s[1]), format(s[2]), format(prior)),
             "Declare bounds inside the prior's support, or choose another prior.")
  }
  b
}

# The sampler's coordinate of each parameter, named by its transform.
unconstrained_names <- function(par_names, lower, upper) {
  f <- function(x) format(x, digits = 15)
  vapply(seq_along(par_names), function(j) {
    nm <- par_names[j]
    lo <- lower[j]
    hi <- upper[j]
    if (is.finite(lo) && is.finite(hi)) {
      if (lo == 0 && hi == 1) sprintf("logit(%s)", nm) else sprintf("logit((%s - %s) / %s)", nm, f(lo), f(hi - lo))
    } else if (is.finite(lo)) {
      if (lo == 0) sprintf("log(%s)", nm) else sprintf("log(%s - %s)", nm, f(lo))
    } else if (is.finite(hi)) {
      sprintf("log(%s - %s)", f(hi), nm)
    } else nm
  }, character(1))
}

# Initial values given on the natural scale must lie strictly inside the bounds.
check_inits_inside <- function(inits, spec) {
  for (chain in seq_along(inits)) {
    x <- inits[[chain]]
    out <- !(x > spec$lower & x < spec$upper)
    if (any(out)) {
      j <- which(out)[1]
      stop_arg("init", sprintf("for chain %d has %s = %s, not strictly inside its bounds (%s, %s)", chain,
                               spec$names[j], format(x[j]), format(spec$lower[j]), format(spec$upper[j])),
               "Start every parameter inside its bounds, or use init = NULL.")
    }
  }
  invisible()
}

# The log density and gradient of the unconstrained coordinates t: the user's functions of
# the natural values x, plus the priors and the transforms' log Jacobians (dU/dt =
# dU/dx dx/dt, the chain rule). The user's functions are checked for malformed values on
# the natural scale, so that the messages name their values.
bounded_functions <- function(log_density, gradient, spec) {
  core <- spec$core
  nm <- spec$names
  ld <- checked_call(log_density, "log_density", 1L, nm)
  gr <- if (!is.null(gradient)) checked_call(gradient, "gradient", length(nm), nm)
  # The potential asks for the value and then the gradient at the same point: the transforms
  # are evaluated once for both.
  last <- list(t = NULL)
  at <- function(t) {
    t <- as.numeric(t)
    if (!identical(t, last$t)) last <<- c(list(t = t), vhmc_bounded_eval(core, t))
    last
  }
  list(
    log_density = function(t) {
      b <- at(t)
      ld(stats::setNames(b$x, nm)) - b$u
    },
    gradient = if (!is.null(gr)) function(t) {
      b <- at(t)
      gr(stats::setNames(b$x, nm)) * b$dx_dt - b$grad
    }
  )
}

# The target of fit_chains() (R/fit-chains.R): an R target on the unconstrained coordinates
# whose draws and initial values are reported on the natural scale (followed, when
# `unconstrained`, by the sampler's coordinates of the bounded parameters).
bounded_target <- function(log_density, gradient, spec, unconstrained, runs = NULL) {
  fns <- bounded_functions(log_density, gradient, spec)
  target <- r_target(fns$log_density, fns$gradient, spec$internal_names, runs = runs)
  extra <- which(spec$internal_names != spec$names)
  keep <- if (unconstrained) extra else integer(0)
  target$par_names <- c(spec$names, spec$internal_names[keep])
  target$to_user <- function(rows) cbind(vhmc_bounded_constrain(spec$core, rows), rows[, keep, drop = FALSE])
  target$user_values <- function(theta) natural_values(spec, theta)
  target$globals <- function() user_globals(list(log_density, gradient))
  target$scatter <- as.numeric(is.finite(spec$lower) & is.finite(spec$upper))
  target
}

# The declared parameters and the initial values on both scales: list(spec, inits =
# list(internal = unconstrained vectors, user = natural named vectors)). Random starts are
# drawn on the unconstrained scale, so inside the bounds; given values must lie inside.
declared_setup <- function(log_density, init, parameters, lower, upper, prior, chains, seed) {
  if (is.null(init) || identical(init, "random")) {
    given <- if (is.null(init)) "NULL" else "\"random\""
    spec <- declared_parameters(declared_names(parameters, lower, upper, prior, given), lower, upper, prior)
    ld_t <- bounded_functions(log_density, NULL, spec)$log_density
    t <- resolve_inits(init, spec$names, chains, seed, ld_t)
    user <- lapply(t, function(th) natural_values(spec, th))
    return(list(spec = spec, inits = list(internal = lapply(t, unname), user = user)))
  }
  user <- resolve_inits(init, parameters, chains, seed, NULL)
  spec <- declared_parameters(names(user[[1]]), lower, upper, prior)
  check_inits_inside(user, spec)
  to_t <- function(x) as.numeric(vhmc_bounded_unconstrain(spec$core, matrix(x, nrow = 1L)))
  list(spec = spec, inits = list(internal = lapply(user, to_t), user = user))
}

# The named natural values of one point of unconstrained coordinates.
natural_values <- function(spec, theta) {
  stats::setNames(as.numeric(vhmc_bounded_constrain(spec$core, matrix(theta, nrow = 1L))), spec$names)
}

# The declared parameters as a table (fit$model$parameters).
declared_table <- function(spec) {
  data.frame(parameter = spec$names, lower = spec$lower, upper = spec$upper,
             prior = vapply(spec$priors, format, character(1)), sampled_as = spec$internal_names,
             row.names = NULL, stringsAsFactors = FALSE)
}
