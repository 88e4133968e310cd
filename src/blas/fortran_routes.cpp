// The Fortran BLAS entry points beyond GEMM: sgemv_/dgemv_, sdot_/ddot_, ssyrk_/dsyrk_,
// ssymm_/dsymm_ and sgemmt_/dgemmt_ (the names MKL and OpenBLAS give GEMMT). Reference argument
// checks reported through xerbla_, then routes.h. Every entry reads alpha, beta and the data
// inside the library's floating-point mode.
#include <cstdint>

#include "blas/argument_checks.h"
#include "blas/blas_abi.h"
#include "blas/reporting.h"
#include "blas/routes.h"
#include "runtime/fp_mode.h"

namespace invar::blas {
namespace {

using FI = FortranInt;

template <class T>
void fortran_gemv(const char* name, const char* routine, const char* trans, const FI* m,
                  const FI* n, const T* alpha, const T* a, const FI* lda, const T* x,
                  const FI* incx, const T* beta, T* y, const FI* incy) {
  runtime::FpModeGuard fp_mode;
  const void* const args[11] = {trans, m, n, alpha, a, lda, x, incx, beta, y, incy};
  int info = first_null_scalar(args, {5, 7, 10});
  if (info == 0) {
    const Trans t = fortran_trans(*trans);
    info = first_invalid_gemv(t, *m, *n, *lda, *incx, *incy);
    if (info == 0 && *m != 0 && *n != 0 && !(*alpha == T(0) && *beta == T(1))) {
      if (*alpha != T(0) && a == nullptr)
        info = 5;
      else if (*alpha != T(0) && x == nullptr)
        info = 7;
      else if (y == nullptr)
        info = 10;
    }
    if (info == 0) {
      // The column-major m x n A is the row-major n x m matrix A^T.
      gemv_row_major<T>(routine, t == Trans::kNo, *n, *m, *alpha, a, *lda, x, *incx, *beta, y,
                        *incy);
      return;
    }
  }
  report_fortran(name, info);
}

template <class T>
T fortran_dot(const FI* n, const T* x, const FI* incx, const T* y, const FI* incy) {
  runtime::FpModeGuard fp_mode;
  // The reference DOT has no error exit: a null argument gives 0 instead of a crash.
  if (n == nullptr || incx == nullptr || incy == nullptr || *n <= 0 || x == nullptr || y == nullptr)
    return T(0);
  return dot<T>(*n, x, *incx, y, *incy);
}

template <class T>
void fortran_gemmt(const char* name, const char* routine, const char* uplo, const char* transa,
                   const char* transb, const FI* n, const FI* k, const T* alpha, const T* a,
                   const FI* lda, const T* b, const FI* ldb, const T* beta, T* c, const FI* ldc) {
  runtime::FpModeGuard fp_mode;
  const void* const args[13] = {uplo, transa, transb, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  int info = first_null_scalar(args, {7, 9, 12});
  if (info == 0) {
    const Uplo u = fortran_uplo(*uplo);
    const Trans ta = fortran_trans(*transa), tb = fortran_trans(*transb);
    info = first_invalid_gemmt(u, ta, tb, *n, *k, *lda, *ldb, *ldc);
    if (info == 0 && !quick_return<T>(*n, *n, *k, *alpha, *beta)) {
      switch (null_operand<T>(*k, *alpha, a, b, c)) {
        case NullOperand::kA: info = 7; break;
        case NullOperand::kB: info = 9; break;
        case NullOperand::kC: info = 12; break;
        case NullOperand::kNone: break;
      }
    }
    if (info == 0) {
      gemmt<T>(routine, false, u == Uplo::kUpper, ta == Trans::kYes, tb == Trans::kYes, *n, *k,
               *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
      return;
    }
  }
  report_fortran(name, info);
}

template <class T>
void fortran_syrk(const char* name, const char* routine, const char* uplo, const char* trans,
                  const FI* n, const FI* k, const T* alpha, const T* a, const FI* lda,
                  const T* beta, T* c, const FI* ldc) {
  runtime::FpModeGuard fp_mode;
  const void* const args[10] = {uplo, trans, n, k, alpha, a, lda, beta, c, ldc};
  int info = first_null_scalar(args, {6, 9});
  if (info == 0) {
    const Uplo u = fortran_uplo(*uplo);
    const Trans t = fortran_trans(*trans);
    info = first_invalid_syrk(u, t, *n, *k, *lda, *ldc);
    if (info == 0 && !quick_return<T>(*n, *n, *k, *alpha, *beta)) {
      switch (null_operand<T>(*k, *alpha, a, a, c)) {
        case NullOperand::kA:
        case NullOperand::kB: info = 6; break;
        case NullOperand::kC: info = 9; break;
        case NullOperand::kNone: break;
      }
    }
    if (info == 0) {
      // C = alpha * op(A) * op(A)^T + beta * C: GEMMT with B = A, transposed the other way.
      const bool ta = t == Trans::kYes;
      gemmt<T>(routine, false, u == Uplo::kUpper, ta, !ta, *n, *k, *alpha, a, *lda, a, *lda, *beta,
               c, *ldc);
      return;
    }
  }
  report_fortran(name, info);
}

template <class T>
void fortran_symm(const char* name, const char* routine, const char* side, const char* uplo,
                  const FI* m, const FI* n, const T* alpha, const T* a, const FI* lda, const T* b,
                  const FI* ldb, const T* beta, T* c, const FI* ldc) {
  runtime::FpModeGuard fp_mode;
  const void* const args[12] = {side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc};
  int info = first_null_scalar(args, {6, 8, 11});
  if (info == 0) {
    const Side s = fortran_side(*side);
    const Uplo u = fortran_uplo(*uplo);
    info = first_invalid_symm(s, u, *m, *n, *lda, *ldb, *ldc);
    if (info == 0 && !(*m == 0 || *n == 0 || (*alpha == T(0) && *beta == T(1)))) {
      switch (null_operand<T>(1, *alpha, a, b, c)) {
        case NullOperand::kA: info = 6; break;
        case NullOperand::kB: info = 8; break;
        case NullOperand::kC: info = 11; break;
        case NullOperand::kNone: break;
      }
    }
    if (info == 0) {
      symm<T>(routine, false, s == Side::kLeft, u == Uplo::kUpper, *m, *n, *alpha, a, *lda, b, *ldb,
              *beta, c, *ldc);
      return;
    }
  }
  report_fortran(name, info);
}

}  // namespace
}  // namespace invar::blas

#define INVAR_BLAS_EXPORT extern "C" __attribute__((visibility("default")))

#define INVAR_BLAS_FORTRAN(T, s, S)                                                                \
  INVAR_BLAS_EXPORT void s##gemv_(const char* trans, const invar::blas::FortranInt* m,             \
                                  const invar::blas::FortranInt* n, const T* alpha, const T* a,    \
                                  const invar::blas::FortranInt* lda, const T* x,                  \
                                  const invar::blas::FortranInt* incx, const T* beta, T* y,        \
                                  const invar::blas::FortranInt* incy) {                           \
    invar::blas::fortran_gemv<T>(S "GEMV ", S "GEMV", trans, m, n, alpha, a, lda, x, incx, beta,   \
                                 y, incy);                                                         \
  }                                                                                                \
  INVAR_BLAS_EXPORT T s##dot_(const invar::blas::FortranInt* n, const T* x,                        \
                              const invar::blas::FortranInt* incx, const T* y,                     \
                              const invar::blas::FortranInt* incy) {                               \
    return invar::blas::fortran_dot<T>(n, x, incx, y, incy);                                       \
  }                                                                                                \
  INVAR_BLAS_EXPORT void s##syrk_(const char* uplo, const char* trans,                             \
                                  const invar::blas::FortranInt* n,                                \
                                  const invar::blas::FortranInt* k, const T* alpha, const T* a,    \
                                  const invar::blas::FortranInt* lda, const T* beta, T* c,         \
                                  const invar::blas::FortranInt* ldc) {                            \
    invar::blas::fortran_syrk<T>(S "SYRK ", S "SYRK", uplo, trans, n, k, alpha, a, lda, beta, c,   \
                                 ldc);                                                             \
  }                                                                                                \
  INVAR_BLAS_EXPORT void s##symm_(                                                                 \
      const char* side, const char* uplo, const invar::blas::FortranInt* m,                        \
      const invar::blas::FortranInt* n, const T* alpha, const T* a,                                \
      const invar::blas::FortranInt* lda, const T* b, const invar::blas::FortranInt* ldb,          \
      const T* beta, T* c, const invar::blas::FortranInt* ldc) {                                   \
    invar::blas::fortran_symm<T>(S "SYMM ", S "SYMM", side, uplo, m, n, alpha, a, lda, b, ldb,     \
                                 beta, c, ldc);                                                    \
  }                                                                                                \
  INVAR_BLAS_EXPORT void s##gemmt_(                                                                \
      const char* uplo, const char* transa, const char* transb, const invar::blas::FortranInt* n,  \
      const invar::blas::FortranInt* k, const T* alpha, const T* a,                                \
      const invar::blas::FortranInt* lda, const T* b, const invar::blas::FortranInt* ldb,          \
      const T* beta, T* c, const invar::blas::FortranInt* ldc) {                                   \
    invar::blas::fortran_gemmt<T>(S "GEMMT", S "GEMMT", uplo, transa, transb, n, k, alpha, a, lda, \
                                  b, ldb, beta, c, ldc);                                           \
  }

INVAR_BLAS_FORTRAN(float, s, "S")
INVAR_BLAS_FORTRAN(double, d, "D")
