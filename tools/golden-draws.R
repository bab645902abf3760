# Records the golden draws of tests/testthat/test-golden-draws.R (see helper-golden.R).
# Run from the repository root with the package installed: Rscript tools/golden-draws.R
# Only re-record when a change of draws is deliberate, and list it in NEWS.md.
library(vhmc)
`%||%` <- function(a, b) if (is.null(a)) b else a
source("tests/testthat/helper-golden.R")
t0 <- Sys.time()
fits <- golden_fits()
saveRDS(fits, "tests/testthat/fixtures/golden.rds", version = 2)
cat(sprintf("recorded %d golden fits in %.1f s\n", length(fits),
            as.numeric(difftime(Sys.time(), t0, units = "secs"))))
