// Building the rows of the table: invar's instruction-set paths (linked in) and the peer
// libraries (loaded at run time, each skipped with a note when it cannot be loaded). Every row
// is set to `threads` threads through the library's own API as well as its environment variable.
#ifndef INVAR_BENCH_ROWS_H_
#define INVAR_BENCH_ROWS_H_

#include <string>
#include <vector>

#include "gemm_row.h"
#include "machine.h"

namespace invar_bench {

// One row per invar path this build and CPU can run: invar-avx512, invar-avx2, invar-neon,
// invar-generic (the last only up to generic_max). With `ladder`, also invar-<isa>-threaded: the
// best SIMD path on the default thread count; the portable and best SIMD paths become ladder steps.
void add_invar_rows(int threads, int64_t generic_max, bool ladder, std::vector<GemmRow>* rows,
                    SkipNotes* skips);

// The plain-loop steps of the optimization ladder (ladder_rows.cpp): ladder-naive-ijk,
// ladder-ikj, ladder-blocked, each limited to the sizes it finishes in about 2 s per call.
void add_ladder_rows(std::vector<GemmRow>* rows);

// OpenBLAS through cblas_sgemm; the symbol prefix ("" or "scipy_") is detected. With
// `current_build`, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset while it initializes: they
// exist to steer old builds and would pin a current one to an older kernel.
void add_openblas(const std::string& name, const std::string& path, bool current_build, int threads,
                  std::vector<GemmRow>* rows, SkipNotes* skips);

void add_blis(const std::string& path, int threads, std::vector<GemmRow>* rows, SkipNotes* skips);

// oneDNN's dnnl_sgemm (row-major, 'N'/'T' flags).
void add_onednn(const std::string& path, int threads, std::vector<GemmRow>* rows, SkipNotes* skips);

// MKL through its single dynamic library libmkl_rt; load it last (see peer_mkl.cpp).
void add_mkl(const std::string& path, int threads, std::vector<GemmRow>* rows, SkipNotes* skips);

// Eigen, built into one module per vector width next to the binary (or in `dir`).
void add_eigen(const Machine& machine, const std::string& dir, std::vector<GemmRow>* rows,
               SkipNotes* skips);

}  // namespace invar_bench

#endif  // INVAR_BENCH_ROWS_H_
