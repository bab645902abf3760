# Builds tests/testthat/fixtures/posteriordb_rtmb.rds: data and reference summaries of three
# posteriordb posteriors that the RTMB tests write as RTMB models (eight schools
# non-centred, GARCH(1,1), the Gaussian-process Poisson regression). Reads a checkout of
# posteriordb (github: stan-dev/posteriordb, v1.0): the data and the reference draws (10
# chains x 1000 draws), summarised with posterior (mean, sd and the MCSEs of both). The tests
# read only the fixture. Needs jsonlite (a development dependency only).
#   Rscript tools/posteriordb-rtmb-fixture.R path/to/posteriordb
args <- commandArgs(trailingOnly = TRUE)
db <- file.path(args[1], "posterior_database")
unzip_json <- function(path) {
  dir <- tempfile()
  utils::unzip(path, exdir = dir)
  jsonlite::fromJSON(list.files(dir, full.names = TRUE)[1], simplifyVector = TRUE)
}
reference <- function(posterior) {
  chains <- unzip_json(file.path(db, "reference_posteriors", "draws", "draws", paste0(posterior, ".json.zip")))
  # a data frame: one column per variable, one row per chain, each cell a chain's draws
  arr <- vapply(names(chains), function(v) do.call(cbind, chains[[v]]),
                matrix(0, length(chains[[1]][[1]]), nrow(chains)))  # iteration x chain x variable
  draws <- posterior::as_draws_array(arr)
  s <- posterior::summarise_draws(draws, mean = mean, sd = stats::sd, mcse_mean = posterior::mcse_mean,
                                  mcse_sd = posterior::mcse_sd)
  data.frame(variable = s$variable, mean = as.numeric(s$mean), sd = as.numeric(s$sd),
             mcse_mean = as.numeric(s$mcse_mean), mcse_sd = as.numeric(s$mcse_sd))
}
data <- function(name) unzip_json(file.path(db, "data", "data", paste0(name, ".json.zip")))
posteriors <- c(eight_schools = "eight_schools-eight_schools_noncentered", garch = "garch-garch11",
                gp_pois_regr = "gp_pois_regr-gp_pois_regr")
saveRDS(list(data = lapply(stats::setNames(nm = names(posteriors)), data),
             reference = lapply(posteriors, reference),
             source = "posteriordb v1.0 (github: stan-dev/posteriordb), reference draws 10 x 1000"),
        file.path("tests", "testthat", "fixtures", "posteriordb_rtmb.rds"), compress = "xz")
