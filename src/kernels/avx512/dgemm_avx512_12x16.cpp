// dgemm_avx512_12x16: the f64 AVX-512F micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 12 doubles, element (i, p) at a_panel[12 * p + i], alpha applied;
//   b_panel: kc steps of 16 doubles, 64-byte aligned, element (p, j) at b_panel[16 * p + j];
//   c: a whole 12 x 16 tile with row stride ldc, any alignment; kc >= 1.
//
// Each zmm lane of acc[i][v] is the accumulator of one element C[i][8v + lane]; every step is
// one vfmadd231pd (with an embedded broadcast of A) per accumulator, so each element's chain is
// the contract's chain in increasing k. Nothing in this file is shared with other translation
// units except the declared entry point.
#include <immintrin.h>

#include "kernels/avx512/avx512.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int MR = kDgemmMr;
constexpr int NR = kDgemmNr;
static_assert(NR == 16, "two zmm vectors per row");

}  // namespace

void dgemm_avx512_12x16(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                        int64_t ldc, AccInit init, double beta) {
  __m512d acc[MR][2];
  if (init == AccInit::kZero) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_pd();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm512_loadu_pd(c + i * ldc);
      acc[i][1] = _mm512_loadu_pd(c + i * ldc + 8);
    }
  } else {
    const __m512d vbeta = _mm512_set1_pd(beta);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm512_mul_pd(vbeta, _mm512_loadu_pd(c + i * ldc));
      acc[i][1] = _mm512_mul_pd(vbeta, _mm512_loadu_pd(c + i * ldc + 8));
    }
  }

  const double* a = a_panel;
  const double* b = b_panel;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m512d b0 = _mm512_load_pd(b);
    const __m512d b1 = _mm512_load_pd(b + 8);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const __m512d ai = _mm512_set1_pd(a[i]);
      acc[i][0] = _mm512_fmadd_pd(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_pd(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }

#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_pd(c + i * ldc, acc[i][0]);
    _mm512_storeu_pd(c + i * ldc + 8, acc[i][1]);
  }
}

}  // namespace invar::kernels::avx512
