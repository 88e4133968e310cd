// The CBLAS entry points beyond GEMM: cblas_sgemv/dgemv, cblas_sdot/ddot, cblas_ssyrk/dsyrk,
// cblas_ssymm/dsymm, cblas_sgemmt/dgemmt (as MKL and OpenBLAS name it) and
// cblas_sgemm_batch_strided/dgemm_batch_strided (OpenBLAS's and MKL's prototype). The layout,
// transpose, uplo and side arguments first, reported to cblas_xerbla; then the reference checks
// on the column-major argument list the call maps to, reported through xerbla_ (reporting.h);
// then routes.h in the call's own layout. Every entry reads alpha, beta and the data inside the
// library's floating-point mode.
#include <cstdint>

#include "blas/argument_checks.h"
#include "blas/blas_abi.h"
#include "blas/layouts.h"
#include "blas/reporting.h"
#include "blas/routes.h"
#include "invar/invar.h"
#include "runtime/fp_mode.h"

namespace invar::blas {
namespace {

bool check_layout(int layout, const char* rout, bool* row_major) {
  *row_major = layout == kCblasRowMajor;
  if (*row_major || layout == kCblasColMajor) return true;
  report_cblas(false, 1, rout, "Illegal layout setting, %d\n", layout);
  return false;
}

template <class T>
void cblas_gemv(const char* name, const char* rout, int layout, int trans, int m, int n, T alpha,
                const T* a, int lda, const T* x, int incx, T beta, T* y, int incy) {
  runtime::FpModeGuard fp_mode;
  bool row_major = false;
  if (!check_layout(layout, rout, &row_major)) return;
  const Trans t = cblas_trans(trans);
  if (t == Trans::kInvalid) {
    report_cblas(row_major, 2, rout, "Illegal TransA setting, %d\n", trans);
    return;
  }
  // Row-major: the column-major call on A^T (N x M) with the transpose inverted.
  const int info = row_major ? first_invalid_gemv(t, n, m, lda, incx, incy)
                             : first_invalid_gemv(t, m, n, lda, incx, incy);
  if (info != 0) {
    report_fortran_from_cblas(row_major, name, info);
    return;
  }
  if (m != 0 && n != 0 && !(alpha == T(0) && beta == T(1))) {
    // The caller's positions of A (6), X (8) and Y (11), which no cblas_xerbla remaps.
    const int null_position = alpha != T(0) && a == nullptr   ? 6
                              : alpha != T(0) && x == nullptr ? 8
                              : y == nullptr                  ? 11
                                                              : 0;
    if (null_position != 0) {
      report_cblas(row_major, null_position, rout, "%s is NULL\n",
                   null_position == 6   ? "A"
                   : null_position == 8 ? "X"
                                        : "Y");
      return;
    }
  }
  if (row_major)
    gemv_row_major<T>(rout, t == Trans::kYes, m, n, alpha, a, lda, x, incx, beta, y, incy);
  else
    gemv_row_major<T>(rout, t == Trans::kNo, n, m, alpha, a, lda, x, incx, beta, y, incy);
}

template <class T>
T cblas_dot(int n, const T* x, int incx, const T* y, int incy) {
  runtime::FpModeGuard fp_mode;
  if (n <= 0 || x == nullptr || y == nullptr) return T(0);
  return dot<T>(n, x, incx, y, incy);
}

template <class T>
void cblas_syrk(const char* name, const char* rout, int layout, int uplo, int trans, int n, int k,
                T alpha, const T* a, int lda, T beta, T* c, int ldc) {
  runtime::FpModeGuard fp_mode;
  bool row_major = false;
  if (!check_layout(layout, rout, &row_major)) return;
  const Uplo u = cblas_uplo(uplo);
  if (u == Uplo::kInvalid) {
    report_cblas(row_major, 2, rout, "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  const Trans t = cblas_trans(trans);
  if (t == Trans::kInvalid) {
    report_cblas(row_major, 3, rout, "Illegal Trans setting, %d\n", trans);
    return;
  }
  // Row-major: the column-major call on C^T, uplo and trans inverted, the same N, K and lda.
  const Trans t_mapped = row_major ? (t == Trans::kNo ? Trans::kYes : Trans::kNo) : t;
  const int info = first_invalid_syrk(u, t_mapped, n, k, lda, ldc);
  if (info != 0) {
    report_fortran_from_cblas(row_major, name, info);
    return;
  }
  if (!quick_return<T>(n, n, k, alpha, beta)) {
    switch (null_operand<T>(k, alpha, a, a, c)) {
      case NullOperand::kA:
      case NullOperand::kB: report_cblas(row_major, 7, rout, "A is NULL\n"); return;
      case NullOperand::kC: report_cblas(row_major, 10, rout, "C is NULL\n"); return;
      case NullOperand::kNone: break;
    }
  }
  const bool ta = t == Trans::kYes;
  gemmt<T>(rout, row_major, u == Uplo::kUpper, ta, !ta, n, k, alpha, a, lda, a, lda, beta, c, ldc);
}

template <class T>
void cblas_symm(const char* name, const char* rout, int layout, int side, int uplo, int m, int n,
                T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  runtime::FpModeGuard fp_mode;
  bool row_major = false;
  if (!check_layout(layout, rout, &row_major)) return;
  const Side s = cblas_side(side);
  if (s == Side::kInvalid) {
    report_cblas(row_major, 2, rout, "Illegal Side setting, %d\n", side);
    return;
  }
  const Uplo u = cblas_uplo(uplo);
  if (u == Uplo::kInvalid) {
    report_cblas(row_major, 3, rout, "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  // Row-major: the column-major call on C^T (N x M), side and uplo inverted.
  const Side s_mapped = row_major ? (s == Side::kLeft ? Side::kRight : Side::kLeft) : s;
  const int info = row_major ? first_invalid_symm(s_mapped, u, n, m, lda, ldb, ldc)
                             : first_invalid_symm(s, u, m, n, lda, ldb, ldc);
  if (info != 0) {
    report_fortran_from_cblas(row_major, name, info);
    return;
  }
  if (!(m == 0 || n == 0 || (alpha == T(0) && beta == T(1)))) {
    switch (null_operand<T>(1, alpha, a, b, c)) {
      case NullOperand::kA: report_cblas(row_major, 7, rout, "A is NULL\n"); return;
      case NullOperand::kB: report_cblas(row_major, 9, rout, "B is NULL\n"); return;
      case NullOperand::kC: report_cblas(row_major, 12, rout, "C is NULL\n"); return;
      case NullOperand::kNone: break;
    }
  }
  symm<T>(rout, row_major, s == Side::kLeft, u == Uplo::kUpper, m, n, alpha, a, lda, b, ldb, beta,
          c, ldc);
}

template <class T>
void cblas_gemmt(const char* name, const char* rout, int layout, int uplo, int transa, int transb,
                 int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                 int ldc) {
  runtime::FpModeGuard fp_mode;
  bool row_major = false;
  if (!check_layout(layout, rout, &row_major)) return;
  const Uplo u = cblas_uplo(uplo);
  if (u == Uplo::kInvalid) {
    report_cblas(row_major, 2, rout, "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  const Trans ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (ta == Trans::kInvalid) {
    report_cblas(row_major, 3, rout, "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (tb == Trans::kInvalid) {
    report_cblas(row_major, 4, rout, "Illegal TransB setting, %d\n", transb);
    return;
  }
  // Row-major: the column-major call on C^T, uplo inverted, B and A exchanged.
  const int info = row_major ? first_invalid_gemmt(u, tb, ta, n, k, ldb, lda, ldc)
                             : first_invalid_gemmt(u, ta, tb, n, k, lda, ldb, ldc);
  if (info != 0) {
    report_fortran_from_cblas(row_major, name, info);
    return;
  }
  if (!quick_return<T>(n, n, k, alpha, beta)) {
    switch (null_operand<T>(k, alpha, a, b, c)) {
      case NullOperand::kA: report_cblas(row_major, 8, rout, "A is NULL\n"); return;
      case NullOperand::kB: report_cblas(row_major, 10, rout, "B is NULL\n"); return;
      case NullOperand::kC: report_cblas(row_major, 13, rout, "C is NULL\n"); return;
      case NullOperand::kNone: break;
    }
  }
  gemmt<T>(rout, row_major, u == Uplo::kUpper, ta == Trans::kYes, tb == Trans::kYes, n, k, alpha, a,
           lda, b, ldb, beta, c, ldc);
}

invar_status batch_engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float* a, int64_t lda, int64_t sa, const float* b,
                          int64_t ldb, int64_t sb, float beta, float* c, int64_t ldc, int64_t sc,
                          int64_t batch) {
  return invar_sgemm_batch_strided(ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                                   batch);
}

invar_status batch_engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const double* a, int64_t lda, int64_t sa, const double* b,
                          int64_t ldb, int64_t sb, double beta, double* c, int64_t ldc, int64_t sc,
                          int64_t batch) {
  return invar_dgemm_batch_strided(ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                                   batch);
}

// The positions of the batch call: Layout 1, TransA 2, TransB 3, M 4, N 5, K 6, alpha 7, A 8,
// lda 9, stridea 10, B 11, ldb 12, strideb 13, beta 14, C 15, ldc 16, stridec 17, batch_size 18.
// There is no reference routine to follow: every report goes to cblas_xerbla with the caller's
// own position (RowMajorStrg 0, so that no cblas_xerbla remaps it).
template <class T>
void cblas_gemm_batch_strided(const char* rout, int layout, int transa, int transb, int m, int n,
                              int k, T alpha, const T* a, int lda, int stridea, const T* b, int ldb,
                              int strideb, T beta, T* c, int ldc, int stridec, int batch) {
  runtime::FpModeGuard fp_mode;
  bool row_major = false;
  if (!check_layout(layout, rout, &row_major)) return;
  const Trans ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (ta == Trans::kInvalid) {
    report_cblas(false, 2, rout, "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (tb == Trans::kInvalid) {
    report_cblas(false, 3, rout, "Illegal TransB setting, %d\n", transb);
    return;
  }
  int position = 0;
  if (row_major) {
    switch (first_invalid_argument(tb, ta, n, m, k, ldb, lda, ldc)) {
      case 3: position = 5; break;
      case 4: position = 4; break;
      case 5: position = 6; break;
      case 8: position = 12; break;
      case 10: position = 9; break;
      case 13: position = 16; break;
      default: break;
    }
  } else {
    switch (first_invalid_argument(ta, tb, m, n, k, lda, ldb, ldc)) {
      case 3: position = 4; break;
      case 4: position = 5; break;
      case 5: position = 6; break;
      case 8: position = 9; break;
      case 10: position = 12; break;
      case 13: position = 16; break;
      default: break;
    }
  }
  if (position == 0 && batch < 0) position = 18;
  if (position != 0) {
    report_cblas(false, position, rout, "");
    return;
  }
  if (batch == 0 || quick_return<T>(m, n, k, alpha, beta)) return;
  switch (null_operand<T>(k, alpha, a, b, c)) {
    case NullOperand::kA: report_cblas(false, 8, rout, "A is NULL\n"); return;
    case NullOperand::kB: report_cblas(false, 11, rout, "B is NULL\n"); return;
    case NullOperand::kC: report_cblas(false, 15, rout, "C is NULL\n"); return;
    case NullOperand::kNone: break;
  }
  const bool alpha_exact = alpha == T(0) || alpha == T(1) || alpha == T(-1);
  if (!row_major && !alpha_exact) {
    // alpha must multiply op(A): each entry through the column-major mapping of layouts.h.
    for (int i = 0; i < batch; ++i)
      gemm_column_major<T>(rout, ta == Trans::kYes, tb == Trans::kYes, m, n, k, alpha,
                           a + int64_t{i} * stridea, lda, b + int64_t{i} * strideb, ldb, beta,
                           c + int64_t{i} * stridec, ldc);
    return;
  }
  const invar_trans ea = ta == Trans::kYes ? INVAR_TRANS : INVAR_NO_TRANS;
  const invar_trans eb = tb == Trans::kYes ? INVAR_TRANS : INVAR_NO_TRANS;
  // Column-major with an exact alpha: the engine's C^T = op(B)^T * op(A)^T, B and A exchanged.
  const invar_status status = row_major ? batch_engine(ea, eb, m, n, k, alpha, a, lda, stridea, b,
                                                       ldb, strideb, beta, c, ldc, stridec, batch)
                                        : batch_engine(eb, ea, n, m, k, alpha, b, ldb, strideb, a,
                                                       lda, stridea, beta, c, ldc, stridec, batch);
  if (status == INVAR_EINVAL) {
    // Strides under which the C matrices overlap: refused before any C is written.
    report_cblas(false, 17, rout, "%s\n", invar_last_error());
  } else if (status != INVAR_OK) {
    engine_failed(rout, invar_last_error());
  }
}

}  // namespace
}  // namespace invar::blas

#define INVAR_BLAS_EXPORT extern "C" __attribute__((visibility("default")))

#define INVAR_BLAS_CBLAS(T, s, S)                                                                  \
  INVAR_BLAS_EXPORT void cblas_##s##gemv(int layout, int trans, int m, int n, T alpha, const T* a, \
                                         int lda, const T* x, int incx, T beta, T* y, int incy) {  \
    invar::blas::cblas_gemv<T>(S "GEMV ", "cblas_" #s "gemv", layout, trans, m, n, alpha, a, lda,  \
                               x, incx, beta, y, incy);                                            \
  }                                                                                                \
  INVAR_BLAS_EXPORT T cblas_##s##dot(int n, const T* x, int incx, const T* y, int incy) {          \
    return invar::blas::cblas_dot<T>(n, x, incx, y, incy);                                         \
  }                                                                                                \
  INVAR_BLAS_EXPORT void cblas_##s##syrk(int layout, int uplo, int trans, int n, int k, T alpha,   \
                                         const T* a, int lda, T beta, T* c, int ldc) {             \
    invar::blas::cblas_syrk<T>(S "SYRK ", "cblas_" #s "syrk", layout, uplo, trans, n, k, alpha, a, \
                               lda, beta, c, ldc);                                                 \
  }                                                                                                \
  INVAR_BLAS_EXPORT void cblas_##s##symm(int layout, int side, int uplo, int m, int n, T alpha,    \
                                         const T* a, int lda, const T* b, int ldb, T beta, T* c,   \
                                         int ldc) {                                                \
    invar::blas::cblas_symm<T>(S "SYMM ", "cblas_" #s "symm", layout, side, uplo, m, n, alpha, a,  \
                               lda, b, ldb, beta, c, ldc);                                         \
  }                                                                                                \
  INVAR_BLAS_EXPORT void cblas_##s##gemmt(int layout, int uplo, int transa, int transb, int n,     \
                                          int k, T alpha, const T* a, int lda, const T* b,         \
                                          int ldb, T beta, T* c, int ldc) {                        \
    invar::blas::cblas_gemmt<T>(S "GEMMT", "cblas_" #s "gemmt", layout, uplo, transa, transb, n,   \
                                k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
  }                                                                                                \
  INVAR_BLAS_EXPORT void cblas_##s##gemm_batch_strided(                                            \
      int layout, int transa, int transb, int m, int n, int k, T alpha, const T* a, int lda,       \
      int stridea, const T* b, int ldb, int strideb, T beta, T* c, int ldc, int stridec,           \
      int batch_size) {                                                                            \
    invar::blas::cblas_gemm_batch_strided<T>("cblas_" #s "gemm_batch_strided", layout, transa,     \
                                             transb, m, n, k, alpha, a, lda, stridea, b, ldb,      \
                                             strideb, beta, c, ldc, stridec, batch_size);          \
  }

INVAR_BLAS_CBLAS(float, s, "S")
INVAR_BLAS_CBLAS(double, d, "D")
