// sgemm_avx2_pack_b_t16: packs a kc x nc block of op(B) = W^T, with W stored row-major (op(B)[p][j]
// = w[j * ldw + p]), into the 16-column micro-panels of sgemm_avx2_6x16 (pack.h's layout: panel s
// holds kc rows of 16 values, zero-padded past nc). This is the transposed copy the portable
// packer makes one element at a time; here eight rows of W and eight k at a time are transposed in
// registers. A copy, so the same bits as the portable packer; only faster.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int NR = kSgemmNr;

// r[l] holds row l (8 values); afterwards r[q] holds column q, lane l = old r[l][q].
inline __attribute__((always_inline)) void transpose8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

}  // namespace

void sgemm_avx2_pack_b_t16(int64_t kc, int64_t nc, const float* w, int64_t ldw, float* dst) {
  int64_t j0 = 0;
  for (; j0 + NR <= nc; j0 += NR, dst += NR * kc) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
      for (int half = 0; half < 2; ++half) {
        __m256 t[8];
        for (int l = 0; l < 8; ++l) t[l] = _mm256_loadu_ps(w + (j0 + 8 * half + l) * ldw + p);
        transpose8(t);  // t[q] = op(B)[p + q][j0 + 8 half .. + 7]
        for (int q = 0; q < 8; ++q) _mm256_store_ps(dst + (p + q) * NR + 8 * half, t[q]);
      }
    }
    for (; p < kc; ++p) {
      for (int j = 0; j < NR; ++j) dst[p * NR + j] = w[(j0 + j) * ldw + p];
    }
  }
  if (j0 < nc) {
    const int64_t cols = nc - j0;
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? w[(j0 + j) * ldw + p] : 0.0f;
    }
  }
}

}  // namespace invar::kernels::avx2
