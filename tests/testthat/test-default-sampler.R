# vhmc_sample()'s default sampler: nuts() with a gradient; without one a gradient-free
# sampler (finite-difference gradients only when a gradient sampler is asked for by name).

test_that("the default sampler follows the gradient, the dimension and the chains", {
  expect_s3_class(vhmc:::default_sampler(TRUE, 50, 4), "vhmc_nuts")
  expect_s3_class(vhmc:::default_sampler(FALSE, 2, 1), "vhmc_surrogate_mh")
  expect_s3_class(vhmc:::default_sampler(FALSE, 12, 4), "vhmc_surrogate_mh")
  expect_s3_class(vhmc:::default_sampler(FALSE, 13, 4), "vhmc_demc")
  expect_s3_class(vhmc:::default_sampler(FALSE, 13, 2), "vhmc_rwm")
})

test_that("vhmc_sample() without a gradient samples gradient-free by default, with finite differences on request", {
  ld <- function(th) -0.5 * sum(th^2)
  expect_no_message(fit <- suppressWarnings(vhmc_sample(ld, init = c(a = 0, b = 0), chains = 2, iter = 600,
                                                        seed = 1, progress = FALSE)))
  expect_s3_class(fit$sampler, "vhmc_surrogate_mh")
  expect_equal(sum(fit$counts$gradient_calls), 0)
  expect_message(fd <- suppressWarnings(vhmc_sample(ld, init = c(a = 0, b = 0), sampler = nuts(), chains = 1,
                                                    iter = 200, seed = 1, progress = FALSE)),
                 "No gradient supplied: using central finite differences")
  expect_s3_class(fd$sampler, "vhmc_nuts")
  with_grad <- suppressWarnings(vhmc_sample(ld, function(th) -th, init = c(a = 0, b = 0), chains = 1, iter = 200,
                                            seed = 1, progress = FALSE))
  expect_s3_class(with_grad$sampler, "vhmc_nuts")
})
