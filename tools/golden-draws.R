# Records the golden draws of tests/testthat/test-golden-draws.R (see helper-golden.R):
# one recording (the platform's floating-point fingerprint and the fits) for each variant of
# glibc's libm this machine can select: its own, and on x86-64 Linux also glibc's baseline
# (SSE2) exp, pow, sin, ..., which processors without FMA use (selected here through
# GLIBC_TUNABLES), when its fingerprint differs. Run from the repository root with the
# package installed: Rscript tools/golden-draws.R
# Re-record when a change of draws is deliberate (and list it in NEWS.md), or to prove a
# restructuring bit for bit on a machine unlike the recording one: record there from the
# commit before the change, then run the test on the changed code (and do not commit a
# fixture recorded only for that).
args <- commandArgs(TRUE)
record_one <- function(file) {
  suppressMessages(library(vhmc))
  `%||%` <<- function(a, b) if (is.null(a)) b else a
  source("tests/testthat/helper-golden.R")
  saveRDS(list(platform = vhmc:::platform_fingerprint(), fits = golden_fits()), file, version = 2)
}
if (length(args) == 2L && args[1] == "--one") {
  record_one(args[2])
  quit(save = "no")
}
t0 <- Sys.time()
variants <- list(native = character())
if (Sys.info()[["sysname"]] == "Linux" && R.version$arch == "x86_64") {
  variants$baseline_libm <- "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA"
}
recordings <- list()
for (v in names(variants)) {
  file <- tempfile(fileext = ".rds")
  env <- c(sprintf("R_LIBS=%s", paste(.libPaths(), collapse = .Platform$path.sep)), variants[[v]])
  status <- system2(file.path(R.home("bin"), "Rscript"), c("tools/golden-draws.R", "--one", file), env = env)
  if (status != 0L) stop("recording the ", v, " variant failed")
  rec <- readRDS(file)
  known <- vapply(recordings, function(r) identical(r$platform, rec$platform), logical(1))
  if (!any(known)) recordings[[length(recordings) + 1L]] <- rec
}
saveRDS(recordings, "tests/testthat/fixtures/golden.rds", version = 2)
cat(sprintf("recorded %d golden platform%s (%d fits each) in %.1f s\n", length(recordings),
            if (length(recordings) == 1L) "" else "s", length(recordings[[1L]]$fits),
            as.numeric(difftime(Sys.time(), t0, units = "secs"))))
