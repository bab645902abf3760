# The family registry (R/family-registry.R and the core's inst/include/vhmc/model/glm/
# families.hpp): R's entries and the core's structs agree, and no file outside the family
# files tests a family's name, in R or in C++.

registry_names <- function() {
  reg <- vhmc:::family_registry()
  c(names(reg), vhmc:::core_families()$families$code)
}

# The package's source tree: the repository (devtools, make) or R CMD check's copy.
source_dir <- function(sub) {
  for (root in c("../..", "../../00_pkg_src/vhmc")) {
    path <- file.path(root, sub)
    if (dir.exists(path) && file.exists(file.path(root, "DESCRIPTION"))) return(path)
  }
  NULL
}

test_that("every R family and link has a core family with the same auxiliary parameters", {
  reg <- vhmc:::family_registry()
  core <- vhmc:::core_families()
  for (entry in reg) {
    for (link in entry$links) {
      code <- entry$core(link)
      expect_true(code %in% core$families$code, info = code)
      aux <- core$aux$name[core$aux$code == code & !core$aux$sized_by_data]
      expect_setequal(as.character(names(entry$aux_priors)), aux)
      fam <- vhmc:::resolve_family(entry$constructor(link))
      expect_identical(fam$code, code)
    }
  }
  # ... and every core family is reached from R.
  reached <- unlist(lapply(reg, function(e) vapply(e$links, e$core, "")))
  expect_setequal(unique(reached), core$families$code)
})

test_that("no R file outside the family files tests a family's name", {
  dir <- source_dir("R")
  skip_if(is.null(dir), "the package's R sources are not at hand")
  names <- registry_names()
  files <- list.files(dir, pattern = "[.]R$", full.names = TRUE)
  files <- files[!startsWith(basename(files), "family-")]
  offences <- character()
  for (f in files) {
    pd <- utils::getParseData(parse(f, keep.source = TRUE))
    strings <- pd[pd$token == "STR_CONST", ]
    values <- gsub("^[\"']|[\"']$", "", strings$text)
    lines <- readLines(f)[strings$line1]
    # "gaussian" is also brms's name of a way to draw new levels' effects.
    allowed <- grepl("sample_new_levels|re_options\\(", lines)
    hit <- values %in% names & !allowed
    offences <- c(offences, sprintf("%s:%d %s", basename(f), strings$line1[hit], values[hit]))
    text <- readLines(f)
    code <- sub("#.*$", "", text)
    cmp <- grep("\\$(family|link)\\s*(==|!=|%in%)|identical\\([^)]*\\$(family|link)\\b|switch\\([^,]*\\$(family|link)\\b", code)
    offences <- c(offences, sprintf("%s:%d %s", basename(f), cmp, trimws(text[cmp])))
  }
  expect_identical(offences, character())
})

test_that("no C++ file outside the family files names a family", {
  include <- source_dir("inst/include/vhmc")
  src <- source_dir("src")
  skip_if(is.null(include), "the package's C++ sources are not at hand")
  family_files <- list.files(file.path(include, "model", "glm", "family"), full.names = TRUE)
  # The families, their distributions, count parts and links: the structs that carry a name.
  structs <- unique(unlist(lapply(family_files, function(f) {
    text <- readLines(f)
    at <- grep("^struct [A-Za-z0-9_]+", text)
    named <- vapply(at, function(i) any(grepl("kFamily|kName|kZeroInflated", text[i:min(i + 3L, length(text))])), TRUE)
    sub("^struct ([A-Za-z0-9_]+).*$", "\\1", text[at[named]])
  })))
  expect_true(all(c("GaussianIdentity", "BinomialLogit", "Cumulative", "StudentDist") %in% structs))
  files <- c(list.files(include, pattern = "[.](hpp|h)$", recursive = TRUE, full.names = TRUE),
             if (!is.null(src)) list.files(src, pattern = "[.](cpp|h)$", full.names = TRUE))
  files <- files[!grepl("model/glm/family/", files, fixed = TRUE) & basename(files) != "families.hpp" &
                   basename(files) != "RcppExports.cpp"]
  codes <- vhmc:::core_families()$families$code
  offences <- character()
  for (f in files) {
    text <- sub("//.*$", "", readLines(f))
    for (s in structs) {
      hit <- grep(paste0("\\b", s, "\\b"), text)
      offences <- c(offences, sprintf("%s:%d %s", basename(f), hit, rep(s, length(hit))))
    }
    for (code in c(codes, unique(vhmc:::core_families()$families$family))) {
      hit <- grep(paste0("\"", code, "\""), text, fixed = TRUE)
      offences <- c(offences, sprintf("%s:%d \"%s\"", basename(f), hit, rep(code, length(hit))))
    }
  }
  expect_identical(offences, character())
})

test_that("families are found by object, function, name, brms's spelling and link", {
  expect_identical(vhmc:::resolve_family("student")$code, "student_identity")
  expect_identical(vhmc:::resolve_family(Gamma)$code, "Gamma_inverse")
  expect_identical(vhmc:::resolve_family(binomial(link = cloglog))$code, "binomial_cloglog")
  expect_identical(vhmc:::resolve_family(inverse.gaussian())$code, "inverse.gaussian_1/mu^2")
  expect_identical(vhmc:::resolve_family(lognormal())$code, "gaussian_identity")
  brms_beta <- structure(list(family = "beta", link = "logit"), class = c("brmsfamily", "family"))
  expect_identical(vhmc:::resolve_family(brms_beta)$code, "Beta_logit")
  expect_identical(vhmc:::resolve_family(cumulative("probit"))$aux_names, "cutpoints")
  expect_identical(vhmc:::resolve_family(zero_inflated_negbinomial())$aux_names, c("shape", "zi"))
  expect_error(vhmc:::resolve_family(structure(list(family = "beta", link = "softplus"), class = "family")),
               "Beta\\(\\) has no link \"softplus\" in vhmc.*\"logit\", \"probit\", \"cloglog\", \"cauchit\"")
  expect_output(print(student()), "student")
})

test_that("auxiliary priors go by name, with the family's defaults and clear errors", {
  d <- data.frame(x = c(0.1, 0.5, 1.3, 2.2, 3.1, 4.5), y = c(0, 1, 0, 3, 2, 5))
  fit <- suppressWarnings(vhmc_glm(y ~ x, data = d, family = zero_inflated_negbinomial(), prior = flat(),
                                   prior_aux = list(zi = beta_prior(2, 2)), chains = 1, iter = 40, warmup = 20,
                                   seed = 1, progress = FALSE))
  p <- fit$model$priors$prior_aux
  expect_identical(names(p), c("shape", "zi"))
  expect_identical(p$zi$adjusted$dist, "beta")
  expect_identical(p$shape$adjusted, gamma_prior(0.01, 0.01))
  expect_output(print(prior_summary(fit)), "Auxiliary \\(zi\\)\n  specified: beta_prior\\(shape1 = 2, shape2 = 2\\)")
  expect_error(vhmc_glm(y ~ x, data = d, family = zero_inflated_negbinomial(), prior_aux = exponential(1)),
               "`prior_aux` is one prior, but the zero_inflated_negbinomial family has 2 auxiliary parameters \\(shape, zi\\)")
  expect_error(vhmc_glm(y ~ x, data = d, family = zero_inflated_poisson(), prior_aux = list(phi = exponential(1))),
               "`prior_aux` names `phi`, which the zero_inflated_poisson family does not have. Its auxiliary parameters are `zi`")
  expect_error(vhmc_glm(y ~ x, data = d, family = zero_inflated_poisson(), prior_aux = list(zi = normal(0, 1))),
               "`prior_aux` is normal\\(location = 0, scale = 1\\) for the probability zi, which takes beta_prior\\(\\) or flat\\(\\)")
  expect_error(vhmc_glm(y ~ x, data = d, family = student(), prior_aux = list(nu = beta_prior(1, 1))),
               "`prior_aux\\$nu` cannot be beta_prior\\(\\): it is for a probability, and nu is not one")
  expect_error(vhmc_glm(y ~ x, data = d, prior = gamma_prior(2, 1)), "`prior` cannot be gamma_prior\\(shape = 2, rate = 1\\)")
  expect_error(gamma_prior(-1, 1), "`shape` must lie in \\(0, Inf\\), not -1")
  expect_error(vhmc_glm(ordered(y) ~ x, data = d, family = cumulative(), prior_aux = exponential(1)),
               "`prior_aux` was given, but the cumulative family has no auxiliary parameter. Its cutpoints take their prior from `prior_intercept`")
})
