// The CBLAS entry points shared by OpenBLAS, BLIS and MKL (32-bit integer interface), and the row
// calls that use them for C = A * B and C = A * W^T, row-major.
#ifndef INVAR_BENCH_CBLAS_CALL_H_
#define INVAR_BENCH_CBLAS_CALL_H_

#include <climits>

#include "gemm_row.h"

namespace invar_bench {

using CblasSgemm = void (*)(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);
using CblasDgemm = void (*)(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                            const double* a, int lda, const double* b, int ldb, double beta,
                            double* c, int ldc);
// bf16 elements as uint16_t bit patterns: MKL's cblas_gemm_bf16bf16f32 (MKL_BF16) and
// OpenBLAS's cblas_sbgemm (bfloat16) take the same arguments.
using CblasBf16 = void (*)(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                           const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta,
                           float* c, int ldc);
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;

inline bool fits_int(int64_t m, int64_t n, int64_t k, std::string* error) {
  if (m <= INT_MAX && n <= INT_MAX && k <= INT_MAX) return true;
  *error = "dimension exceeds the 32-bit CBLAS interface";
  return false;
}

// C = A * B, or with `trans_b` C = A * W^T (W stored n x k).
template <class T, class Fn>
auto cblas_call(Fn fn, bool trans_b) {
  return [fn, trans_b](int64_t m, int64_t n, int64_t k, const T* a, const T* b, auto* c,
                       std::string* error) {
    if (!fits_int(m, n, k, error)) return false;
    fn(kCblasRowMajor, kCblasNoTrans, trans_b ? kCblasTrans : kCblasNoTrans, int(m), int(n), int(k),
       1.0f, a, int(k), b, trans_b ? int(k) : int(n), 0.0f, c, int(n));
    return true;
  };
}

// Sets the row's calls for the entry points the library has (any may be null).
inline void set_cblas_calls(GemmRow& row, CblasSgemm sgemm, CblasDgemm dgemm, CblasBf16 bf16) {
  if (sgemm != nullptr) {
    row.sgemm = cblas_call<float>(sgemm, false);
    row.sgemm_bt = cblas_call<float>(sgemm, true);
  }
  if (dgemm != nullptr) row.dgemm = cblas_call<double>(dgemm, false);
  if (bf16 != nullptr) row.gemm_bf16 = cblas_call<uint16_t>(bf16, false);
}

}  // namespace invar_bench

#endif  // INVAR_BENCH_CBLAS_CALL_H_
