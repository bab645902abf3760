# Methods for the extension generics of emmeans (a Suggests), registered only when it is
# loaded: estimated marginal means of GLM fits as emmeans computes them for rstanarm's, from
# the posterior draws of the fixed-effect coefficients (emmeans's vignette "xtending"). What
# the linear predictor is the mean of comes from the family registry (`eta_mean`,
# R/family-registry.R).

#' Estimated marginal means (emmeans) of GLM fits
#'
#' Methods for emmeans's extension generics `recover_data()` and `emm_basis()`, so that
#' `emmeans::emmeans()`, `ref_grid()`, `pairs()`, `contrast()` and `regrid()` take fits of
#' [vhmc_glm()] as they take rstanarm's: the reference grid's predictions are computed from
#' the posterior draws of the fixed-effect coefficients (the columns of the model matrix,
#' with the intercept on the data's scale, as the fit reports them), so emmeans summarises
#' them by posterior medians and highest-posterior-density intervals, and `as.mcmc()` of its
#' results gives their draws. Multilevel fits give the marginal means of their fixed effects
#' (the group-level effects at zero), as emmeans does for `stan_glmer()` fits.
#'
#' The means are on the scale of the linear predictor, and the family's link is recorded,
#' so that `type = "response"` (or `regrid()`) gives them on the response's scale: the
#' probabilities of a binomial model, the rates of a Poisson one. A [lognormal()] model's
#' linear predictor is the mean of `log(y)`, which emmeans treats as a log-transformed
#' response: `type = "response"` gives `exp()` of it, the response's median (`bias.adjust =
#' TRUE` with `sigma = sigma(fit)` the mean). A [cumulative()] model is handled as emmeans
#' handles `polr()` and `stan_polr()` fits, through `mode`: `"latent"` (default, the linear
#' predictor minus the mean of the cutpoints), `"linear.predictor"`, `"cum.prob"`,
#' `"exc.prob"`, `"prob"` (each category's probability) or `"mean.class"`. The zero-inflated
#' and hurdle families are refused with an error: their linear predictor is not the link of
#' the response's mean, which involves their zero-model probability as well (summarise
#' [posterior_epred()] over a grid of predictors instead). ARDL fits, whose predictors are
#' lags of the series, and fits of [vhmc_sample()] are refused too.
#'
#' The data behind the reference grid are recovered from the fit's call (`data`, `subset`
#' and the rows `na.action` dropped), as emmeans does for rstanarm fits, so they must not
#' have changed since the fit; or give them with `emmeans(fit, ..., data = )`. The fit's
#' offsets (offset terms of the formula and an `offset` argument) enter the grid at their
#' mean over the fitted rows, as for [glm()] fits (with `data` given, emmeans computes the
#' offset terms at the grid's covariates and leaves an `offset` argument out).
#'
#' @param object A fit from [vhmc_glm()].
#' @param trms,xlev,grid The terms, factor levels and reference grid emmeans passes.
#' @param mode For [cumulative()] models: the scale of the means (see Details).
#' @param rescale For [cumulative()] models with `mode = "latent"`: the latent scale's
#'   location and scale, `c(0, 1)` leaving it as it is (as for `polr()` fits).
#' @param data Optional data of the reference grid (emmeans's `data` argument); by default
#'   recovered from the fit's call.
#' @param ... Passed on by emmeans (`params`, ...).
#' @return `recover_data()`: the data of the reference grid (or, for a fit emmeans cannot
#'   take, a message saying why, which emmeans raises as its error); `emm_basis()`: the list
#'   emmeans expects, with `post.beta` the S x p draws.
#' @seealso [posterior_epred()] for the draws of the expected response at any predictors,
#'   [posterior_linpred()].
#' @examples
#' \donttest{
#' if (requireNamespace("emmeans", quietly = TRUE)) {
#'   fit <- vhmc_glm(breaks ~ wool * tension, data = warpbreaks, chains = 2, iter = 1000,
#'                   seed = 1, progress = FALSE)
#'   emm <- emmeans::emmeans(fit, ~ tension)
#'   emm
#'   pairs(emm)
#'   fit_pois <- vhmc_glm(breaks ~ wool + tension, data = warpbreaks, family = poisson(),
#'                        chains = 2, iter = 1000, seed = 1, progress = FALSE)
#'   emmeans::emmeans(fit_pois, ~ tension, type = "response")
#' }
#' }
#' @name emmeans-methods
#' @exportS3Method emmeans::recover_data vhmc_fit
recover_data.vhmc_fit <- function(object, data = NULL, ...) {
  why <- emm_refusal(object)
  if (!is.null(why)) return(why)
  model <- object$model
  trms <- emm_terms(model)
  rows <- emmeans::recover_data(object$call, trms, model$na.action, data = data, ...)
  if (is.character(rows) || !is.null(data) || is.null(model$offset)) return(rows)
  emm_offsets(rows, model)
}

#' @rdname emmeans-methods
#' @exportS3Method emmeans::emm_basis vhmc_fit
emm_basis.vhmc_fit <- function(object, trms, xlev, grid, mode = "latent", rescale = c(0, 1), ...) {
  model <- object$model
  mf <- stats::model.frame(trms, grid, na.action = stats::na.pass, xlev = xlev)
  # The columns of the coefficients: without the intercept that a family's cutpoints replace.
  X <- stats::model.matrix(trms, mf, contrasts.arg = model$contrasts)[, fixed_coef_names(model), drop = FALSE]
  X <- with_smooth_columns(X, model, grid)
  draws <- glm_draws(object)
  basis <- if (model$family$entry$eta_mean == "latent") {
    emm_thresholds(X, draws, model, mode, rescale)
  } else {
    list(X = X, post = draws$beta, misc = emm_link(model$family))
  }
  post <- basis$post
  attr(post, "n.chains") <- fit_nchains(object)
  list(X = basis$X, bhat = colMeans(post), nbasis = matrix(NA), V = stats::cov(post),
       dffun = function(k, dfargs) Inf, dfargs = list(), misc = basis$misc, post.beta = post)
}

# NULL for a fit emmeans can take, otherwise the reason (emmeans raises a recover_data()
# result that is a string as its error; an error raised here would be replaced by its
# generic "Perhaps a 'data' or 'params' argument is needed").
emm_refusal <- function(object) {
  fix <- "Summarise posterior_epred(fit, newdata = grid) over a grid of the predictors instead."
  if (!inherits(object, "vhmc_glm") || inherits(object, "vhmc_ardl")) {
    return(sprintf(paste("`object` is %s, not a fit of vhmc_glm(), so emmeans has no model",
                         "formula with data rows to build a reference grid from (an ARDL fit's",
                         "predictors are lags of the series). %s"),
                   if (inherits(object, "vhmc_ardl")) "an ARDL fit" else describe_class(object), fix))
  }
  family <- object$model$family
  if (family$entry$eta_mean != "none") return(NULL)
  sprintf(paste("`object` is a %s(%s) fit, whose linear predictor is not the link of the response's",
                "mean: that mean involves the auxiliary parameters (%s) as well, so marginal means",
                "of the linear predictor would not be means of the response. %s"),
          family$family, family$link, paste(family$aux_names, collapse = ", "), fix)
}

# emmeans's record of the scale: the link (or the response's transformation) whose inverse
# gives means on the response's scale, and their name there.
emm_link <- function(family) {
  if (link_on_response_scale(family)) return(list())
  tran <- if (family$entry$eta_mean == "link") family$link else family$entry$eta_mean
  list(tran = tran, inv.lbl = family$entry$mean_label)
}

# A cumulative model's basis, as emmeans builds polr()'s and stan_polr()'s: P(y <= k) =
# F(c_k - eta), so on the latent scale the rows are x and -1/K per cutpoint (eta minus the
# mean cutpoint), and on the others one row per cutpoint and grid row, c_k - x'beta.
emm_thresholds <- function(X, draws, model, mode, rescale) {
  modes <- c("latent", "linear.predictor", "cum.prob", "exc.prob", "prob", "mean.class")
  mode <- match_choice(mode, "mode", modes)
  if (!is.numeric(rescale) || length(rescale) != 2L || anyNA(rescale) || rescale[2] == 0) {
    stop_arg("rescale", sprintf("must be two numbers, a location and a non-zero scale, not %s", describe(rescale)))
  }
  cuts <- draws$aux$cutpoints
  k <- ncol(cuts)
  resp <- deparse1(model$terms[[2L]])
  if (mode == "latent") {
    X <- rescale[2] * cbind(X, matrix(-1 / k, nrow(X), k))
    post <- cbind(draws$beta, cuts - rescale[1] / rescale[2])
    return(list(X = X, post = post, misc = list(offset.mult = rescale[2], respName = resp)))
  }
  X <- cbind(kronecker(-matrix(1, k, 1L), X), kronecker(diag(1, k), matrix(1, nrow(X), 1L)))
  misc <- list(ylevs = list(cut = colnames(cuts)), tran = model$family$link, inv.lbl = "cumprob",
               offset.mult = -1, respName = resp)
  if (mode != "linear.predictor") misc[c("mode", "postGridHook")] <- list(mode, ".clm.postGrid")
  list(X = X, post = cbind(draws$beta, cuts), misc = misc)
}

# The fit's offsets (offset() terms and the `offset` argument) as emmeans's `.offset.`
# variable, which its recover_data() reads from the model frame of a glm() or rstanarm fit:
# the reference grid then takes their mean, as for those fits.
emm_offsets <- function(data, model) {
  if (nrow(data) != length(model$offset)) {
    return(sprintf(paste("the data recovered from the fit's call have %d rows, but the fit has %d:",
                         "they have changed since the fit. Give the fitted data as emmeans(fit, ..., data = )."),
                   nrow(data), length(model$offset)))
  }
  data[[".offset."]] <- model$offset
  attr(data, "predictors") <- union(attr(data, "predictors"), ".offset.")
  data
}

# The fixed part's terms for emmeans's reference grid, with the smooths' variables as
# covariates (held at their means, or varied, as emmeans does for mgcv's fits); emm_basis()
# builds their columns from the grid (R/smooth-design.R).
emm_terms <- function(model) {
  trms <- stats::delete.response(model$terms)
  vars <- setdiff(model_smooth_variables(model), all.vars(trms))
  if (!length(vars)) return(trms)
  rhs <- Reduce(function(a, b) call("+", a, b), lapply(vars, str2lang), trms[[2L]])
  stats::terms(stats::as.formula(call("~", rhs), env = environment(trms)))
}
