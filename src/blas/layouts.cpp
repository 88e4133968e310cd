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

invar_status engine_triangle(bool upper, invar_trans ta, invar_trans tb, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float beta, float* c, int64_t ldc) {
  return invar_sgemmt(upper ? INVAR_UPPER : INVAR_LOWER, ta, tb, n, k, alpha, a, lda, b, ldb, beta,
                      c, ldc);
}

invar_status engine_triangle(bool upper, invar_trans ta, invar_trans tb, int64_t n, int64_t k,
                             double alpha, const double* a, int64_t lda, const double* b,
                             int64_t ldb, double beta, double* c, int64_t ldc) {
  return invar_dgemmt(upper ? INVAR_UPPER : INVAR_LOWER, ta, tb, n, k, alpha, a, lda, b, ldb, beta,
                      c, ldc);
}

template <class T>
void run_triangle(const char* routine, bool upper, invar_trans ta, invar_trans tb, int64_t n,
                  int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                  T* c, int64_t ldc) {
  if (engine_triangle(upper, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc) != INVAR_OK)
    engine_failed(routine, invar_last_error());
}

// Rows [r0, ...) of the engine's op(X), X row-major with leading dimension ld.
template <class T>
const T* engine_rows(const T* x, invar_trans trans, int64_t ld, int64_t r0) {
  return trans == INVAR_TRANS ? x + r0 : x + r0 * ld;
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

template <class T>
void gemmt_row_major(const char* routine, bool upper, bool trans_a, bool trans_b, int64_t n,
                     int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                     T* c, int64_t ldc) {
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  run_triangle(routine, upper, to_invar(trans_a), to_invar(trans_b), n, k, alpha, a, lda, b, ldb,
               beta, c, ldc);
}

template <class T>
void gemmt_column_major(const char* routine, bool upper, bool trans_a, bool trans_b, int64_t n,
                        int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
                        T beta, T* c, int64_t ldc) {
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  // As gemm_column_major: the engine computes C^T = op(B)^T * op(A)^T, whose stored triangle is
  // the other one (C's element (i, j) is C^T's (j, i)).
  const bool upper_engine = !upper;
  const invar_trans tb_engine = to_invar(trans_a);
  const invar_trans ta_engine = to_invar(trans_b);
  if (k == 0 || alpha == T(0) || alpha == T(1) || alpha == T(-1)) {
    run_triangle(routine, upper_engine, ta_engine, tb_engine, n, k, alpha, b, ldb, a, lda, beta, c,
                 ldc);
    return;
  }
  // alpha * op(A) in bands of rows, the engine's columns [i0, i0 + cols): in them its triangle
  // is the square block on the diagonal (one product of a triangle) and the rectangle above it
  // (upper) or below it (lower), one GEMM; each element gets the chain it has in one call.
  const int64_t band = std::max<int64_t>(1, std::min(n, kScaledElements / k));
  std::unique_ptr<T[]> scaled(new (std::nothrow) T[static_cast<std::size_t>(band * k)]);
  if (!scaled) engine_failed(routine, "out of memory for alpha * A");
  for (int64_t i0 = 0; i0 < n; i0 += band) {
    const int64_t cols = std::min(band, n - i0);
    scale_band(trans_a, i0, cols, k, alpha, a, lda, scaled.get());
    const int64_t ld_scaled = trans_a ? k : cols;
    const int64_t r0 = upper_engine ? 0 : i0 + cols;  // the rectangle's rows
    const int64_t rows = upper_engine ? i0 : n - i0 - cols;
    if (rows > 0)
      run(routine, ta_engine, tb_engine, rows, cols, k, T(1), engine_rows(b, ta_engine, ldb, r0),
          ldb, scaled.get(), ld_scaled, beta, c + r0 * ldc + i0, ldc);
    run_triangle(routine, upper_engine, ta_engine, tb_engine, cols, k, T(1),
                 engine_rows(b, ta_engine, ldb, i0), ldb, scaled.get(), ld_scaled, beta,
                 c + i0 * ldc + i0, ldc);
  }
}

#define INVAR_BLAS_GEMMT(T)                                                                      \
  template void gemmt_row_major<T>(const char*, bool, bool, bool, int64_t, int64_t, T, const T*, \
                                   int64_t, const T*, int64_t, T, T*, int64_t);                  \
  template void gemmt_column_major<T>(const char*, bool, bool, bool, int64_t, int64_t, T,        \
                                      const T*, int64_t, const T*, int64_t, T, T*, int64_t);
INVAR_BLAS_GEMMT(float)
INVAR_BLAS_GEMMT(double)
#undef INVAR_BLAS_GEMMT

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
