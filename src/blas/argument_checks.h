// The argument checks of the reference GEMM, in its order, on the column-major argument list.
//
// The reference sgemm/dgemm report the first invalid argument by its position in the Fortran
// list (TRANSA=1, TRANSB=2, M=3, N=4, K=5, LDA=8, LDB=10, LDC=13), checking them in that order,
// and a leading dimension must be at least max(1, rows of the stored matrix) even when the
// product is empty. The CBLAS front end checks its own layout and transpose arguments first, then
// runs these checks on the column-major list it maps its call to (positions + 1).
//
// Beyond the reference: a null A, B or C that the call would read or write is reported as an
// invalid value of that argument (the reference would dereference it).
#ifndef INVAR_BLAS_ARGUMENT_CHECKS_H_
#define INVAR_BLAS_ARGUMENT_CHECKS_H_

#include <cstddef>
#include <cstdint>

namespace invar::blas {

enum class Trans : int { kNo, kYes, kInvalid };

// 'N'/'n' no transpose; 'T'/'t' and 'C'/'c' (the conjugate transpose of a real matrix) transpose.
Trans fortran_trans(char c);
// CblasNoTrans; CblasTrans and CblasConjTrans transpose.
Trans cblas_trans(int value);

enum class Uplo : int { kUpper, kLower, kInvalid };
enum class Side : int { kLeft, kRight, kInvalid };

// 'U'/'u', 'L'/'l'; CblasUpper, CblasLower.
Uplo fortran_uplo(char c);
Uplo cblas_uplo(int value);
// 'L'/'l', 'R'/'r'; CblasLeft, CblasRight.
Side fortran_side(char c);
Side cblas_side(int value);

// 0, or the Fortran position of the first invalid argument of a column-major GEMM.
int first_invalid_argument(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k,
                           int64_t lda, int64_t ldb, int64_t ldc);

// The same for the reference GEMV (TRANS=1, M=2, N=3, LDA=6, INCX=8, INCY=11), SYRK (UPLO=1,
// TRANS=2, N=3, K=4, LDA=7, LDC=10), SYMM (SIDE=1, UPLO=2, M=3, N=4, LDA=7, LDB=9, LDC=12) and
// GEMMT (UPLO=1, TRANSA=2, TRANSB=3, N=4, K=5, LDA=8, LDB=10, LDC=13), in the reference order.
int first_invalid_gemv(Trans trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy);
int first_invalid_syrk(Uplo uplo, Trans trans, int64_t n, int64_t k, int64_t lda, int64_t ldc);
int first_invalid_symm(Side side, Uplo uplo, int64_t m, int64_t n, int64_t lda, int64_t ldb,
                       int64_t ldc);
int first_invalid_gemmt(Uplo uplo, Trans trans_a, Trans trans_b, int64_t n, int64_t k, int64_t lda,
                        int64_t ldb, int64_t ldc);

// The Fortran position (1-based) of the first null pointer among `args` whose position is not
// in `may_be_null` (the arrays, which the call may not touch), else 0: a C caller's mistake
// (Fortran never passes one) reported instead of dereferenced.
template <std::size_t N, std::size_t K>
int first_null_scalar(const void* const (&args)[N], const int (&may_be_null)[K]) {
  for (std::size_t i = 0; i < N; ++i) {
    const int position = static_cast<int>(i) + 1;
    bool skip = false;
    for (int p : may_be_null) skip = skip || p == position;
    if (!skip && args[i] == nullptr) return position;
  }
  return 0;
}

// The reference quick return: nothing to do and C left as it is.
template <class T>
bool quick_return(int64_t m, int64_t n, int64_t k, T alpha, T beta) {
  return m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1));
}

enum class NullOperand { kNone, kA, kB, kC };

// Which of A, B, C (in that order) is null although a call that passed the checks above and is
// not a quick return would read it: A and B unless alpha == 0 or k == 0, C always.
template <class T>
NullOperand null_operand(int64_t k, T alpha, const T* a, const T* b, const T* c) {
  const bool reads_ab = k > 0 && !(alpha == T(0));
  if (reads_ab && a == nullptr) return NullOperand::kA;
  if (reads_ab && b == nullptr) return NullOperand::kB;
  if (c == nullptr) return NullOperand::kC;
  return NullOperand::kNone;
}

}  // namespace invar::blas

#endif  // INVAR_BLAS_ARGUMENT_CHECKS_H_
