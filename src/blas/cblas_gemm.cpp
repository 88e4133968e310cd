// The CBLAS entry points cblas_sgemm and cblas_dgemm: the layout and transpose arguments, then
// the reference checks on the column-major argument list the call maps to, reported through
// cblas_xerbla as the reference CBLAS reports them (blas_abi.h); then the row-major engine
// directly, or the column-major mapping of layouts.h.
#include <cstdint>

#include "blas/argument_checks.h"
#include "blas/blas_abi.h"
#include "blas/layouts.h"

namespace invar::blas {
namespace {

// Reports CBLAS position `info` for a call in `layout` (RowMajorStrg tells cblas_xerbla which).
template <class... Args>
void report(bool row_major, int info, const char* rout, const char* form, Args... args) {
  RowMajorStrg = row_major ? 1 : 0;
  cblas_xerbla(info, rout, form, args...);
  RowMajorStrg = 0;
}

template <class T>
void cblas_gemm(const char* rout, int layout, int transa, int transb, int m, int n, int k, T alpha,
                const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  const bool row_major = layout == kCblasRowMajor;
  if (!row_major && layout != kCblasColMajor) {
    report(false, 1, rout, "layout = %d is neither CblasRowMajor nor CblasColMajor\n", layout);
    return;
  }
  const Trans ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (ta == Trans::kInvalid) {
    report(row_major, 2, rout, "TransA = %d is not a CBLAS_TRANSPOSE\n", transa);
    return;
  }
  if (tb == Trans::kInvalid) {
    report(row_major, 3, rout, "TransB = %d is not a CBLAS_TRANSPOSE\n", transb);
    return;
  }
  // A row-major call is the column-major call for C^T: B and A exchanged, N and M exchanged.
  const int position = row_major ? first_invalid_argument(tb, ta, n, m, k, ldb, lda, ldc)
                                 : first_invalid_argument(ta, tb, m, n, k, lda, ldb, ldc);
  if (position != 0) {
    report(row_major, position + 1, rout, "");
    return;
  }
  if (!quick_return<T>(m, n, k, alpha, beta)) {
    // Positions of the caller's own A (8), B (10), C (13): a row-major cblas_xerbla leaves
    // these as they are.
    switch (null_operand<T>(k, alpha, a, b, c)) {
      case NullOperand::kA: report(row_major, 8, rout, "A is NULL\n"); return;
      case NullOperand::kB: report(row_major, 10, rout, "B is NULL\n"); return;
      case NullOperand::kC: report(row_major, 13, rout, "C is NULL\n"); return;
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
  invar::blas::cblas_gemm<float>("cblas_sgemm", layout, transa, transb, m, n, k, alpha, a, lda, b,
                                 ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm(int layout, int transa, int transb, int m,
                                                        int n, int k, double alpha, const double* a,
                                                        int lda, const double* b, int ldb,
                                                        double beta, double* c, int ldc) {
  invar::blas::cblas_gemm<double>("cblas_dgemm", layout, transa, transb, m, n, k, alpha, a, lda, b,
                                  ldb, beta, c, ldc);
}

}  // extern "C"
