// libxsmm as a loadable module, as eigen_module.cpp does for Eigen: Debian ships libxsmm as static
// archives only (libxsmm-dev), so this module links them in and exports their entry points, and
// invar_bench_small loads it at run time like the other peers (an absent libxsmm skips its rows).
// libxsmm is column-major: a row-major C = A * B is the column-major C^T = B^T * A^T, so each
// call passes B as libxsmm's A and N as its M.
#include <libxsmm.h>

#include <cstdint>

namespace {
float s_one = 1.0f, s_zero = 0.0f;
double d_one = 1.0, d_zero = 0.0;
}  // namespace

#define INVAR_XSMM_EXPORT extern "C" __attribute__((visibility("default")))

INVAR_XSMM_EXPORT void invar_bench_xsmm_init() { libxsmm_init(); }

// Row-major C = A * B through libxsmm_sgemm / libxsmm_dgemm (the BLAS-like call).
INVAR_XSMM_EXPORT void invar_bench_xsmm_sgemm(int64_t m, int64_t n, int64_t k, const float* a,
                                              const float* b, float* c) {
  const libxsmm_blasint mm = n, nn = m, kk = k;
  libxsmm_sgemm("N", "N", &mm, &nn, &kk, &s_one, b, &mm, a, &kk, &s_zero, c, &mm);
}
INVAR_XSMM_EXPORT void invar_bench_xsmm_dgemm(int64_t m, int64_t n, int64_t k, const double* a,
                                              const double* b, double* c) {
  const libxsmm_blasint mm = n, nn = m, kk = k;
  libxsmm_dgemm("N", "N", &mm, &nn, &kk, &d_one, b, &mm, a, &kk, &d_zero, c, &mm);
}

// A dispatched (JIT) kernel for row-major m x n x k, alpha 1, beta 0, dense operands: called as
// kernel(b, a, c). nullptr when libxsmm has none for the shape.
INVAR_XSMM_EXPORT void* invar_bench_xsmm_skernel(int64_t m, int64_t n, int64_t k) {
  return reinterpret_cast<void*>(
      libxsmm_smmdispatch(static_cast<libxsmm_blasint>(n), static_cast<libxsmm_blasint>(m),
                          static_cast<libxsmm_blasint>(k), nullptr, nullptr, nullptr, &s_one,
                          &s_zero, nullptr, nullptr));
}
INVAR_XSMM_EXPORT void* invar_bench_xsmm_dkernel(int64_t m, int64_t n, int64_t k) {
  return reinterpret_cast<void*>(
      libxsmm_dmmdispatch(static_cast<libxsmm_blasint>(n), static_cast<libxsmm_blasint>(m),
                          static_cast<libxsmm_blasint>(k), nullptr, nullptr, nullptr, &d_one,
                          &d_zero, nullptr, nullptr));
}

// The version the headers name, and the code path libxsmm's JIT chose for this CPU.
INVAR_XSMM_EXPORT int invar_bench_xsmm_version() {
  return LIBXSMM_VERSION_MAJOR * 100 + LIBXSMM_VERSION_MINOR;
}
INVAR_XSMM_EXPORT const char* invar_bench_xsmm_target() { return libxsmm_get_target_arch(); }
