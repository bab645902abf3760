#!/usr/bin/env bash
# Install what vhmc needs to build, test and check, and nothing that is already there.
#
#   bash tools/install-deps.sh            # build/test/check dependencies
#   bash tools/install-deps.sh --bench    # also the benchmark-only packages
#   VHMC_BENCH_DEPS=1 bash tools/install-deps.sh   # same as --bench
#   bash tools/install-deps.sh --dry-run  # only say what is missing
#
# 1. Debian/Ubuntu as root: apt-get installs the missing Debian packages below
#    (`apt-get update` runs only when something is missing).
# 2. Anywhere: R installs, from getOption("repos"), every package named in
#    DESCRIPTION (Imports, LinkingTo, Suggests) plus the development tools below
#    that is still missing or older than DESCRIPTION asks. This is the path on
#    a non-Debian machine or without root, and the only one for R packages
#    without a Debian package (liver). Packages that only the benchmarks use
#    (R_BENCH_PKGS below) are left out unless --bench is given. A package whose
#    current release needs a newer R comes as an archived source from the same
#    repository (R_BENCH_ARCHIVED below), and only where the one installed is too old.
# A machine that already has everything is left untouched and one line is printed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bench=0
dry=0
case "${VHMC_BENCH_DEPS:-0}" in 1|true|TRUE|yes) bench=1 ;; esac
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg' (use --bench, --dry-run or --help)" >&2; exit 2 ;;
  esac
done

# R packages needed to build, test and check (DESCRIPTION is read as well: its Suggests
# include TMB (>= 1.9.7, newer than Debian 12's) and RTMB, which come from the R path).
# reformulas (lme4's formula machinery, which vhmc_glm() uses for group-level terms) has no
# Debian package in Debian 12, so it comes from the R path.
# liver holds the real data of the Table 1 a9a and Bank Marketing rows
# (inst/bench/table1_data.R); it is in Suggests, which R CMD check wants installed, and has
# no Debian package, so it comes from the R path.
R_PKGS="Rcpp RcppEigen coda posterior knitr rmarkdown future future.apply roxygen2 testthat withr pkgbuild bayesplot loo emmeans rstantools liver reformulas lme4 pscl glmmTMB"
# Benchmark-only R packages (inst/bench; brms also for inst/validation/brms-families.R;
# BayesianTools, whose DEzs and VSEM model the DE-MC sampler is compared with, and deSolve);
# installed only with --bench. BayesianTools has no Debian package; of its dependencies
# DHARMa, qgam, gap, gap.datasets, emulator, quadform and IDPmisc have none either.
R_BENCH_PKGS="rstan MCMCpack rstanarm brms deSolve BayesianTools"
# Benchmark-only R packages taken from the repository's archive where the installed version
# is older than needed: "name:needed:archived". BayesianTools needs DHARMa, DHARMa qgam, and
# qgam (2.0.0) mgcv (>= 1.9), newer than Debian 12's 1.8-41, while mgcv's current release
# needs R (>= 4.4): 1.9-3 is the last for an older R (R >= 3.6). Installed before the rest.
R_BENCH_ARCHIVED="mgcv:1.9:1.9-3"

# Debian packages: R packages prebuilt, plus the C++ test and vignette toolchain.
DEB_PKGS="r-base-dev r-cran-rcpp r-cran-rcppeigen r-cran-coda r-cran-posterior r-cran-knitr
  r-cran-rmarkdown r-cran-future r-cran-future.apply r-cran-roxygen2 r-cran-testthat
  r-cran-withr r-cran-loo r-cran-emmeans r-cran-bayesplot r-cran-rstantools r-cran-pkgbuild
  r-cran-lme4 r-cran-rdpack r-cran-pscl r-cran-glmmtmb r-cran-ggfortify r-cran-survival catch2 pandoc"
# BayesianTools' dependencies that Debian has (r-cran-curl and the rest of plotly's come
# prebuilt: CRAN's curl needs libcurl's headers to build).
DEB_BENCH_PKGS="r-cran-rstan r-cran-mcmcpack r-cran-rstanarm r-cran-brms r-cran-desolve
  r-cran-mvtnorm r-cran-tmvtnorm r-cran-ellipse r-cran-numderiv r-cran-msm
  r-cran-bridgesampling r-cran-lmtest r-cran-ape r-cran-shiny r-cran-plyr r-cran-doparallel
  r-cran-plotly r-cran-httr r-cran-curl"
# Tools that count as present when the command exists, however it was installed. ccache
# is optional: with it, make check compiles the package once for R CMD build and R CMD check.
declare -A TOOL_PKG=([cmake]=cmake [g++]=g++ [make]=make [ccache]=ccache)

did_something=0

deb_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# ---- 1. Debian packages -------------------------------------------------------
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1 \
   && [ "$(id -u)" -eq 0 ]; then
  wanted="$DEB_PKGS"
  [ "$bench" -eq 1 ] && wanted="$wanted $DEB_BENCH_PKGS"
  missing=()
  for p in $wanted; do deb_installed "$p" || missing+=("$p"); done
  for t in "${!TOOL_PKG[@]}"; do
    command -v "$t" >/dev/null 2>&1 || missing+=("${TOOL_PKG[$t]}")
  done
  if [ "${#missing[@]}" -gt 0 ] && [ "$dry" -eq 1 ]; then
    echo "install-deps: would apt-get install: ${missing[*]}"
    did_something=1
  elif [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: apt-get installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
    did_something=1
  fi
else
  # No root or no apt: say what is missing outside R; R packages are handled below.
  for t in cmake g++ make pandoc; do
    command -v "$t" >/dev/null 2>&1 ||
      echo "install-deps: warning: '$t' not found; install it with your system's package manager" >&2
  done
  if [ ! -f /usr/include/catch2/catch.hpp ] && [ ! -f /usr/local/include/catch2/catch.hpp ]; then
    echo "install-deps: warning: Catch2 v2 (catch2/catch.hpp) not found; 'make cpp-test' needs it" >&2
  fi
fi

# ---- 2. R packages (fallback, and the only path off Debian) ---------------------
if ! command -v Rscript >/dev/null 2>&1; then
  echo "install-deps: error: Rscript not found; install R (>= 4.1) first" >&2
  exit 1
fi

wanted_r="$R_PKGS"
bench_only="$R_BENCH_PKGS"
archived=""
if [ "$bench" -eq 1 ]; then
  wanted_r="$wanted_r $R_BENCH_PKGS"
  bench_only=""
  archived="$R_BENCH_ARCHIVED"
fi

set +e
VHMC_R_PKGS="$wanted_r" VHMC_BENCH_ONLY="$bench_only" VHMC_R_ARCHIVED="$archived" \
  VHMC_DRY_RUN="$dry" Rscript - <<'EOF'
desc <- read.dcf("DESCRIPTION", fields = c("Imports", "LinkingTo", "Suggests", "Depends"))
fields <- desc[1, ]
fields <- fields[!is.na(fields)]
entries <- trimws(unlist(strsplit(fields, ",")))
entries <- entries[nzchar(entries)]
pkg <- trimws(sub("\\(.*$", "", entries))
req <- ifelse(grepl(">=", entries),
              trimws(sub("^.*>=\\s*([^) ]+).*$", "\\1", entries)), NA_character_)
extra <- strsplit(Sys.getenv("VHMC_R_PKGS"), "[[:space:]]+")[[1]]
extra <- setdiff(extra[nzchar(extra)], pkg)
pkg <- c(pkg, extra)
req <- c(req, rep(NA_character_, length(extra)))
base <- c("R", rownames(installed.packages(priority = "base")))
# Benchmark-only Suggests wait for --bench (check runs without them).
bench_only <- strsplit(Sys.getenv("VHMC_BENCH_ONLY"), "[[:space:]]+")[[1]]
keep <- !(pkg %in% c(base, bench_only))
pkg <- pkg[keep]; req <- req[keep]
# "name:needed:archived": name must be at least `needed`, else the archived source comes.
arch <- strsplit(Sys.getenv("VHMC_R_ARCHIVED"), "[[:space:]]+")[[1]]
arch <- do.call(rbind, c(list(matrix(character(), 0, 3)), strsplit(arch[nzchar(arch)], ":")))
for (i in seq_len(nrow(arch))) {
  j <- match(arch[i, 1], pkg)
  if (is.na(j)) { pkg <- c(pkg, arch[i, 1]); req <- c(req, arch[i, 2]) }
  else if (is.na(req[j]) || package_version(req[j]) < package_version(arch[i, 2])) req[j] <- arch[i, 2]
}

needs <- function() {
  vapply(seq_along(pkg), function(i) {
    if (!nzchar(system.file(package = pkg[i]))) return(TRUE)
    !is.na(req[i]) && utils::packageVersion(pkg[i]) < package_version(req[i])
  }, logical(1))
}
todo <- needs()
if (!any(todo)) quit(status = 0)

missing <- pkg[todo]
from_archive <- arch[arch[, 1] %in% missing, , drop = FALSE]
missing <- setdiff(missing, from_archive[, 1])
if (Sys.getenv("VHMC_DRY_RUN") == "1") {
  if (nrow(from_archive))
    message("install-deps: would install archived R sources: ",
            paste0(from_archive[, 1], "_", from_archive[, 3], collapse = " "))
  if (length(missing))
    message("install-deps: would install R packages: ", paste(missing, collapse = " "))
  quit(status = 3)
}
if (nrow(from_archive))
  message("install-deps: installing archived R sources: ",
          paste0(from_archive[, 1], "_", from_archive[, 3], collapse = " "))
if (length(missing))
  message("install-deps: installing R packages: ", paste(missing, collapse = " "))
repos <- getOption("repos")
if (is.null(repos) || !length(repos) || any(repos == "@CRAN@")) {
  # No repository configured: take the first entry of R's own mirror list.
  utils::chooseCRANmirror(graphics = FALSE, ind = 1)
}
lib <- .libPaths()[1]
if (file.access(lib, 2) != 0) {
  lib <- Sys.getenv("R_LIBS_USER")
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  .libPaths(c(lib, .libPaths()))
  message("install-deps: library not writable; installing into ", lib)
}
ncpus <- max(1L, min(2L, parallel::detectCores(), na.rm = TRUE))
# Archived sources first (others depend on them), from the configured repository's archive.
if (nrow(from_archive)) {
  repos <- getOption("repos")
  cran <- sub("/+$", "", if ("CRAN" %in% names(repos)) repos[["CRAN"]] else repos[[1]])
  urls <- sprintf("%s/Archive/%s/%s_%s.tar.gz", utils::contrib.url(cran, "source"),
                  from_archive[, 1], from_archive[, 1], from_archive[, 3])
  for (u in urls)
    utils::install.packages(u, repos = NULL, type = "source", lib = lib, quiet = TRUE)
}
# RTMB's sources need C++17, which R before 4.3 does not use by default (C++14): it is
# built apart, with a make variables file that makes the compiler C++17 for that build only.
cxx17 <- intersect(missing, "RTMB")
if (length(setdiff(missing, cxx17)))
  utils::install.packages(setdiff(missing, cxx17), lib = lib, Ncpus = ncpus, quiet = TRUE)
if (length(cxx17)) {
  mk <- tempfile()
  writeLines("CXX = $(CXX17) $(CXX17STD)", mk)
  old <- Sys.getenv("R_MAKEVARS_USER", NA)
  Sys.setenv(R_MAKEVARS_USER = mk)
  utils::install.packages(cxx17, lib = lib, Ncpus = ncpus, quiet = TRUE)
  if (is.na(old)) Sys.unsetenv("R_MAKEVARS_USER") else Sys.setenv(R_MAKEVARS_USER = old)
}
still <- pkg[needs()]
if (length(still)) {
  message("install-deps: error: still missing or too old: ", paste(still, collapse = " "))
  quit(status = 1)
}
quit(status = 3)  # 3 = installed something, all present now
EOF
rc=$?
set -e
case "$rc" in
  0) ;;
  3) did_something=1 ;;
  *) exit "$rc" ;;
esac

if [ "$dry" -eq 1 ]; then
  [ "$did_something" -eq 0 ] && echo "install-deps: all dependencies present; nothing to do"
  exit 0
fi
if [ "$did_something" -eq 0 ]; then
  echo "install-deps: all dependencies present; nothing to do"
else
  echo "install-deps: done"
fi
