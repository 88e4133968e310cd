#include "blas/argument_checks.h"

#include <algorithm>

#include "blas/blas_abi.h"

namespace invar::blas {

Trans fortran_trans(char c) {
  switch (c) {
    case 'N':
    case 'n': return Trans::kNo;
    case 'T':
    case 't':
    case 'C':
    case 'c': return Trans::kYes;
    default: return Trans::kInvalid;
  }
}

Trans cblas_trans(int value) {
  if (value == kCblasNoTrans) return Trans::kNo;
  if (value == kCblasTrans || value == kCblasConjTrans) return Trans::kYes;
  return Trans::kInvalid;
}

int first_invalid_argument(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k,
                           int64_t lda, int64_t ldb, int64_t ldc) {
  // Rows of the stored matrices: A is m x k (k x m transposed), B is k x n (n x k transposed).
  const int64_t rows_a = trans_a == Trans::kNo ? m : k;
  const int64_t rows_b = trans_b == Trans::kNo ? k : n;
  if (trans_a == Trans::kInvalid) return 1;
  if (trans_b == Trans::kInvalid) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max<int64_t>(1, rows_a)) return 8;
  if (ldb < std::max<int64_t>(1, rows_b)) return 10;
  if (ldc < std::max<int64_t>(1, m)) return 13;
  return 0;
}

Uplo fortran_uplo(char c) {
  if (c == 'U' || c == 'u') return Uplo::kUpper;
  if (c == 'L' || c == 'l') return Uplo::kLower;
  return Uplo::kInvalid;
}

Uplo cblas_uplo(int value) {
  if (value == kCblasUpper) return Uplo::kUpper;
  if (value == kCblasLower) return Uplo::kLower;
  return Uplo::kInvalid;
}

Side fortran_side(char c) {
  if (c == 'L' || c == 'l') return Side::kLeft;
  if (c == 'R' || c == 'r') return Side::kRight;
  return Side::kInvalid;
}

Side cblas_side(int value) {
  if (value == kCblasLeft) return Side::kLeft;
  if (value == kCblasRight) return Side::kRight;
  return Side::kInvalid;
}

int first_invalid_gemv(Trans trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy) {
  if (trans == Trans::kInvalid) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max<int64_t>(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

int first_invalid_syrk(Uplo uplo, Trans trans, int64_t n, int64_t k, int64_t lda, int64_t ldc) {
  const int64_t rows_a = trans == Trans::kNo ? n : k;
  if (uplo == Uplo::kInvalid) return 1;
  if (trans == Trans::kInvalid) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max<int64_t>(1, rows_a)) return 7;
  if (ldc < std::max<int64_t>(1, n)) return 10;
  return 0;
}

int first_invalid_symm(Side side, Uplo uplo, int64_t m, int64_t n, int64_t lda, int64_t ldb,
                       int64_t ldc) {
  const int64_t rows_a = side == Side::kLeft ? m : n;
  if (side == Side::kInvalid) return 1;
  if (uplo == Uplo::kInvalid) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (lda < std::max<int64_t>(1, rows_a)) return 7;
  if (ldb < std::max<int64_t>(1, m)) return 9;
  if (ldc < std::max<int64_t>(1, m)) return 12;
  return 0;
}

int first_invalid_gemmt(Uplo uplo, Trans trans_a, Trans trans_b, int64_t n, int64_t k, int64_t lda,
                        int64_t ldb, int64_t ldc) {
  const int64_t rows_a = trans_a == Trans::kNo ? n : k;
  const int64_t rows_b = trans_b == Trans::kNo ? k : n;
  if (uplo == Uplo::kInvalid) return 1;
  if (trans_a == Trans::kInvalid) return 2;
  if (trans_b == Trans::kInvalid) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max<int64_t>(1, rows_a)) return 8;
  if (ldb < std::max<int64_t>(1, rows_b)) return 10;
  if (ldc < std::max<int64_t>(1, n)) return 13;
  return 0;
}

}  // namespace invar::blas
