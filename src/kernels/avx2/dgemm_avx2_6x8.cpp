// dgemm_avx2_6x8: the f64 AVX2 + FMA3 micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 6 doubles, element (i, p) at a_panel[6 * p + i], alpha already applied;
//   b_panel: kc steps of 8 doubles, 64-byte aligned, element (p, j) at b_panel[8 * p + j];
//   c: a whole 6 x 8 tile with row stride ldc, any alignment; kc >= 1.
//
// Each ymm lane of acc[i][v] is the accumulator of one element C[i][4v + lane]; every step is one
// vfmadd231pd per accumulator, so each element's chain is the contract's chain in increasing k.
// Nothing in this file is shared with other translation units except the declared entry point.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kDgemmMr;
constexpr int NR = kDgemmNr;
static_assert(NR == 8, "two ymm vectors per row");

}  // namespace

void dgemm_avx2_6x8(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                    int64_t ldc, AccInit init, double beta) {
  __m256d acc[MR][2];
  if (init == AccInit::kZero) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_pd();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm256_loadu_pd(c + i * ldc);
      acc[i][1] = _mm256_loadu_pd(c + i * ldc + 4);
    }
  } else {
    const __m256d vbeta = _mm256_set1_pd(beta);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm256_mul_pd(vbeta, _mm256_loadu_pd(c + i * ldc));
      acc[i][1] = _mm256_mul_pd(vbeta, _mm256_loadu_pd(c + i * ldc + 4));
    }
  }

  const double* a = a_panel;
  const double* b = b_panel;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m256d b0 = _mm256_load_pd(b);
    const __m256d b1 = _mm256_load_pd(b + 4);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256d ai = _mm256_broadcast_sd(a + i);
      acc[i][0] = _mm256_fmadd_pd(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_pd(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }

#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_storeu_pd(c + i * ldc, acc[i][0]);
    _mm256_storeu_pd(c + i * ldc + 4, acc[i][1]);
  }
}

}  // namespace invar::kernels::avx2
