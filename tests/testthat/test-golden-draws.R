# Every sampler on small models gives the same draws, diagnostics, step sizes, counts and
# initial values as when the fixture was recorded (tools/golden-draws.R): bit for bit.

test_that("golden draws are reproduced bit for bit", {
  skip_on_cran()
  golden <- readRDS(test_path("fixtures", "golden.rds"))
  now <- golden_fits()
  expect_identical(names(now), names(golden))
  for (nm in names(golden)) expect_identical(now[[nm]], golden[[nm]], label = nm)
})
