# Golden draws: fixed-seed fits of every sampler on small models, recorded once
# (tools/golden-draws.R writes tests/testthat/fixtures/golden.rds, with the fingerprint of
# the recording platform's floating point, vhmc:::platform_fingerprint()) and compared by
# test-golden-draws.R, so that a restructuring proves it changed no draw. On a platform
# with the recorded fingerprint the comparison is bit for bit; on another, the last bits of
# libm, BLAS or Eigen results may differ and a chain carries them into its draws (seen:
# 3.7e-14), so there every double must agree within golden_tolerance relative to its size,
# and every count, name and shape exactly. A deliberate change of draws re-records the
# fixture and says so in NEWS.md.

golden_data <- function() {
  set.seed(20261123)
  n <- 200
  x <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("x1", "x2", "x3")))
  d <- data.frame(x)
  d$yb <- rbinom(n, 1, plogis(0.3 + drop(x %*% c(1, -0.5, 0.25))))
  d$yg <- 1 + drop(x %*% c(0.5, -1, 2)) + rnorm(n, sd = 0.7)
  ts_d <- data.frame(y = as.numeric(arima.sim(list(ar = 0.6), 80)), x = rnorm(80))
  list(glm = d, ardl = ts_d)
}

# The samplers as they were when the fixture was recorded: Stan's warmup adaptation and
# exploration length, and (below) random initial values and fixed warmups, so that these
# fits keep proving that restructurings change no draw. The defaults that replaced them in
# 0.3.0 (mode start, draw/gradient adaptation, automatic warmup) and 0.4.0 (surrogate_hmc()'s
# hand-over to NUTS, decided from measured seconds) have their own tests.
golden_samplers <- function() {
  stan <- "stan"
  list(nuts = nuts(adaptation = stan), nuts_dense = nuts(metric = "dense", adaptation = stan),
       hmc = hmc(adaptation = stan), surrogate = surrogate_hmc(explore = 100, adaptation = stan, fallback = FALSE),
       surrogate_adaptive = surrogate_hmc(adaptive = TRUE, explore = 100, adaptation = stan),
       variational = variational_hmc(), sghmc = sghmc(), sgld = sgld())
}

# The parts of a fit that the sampler determines (not its timing).
golden_parts <- function(fit) {
  report <- if (!is.null(fit$surrogate)) surrogate_info(fit) else
    if (!is.null(fit$variational)) variational_info(fit) else if (!is.null(fit$sg)) sg_info(fit)
  timing <- c("train_seconds", "update_seconds", "mode_seconds", "explore_seconds", "tuning_seconds",
              "seconds_per_gradient", "seconds_per_surrogate_gradient", "cost_ratio",
              "payoff_cost_ratio", "efficiency_ratio", "predicted_efficiency_ratio", "predicted_train_seconds",
              "predicted_efficiency_if_accurate", "trial_share")
  counts <- setdiff(names(fit$counts), c("chain", "n_grad_start", "n_hessian_start"))
  list(draws = unclass(fit$draws), diagnostics = fit$diagnostics,
       step_size = vapply(fit$adaptation, function(a) a$step_size %||% NA_real_, numeric(1)),
       counts = fit$counts[counts], inits = fit$inits,
       report = if (!is.null(report)) report[setdiff(names(report), timing)])
}

golden_fits <- function() {
  dat <- golden_data()
  run <- function(expr) suppressWarnings(suppressMessages(golden_parts(expr)))
  # Minibatch samplers start as they did (at the mode with control variates) with init = NULL.
  glm_fit <- function(formula, family, sampler) {
    init <- if (inherits(sampler, c("vhmc_sghmc", "vhmc_sgld"))) NULL else "random"
    vhmc_glm(formula, data = dat$glm, family = family, sampler = sampler, chains = 2, iter = 300,
             warmup = 150, seed = 11, init = init, progress = FALSE)
  }
  out <- list()
  for (nm in names(golden_samplers())) {
    s <- golden_samplers()[[nm]]
    out[[paste0("logistic_", nm)]] <- run(glm_fit(yb ~ x1 + x2 + x3, binomial(), s))
    out[[paste0("gaussian_", nm)]] <- run(glm_fit(yg ~ x1 + x2 + x3, gaussian(), s))
  }
  out$ardl_nuts <- run(vhmc_ardl(y ~ x, data = dat$ardl, p = 2, q = 1, chains = 2, iter = 300,
                                 warmup = 150, sampler = nuts(adaptation = "stan"), init = "random",
                                 seed = 12, progress = FALSE))
  out$ardl_fixed_sgld <- run(vhmc_ardl(y ~ x, data = dat$ardl, p = 1, q = 0, noise_precision = 1,
                                       sampler = sgld(), chains = 2, iter = 300, warmup = 150,
                                       seed = 13, progress = FALSE))
  P <- solve(matrix(c(1, 0.8, 0.8, 1), 2))
  ld <- function(th) -0.5 * sum(th * (P %*% th))
  gr <- function(th) -as.vector(P %*% th)
  extra <- list(hmc_fixed = hmc(steps = 5, step_size = 0.3, metric = "unit", adaptation = "stan"),
                surrogate_paper = surrogate_hmc(steps = 6, step_size = 0.25, metric = "unit",
                                                explore = 100, adaptation = "stan"))
  samplers <- c(golden_samplers()[c("nuts", "hmc", "surrogate", "variational")], extra)
  for (nm in names(samplers)) {
    out[[paste0("target_", nm)]] <- run(vhmc_sample(ld, gr, init = c(a = 0.5, b = -0.5),
                                                    sampler = samplers[[nm]], chains = 2,
                                                    iter = 300, warmup = 150, seed = 14,
                                                    progress = FALSE))
  }
  out$target_nuts_thin <- run(vhmc_sample(ld, gr, init = c(a = 0.5, b = -0.5), chains = 2,
                                          iter = 400, warmup = 100, thin = 3, seed = 15,
                                          sampler = nuts(adaptation = "stan"), progress = FALSE))
  out
}

# Relative tolerance of the comparison on a platform unlike every recorded one: far above
# the rounding differences a chain accumulates there from other last bits (1e-14 to 1e-8
# seen), far below any change of the algorithm (a different draw, step size or decision
# moves values by 1e-3 or more). A platform can still make a chain take another decision
# (an acceptance, an exploration's length): tools/golden-draws.R therefore records every
# variant of glibc's libm this platform can select, and the comparison is bit for bit there.
golden_tolerance <- 1e-8

# The fixture: a list of recordings, each list(platform = fingerprint, fits = golden_fits()).
golden_fixture <- function() readRDS(test_path("fixtures", "golden.rds"))

# The recording to compare with: the one whose fingerprint is this platform's ("exact"), or
# else the first ("tolerance"), with the kernels on which this platform differs from it.
golden_select <- function(golden, now = vhmc:::platform_fingerprint()) {
  for (rec in golden) {
    if (!length(vhmc:::fingerprint_differences(now, rec$platform))) {
      return(list(mode = "exact", fits = rec$fits, differs = character()))
    }
  }
  list(mode = "tolerance", fits = golden[[1L]]$fits,
       differs = vhmc:::fingerprint_differences(now, golden[[1L]]$platform))
}

# Fits now against the selected recording: the mode and the differing parts.
golden_check <- function(golden, now_fits = golden_fits(), now_fp = vhmc:::platform_fingerprint()) {
  sel <- golden_select(golden, now_fp)
  tol <- if (sel$mode == "exact") 0 else golden_tolerance
  c(sel[c("mode", "differs")], list(diffs = golden_compare(now_fits, sel$fits, tol),
                                    names_match = identical(names(now_fits), names(sel$fits))))
}

# Every leaf of two nested lists (fits, their parts, data frames, reports) compared: a data
# frame with one row per leaf that differs, naming the fit, the part (its path), what
# differs, and the largest absolute and relative differences of doubles. tolerance = 0 asks
# for identical values.
golden_compare <- function(now, golden, tolerance = 0) {
  rows <- list()
  walk <- function(a, b, path) {
    problem <- golden_leaf_problem(a, b, tolerance)
    if (identical(problem$what, "recurse")) {
      for (k in problem$keys) walk(a[[k]], b[[k]], c(path, k))
    } else if (!is.null(problem)) {
      rows[[length(rows) + 1L]] <<- data.frame(fit = path[1L], part = paste(path[-1L], collapse = "$"),
                                                problem = problem$what, max_abs_diff = problem$abs,
                                                max_rel_diff = problem$rel)
    }
  }
  for (nm in union(names(golden), names(now))) walk(now[[nm]], golden[[nm]], nm)
  do.call(rbind, c(list(data.frame(fit = character(), part = character(), problem = character(),
                                   max_abs_diff = numeric(), max_rel_diff = numeric())), rows))
}

# NULL when leaf a (now) matches b (recorded); list(what = "recurse", keys) for lists; else
# what differs.
golden_leaf_problem <- function(a, b, tolerance) {
  bad <- function(what, abs = NA_real_, rel = NA_real_) list(what = what, abs = abs, rel = rel)
  if (is.null(a) || is.null(b)) return(if (is.null(a) && is.null(b)) NULL else bad(if (is.null(a)) "missing now" else "not recorded"))
  if (is.list(a) && is.list(b)) {
    if (!identical(names(a), names(b)) || length(a) != length(b)) return(bad("different elements"))
    if (!identical(list_attributes(a), list_attributes(b))) return(bad("different shape or class"))
    return(list(what = "recurse", keys = if (is.null(names(a))) seq_along(a) else names(a)))
  }
  if (!identical(typeof(a), typeof(b))) return(bad(sprintf("type %s, recorded %s", typeof(a), typeof(b))))
  if (!identical(attributes(a), attributes(b))) return(bad("different shape or names"))
  if (identical(a, b)) return(NULL)
  if (!is.double(a)) return(bad("different values"))
  if (!identical(is.na(a), is.na(b))) return(bad("missing values at different places"))
  ok <- !is.na(a)
  d <- abs(a[ok] - b[ok])
  d[a[ok] == b[ok]] <- 0  # equal infinities
  rel <- d / pmax(1, abs(b[ok]))
  if (tolerance > 0 && all(rel <= tolerance)) return(NULL)
  bad("different values", max(d), max(rel))
}

# One line per differing leaf, for a failure message.
golden_report <- function(diffs, mode) {
  lines <- sprintf("  %s: %s %s (max abs diff %s, max rel diff %s)", diffs$fit, diffs$part,
                   diffs$problem, format(signif(diffs$max_abs_diff, 3)),
                   format(signif(diffs$max_rel_diff, 3)))
  paste0(sprintf("%d part%s of the golden fits differ (%s comparison):\n", nrow(diffs),
                 if (nrow(diffs) == 1L) "" else "s", mode), paste(lines, collapse = "\n"))
}

# A list's attributes but its names, in one order, with a data frame's row names in one
# representation (assigning a column reorders a data frame's attributes).
list_attributes <- function(x) {
  a <- attributes(x) %||% list()
  a$names <- NULL
  if (is.data.frame(x)) a$row.names <- as.character(row.names(x))
  if (length(a)) a[order(names(a))] else list()
}
