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
using CblasSgemv = void (*)(int layout, int trans, int m, int n, float alpha, const float* a,
                            int lda, const float* x, int incx, float beta, float* y, int incy);
using CblasDgemv = void (*)(int layout, int trans, int m, int n, double alpha, const double* a,
                            int lda, const double* x, int incx, double beta, double* y, int incy);
using CblasSsyrk = void (*)(int layout, int uplo, int trans, int n, int k, float alpha,
                            const float* a, int lda, float beta, float* c, int ldc);
using CblasDsyrk = void (*)(int layout, int uplo, int trans, int n, int k, double alpha,
                            const double* a, int lda, double beta, double* c, int ldc);
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112, kCblasUpper = 121;

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

// y = W * x (W stored n x k) or with `trans` y = W^T * x (W stored k x n), row-major.
template <class T, class Fn>
auto cblas_gemv_call(Fn fn, bool trans) {
  return
      [fn, trans](int64_t, int64_t n, int64_t k, const T* x, const T* w, T* y, std::string* error) {
        if (!fits_int(1, n, k, error)) return false;
        if (trans)
          fn(kCblasRowMajor, kCblasTrans, int(k), int(n), T(1), w, int(n), x, 1, T(0), y, 1);
        else
          fn(kCblasRowMajor, kCblasNoTrans, int(n), int(k), T(1), w, int(k), x, 1, T(0), y, 1);
        return true;
      };
}

// The upper triangle of C = A * A^T, A stored n x k row-major.
template <class T, class Fn>
auto cblas_syrk_call(Fn fn) {
  return [fn](int64_t, int64_t n, int64_t k, const T* a, const T*, T* c, std::string* error) {
    if (!fits_int(n, n, k, error)) return false;
    fn(kCblasRowMajor, kCblasUpper, kCblasNoTrans, int(n), int(k), T(1), a, int(k), T(0), c,
       int(n));
    return true;
  };
}

// Sets the row's gemv and syrk calls for the entry points the library has (any may be null).
inline void set_cblas_routine_calls(GemmRow& row, CblasSgemv sgemv, CblasDgemv dgemv,
                                    CblasSsyrk ssyrk, CblasDsyrk dsyrk) {
  if (sgemv != nullptr) {
    row.sgemv = cblas_gemv_call<float>(sgemv, false);
    row.sgemv_t = cblas_gemv_call<float>(sgemv, true);
  }
  if (dgemv != nullptr) {
    row.dgemv = cblas_gemv_call<double>(dgemv, false);
    row.dgemv_t = cblas_gemv_call<double>(dgemv, true);
  }
  if (ssyrk != nullptr) row.ssyrk = cblas_syrk_call<float>(ssyrk);
  if (dsyrk != nullptr) row.dsyrk = cblas_syrk_call<double>(dsyrk);
}

// The same, looked up in `lib` by their CBLAS names with `prefix`.
void set_cblas_routine_calls(GemmRow& row, void* lib, const std::string& prefix = "");

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
