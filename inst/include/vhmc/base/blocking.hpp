#pragma once
// Eigen splits large matrix products into blocks whose sizes it derives from the
// processor's cache sizes, read from CPUID at run time; the blocks fix the order in which
// each product's sums are added, so two machines with different caches (or two virtual
// machines reporting different ones) round the same product differently in the last bits,
// and a chain carries that into its draws. Every entry point of the core (the R package at
// load, the Catch2 tests) fixes the sizes to these constants instead, so that products are
// computed in the same order everywhere. They are typical of current x86-64 cores; the
// blocking only tunes speed, never the result's accuracy.
#include <Eigen/Core>

namespace vhmc {

constexpr std::ptrdiff_t kBlockingL1 = 32 * 1024;
constexpr std::ptrdiff_t kBlockingL2 = 1024 * 1024;
constexpr std::ptrdiff_t kBlockingL3 = 8 * 1024 * 1024;

inline void fix_product_blocking(std::ptrdiff_t l1 = kBlockingL1, std::ptrdiff_t l2 = kBlockingL2,
                                 std::ptrdiff_t l3 = kBlockingL3) {
  Eigen::setCpuCacheSizes(l1, l2, l3);
}

}  // namespace vhmc
