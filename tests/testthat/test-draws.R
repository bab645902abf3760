test_that("new_vhmc_fit() builds a valid fit and rejects inconsistent input", {
  fit <- make_fake_fit()
  expect_s3_class(fit, "vhmc_fit")
  expect_named(fit, c("draws", "diagnostics", "adaptation", "counts",
                      "timing", "sampler", "model", "args", "inits", "call"))
  expect_true(posterior::is_draws_array(fit$draws))
  expect_true(vhmc:::is_vhmc_fit(fit))
  expect_false(vhmc:::is_vhmc_fit(list()))
  expect_type(fit$diagnostics[[1]]$divergent__, "integer")
  expect_type(fit$diagnostics[[1]]$treedepth__, "integer")

  good <- unclass(fit)
  build <- function(...) {
    a <- good
    dots <- list(...)
    a[names(dots)] <- dots
    do.call(vhmc:::new_vhmc_fit, a, quote = TRUE)
  }
  expect_s3_class(build(), "vhmc_fit")
  # a plain 3-d array is converted to a draws_array
  expect_true(posterior::is_draws_array(
    build(draws = unclass(fit$draws))$draws
  ))
  expect_error(build(draws = matrix(1:4, 2)), "draws_array")
  expect_error(build(args = utils::modifyList(good$args, list(chains = 3))),
               "does not match the number of chains")
  expect_error(build(args = utils::modifyList(good$args, list(iter = 2000))),
               "ceiling\\(\\(iter - warmup\\) / thin\\)")
  expect_error(build(args = list(chains = 2)), "`args` must be a list")
  expect_error(build(diagnostics = good$diagnostics[1]), "one data.frame per")
  bad_diag <- good$diagnostics
  bad_diag[[2]] <- bad_diag[[2]][-1, ]
  expect_error(build(diagnostics = bad_diag), "has 99 rows; expected 100")
  bad_diag <- good$diagnostics
  bad_diag[[1]]$divergent__[1] <- 2L
  expect_error(build(diagnostics = bad_diag), "only 0 and 1")
  expect_error(build(counts = good$counts[, -2]), "missing column.*n_grad")
  expect_error(build(timing = good$timing[1, ]), "one per chain")
  expect_error(build(sampler = list(name = "nuts")), "vhmc_sampler")
  expect_error(build(model = list()), "`model`")
  expect_error(build(inits = list()), "`inits`")
})

test_that("dimension accessors and variables() agree with the draws", {
  fit <- make_fake_fit(n_chains = 3, n_iter = 50)
  expect_identical(posterior::nchains(fit), 3L)
  expect_identical(posterior::niterations(fit), 50L)
  expect_identical(posterior::ndraws(fit), 150L)
  expect_identical(posterior::variables(fit), c("a", "b", "beta[1]"))
  # the generics are re-exported
  expect_identical(vhmc::nchains(fit), 3L)
  expect_identical(vhmc::variables(fit), c("a", "b", "beta[1]"))
})

test_that("posterior conversions round-trip the draws exactly", {
  fit <- make_fake_fit()
  d <- fit$draws
  vars <- c("a", "b", "beta[1]")

  expect_identical(as_draws(fit), d)

  arr <- as_draws_array(fit)
  expect_true(posterior::is_draws_array(arr))
  expect_identical(dim(arr), c(100L, 2L, 3L))
  expect_identical(posterior::variables(arr), vars)
  expect_identical(unclass(arr), unclass(d))

  df <- as_draws_df(fit)
  expect_true(posterior::is_draws_df(df))
  expect_identical(nrow(df), 200L)
  expect_identical(df$.chain, rep(1:2, each = 100))
  expect_identical(df$.iteration, rep(1:100, times = 2))
  expect_identical(df$.draw, 1:200)
  for (v in vars) {
    expect_identical(df[[v]], as.vector(unclass(d)[, , v]))
  }
  expect_equal(posterior::as_draws_array(df), d)

  mat <- as_draws_matrix(fit)
  expect_true(posterior::is_draws_matrix(mat))
  expect_identical(dim(mat), c(200L, 3L))
  expect_identical(posterior::nchains(mat), 2L)
  expect_identical(unname(unclass(mat)[101, "b"]),
                   unname(unclass(d)[1, 2, "b"]))
  expect_equal(posterior::as_draws_array(mat), d)

  lst <- as_draws_list(fit)
  expect_true(posterior::is_draws_list(lst))
  expect_length(lst, 2L)
  expect_named(lst[[2]], vars)
  expect_identical(lst[[2]][["beta[1]"]], unname(unclass(d)[, 2, "beta[1]"]))
  expect_equal(posterior::as_draws_array(lst), d)
})

test_that("conversions can select variables and reject unknown ones", {
  fit <- make_fake_fit()
  expect_identical(posterior::variables(as_draws_array(fit, variable = "b")),
                   "b")
  expect_identical(posterior::variables(as_draws_df(fit, variable = "^b",
                                                    regex = TRUE)),
                   c("b", "beta[1]"))
  expect_identical(colnames(as.matrix(fit, variable = c("beta[1]", "a"))),
                   c("beta[1]", "a"))
  expect_error(as_draws_array(fit, variable = "nope"),
               "Unknown variable.*'nope'")
  expect_error(as.mcmc.list(fit, variable = 1), "character vector")
})

test_that("as.matrix() stacks chains one after another (chain-major)", {
  fit <- make_fake_fit()
  a <- unclass(fit$draws)
  m <- as.matrix(fit)
  expect_true(is.matrix(m))
  expect_false(inherits(m, "draws"))
  expect_identical(dim(m), c(200L, 3L))
  expect_identical(colnames(m), c("a", "b", "beta[1]"))
  expect_identical(m[1:100, "a"], unname(a[, 1, "a"]))
  expect_identical(m[101:200, "beta[1]"], unname(a[, 2, "beta[1]"]))
  expect_identical(as.vector(m), as.vector(unclass(as_draws_matrix(fit))))
})

test_that("as.array() gives a plain iterations x chains x variables array", {
  fit <- make_fake_fit()
  arr <- as.array(fit)
  expect_identical(class(arr), "array")
  expect_identical(dim(arr), c(100L, 2L, 3L))
  expect_named(dimnames(arr), c("iterations", "chains", "variables"))
  expect_identical(dimnames(arr)$iterations, as.character(1:100))
  expect_identical(dimnames(arr)$chains, c("1", "2"))
  expect_identical(dimnames(arr)$variables, c("a", "b", "beta[1]"))
  expect_identical(as.vector(arr), as.vector(unclass(fit$draws)))
})

test_that("as.data.frame() is a plain data frame laid out like as_draws_df()", {
  fit <- make_fake_fit()
  df <- as.data.frame(fit)
  expect_identical(class(df), "data.frame")
  expect_named(df, c("a", "b", "beta[1]", ".chain", ".iteration", ".draw"))
  expect_identical(df$.chain, rep(1:2, each = 100))
  expect_identical(df$.iteration, rep(1:100, 2))
  expect_identical(df$.draw, 1:200)
  ref <- as_draws_df(fit)
  for (v in c("a", "b", "beta[1]", ".chain", ".iteration", ".draw")) {
    expect_identical(df[[v]], ref[[v]])
  }
})

test_that("as.mcmc.list() has one mcmc per chain, sampler iteration numbers", {
  fit <- make_fake_fit(warmup = 500, thin = 2)  # 100 saved draws per chain
  mc <- as.mcmc.list(fit)
  expect_s3_class(mc, "mcmc.list")
  expect_identical(coda::nchain(mc), 2L)
  expect_s3_class(mc[[1]], "mcmc")
  # kept iterations 501, 503, ..., 699
  expect_identical(coda::mcpar(mc[[1]]), c(501, 699, 2))
  expect_identical(coda::mcpar(mc[[2]]), c(501, 699, 2))
  expect_equal(as.numeric(stats::time(mc[[1]])), seq(501, 699, by = 2))
  expect_identical(coda::varnames(mc), c("a", "b", "beta[1]"))
  a <- unclass(fit$draws)
  expect_identical(as.vector(mc[[2]][, "b"]), unname(a[, 2, "b"]))
  # posterior reads it back to the same values
  back <- posterior::as_draws_array(mc)
  expect_equal(unname(unclass(back)), unname(unclass(fit$draws)))

  fit1 <- make_fake_fit(warmup = 0, thin = 1, n_iter = 40)
  expect_identical(coda::mcpar(as.mcmc.list(fit1)[[1]]), c(1, 40, 1))
  fit3 <- make_fake_fit(warmup = 10, thin = 3, n_iter = 40)
  expect_identical(coda::mcpar(as.mcmc.list(fit3)[[1]]), c(11, 128, 3))
  expect_identical(vhmc:::fit_saved_iterations(fit3),
                   as.integer(seq(11, 128, by = 3)))
})

test_that("single-chain, single-variable fits keep their dimensions", {
  fit <- make_fake_fit(n_chains = 1, variables = "x", n_divergent = 0)
  expect_identical(dim(as.matrix(fit)), c(100L, 1L))
  expect_identical(dim(as.array(fit)), c(100L, 1L, 1L))
  expect_identical(dim(as.matrix(as.mcmc.list(fit)[[1]])),
                   c(100L, 1L))
  expect_named(as.data.frame(fit), c("x", ".chain", ".iteration", ".draw"))
})
