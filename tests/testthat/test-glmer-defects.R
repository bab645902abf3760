# Multilevel fits as a new user tries them: what was silent or unclear gives the right answer
# or an error that names the argument and the fix (issue 42, item 5).

quiet <- function(expr) suppressWarnings(suppressMessages(expr))

defect_data <- function() {
  set.seed(42)
  d <- data.frame(x = rnorm(120), z = rnorm(120), g = factor(rep(sprintf("g%02d", 1:12), 10)))
  d$y <- 1 + 0.5 * d$x + rnorm(12, 0, 0.7)[d$g] + rnorm(120, 0, 0.5)
  d$k <- rpois(120, exp(0.3 + 0.3 * d$x))
  d$n <- 10L
  d$s <- rbinom(120, 10, plogis(0.2 * d$x))
  d
}

test_that("formula() and update() keep the group-level terms; confint() and ngrps() work", {
  skip_on_cran()
  d <- defect_data()
  fit <- quiet(vhmc_glm(y ~ x + (1 | g), data = d, chains = 2, iter = 400, seed = 1, progress = FALSE))
  expect_identical(formula(fit), y ~ x + (1 | g))
  fit2 <- quiet(update(fit, . ~ . + z))
  expect_identical(formula(fit2), y ~ x + (1 | g) + z)
  expect_true("Sigma[g:(Intercept),(Intercept)]" %in% posterior::variables(fit2$draws))
  ci <- confint(fit, parm = c("x", "sigma"), level = 0.9)
  expect_identical(colnames(ci), c("5 %", "95 %"))
  expect_equal(unname(ci), unname(posterior_interval(fit, prob = 0.9, pars = c("x", "sigma"))))
  skip_if_not_installed("lme4")
  expect_identical(lme4::ngrps(fit), c(g = 12L))
})

test_that("repeated terms are an error in R; several terms of one factor are named apart", {
  skip_on_cran()
  d <- defect_data()
  expect_error(vhmc_glm(y ~ x + (1 | g) + (1 | g), data = d), "`formula` has the group-level term \\(1 \\| g\\) twice")
  fit <- quiet(vhmc_glm(y ~ x + (1 | g) + (0 + x | g), data = d, chains = 2, iter = 300, seed = 1, progress = FALSE))
  v <- posterior::variables(fit$draws)
  expect_true(all(c("b[(Intercept) g:g01]", "b[x g.1:g01]", "Sigma[g.1:x,x]") %in% v))
  expect_identical(anyDuplicated(v), 0L)
  expect_identical(names(VarCorr(fit)), c("g", "g.1"))
  expect_identical(ngrps(fit), c(g = 12L))
})

test_that("zero-row newdata, re.form and new levels pass through every predictive method", {
  skip_on_cran()
  d <- defect_data()
  fit <- quiet(vhmc_glm(y ~ x + (1 | g), data = d, chains = 2, iter = 400, seed = 1, progress = FALSE))
  expect_length(predict(fit, newdata = d[0, ]), 0L)
  expect_identical(dim(posterior_epred(fit, newdata = d[0, ])), c(400L, 0L))
  r2_all <- bayes_R2(fit)
  r2_fixed <- bayes_R2(fit, re.form = NA)
  expect_lt(mean(r2_fixed), mean(r2_all))
  nd <- data.frame(x = 0, g = "new")
  pi <- predictive_interval(fit, newdata = nd, allow_new_levels = TRUE, seed = 3)
  expect_identical(dim(pi), c(1L, 2L))
  e1 <- posterior_epred(fit, newdata = nd, allow_new_levels = TRUE, seed = 5)
  e2 <- posterior_epred(fit, newdata = nd, allow_new_levels = TRUE, seed = 5)
  expect_identical(e1, e2)
  expect_equal(colMeans(e1), predict(fit, newdata = nd, type = "response", allow_new_levels = TRUE, seed = 5),
               ignore_attr = TRUE)
})

test_that("brms's formula syntax is an error that says so and shows vhmc's spelling", {
  d <- defect_data()
  expect_error(vhmc_glm(s | trials(n) ~ x + (1 | g), data = d, family = binomial()),
               "`formula` has `s \\| trials\\(n\\)` on the left of ~, brms's syntax for a binomial response with its numbers of trials. In vhmc write cbind\\(y, n - y\\)")
  expect_error(vhmc_glm(y | weights(n) ~ x, data = d), "In vhmc write the argument weights = w")
  expect_error(vhmc_glm(y ~ x + (1 | p | g), data = d), "brms's syntax for terms whose effects correlate across formulas")
  # s() and t2() are vhmc's too (R/smooth-terms.R); a Gaussian process is not.
  expect_error(vhmc_glm(y ~ gp(x), data = d), "`formula` has `gp\\(\\)`, brms's syntax for a Gaussian process. vhmc does not have a Gaussian process yet")
  expect_error(vhmc_glm(y ~ mo(x), data = d), "monotonic effect. In vhmc write factor\\(x\\)")
  expect_error(vhmc_glm(y ~ x + (1 | gr(g)), data = d), "In vhmc write \\(1 \\| g\\)")
  expect_error(vhmc_glm(y ~ x + (1 | mm(g, g)), data = d), "multi-membership grouping. vhmc does not have a multi-membership grouping yet")
})

test_that("y ~ 0 + (1 | g) fits; an all-singleton gaussian term says it is not identified", {
  skip_on_cran()
  d <- defect_data()
  fit <- quiet(vhmc_glm(k ~ 0 + (1 | g), data = d, family = poisson(), chains = 2, iter = 400, seed = 1,
                        progress = FALSE))
  expect_false("(Intercept)" %in% posterior::variables(fit$draws))
  d$id <- factor(seq_len(nrow(d)))
  w <- character()
  withCallingHandlers(suppressMessages(vhmc_glm(y ~ x + (1 | id), data = d, chains = 1, iter = 200, seed = 1,
                                                progress = FALSE)),
                      warning = function(c) {
                        w <<- c(w, conditionMessage(c))
                        invokeRestart("muffleWarning")
                      })
  expect_match(w, "term \\(1 \\| id\\) has one observation in each of its 120 levels, so its standard deviation and sigma are not separately identified",
               all = FALSE)
})

test_that("a response on the 1e-8 scale gets no false tail-ESS warning; prior_summary() prints only when asked", {
  skip_on_cran()
  d <- defect_data()
  d$tiny <- d$y * 1e-8
  w <- character()
  fit <- withCallingHandlers(vhmc_glm(tiny ~ x, data = d, chains = 2, iter = 2000, seed = 1, progress = FALSE),
                             warning = function(c) {
                               w <<- c(w, conditionMessage(c))
                               invokeRestart("muffleWarning")
                             })
  expect_false(any(grepl("could not be computed|cannot be trusted", w)))
  expect_silent(p <- prior_summary(fit))
  expect_output(print(p), "Coefficients \\(1\\)")
})
