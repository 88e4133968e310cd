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

}  // namespace invar::blas
