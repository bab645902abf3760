# Rank statistics of simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and
# Gelman 2018) and two tests of their uniformity: Pearson's chi-square on binned ranks, and
# the simultaneous band of the ECDF (Säilynoja, Bürkner and Vehtari 2022). Sourced by sbc.R,
# by the vignette's build script and by tests/testthat/test-sbc.R; plain functions of base R.

# Indices of L draws equally spaced through N (the last draw included).
sbc_thin_index <- function(N, L) {
  if (N < L) stop(sprintf("%d draws cannot be thinned to L = %d", N, L))
  as.integer(round(seq(N / L, N, length.out = L)))
}

# The rank of each true value among L thinned posterior draws: the number of draws below
# it, 0..L. draws: an N x P matrix with named columns; truth: a named vector.
sbc_rank <- function(draws, truth, L) {
  keep <- draws[sbc_thin_index(nrow(draws), L), names(truth), drop = FALSE]
  colSums(sweep(keep, 2L, truth, "<"))
}

# Pearson's chi-square test of ranks 0..L against the discrete uniform, in `bins` bins of
# equal width ((L + 1) must be a multiple of bins).
sbc_chisq <- function(ranks, L, bins = 20L) {
  if ((L + 1L) %% bins != 0L) stop(sprintf("L + 1 = %d is not a multiple of bins = %d", L + 1L, bins))
  counts <- tabulate(ranks %/% ((L + 1L) / bins) + 1L, nbins = bins)
  expected <- length(ranks) / bins
  stat <- sum((counts - expected)^2 / expected)
  list(statistic = stat, df = bins - 1L,
       p_value = stats::pchisq(stat, bins - 1L, lower.tail = FALSE))
}

# The ECDF statistic of Säilynoja, Bürkner and Vehtari (2022): at each cut point r = 0..L-1
# the count of ranks <= r is Binomial(N, (r + 1) / (L + 1)) under uniformity; the statistic
# is the smallest two-sided tail probability over the cut points. counts: a cut points x
# samples matrix of such counts; returns one statistic per sample.
sbc_ecdf_stat <- function(counts, N, L) {
  z <- seq_len(L) / (L + 1)
  lo <- stats::pbinom(counts, N, z)
  hi <- stats::pbinom(counts - 1, N, z, lower.tail = FALSE)
  pmin(1, 2 * apply(matrix(pmin(lo, hi), nrow = L), 2L, min))
}

# Counts of ranks <= r for r = 0..L-1, one column per sample (a list or matrix of ranks).
sbc_cum_counts <- function(ranks_by_sample, L) {
  vapply(ranks_by_sample, function(r) cumsum(tabulate(r + 1L, nbins = L + 1L))[seq_len(L)],
         numeric(L))
}

# The statistic's distribution under uniformity, by simulating `sims` samples of N ranks
# from the discrete uniform on 0..L (exact for ranks of a finite L, whatever the spacing of
# the cut points). Seeded so that the p-values and bands are reproducible.
sbc_ecdf_null <- function(N, L, sims = 10000L, seed = 1L) {
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
  set.seed(seed)
  ranks <- matrix(sample.int(L + 1L, N * sims, replace = TRUE) - 1L, N)
  sbc_ecdf_stat(sbc_cum_counts(asplit(ranks, 2L), L), N, L)
}

# p-value of the ECDF test: the share of uniform samples whose statistic is as small.
sbc_ecdf_p <- function(ranks, L, null) {
  obs <- sbc_ecdf_stat(sbc_cum_counts(list(ranks), L), length(ranks), L)
  (1 + sum(null <= obs)) / (length(null) + 1)
}

# The simultaneous 1 - alpha band of the ECDF difference (ECDF minus uniform CDF) at the cut
# points: the pointwise binomial band at the adjusted level gamma, the alpha quantile of the
# null statistic (Säilynoja, Bürkner and Vehtari 2022).
sbc_ecdf_band <- function(N, L, null, alpha = 0.05) {
  gamma <- unname(stats::quantile(null, alpha, type = 1))
  z <- seq_len(L) / (L + 1)
  data.frame(N = N, L = L, alpha = alpha, gamma = gamma, z = z,
             lower = stats::qbinom(gamma / 2, N, z) / N - z,
             upper = stats::qbinom(1 - gamma / 2, N, z) / N - z)
}
