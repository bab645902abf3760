# Package load: fix Eigen's product blocking to constants (inst/include/vhmc/base/blocking.hpp),
# so that draws do not depend on the cache sizes this processor reports.
.onLoad <- function(libname, pkgname) {
  vhmc_fix_product_blocking()
  invisible()
}
