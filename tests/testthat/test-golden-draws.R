# Every sampler on small models gives the same draws, diagnostics, step sizes, counts and
# initial values as when the fixture was recorded (tools/golden-draws.R): bit for bit on a
# platform whose floating-point fingerprint is a recorded one, within golden_tolerance
# elsewhere (helper-golden.R explains why).

test_that("golden draws are reproduced (bit for bit on a recorded platform)", {
  skip_on_cran()
  res <- golden_check(golden_fixture())
  expect_true(res$names_match)
  expect(nrow(res$diffs) == 0L, golden_report(res$diffs, res$mode))
  if (res$mode == "tolerance" && nrow(res$diffs) == 0L) {
    skip(sprintf(paste("this platform's floating point differs from every recorded one (%s):",
                       "the golden fits were compared within a relative %g, not bit for bit"),
                 paste(res$differs, collapse = ", "), golden_tolerance))
  }
})

test_that("on glibc's other libm (no FMA), the golden check finds that platform's recording", {
  # glibc picks its exp, pow, sin, ... by the processor's features; GLIBC_TUNABLES makes
  # this process's children take the baseline (SSE2) versions, as a processor without FMA
  # would: a real platform unlike this one, whose last bits differ.
  skip_on_cran()
  skip_if_not(Sys.info()[["sysname"]] == "Linux" && R.version$arch == "x86_64", "glibc on x86-64 only")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c("suppressMessages(library(vhmc))", "library(testthat)",
               "`%||%` <- function(a, b) if (is.null(a)) b else a",
               sprintf("test_path <- function(...) file.path(%s, ...)", deparse(normalizePath(test_path()))),
               sprintf("source(%s)", deparse(normalizePath(test_path("helper-golden.R")))),
               "fp <- vhmc:::platform_fingerprint()",
               "res <- golden_check(golden_fixture(), now_fp = fp)",
               "cat(res$mode, nrow(res$diffs), fp[['exp']], '\\n')",
               "if (nrow(res$diffs)) cat(golden_report(res$diffs, res$mode), '\\n')"), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE,
                 env = c(sprintf("R_LIBS=%s", paste(.libPaths(), collapse = .Platform$path.sep)),
                         "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA"))
  line <- grep("^(exact|tolerance) ", out, value = TRUE)
  expect_length(line, 1L)
  fields <- strsplit(line, " ")[[1]]
  skip_if(fields[3] == vhmc:::platform_fingerprint()[["exp"]],
          "this processor has no FMA: its libm is already the baseline one")
  expect(fields[1] == "exact" && fields[2] == "0", paste(out, collapse = "\n"))
})

test_that("Eigen's product blocking is fixed at load, whatever the processor's caches", {
  sizes <- vhmc:::vhmc_fix_product_blocking()
  expect_equal(sizes, c(32768, 1048576, 8388608))
  fp <- vhmc:::platform_fingerprint()
  on.exit(vhmc:::vhmc_fix_product_blocking())
  # The blocking of a processor with 48 KiB L1 and 2 MiB L2 caches sums products in another
  # order (it made two golden fits differ by up to 3.7e-14 before blocking was fixed).
  vhmc:::vhmc_fix_product_blocking(c(49152, 2097152, 33554432))
  expect_identical(vhmc:::fingerprint_differences(vhmc:::platform_fingerprint(), fp), "eigen_gemm_blocked")
})

test_that("the golden comparison names the fit, the part and the largest difference", {
  golden <- list(fit_a = list(draws = array(c(1, 2, 3, 4), c(2, 1, 2)), counts = data.frame(n = 3L)),
                 fit_b = list(report = list(step = 0.5, kind = "x")))
  expect_equal(nrow(golden_compare(golden, golden)), 0L)
  # A last-bit difference, as between two processors: fails the exact comparison, passes
  # the tolerant one.
  tiny <- golden
  tiny$fit_a$draws[3] <- 3 * (1 + 4e-14)
  d <- golden_compare(tiny, golden)
  expect_identical(d$fit, "fit_a")
  expect_identical(d$part, "draws")
  expect_equal(d$max_abs_diff, 1.2e-13, tolerance = 0.01)
  expect_match(golden_report(d, "exact"), "fit_a: draws different values \\(max abs diff 1.2e-13")
  expect_equal(nrow(golden_compare(tiny, golden, golden_tolerance)), 0L)
  # A real change fails both, and so does any change of counts, names or strings.
  big <- golden
  big$fit_b$report$step <- 0.5001
  big$fit_a$counts$n <- 4L
  big$fit_b$report$kind <- "y"
  d <- golden_compare(big, golden, golden_tolerance)
  expect_setequal(paste(d$fit, d$part), c("fit_a counts$n", "fit_b report$step", "fit_b report$kind"))
  expect_equal(d$max_rel_diff[d$part == "report$step"], 1e-4, tolerance = 1e-6)
  shape <- golden
  shape$fit_a$draws <- shape$fit_a$draws[, , 1]
  expect_identical(golden_compare(shape, golden)$problem, "different shape or names")
  expect_identical(golden_compare(golden["fit_a"], golden)$problem, "missing now")
})

test_that("a platform unlike every recorded one takes the tolerant comparison and says why", {
  fp <- vhmc:::platform_fingerprint()
  expect_true(all(nzchar(fp)))
  expect_identical(fp, vhmc:::platform_fingerprint())  # deterministic
  fits <- list(fit_a = list(draws = c(1, 2)))
  other <- fp
  other[["exp"]] <- "0000000000000000"
  other[["blas_gemm"]] <- "0000000000000000"
  two <- list(list(platform = other, fits = fits), list(platform = fp, fits = fits))
  expect_identical(golden_select(two, fp)$mode, "exact")
  sel <- golden_select(two[1L], fp)
  expect_identical(sel$mode, "tolerance")
  expect_identical(sel$differs, c("exp", "blas_gemm"))
  # The tolerant comparison accepts last-bit differences and still fails a real change.
  near <- list(fit_a = list(draws = c(1, 2 * (1 + 1e-12))))
  expect_equal(nrow(golden_check(two[1L], near, fp)$diffs), 0L)
  expect_equal(nrow(golden_check(two[2L], near, fp)$diffs), 1L)
  far <- list(fit_a = list(draws = c(1, 2.001)))
  expect_identical(golden_check(two[1L], far, fp)$diffs$part, "draws")
})
