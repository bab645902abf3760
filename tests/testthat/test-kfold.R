# kfold() (R/interop-kfold.R): the same result as a loop of update() refits with the
# documented folds and seeds; elpd_kfold close to PSIS-LOO's elpd_loo; loo's print() and
# loo_compare(); the same result on 2 cores; multilevel folds that hold out whole groups;
# clear errors for bad K and folds and for fits it cannot refit.

skip_if_not_installed("loo")
quiet <- function(expr) suppressWarnings(suppressMessages(expr))

fit_wt <- quiet(vhmc_glm(mpg ~ wt, data = mtcars, chains = 2, iter = 400, seed = 3, progress = FALSE))
kf_wt <- quiet(loo::kfold(fit_wt, K = 3, save_fits = TRUE))

test_that("kfold() equals a loop of refits with the fit's folds and seeds", {
  seed <- fit_wt$args$seed
  folds <- withr::with_seed(seed, loo::kfold_split_random(3, nrow(mtcars)))
  expect_identical(attr(kf_wt, "folds"), folds)
  elpd <- numeric(nrow(mtcars))
  for (k in 1:3) {
    fit_k <- quiet(update(fit_wt, data = mtcars[folds != k, ], seed = seed + k, cores = 1))
    expect_identical(as.matrix(kf_wt$fits[[k, "fit"]]), as.matrix(fit_k))
    expect_identical(kf_wt$fits[[k, "omitted"]], which(folds == k))
    ll <- log_lik(fit_k, newdata = mtcars[folds == k, ])
    elpd[folds == k] <- apply(ll, 2, function(v) max(v) + log(mean(exp(v - max(v)))))
  }
  # The refits are the same draws; the log-mean-exp agrees to rounding.
  expect_equal(kf_wt$pointwise[, "elpd_kfold"], elpd, tolerance = 1e-12)
  lpd <- apply(log_lik(fit_wt), 2, function(v) log(mean(exp(v))))
  expect_equal(kf_wt$pointwise[, "p_kfold"], lpd - elpd, tolerance = 1e-12)
  expect_equal(kf_wt$pointwise[, "kfoldic"], -2 * elpd, tolerance = 1e-12)
  expect_equal(kf_wt$estimates[, "Estimate"], colSums(kf_wt$pointwise))
  expect_equal(kf_wt$estimates[, "SE"], sqrt(32 * apply(kf_wt$pointwise, 2, var)))
  expect_identical(rownames(kf_wt$estimates), c("elpd_kfold", "p_kfold", "kfoldic"))
  expect_identical(attr(kf_wt, "K"), 3L)
  expect_s3_class(kf_wt, c("kfold", "loo"), exact = TRUE)
})

test_that("elpd_kfold is close to PSIS-LOO; print() and loo_compare() take kfold objects", {
  lo <- quiet(loo::loo(fit_wt))
  expect_lt(abs(kf_wt$elpd_kfold - lo$estimates["elpd_loo", "Estimate"]),
            2 * lo$estimates["elpd_loo", "SE"])
  expect_output(print(kf_wt), "Based on 3-fold cross-validation")
  expect_output(print(kf_wt), "elpd_kfold")
  fit_1 <- quiet(update(fit_wt, . ~ 1))
  kf_1 <- quiet(loo::kfold(fit_1, K = 3))
  expect_identical(attr(kf_1, "folds"), attr(kf_wt, "folds"))
  cmp <- loo::loo_compare(kf_1, kf_wt)
  expect_identical(rownames(cmp), c("fit_wt", "fit_1"))
  expect_equal(cmp["fit_1", "elpd_diff"], kf_1$elpd_kfold - kf_wt$elpd_kfold)
  expect_lt(cmp["fit_1", "elpd_diff"], 0)
})

test_that("the refits run in parallel with the same result", {
  skip_on_os("windows")
  kf <- quiet(loo::kfold(fit_wt, K = 3, cores = 2))
  expect_identical(kf$pointwise, kf_wt$pointwise)
})

test_that("subset and missing values: the fitted rows are refitted", {
  d <- mtcars
  d$wt[c(3, 7)] <- NA  # row 3 is outside the subset, row 7 inside it
  fit <- quiet(vhmc_glm(mpg ~ wt, data = d, subset = cyl > 4, chains = 2, iter = 300, seed = 2,
                        progress = FALSE))
  kf <- quiet(loo::kfold(fit, K = 2, save_fits = TRUE))
  rows <- d[d$cyl > 4 & !is.na(d$wt), ]
  folds <- attr(kf, "folds")
  expect_length(folds, nrow(rows))
  fit_1 <- quiet(update(fit, data = rows[folds != 1, ], subset = NULL, seed = 3, cores = 1))
  expect_identical(as.matrix(kf$fits[[1, "fit"]]), as.matrix(fit_1))
})

test_that("multilevel folds: seen levels use their effects, held-out groups are new groups", {
  skip_if_not_installed("lme4")
  ss <- lme4::sleepstudy
  fit <- quiet(vhmc_glm(Reaction ~ Days + (1 | Subject), data = ss, chains = 2, iter = 400, seed = 1,
                        progress = FALSE))
  random <- quiet(loo::kfold(fit, K = 3))
  groups <- withr::with_seed(1, loo::kfold_split_grouped(K = 3, x = ss$Subject))
  grouped <- quiet(loo::kfold(fit, folds = groups, save_fits = TRUE))
  fit_1 <- grouped$fits[[1, "fit"]]
  expect_identical(unname(ngrps(fit_1)), length(unique(ss$Subject[groups != 1])))
  expect_error(log_lik(fit_1, newdata = ss[groups == 1, ]), "levels of `Subject` the fit has not seen")
  # Predicting new subjects is harder than new days of known ones.
  expect_lt(grouped$elpd_kfold + 2 * grouped$se_elpd_kfold, random$elpd_kfold)
})

test_that("bad K and folds, and fits kfold() cannot refit, are clear errors", {
  expect_error(loo::kfold(fit_wt, K = 1), "`K` must be a single whole number >= 2, not 1")
  expect_error(loo::kfold(fit_wt, K = 2.5), "`K` must be a single whole number >= 2")
  expect_error(loo::kfold(fit_wt, K = 33), "`K` \\(33\\) exceeds the 32 observations")
  expect_error(loo::kfold(fit_wt, folds = 1:3), "`folds` must be 32 whole numbers >= 1")
  expect_error(loo::kfold(fit_wt, folds = rep(c(1, 3), 16)), "`folds` must use every fold from 1 to their maximum.*they use 1, 3")
  expect_error(loo::kfold(fit_wt, folds = rep(1, 32)), "`folds` must use every fold from 1 to their maximum, at least 2")
  expect_error(loo::kfold(fit_wt, folds = c(NA, rep(1:2, length.out = 31))), "`folds` must be 32 whole numbers")
  expect_error(loo::kfold(fit_wt, K = 4, folds = rep(1:2, 16)), "`K` is 4, but `folds` has 2 folds")
  expect_error(loo::kfold(fit_wt, K = 2, bogus = 1), "`...` must be empty, but has `bogus`")
  expect_error(loo::kfold(fit_wt, save_fits = NA), "`save_fits` must be TRUE or FALSE")
  d <- data.frame(y = c(1.2, 0.4, 2.2, 1.9, 0.3, 1.1, 2.5, 0.8), f = c("a", "b", "a", "b", "a", "b", "c", "c"))
  fit_f <- quiet(vhmc_glm(y ~ f, data = d, chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_error(loo::kfold(fit_f, folds = c(1, 2, 2, 1, 1, 2, 1, 1)),
               "`folds` hold every row of level \"c\" of `f` in fold 1.*kfold_split_stratified")
  fit_w <- quiet(vhmc_glm(mpg ~ wt, data = mtcars, weights = cyl, chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_error(loo::kfold(fit_w), "`x` was fitted with `weights`, which kfold\\(\\) does not take")
  ar <- quiet(vhmc_ardl(lh ~ 1, data = lh, p = 1, chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_error(loo::kfold(ar), "`x` is an ARDL fit: leaving out random time points breaks the lags")
  expect_error(loo::kfold(make_fake_fit()), "`x` is a vhmc_sample\\(\\) fit.*kfold\\(\\) has no observations")
  xs <- mtcars$wt
  ys <- mtcars$mpg
  fit_nd <- quiet(vhmc_glm(ys ~ xs, chains = 1, iter = 100, seed = 1, progress = FALSE))
  expect_error(loo::kfold(fit_nd), "`x` was fitted without `data`")
  changed <- mtcars
  fit_ch <- quiet(vhmc_glm(mpg ~ wt, data = changed, chains = 1, iter = 100, seed = 1, progress = FALSE))
  changed$mpg <- changed$mpg + 1
  expect_error(loo::kfold(fit_ch), "`x` was fitted with data = changed, whose rows no longer give the fit's responses")
})
