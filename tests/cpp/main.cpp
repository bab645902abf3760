// Catch2 v2 entry point for the C++ core tests; the tests live in test_*.cpp. Product
// blocking is fixed first, as the R package does at load (base/blocking.hpp), so that the
// tests see the same arithmetic as the package on any machine.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "vhmc/base/blocking.hpp"

int main(int argc, char* argv[]) {
  vhmc::fix_product_blocking();
  return Catch::Session().run(argc, argv);
}
