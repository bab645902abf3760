# vhmc developer tasks. From a clean clone, `make demo` and `make check` are enough:
# both install what is missing first (tools/install-deps.sh).
#
#   make deps       install missing system and R dependencies
#   make document   regenerate NAMESPACE and man/ with roxygen2 (commit the result)
#   make install    install the package from this tree
#   make demo       install, then run the main example inst/demo/main.R
#   make cpp-test   build and run the Catch2 tests of the C++ core (tests/cpp)
#   make check      cpp-test, R CMD build, R CMD check; fails on any WARNING or ERROR
#   make clean      remove build products

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := check

PKG      := vhmc
VERSION  := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
R        ?= R
RSCRIPT  ?= Rscript
JOBS     ?= 2
BUILD    := build
CPP_BUILD := $(BUILD)/cpp-tests
TARBALL  := $(PKG)_$(VERSION).tar.gz
RCHECK   := $(BUILD)/$(PKG).Rcheck

# Environment of R CMD build / check: run skip_on_cran() tests, no network checks,
# compile with JOBS parallel jobs.
R_CHECK_ENV := NOT_CRAN=true \
               _R_CHECK_CRAN_INCOMING_=false \
               _R_CHECK_CRAN_INCOMING_REMOTE_=false \
               _R_CHECK_FORCE_SUGGESTS_=false \
               MAKEFLAGS=-j$(JOBS)

.PHONY: all deps document install demo cpp-test check check-log clean

all: check

deps:
	bash tools/install-deps.sh

document: deps
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

install: deps
	MAKEFLAGS=-j$(JOBS) $(R) CMD INSTALL --preclean .

demo: install
	$(RSCRIPT) inst/demo/main.R

cpp-test: deps
	cmake -S tests/cpp -B $(CPP_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(CPP_BUILD) --parallel $(JOBS)
	cd $(CPP_BUILD) && ctest --output-on-failure
	@grep -hE '^(All tests passed|test cases:|assertions:)' \
	  $(CPP_BUILD)/Testing/Temporary/LastTest.log | sed 's/^/Catch2: /' || true

check: deps cpp-test
	mkdir -p $(BUILD)
	rm -rf $(RCHECK) $(BUILD)/$(PKG)_*.tar.gz
	cd $(BUILD) && $(R_CHECK_ENV) $(R) CMD build --no-manual ..
	rc=0; (cd $(BUILD) && $(R_CHECK_ENV) $(R) CMD check --no-manual $(TARBALL)) || rc=$$?; \
	  bash tools/check-log.sh $(RCHECK) $$rc

# Re-judge the last check without running it again.
check-log:
	bash tools/check-log.sh $(RCHECK)

clean:
	rm -rf $(BUILD) $(PKG).Rcheck $(PKG)_*.tar.gz
	rm -f src/*.o src/*.so src/*.dll
	rm -rf inst/doc vignettes/*.html vignettes/*_cache vignettes/*_files
