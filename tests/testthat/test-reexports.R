# loo(), waic(), loo_compare() and pp_check() after library(vhmc) alone (issue 24, item 8).

test_that("the generics of loo and bayesplot work after library(vhmc) alone", {
  skip_on_cran()
  skip_if_not_installed("loo")
  skip_if_not_installed("bayesplot")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(
    "library(vhmc)",
    "cat('loaded at start:', isNamespaceLoaded('loo'), isNamespaceLoaded('bayesplot'), '\\n')",
    "fit <- vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 300, seed = 1, progress = FALSE)",
    "fit2 <- vhmc_glm(mpg ~ wt + hp, data = mtcars, chains = 2, iter = 300, seed = 1, progress = FALSE)",
    "cat('loo:', class(loo(fit))[1], '\\n')",
    "cat('waic:', class(suppressWarnings(waic(fit)))[1], '\\n')",
    "cat('compare:', class(loo_compare(fit, fit2))[1], '\\n')",
    "cat('pp_check:', class(pp_check(fit, seed = 1))[1], '\\n')",
    "cat('attached:', paste(c('loo', 'bayesplot') %in% .packages(), collapse = ' '), '\\n')",
    # the packages' own generics: attaching them as well masks nothing
    "cat('identical:', identical(vhmc::loo, loo::loo), identical(vhmc::pp_check, bayesplot::pp_check), '\\n')",
    "msgs <- character()",
    "withCallingHandlers(library(loo), message = function(m) msgs <<- c(msgs, conditionMessage(m)))",
    "cat('masked:', any(grepl('masked', msgs)), '\\n')"
  ), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  expect_true("loaded at start: FALSE FALSE " %in% out, info = paste(out, collapse = "\n"))
  expect_true("loo: psis_loo " %in% out)
  expect_true("waic: waic " %in% out)
  expect_true("compare: compare.loo " %in% out)
  expect_true("pp_check: gg " %in% out)
  expect_true("attached: FALSE FALSE " %in% out)
  expect_true("identical: TRUE TRUE " %in% out)
  expect_true("masked: FALSE " %in% out)
})

test_that("without the suggested package the generic says how to install it", {
  stand_in <- suggested_generic("loo", "notapackage.vhmc")
  expect_error(stand_in(1), "loo\\(\\) needs the notapackage.vhmc package. Install it with install.packages\\(\"notapackage.vhmc\"\\)")
  skip_if_not_installed("loo")
  expect_identical(suggested_generic("loo", "loo"), loo::loo)
})
