# Samplers are S3 objects made by their constructors (R/sampler-*.R). Everything the fitting
# code needs from a sampler goes through the generics below, dispatched on its class: no
# code outside a sampler's own file knows a sampler by name. A new sampler is a constructor
# plus the methods it needs (most have defaults) and one line in the core's registry
# (src/glue_registry.h, keyed by the same class).
#
#   sampler_config(s, run, target) the settings the core reads, every default settled
#   check_target(s, target)       refuse a target the sampler cannot use (before anything runs),
#                                 from the target's capabilities: minibatch, metric_tensor,
#                                 has_mode (and its description and the samplers it takes,
#                                 for the message)
#   start_method(s)               how chains start with init = NULL: "mode" (R/start.R) or "random"
#   start_screen(s), mode_search(s)  the mode start's design and search (R/start.R, R/laplace.R)
#   start_metric_regularised(s)   whether a mode start whose Laplace covariance was regularised
#                                 gives the chains that metric (else the Laplace one; R/start.R)
#   auto_warmup(s)                whether warmup = NULL lets warmup end when adaptation converged
#   prepare_fit(s, target, inits) fit-time computations shared by the chains (a mode, ...)
#   run_sampler_chains(s, ...)    run the chains (each on its own, or as one population)
#   add_report(s, fit, results, target)  what each chain's sampler reported, into the fit
#   check_report(s, fit)          warnings about what the report shows
#   uses_gradient(s)              whether the sampler evaluates gradients (else none is needed)
#   uses_minibatch(s)             whether it takes minibatches of rows (a model then keeps the
#                                 likelihood per row: no group effects integrated out)
#   sampler_label(s), header_lines(s, fit), divergence_fix(s)   for printing and warnings
#   multilevel_hint(s)            what the convergence warnings of a multilevel fit add ("" or
#                                 "; ..."), where the sampler itself mixes poorly there

new_sampler <- function(class, ...) {
  structure(list(...), class = c(paste0("vhmc_", class), "vhmc_sampler"))
}

is_sampler <- function(x) inherits(x, "vhmc_sampler")

# The sampler constructors of the formula interfaces, with what each needs of a target by
# capability (their check_target() methods refuse by the same ones), for the hints of errors.
# Targets written in R take all but the minibatch samplers, demc() too, and rmhmc() only with
# a metric tensor.
sampler_needs <- list("nuts()" = NULL, "hmc()" = NULL, "rwm()" = NULL, "rmhmc()" = "metric_tensor",
                      "surrogate_hmc()" = "anchor", "variational_hmc()" = "anchor", "sghmc()" = "minibatch",
                      "sgld()" = "minibatch")
all_samplers <- names(sampler_needs)
r_target_samplers <- "nuts(), hmc(), rwm(), demc(), surrogate_mh(), surrogate_hmc(), variational_hmc(), or rmhmc() with a `metric_tensor`"

check_sampler_arg <- function(sampler, hint = or_list(all_samplers)) {
  if (is_sampler(sampler)) return(invisible())
  stop_arg("sampler", sprintf("must be a sampler object, not %s", describe(sampler)),
           sprintf("Use %s.", hint))
}

# The samplers a target's capabilities allow, for the hint of a refusal.
usable_samplers <- function(caps) {
  ok <- Filter(function(need) all(vapply(need, function(k) isTRUE(caps[[k]]), NA)), sampler_needs)
  or_list(sub("^nuts\\(\\)$", "nuts() (the default)", names(ok)))
}

# The sampler of vhmc_sample() when none is given. With a gradient (the user's, or a TMB/RTMB
# tape), nuts(). Without one, a gradient-free sampler: surrogate_mh() while its surrogate's
# quadratic mean, (d + 1) (d + 2) / 2 coefficients fitted from about 3 times as many model runs
# per refinement, stays cheap against sampling (12 parameters: 273 runs), demc() above (at
# least 3 chains), else rwm().
default_sampler <- function(has_gradient, d, chains) {
  if (has_gradient) return(nuts())
  if (d <= 12L) return(surrogate_mh())
  if (chains >= 3L) demc() else rwm()
}

# "a, b or c"
or_list <- function(x) if (length(x) < 2L) x else paste(paste(x[-length(x)], collapse = ", "), "or", x[length(x)])

# The sampler's short name ("nuts", "surrogate_hmc"), from its class, for display.
sampler_name <- function(sampler) sub("^vhmc_", "", class(sampler)[1])

#' @export
print.vhmc_sampler <- function(x, ...) {
  shown <- vapply(x, function(v) if (is.null(v)) "auto" else format(v), character(1))
  cat(sprintf("<vhmc sampler: %s>\n", sampler_name(x)))
  cat(sprintf("  %-14s %s\n", names(shown), shown), sep = "")
  invisible(x)
}

# The config list the core reads: the core's defaults for the sampler (its configs' member
# initialisers, vhmc_config_defaults(), the one source of every default), overwritten by
# what the sampler's arguments and the run settle (NULL: keep the core's default). It
# carries the class of the core's sampler (the registry's key): the sampler's own, or
# `core_class` when one constructor reaches several samplers of the core
# (surrogate_hmc(riemann = TRUE) is "vhmc_surrogate_rmhmc").
core_config <- function(sampler, ..., core_class = class(sampler)[1]) {
  settled <- list(...)
  settled <- settled[!vapply(settled, is.null, logical(1))]
  config <- vhmc_config_defaults(core_class)
  config[names(settled)] <- settled
  structure(config, class = c(core_class, class(sampler)[-1]))
}

# One default of the core's config of a sampler class (e.g. the surrogate's tuning length).
core_default <- function(cls, name) vhmc_config_defaults(cls)[[name]]

sampler_config <- function(sampler, run, target) UseMethod("sampler_config")

check_target <- function(sampler, target) UseMethod("check_target")
check_target.vhmc_sampler <- function(sampler, target) invisible()

# Samplers that start from a posterior mode and its curvature (the Laplace anchor of
# variational HMC, surrogate HMC's start and exploration) need a target that has one
# (`anchor`): a mode (`has_mode`), or where the joint posterior has none, a local one that
# the start searches (sampled group-level effects, R/glmer-anchor.R); a horseshoe's and
# smooths' posteriors have neither (`no_mode` says why).
check_mode_target <- function(sampler, target) {
  if (!isFALSE(target$anchor %||% target$has_mode)) return(invisible())
  stop_arg("sampler", sprintf("is %s(), which starts from the posterior mode and its curvature, and %s has no mode: %s",
                              sampler_name(sampler), target$description, target$no_mode),
           sprintf("Use %s.", target$samplers))
}

# Whether the sampler starts from a Laplace anchor (its needs, above).
needs_anchor <- function(sampler) "anchor" %in% sampler_needs[[paste0(sampler_name(sampler), "()")]]

start_method <- function(sampler) UseMethod("start_method")
start_method.vhmc_sampler <- function(sampler) "mode"
# Points per dimension of a space-filling design whose best points start the mode searches
# (R/start.R); 0: the chains' own initial values.
start_screen <- function(sampler) UseMethod("start_screen")
start_screen.vhmc_sampler <- function(sampler) 0L
# The mode search of a target written in R (R/laplace.R, lbfgs_newton()): L-BFGS iterations and
# evaluations at most, Newton steps with finite-difference Hessians after it, and whether a
# search that did not converge fails. A sampler that refines the Laplace approximation itself
# needs a point near the mass, not a converged mode.
mode_search <- function(sampler) UseMethod("mode_search")
mode_search.vhmc_sampler <- function(sampler) list(iterations = 2000L, evaluations = Inf, newton = TRUE, converge = TRUE)
start_metric_regularised <- function(sampler) UseMethod("start_metric_regularised")
start_metric_regularised.vhmc_sampler <- function(sampler) TRUE

auto_warmup <- function(sampler) UseMethod("auto_warmup")
auto_warmup.vhmc_sampler <- function(sampler) FALSE

# Returns list(extras = what the core's chains get, inits = possibly new inits, stored = what
# the fit keeps).
prepare_fit <- function(sampler, target, inits, user_init) UseMethod("prepare_fit")
prepare_fit.vhmc_sampler <- function(sampler, target, inits, user_init) {
  list(extras = list(), inits = inits, stored = list())
}

# The chains' results: each chain run on its own, wherever chains run (R/chains.R); a
# population sampler (demc()) runs all chains in one run of the core and splits its result.
run_sampler_chains <- function(sampler, chain_fun, args, target, threads = NULL) UseMethod("run_sampler_chains")
run_sampler_chains.vhmc_sampler <- function(sampler, chain_fun, args, target, threads = NULL) {
  run_chains(chain_fun, args$chains, args$cores, target$globals, threads)
}

add_report <- function(sampler, fit, results, target) UseMethod("add_report")
add_report.vhmc_sampler <- function(sampler, fit, results, target) fit

check_report <- function(sampler, fit) UseMethod("check_report")
check_report.vhmc_sampler <- function(sampler, fit) invisible()

uses_gradient <- function(sampler) UseMethod("uses_gradient")
uses_gradient.vhmc_sampler <- function(sampler) TRUE

uses_minibatch <- function(sampler) UseMethod("uses_minibatch")
uses_minibatch.vhmc_sampler <- function(sampler) FALSE

sampler_label <- function(sampler) UseMethod("sampler_label")
sampler_label.vhmc_sampler <- function(sampler) metric_label(sampler_name(sampler), sampler)

# "label (diag metric)", or the label alone for a sampler without a metric.
metric_label <- function(label, sampler) {
  if (is.null(sampler$metric)) return(label)
  paste0(label, " (", sampler$metric, " metric)")
}

header_lines <- function(sampler, fit) UseMethod("header_lines")
header_lines.vhmc_sampler <- function(sampler, fit) character()

# Whether the sampler's draws are usable with group-level effects sampled non-centred
# (R/glmer-start.R): not for variational HMC's uncorrected draws (R/sampler-variational.R).
samples_noncentred <- function(sampler) UseMethod("samples_noncentred")
samples_noncentred.vhmc_sampler <- function(sampler) TRUE

multilevel_hint <- function(sampler) UseMethod("multilevel_hint")
multilevel_hint.vhmc_sampler <- function(sampler) ""

divergence_fix <- function(sampler) UseMethod("divergence_fix")
divergence_fix.vhmc_sampler <- function(sampler) {
  "use a smaller step size or reparameterise the model (e.g. non-centred)"
}

# The warmup of an HMC-family kernel (NUTS, static HMC, surrogate HMC's exploration): the
# draw/gradient adaptation (or Stan's windows), the step size adapted unless the user fixed
# it, the metric adapted unless it is the unit metric, both only with a warmup; the rest
# (the heuristic's acceptance, the low-rank metric's rank) are the core's defaults.
hmc_warmup_config <- function(sampler, run) {
  list(step_size = sampler$step_size,
       adapt_step_size = is.null(sampler$step_size) && run$warmup > 0,
       adapt_metric = sampler$metric != "unit" && run$warmup > 0,
       adapt_delta = sampler$adapt_delta,
       fisher_adaptation = (sampler$adaptation %||% "fisher") == "fisher")
}

# The warmup adaptation and metric of an HMC-family sampler (as list(adaptation, metric)).
# The low-rank metric exists only with the draw/gradient adaptation, so Stan's adaptation
# without a metric named means Stan's diagonal metric.
match_warmup <- function(adaptation, metric, metric_given) {
  adaptation <- match_choice(adaptation, "adaptation", c("fisher", "stan"))
  metric <- if (!metric_given && adaptation == "stan") "diag" else match_metric(metric)
  if (adaptation == "stan" && metric == "low_rank") {
    stop_arg("metric", "\"low_rank\" needs the draw/gradient adaptation",
             "Use adaptation = \"fisher\", or metric = \"diag\" or \"dense\" with Stan's adaptation.")
  }
  list(adaptation = adaptation, metric = metric)
}

# The per-chain reports a sampler kept in fit[[field]] (surrogate, variational), or an
# error naming the sampler the fit was made with instead.
sampler_reports <- function(fit, field, constructor) {
  assert_vhmc_fit(fit)
  if (is.null(fit[[field]])) {
    stop("`fit` was not made with ", constructor, "; it used ", sampler_label(fit$sampler), ".",
         call. = FALSE)
  }
  fit[[field]]
}

# The value `name` of every chain's report, as a vector of `type` (NA where a chain lacks it).
# Chains that accepted fewer than `min_rate` of their n post-warmup proposals (a kernel
# without gradients whose proposal does not fit: the draws are a few points), from the
# sampler's reports' "moves_sampling".
stuck_chains <- function(reports, n, min_rate = 0.01) {
  moves <- report_column(reports, "moves_sampling")
  which(!is.na(moves) & moves < min_rate * n)
}

report_column <- function(reports, name, type = numeric(1)) {
  vapply(reports, function(x) x[[name]] %||% type[NA], type)
}
