// Catch2 v2 entry point for the C++ core tests; the tests live in test_*.cpp.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
