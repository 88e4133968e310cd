// OpenBLAS's thread controls and self-description, for programs and tools written for OpenBLAS
// (threadpoolctl reads openblas_get_num_threads, openblas_set_num_threads, openblas_get_config,
// openblas_get_corename and openblas_get_parallel). They act on invar's default context, the one
// every routine of libinvar_blas runs on, so they are invar_set_num_threads and
// invar_get_num_threads under OpenBLAS's names and conventions.
#include "invar/invar.h"

namespace {

// invar_set_num_threads's upper bound; OpenBLAS clamps a larger request to its own maximum
// rather than refusing it, and so does this.
constexpr int kMaxThreads = 1024;

}  // namespace

extern "C" {

// num_threads < 1 restores the default count (INVAR_NUM_THREADS, else OMP_NUM_THREADS, else the
// physical cores), as OpenBLAS falls back to its own default.
__attribute__((visibility("default"))) void openblas_set_num_threads(int num_threads) {
  invar_set_num_threads(num_threads < 1             ? 0
                        : num_threads > kMaxThreads ? kMaxThreads
                                                    : num_threads);
}

// GotoBLAS's name for the same, which OpenBLAS keeps.
__attribute__((visibility("default"))) void goto_set_num_threads(int num_threads) {
  openblas_set_num_threads(num_threads);
}

// 0 when the default context cannot be created (an invalid INVAR_* or OMP_NUM_THREADS setting).
__attribute__((visibility("default"))) int openblas_get_num_threads(void) {
  return invar_get_num_threads();
}

// invar_get_config()'s line. Its first word is "invar", not "OpenBLAS", so tools that read
// OpenBLAS's version from it (threadpoolctl) report no OpenBLAS version.
__attribute__((visibility("default"))) char* openblas_get_config(void) {
  return const_cast<char*>(invar_get_config());
}

// The kernel path in use, or "unavailable" when INVAR_ISA asks for one this CPU lacks.
__attribute__((visibility("default"))) char* openblas_get_corename(void) {
  const char* isa = invar_isa();
  return const_cast<char*>(isa != nullptr ? isa : "unavailable");
}

// OPENBLAS_THREAD (1): a thread pool of the library's own, never an OpenMP runtime.
__attribute__((visibility("default"))) int openblas_get_parallel(void) { return 1; }

}  // extern "C"
