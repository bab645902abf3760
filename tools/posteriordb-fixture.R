# Rebuilds tests/testthat/fixtures/posteriordb.rds from ../shared/validation/posteriordb
# (data as JSON, reference summaries as CSV; see its README for each model). The tests read
# only the fixture, never the shared folder. Needs jsonlite (a development dependency only).
#   Rscript tools/posteriordb-fixture.R [path/to/posteriordb]
args <- commandArgs(trailingOnly = TRUE)
src <- if (length(args)) args[1] else file.path("..", "shared", "validation", "posteriordb")
read_json <- function(name) jsonlite::fromJSON(file.path(src, paste0(name, ".json")))
read_ref <- function(name) {
  ref <- utils::read.csv(file.path(src, paste0(name, ".reference.csv")))
  ref[c("variable", "mean", "sd", "mcse_mean")]
}
data <- list(
  arK = read_json("arK"), diamonds = read_json("diamonds"), earnings = read_json("earnings"),
  kidiq = read_json("kidiq"), sblrc = read_json("sblrc")
)
data$kidiq <- data$kidiq[c("N", "kid_score", "mom_hs", "mom_iq")]
refs <- lapply(stats::setNames(nm = c("arK-arK", "diamonds-diamonds",
                                      "earnings-logearn_interaction_z",
                                      "kidiq-kidscore_interaction", "kidiq-kidscore_momiq",
                                      "sblrc-blr")), read_ref)
saveRDS(list(data = data, reference = refs,
             source = "posteriordb v1.0 (github: stan-dev/posteriordb), reference draws 10 x 1000"),
        file.path("tests", "testthat", "fixtures", "posteriordb.rds"), compress = "xz")
