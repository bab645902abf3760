ld <- function(th) -0.5 * sum(th^2)
gr <- function(th) -th

test_that("targets must be functions that work at the initial values", {
  expect_error(vhmc_sample(1, init = c(a = 0)), "`log_density` must be a function")
  expect_error(vhmc_sample(ld, gradient = "g", init = c(a = 0)), "`gradient` must be NULL or a function")
  expect_error(vhmc_sample(function(th) NaN, gr, init = c(a = 0)),
               "`log_density` must return a single finite number at the initial values")
  expect_error(vhmc_sample(function(th) c(1, 2), gr, init = c(a = 0)), "single finite number")
  expect_error(vhmc_sample(function(th) stop("boom"), gr, init = c(a = 0)),
               "`log_density` failed at the initial values: boom")
  expect_error(vhmc_sample(ld, function(th) c(1, 2, 3), init = c(a = 0, b = 0)),
               "`gradient` must return a numeric vector of length 2")
  expect_error(vhmc_sample(ld, function(th) c(NA, 1), init = c(a = 0, b = 0)),
               "`gradient` returned non-finite values")
  expect_error(vhmc_sample(function(th) if (all(th > 5)) 0 else -Inf, gr, parameters = 1, seed = 1),
               "100 random starting points")
})

test_that("init is checked for length, names and values", {
  expect_error(vhmc_sample(ld, gr), "`parameters` is not given")
  expect_error(vhmc_sample(ld, gr, init = c(a = NA)), "`init` must give finite numeric values")
  expect_error(vhmc_sample(ld, gr, init = "a"), "`init` must be NULL, \"random\" or initial values")
  expect_error(vhmc_sample(ld, gr, init = c(0, 0), parameters = c("a", "b", "c")),
               "`init` has length 2 for chain 1, but 3 parameters")
  expect_error(vhmc_sample(ld, gr, init = list(c(a = 0), c(b = 0)), chains = 2),
               "names \\(b\\) that differ")
  expect_error(vhmc_sample(ld, gr, init = list(c(a = 0)), chains = 2), "list of length 1 but there are 2 chains")
  expect_error(vhmc_sample(ld, gr, parameters = c("a", "a")), "`parameters` must not contain duplicated")
})

test_that("chain settings must be positive whole numbers with warmup < iter", {
  run <- function(progress = FALSE, ...) vhmc_sample(ld, gr, init = c(a = 0), progress = progress, ...)
  expect_error(run(chains = 0), "`chains` must be a single whole number >= 1")
  expect_error(run(chains = 1.5), "`chains` must be a single whole number")
  expect_error(run(iter = -1), "`iter` must be a single whole number >= 1")
  expect_error(run(iter = 100, warmup = 100), "`warmup` \\(100\\) must be smaller than `iter` \\(100\\)")
  expect_error(run(warmup = -1), "`warmup` must be a single whole number >= 0")
  expect_error(run(thin = 0), "`thin` must be a single whole number >= 1")
  expect_error(run(iter = 20, warmup = 10, thin = 11), "`thin` \\(11\\) exceeds")
  expect_error(run(cores = 0), "`cores` must be a single whole number >= 1")
  expect_error(run(seed = -3), "`seed` must be NULL or a whole number")
  expect_error(run(seed = "a"), "`seed` must be NULL or a whole number")
  expect_error(run(progress = NA), "`progress` must be TRUE or FALSE")
  expect_error(run(sampler = "nuts"), "`sampler` must be a sampler object")
})

test_that("sampler constructors validate their arguments", {
  expect_error(nuts(adapt_delta = 1), "`adapt_delta` must lie in \\(0, 1\\)")
  expect_error(nuts(adapt_delta = 0), "`adapt_delta` must lie in \\(0, 1\\)")
  expect_error(nuts(adapt_delta = "a"), "`adapt_delta` must be a single finite number")
  expect_error(nuts(max_treedepth = 0), "`max_treedepth` must be a single whole number >= 1")
  expect_error(nuts(metric = "full"), "`metric` must be one of")
  expect_error(hmc(steps = 0), "`steps` must be a single whole number >= 1")
  expect_error(hmc(step_size = -0.1), "`step_size` must lie in \\(0, Inf\\)")
  expect_error(hmc(jitter = "yes"), "`jitter` must be TRUE or FALSE")
  expect_s3_class(nuts(), "vhmc_sampler")
  expect_equal(nuts()$metric, "low_rank")
  expect_equal(nuts(adaptation = "stan")$metric, "diag")
  expect_error(nuts(metric = "low_rank", adaptation = "stan"), "`metric` \"low_rank\" needs the draw/gradient adaptation")
  expect_error(nuts(adaptation = "windows"), "`adaptation` must be one of")
  expect_snapshot(print(hmc(steps = 5)))
})

test_that("an improper target stops with a clear message instead of hanging", {
  expect_error(
    vhmc_sample(function(th) 0, function(th) 0, init = c(a = 0), chains = 1, iter = 200,
                progress = FALSE, seed = 1),
    "improper"
  )
})

test_that("init = \"random\" without parameters says so, and hidden is bounded (issue 24, item 6)", {
  expect_error(vhmc_sample(ld, gr, init = "random"),
               "`init` is \"random\" and `parameters` is not given, so the number of parameters is unknown")
  expect_error(vhmc_sample(ld, gr), "`init` is NULL and `parameters` is not given")
  expect_error(vhmc_sample(function(th) -Inf, gr, init = "random", parameters = 1, seed = 1),
               "`init` is \"random\", but 100 random starting points")
  # 1e6 hidden units ended in "std::bad_alloc" from the core
  expect_error(surrogate_hmc(hidden = 1e6),
               "`hidden` \\(1000000\\) is too large: training the surrogate stores several hidden x hidden matrices \\(8,000 GB each\\)")
  expect_identical(surrogate_hmc(hidden = 10000)$hidden, 10000L)
})
