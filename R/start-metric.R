# The metric kind a mode start calls for. The default "low_rank" metric keeps the diagonal and
# at most `max_rank` (10) correlation directions. A Laplace covariance whose correlation
# matrix has more eigenvalues outside (1/2, 2) than that (one-hot groups aliased with the
# intercept, binned and categorical columns that share information: a9a's full design has
# dozens) would lose most of what the mode measured, and NUTS's trees then grow to their
# cap; such a start gets the dense metric instead, adapted in the coordinates the Laplace
# covariance whitens (adapt/fisher_estimators.hpp). Up to d = 1000: a dense metric costs
# d^2 per leapfrog step, small next to a gradient over many observations.
start_metric_config <- function(config, start, max_dense = 1000L) {
  cov <- start$inv_metric[[1]]
  if (!identical(config$metric, "low_rank") || is.null(cov) || is.null(config$max_rank)) {
    return(list(config = config, directions = NULL))
  }
  if (is.null(dim(cov))) return(list(config = config, directions = 0L))  # a diagonal, as a vector
  d <- nrow(cov)
  if (all(cov[upper.tri(cov)] == 0)) return(list(config = config, directions = 0L))  # uncorrelated
  s <- 1 / sqrt(diag(cov))
  ev <- eigen(cov * tcrossprod(s), symmetric = TRUE, only.values = TRUE)$values
  k <- sum(ev > 2 | ev < 1 / 2)
  if (k > config$max_rank && d <= max_dense) config$metric <- "dense"
  list(config = config, directions = k)
}
