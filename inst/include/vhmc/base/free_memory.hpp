#pragma once
// Hands freed heap memory back to the operating system where the C library can (glibc's
// malloc_trim). A chain's warmup frees its largest buffers before sampling (driver/
// run_chain.hpp), but glibc keeps freed chunks of a thread's arena resident, so at a hundred
// thousand parameters the warmup's memory stayed in the process's peak beside the sampling
// draws. Elsewhere a no-op.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vhmc {

inline void return_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace vhmc
