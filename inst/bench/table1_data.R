# Data of the a9a and Bank Marketing rows of Table 1 of Zhang, Shahbaba and Zhao (2017,
# "Hamiltonian Monte Carlo acceleration using surrogate functions with random bases"),
# sourced by the benchmark scripts:
#
#   a9a_binary()     the a9a binarisation of UCI Adult (Platt 1999), rebuilt from liver's `adult`
#   a9a_projected()  the paper's a9a model input: Gaussian random projection to k = 60 columns,
#                    standardised, plus an intercept
#   a9a_full()       the unprojected design: the standardised binary features plus an intercept
#   bank_subset()    liver's real 4,521-row Bank Marketing subset (Moro et al. 2014), one-hot
#   bank_standin()   the paper-sized simulated stand-in, N = 40197, d = 25
#   sim_lr()         the paper's simulated logistic regression, N = 1e5, d = 50
#
# Each returns list(X = design matrix with column names, y = 0/1 vector, notes = character
# vector of what was done), plus builder-specific extras. The real data come from the
# Suggests package liver (bash tools/install-deps.sh --bench). Everything random uses its
# own fixed seed and leaves the caller's random-number stream as it was.

# ---- helpers ------------------------------------------------------------------------------

# Evaluate `expr` under set.seed(seed) with R's default generators, then put back the
# caller's generator kinds and .Random.seed, so that building data never shifts the stream
# of the sampler run that follows.
t1_local_seed <- function(seed, expr) {
  genv <- globalenv()
  kinds <- RNGkind()
  saved <- if (exists(".Random.seed", envir = genv, inherits = FALSE))
    get(".Random.seed", envir = genv, inherits = FALSE)
  on.exit({
    suppressWarnings(RNGkind(kinds[1], kinds[2], kinds[3]))
    if (is.null(saved)) {
      if (exists(".Random.seed", envir = genv, inherits = FALSE))
        rm(".Random.seed", envir = genv)
    } else {
      assign(".Random.seed", saved, envir = genv)
    }
  }, add = TRUE)
  suppressWarnings(set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion",
                            sample.kind = "Rejection"))
  expr
}

# One of liver's data sets, with "." in column names read as "_" (the package's help pages
# and its data disagree on the separator across versions).
t1_liver_data <- function(name) {
  if (!requireNamespace("liver", quietly = TRUE)) {
    stop("the Table 1 real-data rows need the package 'liver' ",
         "(bash tools/install-deps.sh --bench)", call. = FALSE)
  }
  env <- new.env()
  utils::data(list = name, package = "liver", envir = env)
  d <- get(name, envir = env)
  names(d) <- gsub(".", "_", names(d), fixed = TRUE)
  d
}

# Columns scaled to mean 0 and sd 1 (the papers standardise every covariate). A constant
# column has no scale and carries nothing a separate intercept does not, so it is dropped
# and named in `dropped`.
t1_standardise <- function(X) {
  s <- apply(X, 2, stats::sd)
  keep <- is.finite(s) & s > 0
  Z <- scale(X[, keep, drop = FALSE])
  attr(Z, "scaled:center") <- NULL
  attr(Z, "scaled:scale") <- NULL
  list(X = Z, dropped = colnames(X)[!keep])
}

t1_add_intercept <- function(X) {
  cbind(intercept = 1, X)
}

# Indicator columns of a factor, one per level in `levels`; rows whose value is not among
# them (a9a's missing "?") get zeros in every column, as in a9a.
t1_indicators <- function(f, levels, prefix) {
  f <- as.character(f)
  M <- vapply(levels, function(l) as.numeric(!is.na(f) & f == l), numeric(length(f)))
  M <- matrix(M, nrow = length(f), dimnames = list(NULL, paste0(prefix, "=", levels)))
  M
}

# ---- a9a ----------------------------------------------------------------------------------

# Bin starts of a9a's continuous attributes: bin k is [cut[k-1], cut[k]), with the first bin
# open below and the last open above. Platt (1999, "Fast training of support vector machines
# using sequential minimal optimization") binarised UCI Adult by discretising its six
# continuous attributes into quantile ranges; LIBSVM's a1a-a9a are that binarisation. The
# cuts below were recovered by aligning a public copy of a9a (32,561 rows, 123 features,
# 24.08% positive) with UCI's adult.data and liver's rows, and reproduce a9a's bins on all
# 32,402 training rows liver has:
#   age, fnlwgt     the quintiles of adult.data (smallest value with at least k/5 of the
#                   32,561 rows at or below it), 5 bins each;
#   education-num,  adult.data's quintiles tie (9, 9, 10, 13 and 35, 40, 40, 48); a9a's bins
#   hours-per-week  start instead at 9, 10, 11, 13 and 35, 40, 41, 48, i.e. a tied cut moves
#                   to the next observed value, 5 bins each;
#   capital gain    zero in more than 80% of rows, so every quintile is 0; a9a has 2 bins,
#   and loss        zero and positive (the values are whole dollars, so the cut is 1).
# Why a tie moves up for two attributes but collapses for the capital attributes is not
# documented; these are the cuts a9a has, not a rule that would rebuild them from the data
# (which liver could not do anyway: 159 training rows are missing, below).
a9a_cuts <- function() {
  list(age = c(26, 33, 41, 50),
       demogweight = c(106648, 158662, 196338, 259873),
       education_num = c(9, 10, 11, 13),
       capital_gain = 1,
       capital_loss = 1,
       hours_per_week = c(35, 40, 41, 48))
}

# One-hot of the bins of a continuous attribute, named by their ranges.
t1_bins <- function(x, cuts, name) {
  lower <- c(-Inf, cuts)
  upper <- c(cuts, Inf)
  labels <- sprintf("%s[%s,%s)", name, format(lower, scientific = FALSE, trim = TRUE),
                    format(upper, scientific = FALSE, trim = TRUE))
  bin <- findInterval(x, cuts) + 1L
  M <- outer(bin, seq_along(labels), `==`) * 1
  dimnames(M) <- list(NULL, labels)
  M
}

# liver's adult is UCI's adult.test (rows named 1-16281) followed by adult.data (rows named
# 16282-48842), in UCI's order, with the 244 rows whose capital gain is the top code 99999
# removed (159 of adult.data, 85 of adult.test; all have income > 50K): 48,842 - 244 =
# 48,598. Checked against UCI's adult.data: the rows named 16281 + i equal adult.data row i
# in every shared attribute, and the row names missing from 16282-48842 are exactly its
# capital-gain-99999 rows. The paper's N = 32,561 is adult.data (a9a's training file), so
# part = "train" keeps the 32,402 of them liver still has.
t1_adult_part <- function(d, part) {
  id <- as.integer(rownames(d))
  if (anyNA(id) || max(id) != 48842L) {
    stop("liver's adult no longer carries UCI's row numbers; cannot split train/test",
         call. = FALSE)
  }
  switch(part, train = d[id > 16281L, , drop = FALSE], test = d[id <= 16281L, , drop = FALSE],
         all = d)
}

# The a9a binarisation of liver's adult: the six continuous attributes in the bins of
# a9a_cuts(), the eight categorical ones one-hot with a column per level, a missing "?"
# coded as zeros in all of the attribute's columns (as a9a does: its 2,399 training rows with
# a "?" have 11-13 features instead of 14). Columns follow adult's attribute order, as a9a's.
a9a_binary <- function(part = c("train", "test", "all")) {
  part <- match.arg(part)
  d <- t1_adult_part(t1_liver_data("adult"), part)
  cuts <- a9a_cuts()
  if (!all(c(names(cuts), "income") %in% names(d))) {
    stop("liver's adult lacks some of: ", paste(c(names(cuts), "income"), collapse = ", "),
         call. = FALSE)
  }
  attrs <- setdiff(names(d), "income")
  blocks <- lapply(attrs, function(a) {
    if (a %in% names(cuts)) return(t1_bins(d[[a]], cuts[[a]], a))
    t1_indicators(d[[a]], setdiff(levels(d[[a]]), "?"), a)
  })
  X <- do.call(cbind, blocks)
  attribute <- rep(attrs, vapply(blocks, ncol, 1L))
  list(X = X, y = as.numeric(d$income == ">50K"), attribute = attribute,
       notes = a9a_notes(part, nrow(X), ncol(X)))
}

a9a_notes <- function(part, n, p) {
  c(sprintf(paste("liver adult, part '%s': %d rows; a9a (adult.data) has 32,561, liver lacks",
                  "the 159 with capital gain 99999 (all > 50K)"), part, n),
    sprintf(paste("%d binary features (a9a 123): liver merges workclass Federal/Local/State-gov",
                  "into Gov and Self-emp-inc/not-inc into Self-emp (5 columns, a9a 8), marital",
                  "Married-civ-spouse/spouse-absent/AF-spouse into Married (5, a9a 7), country",
                  "England/Scotland into United-Kingdom (40, a9a 41)"), p),
    paste("continuous attributes in a9a's bins, all edges matched (quintiles of adult.data;",
          "ties moved up for education-num and hours; capital gain/loss zero vs positive)"),
    paste("missing '?' (workclass, occupation, native-country): zeros in the attribute's",
          "columns, as in a9a; response income > 50K"))
}

# The paper's a9a input: the binary features times a k-column Gaussian matrix with entries
# N(0, 1/k) (Johnson-Lindenstrauss scaling; the paper does not state its law), each
# projected column standardised, plus an intercept. k = 60 as in Table 1; 100 columns gave
# "a substantial drop in the acceptance probability" in the paper.
a9a_projected <- function(k = 60L, seed = 2017L, part = "train") {
  b <- a9a_binary(part)
  p <- ncol(b$X)
  R <- t1_local_seed(seed, matrix(stats::rnorm(p * k, 0, sqrt(1 / k)), p, k))
  P <- b$X %*% R
  colnames(P) <- sprintf("proj%02d", seq_len(k))
  s <- t1_standardise(P)
  note <- sprintf(paste("Gaussian random projection %d -> %d columns, entries N(0, 1/%d),",
                        "seed %d; standardised; intercept added (d = %d)"),
                  p, k, k, seed, ncol(s$X) + 1L)
  list(X = t1_add_intercept(s$X), y = b$y, projection = R, notes = c(b$notes, note))
}

# The unprojected design: every binary feature standardised, plus an intercept. It is not of
# full rank (16 columns aliased on the training part): the columns of each attribute without
# missing values sum to one, the education-num bins are unions of education levels, and
# occupation is missing exactly where workclass is missing or Never-worked. The papers'
# N(0, 100 I) prior keeps the posterior proper.
a9a_full <- function(part = "train") {
  b <- a9a_binary(part)
  s <- t1_standardise(b$X)
  dropped <- if (length(s$dropped)) {
    paste("constant columns dropped:", paste(s$dropped, collapse = ", "))
  }
  note <- sprintf("all binary features standardised, intercept added (d = %d)", ncol(s$X) + 1L)
  list(X = t1_add_intercept(s$X), y = b$y,
       attribute = b$attribute[colnames(b$X) %in% colnames(s$X)],
       notes = c(b$notes, dropped, note))
}

# ---- Bank Marketing -----------------------------------------------------------------------

# liver's bank (the UCI 4,521-row "bank.csv" subset of Moro et al. 2014): the 9 categorical
# attributes one-hot without their most frequent level (the reference level; the remaining
# indicators are then the rarer ones, least collinear with the intercept), the 7 numeric
# ones as they are (pdays = -1 codes "not contacted before"; kept as given, since the paper
# does not say how it coded it), all standardised, plus an intercept. `duration` is kept
# (Moro et al. note it is known only after the call; the paper's 24 features are not listed).
bank_subset <- function() {
  d <- t1_liver_data("bank")
  resp <- intersect(c("deposit", "y"), names(d))[1]
  if (is.na(resp)) stop("liver's bank has neither `deposit` nor `y`", call. = FALSE)
  attrs <- setdiff(names(d), resp)
  categorical <- attrs[vapply(d[attrs], is.factor, TRUE)]
  refs <- vapply(categorical, function(a) names(which.max(table(d[[a]]))), "")
  blocks <- lapply(attrs, function(a) {
    x <- d[[a]]
    if (!is.factor(x)) return(matrix(as.numeric(x), ncol = 1L, dimnames = list(NULL, a)))
    t1_indicators(x, setdiff(levels(x), refs[[a]]), a)
  })
  s <- t1_standardise(do.call(cbind, blocks))
  X <- t1_add_intercept(s$X)
  n_num <- length(attrs) - length(categorical)
  list(X = X, y = as.numeric(d[[resp]] == "yes"), reference = refs,
       notes = c(sprintf("liver bank: %d rows, response `%s` (UCI's `y`), yes = 1", nrow(d), resp),
                 paste0("one-hot, most frequent level dropped: ",
                        paste(names(refs), refs, sep = "=", collapse = ", ")),
                 sprintf(paste("%d indicators of %d categorical attributes + %d numeric,",
                               "standardised, intercept added (d = %d)"),
                         ncol(s$X) - n_num, length(categorical), n_num, ncol(X))))
}

# The paper-sized stand-in (the full 45,211-row data are not in an R package): the simulated
# logistic regression of the paper's Table 1 (covariates with sd 0.1, coefficients
# beta ~ U[0,1]^d including an intercept 0.1 * beta_1, y ~ Bernoulli(logit^-1(eta))) at
# the Bank Marketing size N = 40197, d = 25, with correlated covariates as real ones are:
# they share one common factor, x = 0.1 (sqrt(rho) f + sqrt(1 - rho) z), rho = 0.6, the
# construction of vhmc's surrogate-hmc vignette. The model input is the covariates
# standardised plus a column of ones (the paper's 40197 x 25 matrix); `beta_true` is the
# generating coefficient vector in those coordinates. Like the simulated row, about half the
# labels are 1 (the real bank data have 11.5%).
bank_standin <- function(N = 40197L, p = 24L, rho = 0.6, seed = 2014L) {
  sim <- t1_local_seed(seed, {
    f <- stats::rnorm(N)
    X1 <- 0.1 * (sqrt(rho) * f + sqrt(1 - rho) * matrix(stats::rnorm(N * p), N, p))
    beta <- stats::runif(p + 1L)
    eta <- 0.1 * beta[1] + drop(X1 %*% beta[-1])
    list(X1 = X1, beta = beta, y = stats::rbinom(N, 1L, stats::plogis(eta)))
  })
  colnames(sim$X1) <- sprintf("x%02d", seq_len(p))
  m <- colMeans(sim$X1)
  s <- apply(sim$X1, 2, stats::sd)
  beta_std <- c(intercept = 0.1 * sim$beta[1] + sum(sim$beta[-1] * m), sim$beta[-1] * s)
  notes <- c(sprintf(paste("simulated: N = %d, %d covariates with sd 0.1 sharing one factor",
                           "(correlation %.1f), beta ~ U[0,1]^%d, intercept 0.1 beta_1, seed %d"),
                     N, p, rho, p + 1L, seed),
             sprintf(paste("covariates standardised, intercept added (d = %d);",
                           "beta_true in these coordinates"), p + 1L))
  list(X = t1_add_intercept(t1_standardise(sim$X1)$X), y = sim$y, beta_true = beta_std,
       notes = notes)
}

# The paper's simulated logistic regression (its Table 1, first row): N = 1e5, d = 50,
# X = (0.1 * 1, X_1) with rows of X_1 iid N(0, I / 100), beta_true ~ U[0,1]^50,
# y ~ Bernoulli(logit^-1(X beta)). The covariates are left as they are (sd 0.1): vhmc_glm
# fits the column 0.1 * 1 as its intercept alpha = 0.1 beta_1, so its prior is
# N(0, 1) = 0.1 N(0, 10^2) (`prior_intercept_scale`), and samples the slopes as
# beta_j * sd(x_j), about 0.1 beta_j: the paper's step size 0.045 is 0.0045 there. The same
# draws as inst/bench/seed002_table1.R (seed 2016).
sim_lr <- function(N = 1e5, d = 50L, seed = 2016L) {
  sim <- t1_local_seed(seed, {
    X1 <- matrix(stats::rnorm(N * (d - 1L), sd = 0.1), N, d - 1L,
                 dimnames = list(NULL, sprintf("x%02d", seq_len(d - 1L))))
    beta <- stats::runif(d)
    list(X1 = X1, beta = beta, y = stats::rbinom(N, 1, stats::plogis(0.1 * beta[1] + drop(X1 %*% beta[-1]))))
  })
  list(X = t1_add_intercept(sim$X1), y = sim$y, beta_true = sim$beta, prior_intercept_scale = 1,
       notes = sprintf("simulated: N = %d, d = %d, covariates sd 0.1, beta ~ U[0,1]^%d, seed %d",
                       as.integer(N), d, d, seed))
}

# A numeric setting from the environment, `default` when unset (the scripts that source
# this file read their sizes this way).
env_num <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.numeric(v) else default
}
