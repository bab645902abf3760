#' Stomach-cancer mortality in 20 Missouri cities
#'
#' Deaths from stomach cancer among men at risk in 20 cities of Missouri, the data of the
#' beta-binomial overdispersion example of Albert (2009), used by the
#' variational-HMC and surrogate-HMC experiments (Zhang, Shahbaba and Zhao 2018, Figures 1-2).
#'
#' @format A data frame with 20 rows and 2 integer columns:
#' \describe{
#'   \item{y}{number of deaths}
#'   \item{n}{number of men at risk}
#' }
#' @source The `cancermortality` data of the LearnBayes package (Albert 2018), shipped here
#'   so that no dependency is needed.
#' @references Albert, J. (2009). *Bayesian Computation with R*, 2nd ed. Springer.
#' @examples
#' cancermortality
#' # Beta-binomial log posterior in (logit m, log K), Albert's betabinexch:
#' betabin <- function(x) {
#'   m <- plogis(x[1]); K <- exp(x[2]); y <- cancermortality$y; n <- cancermortality$n
#'   sum(lbeta(K * m + y, K * (1 - m) + n - y) - lbeta(K * m, K * (1 - m))) +
#'     x[2] - 2 * log1p(exp(x[2]))
#' }
#' betabin(c(-6.8198, 7.5761))
"cancermortality"
