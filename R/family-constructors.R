# The family constructors vhmc adds to R's own (gaussian(), binomial(), poisson(), Gamma(),
# inverse.gaussian()): rstanarm's neg_binomial_2() and brms's student(), lognormal(), Beta(),
# cumulative() and the zero-inflated and hurdle counts, with their names and
# parameterisations, and the help page of every family.

#' Families and links of vhmc_glm()
#'
#' Every family [vhmc_glm()] fits, with its links (the first is the default), its auxiliary
#' parameters and their default priors. R's own families come from stats; the others have
#' the constructors documented here, under the names rstanarm (`neg_binomial_2()`) and brms
#' (the rest) use, so that a model moves over as it is written. Each family works with
#' group-level terms; brms's family objects of the same names are accepted too.
#'
#' | family | links | auxiliary parameters (default prior) |
#' |---|---|---|
#' | `gaussian()` | identity, log, inverse | `sigma` (`exponential(1, autoscale = TRUE)`) |
#' | `binomial()` | logit, probit, cauchit, log, cloglog | none |
#' | `poisson()` | log, identity, sqrt | none |
#' | `neg_binomial_2()` | log, identity, sqrt | `reciprocal_dispersion` \eqn{\phi} (`exponential(1)`); variance \eqn{\mu + \mu^2/\phi} |
#' | `Gamma()` | inverse, identity, log | `shape` (`exponential(1)`); variance \eqn{\mu^2/}shape |
#' | `inverse.gaussian()` | 1/mu^2, inverse, identity, log | `lambda` (`exponential(1)`); variance \eqn{\mu^3/\lambda} |
#' | `student()` | identity, log, inverse | `sigma` (`exponential(1, autoscale = TRUE)`), `nu` > 1 (`gamma_prior(2, 0.1)`) |
#' | `lognormal()` | identity (of log y) | `sigma` of log y (`exponential(1, autoscale = TRUE)`) |
#' | `Beta()` | logit, probit, cloglog, cauchit | precision `phi` (`gamma_prior(0.01, 0.01)`); variance \eqn{\mu(1-\mu)/(1+\phi)} |
#' | `cumulative()` | logit, probit, cloglog, cauchit | the \eqn{K - 1} cutpoints, named `"1|2"`, ..., whose prior is `prior_intercept` (`student_t(3, 0, 2.5)`) |
#' | `zero_inflated_poisson()` | log | `zi` (`beta_prior(1, 1)`) |
#' | `zero_inflated_negbinomial()` | log | `shape` (`gamma_prior(0.01, 0.01)`), `zi` (`beta_prior(1, 1)`) |
#' | `hurdle_poisson()` | log | `hu` (`beta_prior(1, 1)`) |
#' | `hurdle_negbinomial()` | log | `shape` (`gamma_prior(0.01, 0.01)`), `hu` (`beta_prior(1, 1)`) |
#'
#' The models:
#' * `student()`: \eqn{y = \mu + \sigma t_\nu}, Student's t with \eqn{\nu > 1} degrees of
#'   freedom (brms's lower bound), robust to outliers.
#' * `lognormal()`: \eqn{\log y \sim N(\mu, \sigma^2)}; the linear predictor is the mean of
#'   \eqn{\log y} and `posterior_epred()` gives \eqn{E(y) = \exp(\mu + \sigma^2/2)}. It is
#'   fitted as a gaussian model of \eqn{\log y}, with that family's fast paths.
#' * `Beta()`: proportions strictly inside (0, 1), \eqn{y \sim} Beta\eqn{(\mu\phi, (1-\mu)\phi)}.
#' * `cumulative()`: ordinal responses (an ordered factor, or whole numbers 1, 2, ...):
#'   \eqn{P(y \le k) = F(c_k - \eta)} with ordered cutpoints \eqn{c_1 < \dots < c_{K-1}} and
#'   \eqn{F} the link's distribution (logistic: the proportional-odds model of
#'   [MASS::polr()]). The linear predictor has no intercept; `prior_intercept` is the prior of
#'   each cutpoint at the predictors' means (as brms). `posterior_epred()` returns an array
#'   draws x observations x categories of probabilities.
#' * `zero_inflated_*()`: \eqn{P(0) = z + (1 - z) P_c(0)} and \eqn{P(y) = (1 - z) P_c(y)}
#'   otherwise, \eqn{P_c} the Poisson or negative binomial (brms's `shape`, variance
#'   \eqn{\mu + \mu^2/}shape) with mean \eqn{\mu = \exp(\eta)}.
#' * `hurdle_*()`: \eqn{P(0) = h}, and \eqn{P(y) = (1 - h) P_c(y) / (1 - P_c(0))} otherwise.
#'
#' The zero-inflation and hurdle probabilities are constants (a predictor for them is
#' distributional regression, not yet here). Priors of several auxiliary parameters are
#' given by name, `prior_aux = list(shape = exponential(1), zi = beta_prior(2, 2))`; names
#' left out keep their defaults. Responses of the gaussian, student, lognormal, Gamma and
#' inverse.gaussian families can be censored (`y | cens(censored, y2)` or `Surv()`; see
#' [vhmc_glm()]). A link that can leave the mean's domain (the binomial's
#' log link above 1, the Poisson's identity link below 0) gives such points zero density:
#' the chains reject them, and the start is found inside the domain.
#'
#' @param link The link function, a string (or a name, as `binomial(link = probit)`).
#' @return An object of class `family`.
#' @seealso [vhmc_glm()], [priors]
#' @references Smithson, M. and Verkuilen, J. (2006). A better lemon squeezer?
#'   Maximum-likelihood regression with beta-distributed dependent variables.
#'   *Psychological Methods* 11(1), 54-71.
#' @examples
#' student()
#' cumulative("probit")
#' \donttest{
#' if (requireNamespace("MASS", quietly = TRUE)) {
#'   fit <- vhmc_glm(Sat ~ Infl + Type + Cont, weights = Freq, data = MASS::housing,
#'                   family = cumulative(), chains = 2, iter = 1000, seed = 1,
#'                   progress = FALSE)
#'   fit
#' }
#' }
#' @name vhmc_families
NULL

#' @rdname vhmc_families
#' @export
neg_binomial_2 <- function(link = "log") {
  family <- new_family("neg_binomial_2", link_name(substitute(link), parent.frame()), c("log", "identity", "sqrt"))
  family$variance <- function(mu, phi) mu + mu^2 / phi
  family
}

#' @rdname vhmc_families
#' @export
student <- function(link = "identity") {
  new_family("student", link_name(substitute(link), parent.frame()), c("identity", "log", "inverse"))
}

#' @rdname vhmc_families
#' @export
lognormal <- function(link = "identity") {
  new_family("lognormal", link_name(substitute(link), parent.frame()), "identity")
}

#' @rdname vhmc_families
#' @export
Beta <- function(link = "logit") {
  new_family("Beta", link_name(substitute(link), parent.frame()),
             c("logit", "probit", "cloglog", "cauchit"))
}

#' @rdname vhmc_families
#' @export
cumulative <- function(link = "logit") {
  new_family("cumulative", link_name(substitute(link), parent.frame()),
             c("logit", "probit", "cloglog", "cauchit"))
}

#' @rdname vhmc_families
#' @export
zero_inflated_poisson <- function(link = "log") {
  new_family("zero_inflated_poisson", link_name(substitute(link), parent.frame()), "log")
}

#' @rdname vhmc_families
#' @export
zero_inflated_negbinomial <- function(link = "log") {
  new_family("zero_inflated_negbinomial", link_name(substitute(link), parent.frame()), "log")
}

#' @rdname vhmc_families
#' @export
hurdle_poisson <- function(link = "log") {
  new_family("hurdle_poisson", link_name(substitute(link), parent.frame()), "log")
}

#' @rdname vhmc_families
#' @export
hurdle_negbinomial <- function(link = "log") {
  new_family("hurdle_negbinomial", link_name(substitute(link), parent.frame()), "log")
}

# The link's name from the argument as written: a string, a name (link = probit, as in
# stats::binomial()), or an expression or variable that gives a string.
link_name <- function(expr, env) {
  if (is.character(expr)) return(expr)
  if (is.name(expr)) {
    value <- get0(as.character(expr), envir = env, inherits = TRUE)
    return(if (is.character(value) && length(value) == 1L) value else as.character(expr))
  }
  value <- eval(expr, env)
  if (is.character(value)) value else deparse1(expr)
}
