# The family registry of vhmc_glm(): every family as data, and the one place the package
# resolves what a user passes as `family`. Each entry (family_entry()) holds the family's
# name, links, default priors, response rules and predictive functions (R/family-*.R); the
# core's own table (vhmc_family_table(), from the C++ family structs of
# inst/include/vhmc/model/glm/families.hpp) holds each family-link's auxiliary parameters
# (names, transforms) and traits (Fisher metric, gaussian closed forms, cutpoints). Every
# list of families, every message that names them and every capability a sampler or a
# multilevel model asks for is derived from these two; no other file tests a family's name
# (tests/testthat/test-family-registry.R checks it). ARCHITECTURE.md says how to add one.

# The core's table, read once per session.
core_families <- local({
  table <- NULL
  function() {
    if (is.null(table)) table <<- vhmc_family_table()
    table
  }
})

# Every family: R's family$family -> its entry.
family_registry <- function() {
  list(gaussian = gaussian_entry(), binomial = binomial_entry(), poisson = poisson_entry(),
       neg_binomial_2 = neg_binomial_entry(), Gamma = gamma_entry(),
       inverse.gaussian = inverse_gaussian_entry(), student = student_entry(),
       lognormal = lognormal_entry(), Beta = beta_entry(), cumulative = cumulative_entry(),
       zero_inflated_poisson = zero_inflated_entry("poisson"),
       zero_inflated_negbinomial = zero_inflated_entry("negbinomial"),
       hurdle_poisson = hurdle_entry("poisson"), hurdle_negbinomial = hurdle_entry("negbinomial"))
}

# An entry: what R needs of a family, with the defaults most families share.
#   links            the links, the default first
#   constructor      function(link): the family object
#   aliases          other spellings of family$family (brms's "beta", "negbinomial")
#   core             function(link): the core's code of the family-link
#   aux_priors       default prior of each auxiliary parameter, by name (cutpoints: none; their
#                    prior is prior_intercept)
#   prior_intercept  the family's default intercept (or cutpoint) prior, NULL: vhmc_glm()'s
#   standardise      function(link): whether the response is standardised in the core
#                    (location-scale families on the identity link)
#   core_response    the response as the core's family models it (lognormal: log y)
#   relative_to_sigma  decov()'s covariance is relative to sigma^2, and hs()'s global scale to
#                    sigma (rstanarm's gaussian rule)
#   trials, min_rows, separation, response(), uninformative(), observed(): response rules;
#   spread_identifies  the parameter a constant response leaves unidentified (sigma), or NULL
#   unidentified(model): what of the model only the prior identifies (an ordinal model's
#   empty end category), or NULL
#   epred(), variance(), simulate(), log_lik(), eta_information(): R/glm-predictive.R
#   log_cdf(y, p, upper): log F(y) or log(1 - F(y)), the censored rows' log_lik() (R/censoring.R;
#                    NULL: the family cannot be censored, as its core family says)
#   dev_resids(), pearson_variance(): residuals() (NULL: no deviance residuals; the model's
#                    variance behind Pearson residuals)
#   eta_mean         what the linear predictor is the mean of, for estimated marginal means
#                    (R/interop-emmeans.R): "link", the response's through the link (g(E y) =
#                    eta); "latent", a latent variable's whose cutpoints give the categories;
#                    "none", no one mean (the response's mean involves auxiliary parameters
#                    too); otherwise the name of a transformation t of the response with
#                    E t(y) = eta (the lognormal's "log")
#   mean_label       what the mean is called in summaries on the response scale (emmeans's
#                    labels: "prob", "rate", "response")
family_entry <- function(name, links, constructor, ...) {
  entry <- list(name = name, links = links, constructor = constructor, aliases = character(),
                core = function(link) paste0(name, "_", link), aux_priors = list(), prior_intercept = NULL,
                standardise = function(link) FALSE, core_response = identity, relative_to_sigma = FALSE,
                trials = FALSE, min_rows = 1L, separation = TRUE, ordinal = FALSE,
                response = function(y, w, bad_y) plain_response(y, w, bad_y),
                uninformative = function(y) all(y == 0),
                observed = function(y, trials) y,
                dev_resids = NULL, pearson_variance = NULL, unidentified = function(model) NULL,
                eta_mean = "link", mean_label = "response")
  utils::modifyList(entry, list(...))
}

# "gaussian(identity), gaussian(log), ..." for messages.
supported_families <- function() {
  unlist(lapply(family_registry(), function(e) sprintf("%s(%s)", e$name, e$links)), use.names = FALSE)
}

# The entry of a family name (or alias), or NULL.
family_entry_named <- function(name) {
  reg <- family_registry()
  if (!is.null(reg[[name]])) return(reg[[name]])
  for (e in reg) if (name %in% e$aliases) return(e)
  NULL
}

# family: a family object (binomial(link = "probit"), brms's or rstanarm's too), a family
# function (poisson) or a name ("binomial"). Returns the family object made by the entry's
# constructor, plus `code` (the core's family-link), `entry`, `aux` (the core's auxiliary
# parameters: name, transform, lower, scales_with_y, sized_by_data), `aux_names`, `has_aux`
# and `traits` (the core's row: has_fisher, gaussian_stats, thresholds, censoring,
# max_curvature).
resolve_family <- function(family) {
  if (is.character(family) && length(family) == 1L && !is.na(family)) {
    entry <- family_entry_named(family)
    if (is.null(entry)) {
      stop_arg("family", sprintf("\"%s\" is not a family vhmc knows", family), family_hint())
    }
    family <- entry$constructor()
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family") || !is.character(family$family) || !is.character(family$link)) {
    stop_arg("family", sprintf("must be a family such as binomial(), not %s", describe(family)), family_hint())
  }
  entry <- family_entry_named(family$family)
  if (is.null(entry)) stop_arg("family", sprintf("%s() is not a family vhmc knows", family$family), family_hint())
  if (!family$link %in% entry$links) {
    stop_arg("family", sprintf("%s() has no link \"%s\" in vhmc", entry$name, family$link),
             sprintf("Use one of %s.", paste0("\"", entry$links, "\"", collapse = ", ")))
  }
  attach_core_family(entry$constructor(link = family$link), entry)
}

family_hint <- function() {
  paste0("Supported (see ?vhmc_families): ", paste(supported_families(), collapse = ", "), ".")
}

# The family object with the registry's and the core's data about it.
attach_core_family <- function(family, entry) {
  tab <- core_families()
  family$code <- entry$core(family$link)
  family$entry <- entry
  family$traits <- as.list(tab$families[tab$families$code == family$code, , drop = FALSE])
  if (length(family$traits$code) != 1L) stop("internal: no core family ", family$code)
  family$aux <- tab$aux[tab$aux$code == family$code, , drop = FALSE]
  family$aux_names <- family$aux$name
  family$has_aux <- nrow(family$aux) > 0L
  family
}

# The links of a family as make.link() gives them, plus family and link names: a family
# object of the families R itself has no constructor for.
new_family <- function(name, link, links) {
  link <- check_link(link, name, links)
  lk <- stats::make.link(link)
  structure(list(family = name, link = link, linkfun = lk$linkfun, linkinv = lk$linkinv,
                 mu.eta = lk$mu.eta, valideta = lk$valideta), class = "family")
}

# A link given as a string or a name (link = log), one of `links`.
check_link <- function(link, name, links) {
  if (!is.character(link) || length(link) != 1L || !link %in% links) {
    stop_arg("link", sprintf("of %s() must be one of %s, not %s", name,
                             paste0("\"", links, "\"", collapse = ", "), describe(link)))
  }
  link
}

# The auxiliary parameters' draws of a fit, by name: a vector (one value per draw) or, for
# cutpoints, a matrix (draws x cutpoints). m: the draws matrix.
aux_draws <- function(model, m) {
  family <- model$family
  if (!isTRUE(family$has_aux)) return(list())
  out <- lapply(seq_len(nrow(family$aux)), function(i) {
    if (family$aux$name[i] %in% names(model$dpars)) return(NULL)  # per observation: dpar_draws()
    if (family$aux$sized_by_data[i]) m[, cutpoint_names(model$levels), drop = FALSE] else m[, family$aux$name[i]]
  })
  stats::setNames(out, family$aux$name)
}

# Whether the linear predictor is on the response's own scale (then an interval of new
# observations can be given on the link scale).
link_on_response_scale <- function(family) {
  identical(family$link, "identity") && identical(family$entry$core_response, identity)
}

# The family-links whose Fisher metric the core has (rmhmc()), for messages.
fisher_families <- function() {
  tab <- core_families()$families
  paste(sprintf("%s(%s)", tab$family, tab$link)[tab$has_fisher], collapse = " or ")
}
