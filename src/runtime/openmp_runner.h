// A TeamRunner (thread_pool.h) over the OpenMP runtime already loaded in the process.
//
// A program whose own parallel code is OpenMP (PyTorch on CPU, most scientific codes) keeps that
// runtime's threads spinning for a while after each parallel region (GOMP_SPINCOUNT,
// KMP_BLOCKTIME), so a product run by invar's pool right after one finds its cores taken. Run on
// the same threads instead, the product starts on threads that are awake and the cores are
// never asked for twice.
//
// The runtime is found, never linked: among the shared objects already loaded, by the sonames of
// GNU libgomp, LLVM's libomp and Intel's libiomp5, through the GOMP_parallel entry all three
// export (the call `#pragma omp parallel num_threads(n)` compiles to with GCC). A team runs as
// one parallel region of n threads, or of the runtime's own count for the calling thread
// (omp_get_max_threads) where that is fewer, and is as large as the region the runtime gives: one
// thread inside another parallel region (nested regions are inactive), where the product then
// runs on the calling thread alone.
#ifndef INVAR_RUNTIME_OPENMP_RUNNER_H_
#define INVAR_RUNTIME_OPENMP_RUNNER_H_

#include "runtime/thread_pool.h"

namespace invar::runtime {

inline constexpr char kNoOpenMpRuntime[] =
    "no OpenMP runtime is loaded in this process (looked for libgomp.so.1, libomp.so, "
    "libomp.so.5, libiomp5.so)";

// The runner over the loaded OpenMP runtime, or one whose run is nullptr when none is loaded.
// `library` (if not null) receives the soname found, or "" with none.
TeamRunner openmp_team_runner(const char** library);

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_OPENMP_RUNNER_H_
