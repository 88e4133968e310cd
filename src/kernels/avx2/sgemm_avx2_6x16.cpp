// sgemm_avx2_6x16: the f32 AVX2 + FMA3 micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 6 floats, element (i, p) at a_panel[6 * p + i], alpha already applied;
//   b_panel: kc steps of 16 floats, 32-byte aligned, element (p, j) at b_panel[16 * p + j];
//   c: a whole 6 x 16 tile with row stride ldc, any alignment; kc >= 1.
//
// Each ymm lane of acc[i][v] is the accumulator of one element C[i][8v + lane]; every step is one
// vfmadd231ps per accumulator, so each element's chain is the contract's chain in increasing k.
// Nothing in this file is shared with other translation units except the declared entry point.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kSgemmMr;
constexpr int NR = kSgemmNr;
static_assert(NR == 16, "two ymm vectors per row");

}  // namespace

void sgemm_avx2_6x16(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                     int64_t ldc, AccInit init, float beta) {
  __m256 acc[MR][2];
  if (init == AccInit::kZero) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm256_loadu_ps(c + i * ldc);
      acc[i][1] = _mm256_loadu_ps(c + i * ldc + 8);
    }
  } else {
    const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm256_mul_ps(vbeta, _mm256_loadu_ps(c + i * ldc));
      acc[i][1] = _mm256_mul_ps(vbeta, _mm256_loadu_ps(c + i * ldc + 8));
    }
  }

  const float* a = a_panel;
  const float* b = b_panel;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }

#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_storeu_ps(c + i * ldc, acc[i][0]);
    _mm256_storeu_ps(c + i * ldc + 8, acc[i][1]);
  }
}

}  // namespace invar::kernels::avx2
