# Multilevel GLMs: vhmc_glm() with lme4-style group-level terms. The fixed part is the GLM
# of the formula without its bars (glm_model()); each term (R/glmer-terms.R) is a predictor
# block and a prior term of the core's potential (inst/include/vhmc/model/glm/group_term.hpp).
# The joint posterior has no mode (the density is unbounded as a standard deviation goes to
# 0 with its effects), so the chains start from the mode of the non-centred
# parameterisation, where it exists; each term is then sampled centred or non-centred,
# whichever its data favour (R/glmer-start.R).

# The model's group-level part: its terms and the parameterisation asked for.
glmer_model <- function(bars, mf, parameterization) {
  terms <- glmer_terms(bars, mf)
  list(terms = terms, parameterization = parameterization, xlevels = bar_xlevels(bars, mf),
       ngrps = vapply(split(vapply(terms, function(t) length(t$levels), 1L),
                            vapply(terms, `[[`, "", "group_name")), `[`, 1L, 1L))
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
  match_choice(x, "parameterization", c("auto", "centered", "noncentered"))
}

# The core's list of terms, each centred or not (`centred`, one flag per term).
glmer_spec_groups <- function(model, priors, y_scale, centred) {
  prior <- covariance_prior_for_core(priors$prior_covariance$adjusted, y_scale)
  lapply(seq_along(model$glmer$terms), function(t) {
    term <- model$glmer$terms[[t]]
    list(name = term$label, levels = length(term$levels), p = term$p, group = term$group,
         Z = term$Z, centred = centred[t], prior = prior)
  })
}

# The glmer's target with every term centred or not: the GLM target plus the terms' names.
glmer_target <- function(spec, model, priors, centred) {
  spec$groups <- glmer_spec_groups(model, priors, spec$y_scale, centred)
  target <- glm_target(spec, model)
  terms <- lapply(seq_along(model$glmer$terms), function(t) {
    utils::modifyList(model$glmer$terms[[t]], list(centred = centred[t], prior = priors$prior_covariance$adjusted))
  })
  fixed <- seq_len(length(target$par_names))
  target$par_names <- c(target$par_names, unlist(lapply(terms, term_user_names)))
  target$internal_names <- c(target$internal_names, unlist(lapply(terms, term_internal_names)))
  target$user_values <- function(theta) stats::setNames(as.numeric(target$to_user(matrix(theta, nrow = 1L))),
                                                        target$par_names)
  target$mode <- NULL  # no joint mode (R/glmer-start.R)
  target$minibatch <- FALSE
  target$spec <- spec
  target
}

# vhmc_glm()'s path for a formula with group-level terms, after the model is built: priors,
# the start on the non-centred potential, each term's parameterisation, the chains.
fit_glmer_model <- function(model, family, prior_args, sampler, args, seed, init, progress, call) {
  glmer_check_sampler(sampler)
  if (!is.null(init) && !identical(init, "random")) {
    stop_arg("init", "must be NULL or \"random\" for a model with group-level terms",
             "Leave `init` out: the chains start from the mode of the non-centred parameterisation.")
  }
  priors <- glm_priors(model, family, prior_args$prior, prior_args$prior_intercept, prior_args$prior_aux)
  scale_y <- if (family$entry$standardise) weighted_sd(model$y, model$weights) else 1
  priors$prior_covariance <- list(
    specified = prior_args$prior_covariance,
    adjusted = resolve_covariance_prior(prior_args$prior_covariance, family, scale_y))
  spec <- glm_spec(model, family, priors)
  nt <- length(model$glmer$terms)
  target_nc <- glmer_target(spec, model, priors, rep(FALSE, nt))
  check_prior_pd(model, priors)
  check_identified(model, family, priors, spec, target_nc, separation = FALSE)
  seed <- resolve_seed(seed)
  model$priors <- priors
  inits_nc <- glm_inits("random", target_nc, spec, args$chains, seed)
  start <- catch_interrupt(glmer_nc_start(sampler, target_nc, inits_nc, init, seed, progress))
  centred <- choose_parameterization(model, family, target_nc, start, spec)
  model$glmer$centred <- centred
  target <- glmer_target(spec, model, priors, centred)
  target$start <- function(...) centred_start(start, target_nc, target, model, spec)
  fit <- fit_chains(target, sampler, args, seed, start$inits, init, progress, call, model)
  class(fit) <- c("vhmc_glmer", "vhmc_glm", class(fit))
  fit
}

# Samplers that need minibatches, a Fisher metric or a Laplace anchor of a joint mode are
# refused before anything runs.
glmer_check_sampler <- function(sampler) {
  bad <- c("vhmc_sghmc", "vhmc_sgld", "vhmc_rmhmc", "vhmc_variational_hmc", "vhmc_surrogate_hmc")
  if (!inherits(sampler, bad)) return(invisible())
  stop_arg("sampler", sprintf(paste("is %s(), which does not sample models with group-level terms",
                                    "(it needs minibatch gradients, a Fisher metric or the joint mode",
                                    "such a posterior does not have)"), sampler_name(sampler)),
           "Use nuts() (the default), hmc() or rwm().")
}
