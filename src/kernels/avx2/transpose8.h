// An 8 x 8 transpose of f32 in ymm registers, for the AVX2 translation units only (it is built
// with their flags; internal linkage keeps each unit's copy its own).
#ifndef INVAR_KERNELS_AVX2_TRANSPOSE8_H_
#define INVAR_KERNELS_AVX2_TRANSPOSE8_H_

#include <immintrin.h>

#include <cstdint>

namespace invar::kernels::avx2 {
namespace {

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

// Eight rows of eight floats, row l at rows + l * ld, loaded transposed: r[q] holds column q
// (lane l = row l's value q), as transpose8 over the eight rows would give. The 128-bit halves
// are exchanged by the loads instead (vinsertf128 from memory: a load and a µop any vector ALU
// port runs), so that only the two in-lane stages remain: 16 shuffles, not 24. Where the
// shuffles are the limit (x * W^T's one-row product, sgemm_avx2_direct_t8) that is the speed.
inline __attribute__((always_inline)) void load_transposed8(const float* rows, int64_t ld,
                                                            __m256 (&r)[8]) {
  // u[l]: values 0..3 of rows l and l + 4; v[l]: values 4..7 of the same rows.
  __m256 u[4], v[4];
  for (int l = 0; l < 4; ++l) {
    const float* lo = rows + l * ld;
    const float* hi = rows + (l + 4) * ld;
    u[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
    v[l] =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo + 4)), _mm_loadu_ps(hi + 4), 1);
  }
  // A 4 x 4 transpose in each half: lane l of column q comes from row l (low) and l + 4 (high).
  const auto transpose4x2 = [](const __m256(&x)[4], __m256* out) {
    const __m256 t0 = _mm256_unpacklo_ps(x[0], x[1]), t1 = _mm256_unpackhi_ps(x[0], x[1]);
    const __m256 t2 = _mm256_unpacklo_ps(x[2], x[3]), t3 = _mm256_unpackhi_ps(x[2], x[3]);
    out[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    out[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    out[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    out[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  };
  transpose4x2(u, r);
  transpose4x2(v, r + 4);
}

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_TRANSPOSE8_H_
