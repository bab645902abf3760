# Package load: fix Eigen's product blocking to constants (inst/include/vhmc/base/blocking.hpp),
# so that draws do not depend on the cache sizes this processor reports.
# It also binds the generics of loo and bayesplot that vhmc exports (R/reexports.R).
.onLoad <- function(libname, pkgname) {
  vhmc_fix_product_blocking()
  bind_suggested_generics(asNamespace(pkgname))
  invisible()
}
