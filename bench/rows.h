// Building the rows of the table: invar's instruction-set paths (linked in) and the peer
// libraries (loaded at run time, each skipped with a note when it cannot be loaded). A library
// gives one row per thread count of `threads`, each of which sets the library to its count
// through the library's own API before its turns (GemmRow::activate); the environment variables
// are set to the largest count before anything is loaded.
#ifndef INVAR_BENCH_ROWS_H_
#define INVAR_BENCH_ROWS_H_

#include <string>
#include <vector>

#include "gemm_row.h"
#include "machine.h"

namespace invar_bench {

// Rows per invar path this build and CPU can run: invar-avx512, invar-avx2, invar-neon at each
// thread count, invar-generic at the first (and only up to generic_max). With `ladder`, the
// portable path and the best SIMD path at 1 thread and at the most threads become ladder steps;
// when `threads` is just {1}, one more row, invar-<isa>-threaded, runs that path on the default
// thread count as the last step.
void add_invar_rows(const std::vector<int>& threads, int64_t generic_max, bool ladder,
                    std::vector<GemmRow>* rows, SkipNotes* skips);

// libinvar_blas (loaded from `path`, as a program meets it): rows for the CBLAS routines beyond
// GEMM only (gemv, syrk), at each thread count (invar_set_num_threads of the libinvar.so it
// loads). invar's rows for those kinds, checked against the contract's oracle.
void add_invar_blas(const std::string& path, const std::vector<int>& threads,
                    std::vector<GemmRow>* rows, SkipNotes* skips);

// The plain-loop steps of the optimization ladder (ladder_rows.cpp): ladder-naive-ijk,
// ladder-ikj, ladder-blocked, each limited to the sizes it finishes in about 2 s per call.
void add_ladder_rows(std::vector<GemmRow>* rows);

// OpenBLAS through cblas_sgemm; the symbol prefix ("" or "scipy_") is detected. With
// `current_build`, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset while it initializes: they
// exist to steer old builds and would pin a current one to an older kernel.
void add_openblas(const std::string& name, const std::string& path, bool current_build,
                  const std::vector<int>& threads, std::vector<GemmRow>* rows, SkipNotes* skips);

void add_blis(const std::string& path, const std::vector<int>& threads, std::vector<GemmRow>* rows,
              SkipNotes* skips);

// oneDNN's dnnl_sgemm (row-major, 'N'/'T' flags).
void add_onednn(const std::string& path, const std::vector<int>& threads,
                std::vector<GemmRow>* rows, SkipNotes* skips);

// MKL through its single dynamic library libmkl_rt; load it last (see peer_mkl.cpp).
void add_mkl(const std::string& path, const std::vector<int>& threads, std::vector<GemmRow>* rows,
             SkipNotes* skips);

// Eigen, built into one module per vector width next to the binary (or in `dir`); above 1 thread
// only when the module was built with OpenMP.
void add_eigen(const Machine& machine, const std::string& dir, const std::vector<int>& threads,
               std::vector<GemmRow>* rows, SkipNotes* skips);

// numpy.matmul, timed by `script` (scripts/bench_numpy.py) under `python` in one process per
// thread count, started with OPENBLAS_NUM_THREADS / OMP_NUM_THREADS set to it.
void add_numpy(const std::string& python, const std::string& script,
               const std::vector<int>& threads, std::vector<GemmRow>* rows, SkipNotes* skips);

}  // namespace invar_bench

#endif  // INVAR_BENCH_ROWS_H_
