# Families and links vhmc_glm supports, resolved from what users pass to glm().

supported_families <- c("gaussian(identity)", "binomial(logit)", "binomial(probit)",
                        "poisson(log)")

# family: a family object (binomial(link = "probit")), a family function (poisson) or a name
# ("binomial"). Returns the stats family object plus `code`, the core's name for the pair.
resolve_family <- function(family) {
  if (is.character(family) && length(family) == 1L) {
    fun <- switch(family, gaussian = stats::gaussian, binomial = stats::binomial,
                  poisson = stats::poisson, NULL)
    if (is.null(fun)) {
      stop_arg("family", sprintf("\"%s\" is not supported", family),
               paste("Supported:", paste(supported_families, collapse = ", ")))
    }
    family <- fun()
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) {
    stop_arg("family", sprintf("must be a family such as binomial(), not %s", describe(family)))
  }
  key <- paste0(family$family, "(", family$link, ")")
  if (!key %in% supported_families) {
    stop_arg("family", sprintf("%s is not supported", key),
             paste("Supported:", paste(supported_families, collapse = ", ")))
  }
  family$code <- paste0(family$family, "_", family$link)
  family$has_aux <- family$family == "gaussian"
  family
}
