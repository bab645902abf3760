# loo(), waic(), loo_compare() and pp_check() after library(vhmc) alone (the README lists them
# among the methods of a fit). rstanarm imports loo and bayesplot and re-exports their
# generics. Here both stay in Suggests: bayesplot alone would bring ggplot2 and some 20 more
# packages to every install of vhmc, for four names. Instead the exports are bound when
# vhmc loads (.onLoad, R/zzz.R), as promises forced at their first use, so that loading vhmc
# loads neither package:
#  * to the package's own generic when it is installed: the identical object, so attaching
#    loo or bayesplot as well masks nothing and every method (vhmc's included, registered
#    for those generics) is found;
#  * otherwise to a function that says which package to install.

#' Generics of loo and bayesplot for vhmc fits
#'
#' `loo()`, `waic()`, `loo_compare()` (generics of the loo package) and `pp_check()` (of the
#' bayesplot package) work after `library(vhmc)`: they are those packages' own generics,
#' re-exported, when the packages are installed (both are suggested, not required, by vhmc),
#' and otherwise stop with the command that installs them. Their methods for vhmc fits are
#' described in [loo.vhmc_fit()] and [pp_check.vhmc_fit()]; the generics' own arguments in
#' `loo::loo()`, `loo::waic()`, `loo::loo_compare()` and `bayesplot::pp_check()`.
#'
#' @name vhmc-reexports
#' @aliases loo waic loo_compare pp_check
#' @rawNamespace export(loo, waic, loo_compare, pp_check)
#' @keywords internal
NULL

# Exported name -> the package whose generic it is.
suggested_generics <- c(loo = "loo", waic = "loo", loo_compare = "loo", pp_check = "bayesplot")

# The generic `name` of the suggested package `pkg`, or a stand-in that says how to get it.
suggested_generic <- function(name, pkg) {
  if (requireNamespace(pkg, quietly = TRUE)) return(getExportedValue(pkg, name))
  function(...) {
    require_suggested(pkg, sprintf("%s()", name))
    getExportedValue(pkg, name)(...)
  }
}

# Binds each name of suggested_generics in `ns` to a promise of suggested_generic() (each
# promise is evaluated in the frame of its own bind() call, which holds its name and package).
bind_suggested_generics <- function(ns) {
  bind <- function(name, pkg) {
    force(name)
    force(pkg)
    delayedAssign(name, suggested_generic(name, pkg), assign.env = ns)
  }
  for (name in names(suggested_generics)) bind(name, suggested_generics[[name]])
  invisible()
}
