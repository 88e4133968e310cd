// The CBLAS entry points cblas_sgemm and cblas_dgemm: the layout and transpose arguments,
// reported to cblas_xerbla, then the reference checks on the column-major argument list the call
// maps to, reported through xerbla_ as the reference CBLAS reports them (reporting.h); then the
// row-major engine directly, or the column-major mapping of layouts.h.
#include <cstdint>

#include "blas/argument_checks.h"
#include "blas/blas_abi.h"
#include "blas/layouts.h"
#include "blas/reporting.h"
#include "runtime/fp_mode.h"

namespace invar::blas {
namespace {

template <class T>
void cblas_gemm(const char* name, const char* rout, int layout, int transa, int transb, int m,
                int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                int ldc) {
  runtime::FpModeGuard fp_mode;  // alpha and beta compared in the contract's mode
  const bool row_major = layout == kCblasRowMajor;
  if (!row_major && layout != kCblasColMajor) {
    report_cblas(false, 1, rout, "Illegal layout setting, %d\n", layout);
    return;
  }
  const Trans ta = cblas_trans(transa), tb = cblas_trans(transb);
  // A row-major call is the column-major call for C^T: B and A exchanged, N and M exchanged.
  // The reference checks the transposes in the order of that call and reports an invalid
  // TransB of a row-major call as position 2, as it does TransA.
  if (ta == Trans::kInvalid) {
    report_cblas(row_major, 2, rout, "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (tb == Trans::kInvalid) {
    report_cblas(row_major, row_major ? 2 : 3, rout, "Illegal TransB setting, %d\n", transb);
    return;
  }
  const int position = row_major ? first_invalid_argument(tb, ta, n, m, k, ldb, lda, ldc)
                                 : first_invalid_argument(ta, tb, m, n, k, lda, ldb, ldc);
  if (position != 0) {
    report_fortran_from_cblas(row_major, name, position);
    return;
  }
  if (!quick_return<T>(m, n, k, alpha, beta)) {
    // Positions of the caller's own A (8), B (10), C (13): a row-major cblas_xerbla leaves
    // these as they are.
    switch (null_operand<T>(k, alpha, a, b, c)) {
      case NullOperand::kA: report_cblas(row_major, 8, rout, "A is NULL\n"); return;
      case NullOperand::kB: report_cblas(row_major, 10, rout, "B is NULL\n"); return;
      case NullOperand::kC: report_cblas(row_major, 13, rout, "C is NULL\n"); return;
      case NullOperand::kNone: break;
    }
  }
  if (row_major) {
    gemm_row_major<T>(rout, ta == Trans::kYes, tb == Trans::kYes, m, n, k, alpha, a, lda, b, ldb,
                      beta, c, ldc);
  } else {
    gemm_column_major<T>(rout, ta == Trans::kYes, tb == Trans::kYes, m, n, k, alpha, a, lda, b, ldb,
                         beta, c, ldc);
  }
}

}  // namespace
}  // namespace invar::blas

extern "C" {

// The enumeration parameters are declared int: C passes an enum as an int, and any int a caller
// passes must be checkable.
__attribute__((visibility("default"))) void cblas_sgemm(int layout, int transa, int transb, int m,
                                                        int n, int k, float alpha, const float* a,
                                                        int lda, const float* b, int ldb,
                                                        float beta, float* c, int ldc) {
  invar::blas::cblas_gemm<float>("SGEMM ", "cblas_sgemm", layout, transa, transb, m, n, k, alpha, a,
                                 lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm(int layout, int transa, int transb, int m,
                                                        int n, int k, double alpha, const double* a,
                                                        int lda, const double* b, int ldb,
                                                        double beta, double* c, int ldc) {
  invar::blas::cblas_gemm<double>("DGEMM ", "cblas_dgemm", layout, transa, transb, m, n, k, alpha,
                                  a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
