// sgemm_avx512_12x32: the f32 AVX-512F micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 12 floats, element (i, p) at a_panel[12 * p + i], alpha already applied;
//   b_panel: kc steps of 32 floats, 64-byte aligned, element (p, j) at b_panel[32 * p + j];
//   c: a whole 12 x 32 tile with row stride ldc, any alignment; kc >= 1.
//
// Each zmm lane of acc[i][v] is the accumulator of one element C[i][16v + lane]; every step is
// one vfmadd231ps (with an embedded broadcast of A) per accumulator, so each element's chain is
// the contract's chain in increasing k. Nothing in this file is shared with other translation
// units except the declared entry point.
#include <immintrin.h>

#include "kernels/avx512/avx512.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int MR = kSgemmMr;
constexpr int NR = kSgemmNr;
static_assert(NR == 32, "two zmm vectors per row");

}  // namespace

void sgemm_avx512_12x32(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                        int64_t ldc, AccInit init, float beta) {
  __m512 acc[MR][2];
  if (init == AccInit::kZero) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm512_loadu_ps(c + i * ldc);
      acc[i][1] = _mm512_loadu_ps(c + i * ldc + 16);
    }
  } else {
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm512_mul_ps(vbeta, _mm512_loadu_ps(c + i * ldc));
      acc[i][1] = _mm512_mul_ps(vbeta, _mm512_loadu_ps(c + i * ldc + 16));
    }
  }

  const float* a = a_panel;
  const float* b = b_panel;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }

#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(c + i * ldc, acc[i][0]);
    _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
  }
}

}  // namespace invar::kernels::avx512
