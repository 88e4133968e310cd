// A driver::GemmProblem over row-major operands in test buffers: op(A) is m x k (A stored k x m
// when trans_a), op(B) k x n (B stored n x k when trans_b), C m x n; leading dimensions count
// elements between stored rows.
#ifndef INVAR_TESTS_SUPPORT_DRIVER_PROBLEM_H_
#define INVAR_TESTS_SUPPORT_DRIVER_PROBLEM_H_

#include <cstdint>

#include "driver/gemm_driver.h"

namespace invar::test {

template <class T>
driver::GemmProblem driver_problem(int64_t m, int64_t n, int64_t k, bool trans_a, const T* a,
                                   int64_t lda, bool trans_b, const T* b, int64_t ldb, T* c,
                                   int64_t ldc, const T* alpha, const T* beta,
                                   kernels::AccInit first_init) {
  driver::GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = a;
  p.a_rs = trans_a ? 1 : lda;
  p.a_cs = trans_a ? lda : 1;
  p.b = b;
  p.b_rs = trans_b ? 1 : ldb;
  p.b_cs = trans_b ? ldb : 1;
  p.c = c;
  p.ldc = ldc;
  p.alpha = alpha;
  p.beta = beta;
  p.first_init = first_init;
  p.unit_alpha = *alpha == T(1);
  return p;
}

}  // namespace invar::test

#endif  // INVAR_TESTS_SUPPORT_DRIVER_PROBLEM_H_
