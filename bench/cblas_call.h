// The CBLAS sgemm entry point shared by OpenBLAS, BLIS and MKL (32-bit integer interface), and
// the row call that uses it for C = A * B, row-major.
#ifndef INVAR_BENCH_CBLAS_CALL_H_
#define INVAR_BENCH_CBLAS_CALL_H_

#include <climits>

#include "gemm_row.h"

namespace invar_bench {

using CblasSgemm = void (*)(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111;

inline decltype(GemmRow::sgemm) cblas_row_call(CblasSgemm fn) {
  return [fn](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              std::string* error) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
      *error = "dimension exceeds the 32-bit CBLAS interface";
      return false;
    }
    fn(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, int(m), int(n), int(k), 1.0f, a, int(k), b,
       int(n), 0.0f, c, int(n));
    return true;
  };
}

}  // namespace invar_bench

#endif  // INVAR_BENCH_CBLAS_CALL_H_
