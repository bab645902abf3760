# What the user's functions need in another R process (a PSOCK worker, a future worker).
#
# A closure is serialized with its environments, except the global environment and package
# environments, which travel as references to the receiving process's own: a log density
# defined at the top level (README example 3) finds neither the user's objects ("object 'P'
# not found") nor the packages the user attached. As future does through the globals
# package, the free variables of the user's functions (codetools::findGlobals()) are looked
# up from each function's environment: those bound in the global environment are shipped by
# value (functions among them are searched in turn), and those found in attached packages
# name packages to attach on the worker. Forked workers share the session and need neither.

# list(values = named list of the global objects, packages = packages to attach).
user_globals <- function(funs) {
  found <- new.env(parent = emptyenv())
  found$values <- list()
  found$packages <- character()
  found$seen <- list()
  for (f in funs) collect_globals(f, found)
  list(values = found$values, packages = found$packages)
}

# Adds the globals of function f (and of the functions it reaches) to `found`.
collect_globals <- function(f, found) {
  if (!is.function(f) || is.primitive(f) || isNamespace(environment(f))) return(invisible())
  if (any(vapply(found$seen, identical, logical(1), f))) return(invisible())
  found$seen <- c(found$seen, f)
  for (name in codetools::findGlobals(f)) {
    where <- binding_env(name, environment(f))
    if (is.null(where) || isNamespace(where) || identical(where, baseenv())) next
    pkg <- sub("^package:", "", environmentName(where))
    if (identical(where, globalenv())) {
      if (name %in% names(found$values)) next
      found$values[[name]] <- get(name, envir = where)
    } else if (!identical(pkg, environmentName(where))) {
      found$packages <- union(found$packages, pkg)
      next
    }
    # a global, or an object of a closure's own environment (which travels with it): a
    # function among them may use globals of its own
    collect_globals(get(name, envir = where), found)
  }
  invisible()
}

# The environment on env's chain that binds `name`, or NULL.
binding_env <- function(name, env) {
  while (!identical(env, emptyenv())) {
    if (exists(name, envir = env, inherits = FALSE)) return(env)
    env <- parent.env(env)
  }
  NULL
}

# chain_fun for a worker: the user's packages attached and the user's globals assigned in
# the worker's global environment while the chain runs; what was there before is restored
# afterwards (a future worker lives on, and may even be this session).
with_user_globals <- function(globals, chain_fun) {
  force(globals)
  force(chain_fun)
  function(chain) {
    for (p in globals$packages) suppressPackageStartupMessages(library(p, character.only = TRUE))
    genv <- globalenv()
    nms <- names(globals$values) %||% character()
    had <- vapply(nms, exists, logical(1), envir = genv, inherits = FALSE)
    old <- mget(nms[had], envir = genv)
    on.exit({
      rm(list = nms[!had], envir = genv)
      list2env(old, envir = genv)
    }, add = TRUE)
    list2env(globals$values, envir = genv)
    chain_fun(chain)
  }
}
