# The C++ spec of a GLM, the sampler's coordinates and their map to the reported scale, the
# GLM as a target of fit_chains(), and its initial values.

# The plain list the C++ core reads (src/glue_glm.cpp): it views X and the vectors in place.
# The sampler's coordinates make every posterior scale comparable whatever the data's units
# (glm.hpp): slopes times sd(x), and for the gaussian family a standardised response
# y' = (y - m) / s, so that coefficients, intercept and sigma are in units of s. Without
# that, a response of size 1e-6 puts the posterior far below the metric's 1e-3
# regularisation and the warmup's uniform(-2, 2) inits (measured: R-hat 3). The priors are
# carried into those units (location-scale families are closed under affine maps).
glm_spec <- function(model, family, priors) {
  X <- model$x
  skip <- if (model$intercept) 1L else 0L
  slopes <- setdiff(seq_len(ncol(X)), seq_len(skip))
  centred <- model$intercept || isTRUE(family$traits$thresholds)
  center <- if (centred && length(slopes)) model$columns$mean[slopes]
  scale <- if (length(slopes)) model$columns$sd[slopes]
  scale <- usable_scales(scale)
  ys <- response_standardisation(model, family)
  flat <- flat()
  core_prior <- function(p, shift = 0, s = ys$scale) prior_for_core(prior_to_units(p %||% flat, shift, s))
  spec <- list(X = X, skip = skip, y = (core_response(model) - ys$center) / ys$scale, weights = model$weights,
       offset = if (!is.null(model$offset)) model$offset / ys$scale,
       center = center, scale = scale, family = family$code,
       intercept = model$intercept, y_center = ys$center, y_scale = ys$scale,
       prior_intercept = core_prior(if (model$intercept) priors$prior_intercept$adjusted, ys$center),
       prior = core_prior(priors[["prior"]]$adjusted),  # exact: not prior_covariance
       prior_aux = lapply(seq_len(nrow(family$aux)), function(i) {
         a <- family$aux[i, ]
         p <- if (a$sized_by_data) priors$prior_intercept$adjusted else priors$prior_aux[[a$name]]$adjusted
         core_prior(p, s = if (a$scales_with_y) ys$scale else 1)
       }),
       n_cutpoints = model$n_cutpoints %||% 0L, noise_precision = 0, prior_only = isTRUE(model$prior_PD))
  if (!is.null(model$cens)) {
    spec$cens <- model$cens$code
    spec$y2 <- (family$entry$core_response(model$cens$y2) - ys$center) / ys$scale
  }
  if (!is.null(model$dpars)) spec$dpars <- unname(dpars_for_core(model, family, priors, ys$scale))
  if (has_penalised(model)) spec$smooths <- list(sizes = model$smooths$sizes, prior = prior_for_core(priors$prior_smooth$adjusted))
  spec
}

# Column sds as the core's scales: 1 where a column has no spread (or none finite).
usable_scales <- function(s) {
  if (length(s)) s[!is.finite(s) | s <= 0] <- 1
  s
}

# The parameter layout of the potential behind `ptr` (the core's, model/glm/layout.hpp):
# its blocks (name, label, offset, size, transform), dimension and whether the family has
# rmhmc()'s Fisher metric.
glm_layout <- function(ptr) vhmc_glm_layout(ptr)

# Reported names, block by block: the intercept's and the auxiliary parameters' labels from
# the core, the slopes from the model matrix, the cutpoints from the response's categories,
# a horseshoe's scales from the core's labels, one per slope (hs_lambda[x]) or one (hs_tau).
user_names <- function(layout, model) {
  b <- fixed_blocks(layout)
  unlist(lapply(seq_len(nrow(b)), function(i) {
    if (b$name[i] == "coef") return(slope_names(model, b$size[i]))
    if (b$name[i] == "smooth") return(utils::tail(model$coef_names, b$size[i]))
    if (b$name[i] == "sm:sd") return(model$smooths$sd_names)
    if (startsWith(b$name[i], "dpar:")) return(dpar_coef_names(model$dpars[[b$label[i]]]))
    if (startsWith(b$name[i], "sm:sd:")) return(dpar_sd_names(model$dpars[[sub("^sm:sd:", "", b$name[i])]]))
    if (b$transform[i] == "ordered") return(cutpoint_names(model$levels))
    if (b$name[i] %in% c("hs:lambda", "hs:eta")) return(sprintf("%s[%s]", b$label[i], slope_names(model, b$size[i])))
    b$label[i]
  }))
}

slope_names <- function(model, k) model$coef_names[seq_len(k) + model$intercept]

# Names of the sampler's own coordinates (used for the adapted metric).
internal_names <- function(layout, model, spec) {
  b <- layout$blocks
  unlist(lapply(seq_len(nrow(b)), function(i) {
    if (is_group_block(b$name[i])) return(group_internal_names(b[i, ], model$glmer$terms))
    nm <- user_names(list(blocks = b[i, , drop = FALSE]), model)
    if (b$name[i] == "intercept" && !is.null(spec$center)) nm <- paste(nm, "[centred]")
    if (b$name[i] == "coef" && b$label[i] == "noncentred") nm <- sprintf("z[%s]", nm)  # a horseshoe's
    if (b$name[i] == "smooth") nm <- ifelse(rep_len(spec$smooths$centred %||% FALSE, length(nm)), nm, sprintf("z[%s]", nm))
    if (b$name[i] == "coef" && b$label[i] != "noncentred" && !is.null(spec$scale)) nm <- paste(nm, "[x sd]")
    if (b$name[i] == "hs:tau") nm <- paste(nm, if (isTRUE(spec$prior$relative_to_sigma)) "[/ global_scale sigma]" else "[/ global_scale]")
    if (startsWith(b$name[i], "dpar:")) {
      j <- match(b$label[i], names(model$dpars))
      nm <- dpar_internal_names(nm, model$dpars[[j]], spec$dpars[[j]]$smooths$centred)
    }
    switch(b$transform[i],
           log = if (b$lower[i] == 0) sprintf("log(%s)", nm) else sprintf("log(%s - %s)", nm, format(b$lower[i])),
           logit = sprintf("logit(%s)", nm),
           ordered = c(paste(nm[1L], "[centred]"), sprintf("log(%s - %s)", nm[-1L], utils::head(nm, -1L))),
           nm)
  }))
}

# Where the Newton search for a GLM's mode starts. The mode is unique, so the search need
# not start at chain 1's initial values: it starts at the null model (every coordinate of
# the sampler 0: the intercept at the predictors' means, no slopes, log sigma or log shape
# 0) when the potential is finite there, else at the null model inside the link's domain
# (null_point()), else at `init`. From a uniform(-2, 2) draw of 95 coefficients (liver's
# adult census, `income ~ .`) the linear predictor is far from the data's, and the damped
# search took 20 iterations and 22 Hessians (2.6 s); from 0, 8 and 10 (1.1 s), to the same
# minimum.
null_start <- function(ptr, init, null = NULL) {
  zero <- numeric(length(init))
  finite <- function(theta) is.finite(vhmc_glm_potential(ptr, matrix(theta, 1L))$value[1L])
  if (finite(zero)) return(zero)
  if (!is.null(null) && finite(null)) return(null)
  init
}

# The null model inside the link's domain, in the sampler's coordinates: no slopes, the
# intercept at the link of the response's mean (as glm()'s starting mu, which every link
# maps into its domain), the auxiliary parameters at 0. NULL when the model has no intercept.
null_point <- function(model, family, spec, d) {
  if (is.null(family) || !isTRUE(model$intercept)) return(NULL)
  y <- spec$y * spec$y_scale + spec$y_center
  w <- model$weights %||% rep(1, length(y))
  mu <- sum(w * y) / sum(w)
  if (isTRUE(family$entry$trials)) mu <- min(max(mu, 1e-8), 1 - 1e-8)
  eta <- suppressWarnings(family$linkfun(mu))
  if (!is.finite(eta) || !family$valideta(eta)) return(NULL)
  theta <- numeric(d)
  theta[1L] <- (eta - spec$y_center) / spec$y_scale
  theta
}

# The GLM as a target of fit_chains() (R/fit-chains.R). Its potential is built once per fit
# (for the gaussian family an O(N k^2) pass) and shared by the initial-value checks, the
# mode search and every chain in this process; chains in other processes rebuild it.
glm_target <- function(spec, model) {
  ptr <- vhmc_glm_model(spec)
  layout <- glm_layout(ptr)
  nm <- user_names(layout, model)
  to_user <- function(rows) vhmc_glm_reported(ptr, rows, TRUE)
  null <- null_point(model, model$family, spec, layout$dim)
  caps <- glm_capabilities(layout)
  c(list(
    par_names = nm, internal_names = internal_names(layout, model, spec), layout = layout,
    run = function(config, extras, init, run) vhmc_run_glm(ptr, spec, init, config, extras, run),
    run_threads = function(config, extras, inits, runs, workers) {
      vhmc_run_glm_threads(ptr, spec, inits, config, extras, runs, workers)
    },
    value_grad = function(theta) {
      r <- vhmc_glm_potential(ptr, matrix(theta, 1L))
      list(value = r$value[1L], gradient = r$gradient[1L, ])
    },
    potential_values = function(rows) vhmc_glm_potential(ptr, rows)$value,
    mode = if (caps$has_mode && layout$has_hessian) function(init) vhmc_glm_mode(ptr, null_start(ptr, init, null)),
    user_values = function(theta) stats::setNames(as.numeric(to_user(matrix(theta, nrow = 1L))), nm),
    to_user = to_user, to_internal = function(rows) vhmc_glm_reported(ptr, rows, FALSE),
    n_obs = nrow(spec$X), ptr = ptr, family = model$family, null = null
  ), caps)
}

# What the core's potential offers the samplers (its layout says, and by which kind of block
# it lacks a capability: glm/potential_methods.hpp), with the words of a refusal
# (check_target(), R/samplers.R): what the model is, why it has no mode, which samplers it
# takes.
glm_capabilities <- function(layout) {
  caps <- list(has_mode = !nzchar(layout$no_mode), anchor = !nzchar(layout$no_anchor), minibatch = !nzchar(layout$no_minibatch),
               minibatch_noise = !nzchar(layout$no_minibatch_noise), metric_tensor = layout$has_fisher)
  by <- if (nzchar(layout$no_mode)) layout$no_mode else layout$no_minibatch
  if (!nzchar(by)) return(caps)
  words <- lacking_capability_words[[by]]
  c(caps, list(description = words[["model"]], samplers = usable_samplers(caps),
               no_mode = if (!caps$has_mode) paste("its density grows without bound as", words[["shrinks"]])))
}

# By the kind of block that takes a capability away: the model it makes, and what shrinks
# without bound where it has no mode.
lacking_capability_words <- list(
  group = c(model = "a model with group-level terms", shrinks = "a standard deviation shrinks with its effects"),
  horseshoe = c(model = "a model with a horseshoe prior", shrinks = "the global scale shrinks with the coefficients"),
  smooth = c(model = "a model with smooth terms", shrinks = "a smooth's standard deviation shrinks with its coefficients"),
  censored = c(model = "a model with censored rows (whose minibatch gradients the core has not)"),
  marginal = c(model = "a model whose group-level effects are integrated out (whose likelihood couples each level's rows)"),
  dpars = c(model = "a model with distributional formulas (whose minibatch gradients the core has not)")
)

# Per-chain initial values on both scales. Random inits are redrawn (up to 100 times) until
# the potential is finite there; user inits must give a finite potential.
glm_inits <- function(init, target, spec, chains, seed) {
  nm <- target$par_names
  d <- length(target$internal_names)
  finite_at <- function(theta) {
    u <- target$value_grad(theta)
    is.finite(u$value) && all(is.finite(u$gradient))
  }
  if (is.null(init) || identical(init, "random")) {
    internal <- with_local_seed(seed, lapply(seq_len(chains), function(chain) {
      th <- random_inside(d, finite_at, target$null)
      if (!is.null(th)) return(th)
      stop_arg("init", sprintf(paste("is NULL, but 100 random starting points drawn uniformly in",
                                     "(-2, 2) all gave a non-finite log density (chain %d)%s"), chain,
                               if (!is.null(target$family)) sprintf(", and none near the null model of %s(%s) was inside its link's domain",
                                                                    target$family$family, target$family$link) else ""),
               "Supply `init` values on the scale of the coefficients, with every linear predictor inside the link's domain.")
    }))
  } else {
    user <- resolve_inits(init, nm, chains, seed, NULL)
    internal <- lapply(seq_len(chains), function(chain) {
      th <- user[[chain]]
      check_init_domain(th, target$layout, target$par_names, chain)
      th <- as.numeric(target$to_internal(matrix(th, nrow = 1L)))
      if (!finite_at(th)) {
        stop_arg("init", sprintf("gives a non-finite log density for chain %d", chain),
                 "Choose values closer to the data, e.g. the estimates of glm().")
      }
      th
    })
  }
  user <- lapply(internal, target$user_values)
  list(internal = internal, user = user)
}

# A uniform(-2, 2) draw where the potential is finite (100 tries); failing that, a draw
# ever closer to the null model inside the link's domain (`null`), or NULL.
random_inside <- function(d, finite_at, null) {
  for (attempt in seq_len(100)) {
    th <- stats::runif(d, -2, 2)
    if (finite_at(th)) return(th)
  }
  if (is.null(null)) return(NULL)
  for (attempt in seq_len(100)) {
    th <- null + stats::runif(d, -2, 2) * 0.9^attempt
    if (finite_at(th)) return(th)
  }
  NULL
}

# The blocks of the GLM's own parameters, a horseshoe's included (the group-level terms' come
# after them and are named from their terms, R/glmer-terms.R).
# The group-level terms' blocks: "b:KEY" (effects), "sd:KEY" (scales) and "cor:KEY"
# (correlations), KEY the term's (term_key()).
is_group_block <- function(name) grepl("^(b|sd|cor):", name)

# Names of the sampler's coordinates in a group-level block, by its kind and the core's label
# (effects "centred" or not; scales "lkj" (log sd each) or decov's log s and simplex;
# correlations its canonical partial ones), labelled with the term's coefficients and levels.
group_internal_names <- function(block, terms) {
  term <- terms[[match(sub("^[^:]*:", "", block$name), vapply(terms, term_key, ""))]]
  g <- if (is.null(term$dpar)) term$group_name else dpar_prefixed(term$dpar, term$group_name)  # unique per term
  nm <- switch(sub(":.*$", "", block$name),
    b = sprintf("%s[%s %s:%s]", if (block$label == "centred") "b" else "z", rep(term$cnms, length(term$levels)),
                term$group_name, rep(term$levels, each = term$p)),
    sd = if (block$label == "lkj") sprintf("log(sd[%s:%s])", g, term$cnms) else
      c(sprintf("log(s[%s])", g), sprintf("simplex[%s:%s]", g, term$cnms[-1L])),
    cor = sprintf("cpc[%s:%d]", g, seq_len(block$size)))
  if (length(nm) != block$size) stop("internal: the names of block ", block$name, " do not match its size")
  nm
}

fixed_blocks <- function(layout) {
  b <- layout$blocks
  b[b$name %in% c("intercept", "coef", "smooth") | startsWith(b$name, "aux:") | startsWith(b$name, "hs:") |
      startsWith(b$name, "sm:") | startsWith(b$name, "dpar:"), , drop = FALSE]
}

# User initial values of the auxiliary parameters must lie in their domains: above a
# positive parameter's lower bound, inside (0, 1) for a probability, increasing cutpoints.
check_init_domain <- function(th, layout, par_names, chain) {
  b <- fixed_blocks(layout)
  for (i in which(b$transform != "identity")) {
    idx <- b$offset[i] + seq_len(b$size[i])
    v <- th[idx]
    bad <- switch(b$transform[i],
                  log = if (any(v <= b$lower[i])) {
                    if (b$lower[i] == 0) "must be positive" else sprintf("must be above %s", format(b$lower[i]))
                  },
                  logit = if (any(v <= 0 | v >= 1)) "must lie strictly between 0 and 1",
                  ordered = if (any(diff(v) <= 0)) "must increase from one cutpoint to the next")
    if (is.null(bad)) next
    stop_arg("init", sprintf("gives %s = %s for chain %d; %s %s", par_names[idx[1L]],
                             paste(format(v), collapse = ", "), chain, b$label[i], bad))
  }
  invisible()
}
