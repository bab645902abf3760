# Multilevel GLMs: vhmc_glm() with lme4-style group-level terms. The fixed part is the GLM
# of the formula without its bars (glm_model()); each term (R/glmer-terms.R) is a predictor
# block and a prior term of the core's potential (inst/include/vhmc/model/glm/group_term.hpp).
# The joint posterior has no mode (the density is unbounded as a standard deviation goes to
# 0 with its effects), so the chains start from the mode of the non-centred
# parameterisation, where it exists; each term is then sampled centred or non-centred,
# whichever its data favour (R/glmer-start.R). The gaussian family's single term, or its
# nested terms, are instead integrated out exactly
# (inst/include/vhmc/model/glm/marginal_gaussian.hpp): the chains sample the fixed effects,
# sigma and the covariances, and each draw's effects are drawn afterwards from their
# conditional Gaussian. With sampled effects, a gaussian likelihood whose rows fall in few
# cells of the grouping factors (crossed factors with few levels) is computed from per-cell
# statistics instead of a pass over the rows
# (inst/include/vhmc/model/glm/gaussian_cells.hpp), exactly.

# The model's group-level part: its terms, the parameterisation asked for, and the structure
# of the grouping factors (`cells`, their distinct combinations of levels among the rows, and
# whether they are `nested`; inst/include/vhmc/model/glm/group_cells.hpp, nested_tree.hpp).
glmer_model <- function(bars, mf, parameterization, dbars = NULL, family = NULL) {
  terms <- c(if (length(bars)) glmer_terms(bars, mf), dpar_group_terms(dbars, mf, family))
  list(terms = terms, parameterization = parameterization, xlevels = bar_xlevels(c(bars, unlist(dbars, FALSE, FALSE)), mf),
       structure = vhmc_group_cells(terms),
       ngrps = vapply(split(vapply(terms, function(t) length(t$levels), 1L),
                            vapply(terms, `[[`, "", "factor")), `[`, 1L, 1L))
}

# The levels of factors left of the bars (so that newdata gives the same columns); the
# grouping factors are left free, to meet new levels.
bar_xlevels <- function(bars, mf) {
  lhs <- unique(unlist(lapply(bars, function(b) all.vars(b[[2L]]))))
  xl <- stats::.getXlevels(stats::terms(reformulas::subbars(stats::as.formula(call("~", bars[[1L]])))), mf)
  for (b in bars[-1L]) xl <- c(xl, stats::.getXlevels(stats::terms(reformulas::subbars(stats::as.formula(call("~", b)))), mf))
  xl <- xl[!duplicated(names(xl))]
  xl[names(xl) %in% lhs]
}

check_parameterization <- function(x) {
  match_choice(x, "parameterization", c("auto", "centered", "noncentered", "marginal"))
}

# Whether the group effects are integrated out: the gaussian family with one group-level term
# or nested ones (`(1 | g1/g2)`; inst/include/vhmc/model/glm/marginal_gaussian.hpp), with
# parameterization = "auto" or "marginal", fitted to the data (not prior_PD), and the
# per-level statistics (about sum J p (k + P) numbers, P the terms' effects per row) of a
# reasonable size.
glmer_marginal <- function(model, family, prior_PD, minibatch = FALSE) {
  g <- model$glmer
  if (g$parameterization %in% c("centered", "noncentered")) return(FALSE)
  P <- sum(vapply(g$terms, `[[`, 1L, "p"))
  size <- sum(vapply(g$terms, function(t) length(t$levels) * t$p * (ncol(model$x) + P), 1))
  nt <- length(g$terms)
  why <- if (!isTRUE(family$traits$gaussian_stats)) sprintf("the %s(%s) likelihood has no closed form for it", family$family, family$link) else
    if (!is.null(model$cens)) "censored rows have no closed form for it" else
    if (!is.null(model$dpars)) "distributional formulas have no closed form for it" else
    if (nt > 1L && !g$structure$nested) sprintf("the formula has %d group-level terms whose factors are not nested", nt) else
      if (isTRUE(prior_PD)) "prior_PD = TRUE leaves out the likelihood" else
        if (minibatch) "the sampler takes minibatches of rows, and the integrated likelihood couples each level's rows" else
        if (size > 5e7) sprintf("its per-level statistics would hold %.3g numbers", size)
  if (is.null(why)) return(TRUE)
  if (g$parameterization == "marginal") {
    stop_arg("parameterization", sprintf("is \"marginal\", but the group effects cannot be integrated out: %s", why),
             "Use \"auto\", \"centered\" or \"noncentered\".")
  }
  FALSE
}

# How the gaussian likelihood with sampled effects is computed: from per-cell statistics
# (`use`) when the family has the gaussian closed forms (the core's trait), the likelihood is in (not prior_PD), and the
# cells (distinct combinations of the grouping factors' levels among the rows) are few
# enough that a gradient from them is cheaper than the row pass (glmer_cells_pay());
# options(vhmc.glmer_cells = FALSE) keeps the row pass, TRUE asks for the cells wherever
# they apply (for benchmarks and tests). `count` is the number of cells.
glmer_cells <- function(model, family, prior_PD) {
  opt <- getOption("vhmc.glmer_cells", "auto")
  if (!(identical(opt, "auto") || isTRUE(opt) || isFALSE(opt))) {
    stop_arg("options(vhmc.glmer_cells)", "must be \"auto\", TRUE or FALSE", "Reset it with options(vhmc.glmer_cells = NULL).")
  }
  count <- model$glmer$structure$cells
  P <- sum(vapply(model$glmer$terms, `[[`, 1L, "p"))
  fits <- count * P * (P + ncol(model$x)) <= 5e7  # the statistics' size
  use <- isTRUE(family$traits$gaussian_stats) && is.null(model$cens) && is.null(model$dpars) && !isTRUE(prior_PD) && !isFALSE(opt) && fits &&
    (isTRUE(opt) || glmer_cells_pay(length(model$y), count, P, ncol(model$x)))
  list(use = use, count = count)
}

# Whether a gradient from `cells` cells (P effects and k fixed-effect columns each) is
# cheaper than the row pass over n rows.
glmer_cells_pay <- function(n, cells, P, k) {
  cells * P * (P + 2 * k) < n * (P + k)
}

# The core's list of terms, each centred or not (`centred`, one flag per term).
glmer_spec_groups <- function(model, priors, y_scale, centred, marginal = FALSE) {
  prior <- covariance_prior_for_core(priors$prior_covariance$adjusted, y_scale)
  dprior <- if (!is.null(priors$prior_covariance_dpar)) covariance_prior_for_core(priors$prior_covariance_dpar$adjusted, 1)
  lapply(seq_along(model$glmer$terms), function(t) {
    term <- model$glmer$terms[[t]]
    list(name = term_key(term), levels = length(term$levels), p = term$p, group = term$group, Z = term$Z,
         centred = centred[t], marginal = marginal, prior = if (is.null(term$dpar)) prior else dprior, dpar = term$aux %||% -1L)
  })
}

# The glmer's target with every term centred or not, or its one term integrated out
# (marginal; its effects then drawn with `seed` when the draws are reported): the GLM target
# plus the terms' names.
glmer_target <- function(spec, model, priors, centred, marginal = FALSE, seed = NULL) {
  spec$groups <- glmer_spec_groups(model, priors, spec$y_scale, centred, marginal)
  target <- glm_target(spec, model)
  target$par_names <- c(target$par_names, unlist(lapply(model$glmer$terms, term_user_names)))
  if (marginal) {
    ptr <- target$ptr
    target$to_user <- function(rows) vhmc_glm_reported_marginal(ptr, rows, seed)
    target$to_user_mean <- function(rows) vhmc_glm_reported_marginal(ptr, rows, NULL)
  }
  target$user_values <- function(theta) {
    to <- target$to_user_mean %||% target$to_user
    stats::setNames(as.numeric(to(matrix(theta, nrow = 1L))), target$par_names)
  }
  target$spec <- spec
  target$hessian_levels <- hessian_levels(target$layout, model)
  target
}

# The block of sampled group-level effects whose Hessian fd_hessian() (R/laplace.R) may
# difference level by level together: the largest term's (list(offset, J, p)); NULL when no
# term's effects are sampled or each has one level. The other terms' effects are
# differenced one by one (two crossed terms' levels share rows).
hessian_levels <- function(layout, model) {
  found <- lapply(model$glmer$terms, function(term) {
    b <- layout$blocks[layout$blocks$name == paste0("b:", term_key(term)), ]
    if (nrow(b) == 1L && b$size > term$p) list(offset = b$offset, J = b$size %/% term$p, p = term$p)
  })
  found <- Filter(Negate(is.null), found)
  if (length(found)) found[[which.max(vapply(found, function(f) f$J * f$p, 0))]]
}

# What a model with group-level terms refuses before anything is built: initial values other
# than random ones; a warning for a term that is its residual.
check_glmer_fit <- function(model, family, init) {
  check_singleton_terms(model, family)
  if (!is.null(init) && !identical(init, "random")) {
    stop_arg("init", "must be NULL or \"random\" for a model with group-level terms",
             "Leave `init` out: the chains start from the mode of the non-centred parameterisation.")
  }
  invisible()
}

# The covariance prior as given and as used (in the core's units).
covariance_priors <- function(model, family, prior) {
  scale_y <- if (standardised(family)) weighted_sd(core_response(model), model$weights) else 1
  list(specified = prior, adjusted = resolve_covariance_prior(prior, family, scale_y, is.null(model$dpars)))
}

# The group-level part with how its likelihood is computed: effects integrated out
# (`marginal`), the gaussian likelihood from the cells (`cells`, their count) or the rows
# (`likelihood`: "marginal", "cells" or "rows").
glmer_likelihood <- function(model, family, prior_only, minibatch = FALSE) {
  g <- model$glmer
  g$marginal <- glmer_marginal(model, family, prior_only, minibatch)
  cells <- glmer_cells(model, family, prior_only)
  g$cells <- cells$count
  g$likelihood <- if (g$marginal) "marginal" else if (cells$use) "cells" else "rows"
  g
}

# The start of a model with group-level terms, from the target `target_nc` (non-centred, or the
# marginal one when the effects are integrated out): the
# marginal or sampled target, each term's parameterisation (in the model), the inits.
glmer_start <- function(target_nc, spec, model, family, priors, sampler, init, seed, args, progress) {
  target <- if (model$glmer$marginal) glmer_marginal_target(spec, model, priors, sampler, init, seed, args, progress, target_nc) else
    glmer_sampled_target(spec, model, family, priors, target_nc, sampler, init, seed, args, progress)
  model$glmer$centred <- as.vector(target$centred)
  model$glmer$information_ratio <- attr(target$centred, "information_ratio")
  if (!is.null(model$smooths)) model$smooths$centred <- target$smooth_centred
  list(target = target, inits = target$inits, model = model)
}

# The target with the effects sampled: the start at the non-centred mode, each term centred or
# not as its data say (R/glmer-start.R).
glmer_sampled_target <- function(spec, model, family, priors, target_nc, sampler, init, seed, args, progress) {
  if (needs_anchor(sampler)) check_anchor_dim(target_nc, sampler)
  inits_nc <- glm_inits("random", target_nc, spec, args$chains, seed)
  # A minibatch sampler starts at random, but each term's form needs the mode as much as for
  # the others (and its control variate an anchor: the mode mapped to the sampled form).
  search <- start_how(sampler, init) == "mode" || (is.null(init) && uses_minibatch(sampler))
  start <- catch_interrupt(noncentred_mode_start(sampler, target_nc, inits_nc, init, seed, progress, search))
  centred <- choose_parameterization(model, family, target_nc, start, spec)
  check_noncentred_sampler(sampler, centred)
  if (!is.null(spec$smooths) || has_dpar_smooths(model)) spec <- with_smooth_centring(spec, target_nc, start)
  sampled <- sampled_form(spec, model, priors, target_nc, start, centred)
  if (needs_anchor(sampler) && !is.null(start$mode_nc)) {
    sampled <- anchored_form(sampled, spec, model, priors, target_nc, start, sampler, seed, progress)
  } else if (anchor_helps(sampled, start, sampler)) {
    sampled <- anchored_if_found(sampled, sampler, seed, progress)
  }
  target <- sampled$target
  target$start <- function(...) sampled$start
  target$smooth_centred <- spec$smooths$centred
  target$inits <- start$inits
  target$centred <- sampled$centred
  target
}

# A sampler whose draws are not usable with non-centred effects (samples_noncentred(),
# R/samplers.R) is refused where some term's effects would be sampled so: as chosen, or as
# the fallback of a centred form without a local mode (R/glmer-anchor.R), before its search.
check_noncentred_sampler <- function(sampler, centred) {
  if (samples_noncentred(sampler) || all(centred)) return(invisible())
  stop_arg("sampler", sprintf(paste("is %s(), whose draws from its approximation are not corrected, and this multilevel",
                                    "model's group-level effects are sampled non-centred (too few rows a level, or a small",
                                    "group sd, for the centred form to have a local mode; or parameterization = \"noncentered\"),",
                                    "where that approximation left the posterior in every case measured"), sampler_name(sampler)),
           "Use surrogate_hmc() (exact: its Metropolis step corrects the surrogate) or nuts().")
}

# The target with the one term's effects integrated out: its posterior (fixed effects, sigma,
# covariance) has a mode, which L-BFGS finds as for the non-centred one; the effects are drawn
# with the fit's seed.
glmer_marginal_target <- function(spec, model, priors, sampler, init, seed, args, progress, target) {
  spec$cells <- FALSE
  inits <- glm_inits("random", target, spec, args$chains, seed)
  start <- catch_interrupt(noncentred_mode_start(sampler, target, inits, init, seed, progress))
  if (!is.null(spec$smooths) || has_dpar_smooths(model)) {
    spec <- with_smooth_centring(spec, target, start)
    if (any(spec$smooths$centred)) target <- glmer_target(spec, model, priors, rep(FALSE, length(model$glmer$terms)),
                                                          marginal = TRUE, seed = seed)
  }
  target$start <- function(...) smooth_centred_start(start, target, spec)
  target$smooth_centred <- spec$smooths$centred
  target$inits <- start$inits
  target$centred <- rep(FALSE, length(model$glmer$terms))
  target
}

# A term with one row in every level, in a family with a residual scale: its effects and the
# residuals are the same thing, so its standard deviation and sigma are told apart only by
# their priors (lme4 refuses such a model; rstanarm fits it silently).
check_singleton_terms <- function(model, family) {
  if (!"sigma" %in% family$aux_names) return(invisible())
  for (term in Filter(function(t) is.null(t$dpar), model$glmer$terms)) {
    if (term$p == 1L && is.null(term$Z) && !anyDuplicated(term$group)) {
      warning(sprintf(paste("`formula`'s term (%s) has one observation in each of its %d levels, so its",
                            "standard deviation and sigma are not separately identified: only their priors",
                            "tell them apart. Drop the term, or use a family without a residual scale."),
                      term$label, length(term$levels)), call. = FALSE)
    }
  }
  invisible()
}
