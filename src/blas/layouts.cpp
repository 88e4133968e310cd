#include "blas/layouts.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

#include "blas/argument_checks.h"
#include "invar/invar.h"
#include "runtime/fp_mode.h"

namespace invar::blas {
namespace {

invar_trans to_invar(bool trans) { return trans ? INVAR_TRANS : INVAR_NO_TRANS; }

invar_status engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                    int64_t ldc) {
  return invar_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

invar_status engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                    double* c, int64_t ldc) {
  return invar_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
void run(const char* routine, invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
         T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (engine(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) != INVAR_OK)
    engine_failed(routine, invar_last_error());
}

// dst = alpha * the rows [i0, i0 + rows) of op(A), in the layout A has: for an untransposed
// column-major A, op(A)^T is a row-major k x m matrix (ld lda) and the band is its columns
// [i0, i0 + rows), stored k x rows; for a transposed A, op(A) is a row-major m x k matrix and
// the band is its rows, stored rows x k. Either way the source is read in its memory order.
template <class T>
void scale_band(bool trans_a, int64_t i0, int64_t rows, int64_t k, T alpha, const T* a, int64_t lda,
                T* dst) {
  runtime::FpModeGuard fp_mode;  // the contract's rounding, whatever the caller's mode
  if (!trans_a) {
    for (int64_t p = 0; p < k; ++p) {
      const T* src = a + p * lda + i0;
      T* out = dst + p * rows;
      for (int64_t i = 0; i < rows; ++i) out[i] = alpha * src[i];
    }
  } else {
    for (int64_t i = 0; i < rows; ++i) {
      const T* src = a + (i0 + i) * lda;
      T* out = dst + i * k;
      for (int64_t p = 0; p < k; ++p) out[p] = alpha * src[p];
    }
  }
}

}  // namespace

void engine_failed(const char* routine, const char* why) {
  std::fprintf(stderr, "invar_blas: %s cannot compute: %s\n", routine, why);
  std::abort();
}

template <class T>
void engine_gemm(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                 T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                 int64_t ldc) {
  run(routine, to_invar(trans_a), to_invar(trans_b), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
void gemm_row_major(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                    T* c, int64_t ldc) {
  if (quick_return(m, n, k, alpha, beta)) return;
  run(routine, to_invar(trans_a), to_invar(trans_b), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
void gemm_column_major(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n,
                       int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                       T* c, int64_t ldc) {
  if (quick_return(m, n, k, alpha, beta)) return;
  // The engine's problem: C^T (n x m, row-major, ldc) = op(B)^T * op(A)^T. A column-major
  // matrix read as row-major is its transpose, so op(B)^T is the caller's B with the caller's
  // transpose flag, and likewise for A.
  const invar_trans tb_engine = to_invar(trans_a);
  const invar_trans ta_engine = to_invar(trans_b);
  if (k == 0 || alpha == T(0) || alpha == T(1) || alpha == T(-1)) {
    run(routine, ta_engine, tb_engine, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    return;
  }
  const int64_t band = std::max<int64_t>(1, std::min(m, kScaledElements / k));
  std::unique_ptr<T[]> scaled(new (std::nothrow) T[static_cast<std::size_t>(band * k)]);
  if (!scaled) engine_failed(routine, "out of memory for alpha * A");
  for (int64_t i0 = 0; i0 < m; i0 += band) {
    const int64_t rows = std::min(band, m - i0);
    scale_band(trans_a, i0, rows, k, alpha, a, lda, scaled.get());
    run(routine, ta_engine, tb_engine, n, rows, k, T(1), b, ldb, scaled.get(), trans_a ? k : rows,
        beta, c + i0, ldc);
  }
}

template void engine_gemm<float>(const char*, bool, bool, int64_t, int64_t, int64_t, float,
                                 const float*, int64_t, const float*, int64_t, float, float*,
                                 int64_t);
template void engine_gemm<double>(const char*, bool, bool, int64_t, int64_t, int64_t, double,
                                  const double*, int64_t, const double*, int64_t, double, double*,
                                  int64_t);
template void gemm_row_major<float>(const char*, bool, bool, int64_t, int64_t, int64_t, float,
                                    const float*, int64_t, const float*, int64_t, float, float*,
                                    int64_t);
template void gemm_row_major<double>(const char*, bool, bool, int64_t, int64_t, int64_t, double,
                                     const double*, int64_t, const double*, int64_t, double,
                                     double*, int64_t);
template void gemm_column_major<float>(const char*, bool, bool, int64_t, int64_t, int64_t, float,
                                       const float*, int64_t, const float*, int64_t, float, float*,
                                       int64_t);
template void gemm_column_major<double>(const char*, bool, bool, int64_t, int64_t, int64_t, double,
                                        const double*, int64_t, const double*, int64_t, double,
                                        double*, int64_t);

}  // namespace invar::blas
