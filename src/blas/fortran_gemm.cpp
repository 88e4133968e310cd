// The Fortran BLAS entry points sgemm_ and dgemm_: reference argument checks reported through
// xerbla_, then the column-major mapping of layouts.h.
#include <cstdint>

#include "blas/argument_checks.h"
#include "blas/blas_abi.h"
#include "blas/layouts.h"
#include "runtime/fp_mode.h"

namespace invar::blas {
namespace {

template <class T>
void fortran_gemm(const char* name, const char* routine, const char* transa, const char* transb,
                  const FortranInt* m, const FortranInt* n, const FortranInt* k, const T* alpha,
                  const T* a, const FortranInt* lda, const T* b, const FortranInt* ldb,
                  const T* beta, T* c, const FortranInt* ldc) {
  runtime::FpModeGuard fp_mode;  // alpha and beta compared in the contract's mode
  const void* const args[13] = {transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  FortranInt info = first_null_scalar(args, {7, 9, 12});
  if (info == 0) {
    const Trans ta = fortran_trans(*transa), tb = fortran_trans(*transb);
    info = first_invalid_argument(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info == 0 && !quick_return<T>(*m, *n, *k, *alpha, *beta)) {
      switch (null_operand<T>(*k, *alpha, a, b, c)) {
        case NullOperand::kA: info = 7; break;
        case NullOperand::kB: info = 9; break;
        case NullOperand::kC: info = 12; break;
        case NullOperand::kNone: break;
      }
    }
    if (info == 0) {
      gemm_column_major<T>(routine, ta == Trans::kYes, tb == Trans::kYes, *m, *n, *k, *alpha, a,
                           *lda, b, *ldb, *beta, c, *ldc);
      return;
    }
  }
  xerbla_(name, &info, 6);
}

}  // namespace
}  // namespace invar::blas

extern "C" {

__attribute__((visibility("default"))) void sgemm_(
    const char* transa, const char* transb, const invar::blas::FortranInt* m,
    const invar::blas::FortranInt* n, const invar::blas::FortranInt* k, const float* alpha,
    const float* a, const invar::blas::FortranInt* lda, const float* b,
    const invar::blas::FortranInt* ldb, const float* beta, float* c,
    const invar::blas::FortranInt* ldc) {
  invar::blas::fortran_gemm<float>("SGEMM ", "SGEMM", transa, transb, m, n, k, alpha, a, lda, b,
                                   ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void dgemm_(
    const char* transa, const char* transb, const invar::blas::FortranInt* m,
    const invar::blas::FortranInt* n, const invar::blas::FortranInt* k, const double* alpha,
    const double* a, const invar::blas::FortranInt* lda, const double* b,
    const invar::blas::FortranInt* ldb, const double* beta, double* c,
    const invar::blas::FortranInt* ldc) {
  invar::blas::fortran_gemm<double>("DGEMM ", "DGEMM", transa, transb, m, n, k, alpha, a, lda, b,
                                    ldb, beta, c, ldc);
}

}  // extern "C"
