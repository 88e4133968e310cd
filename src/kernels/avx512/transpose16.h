// 16-lane f32 shuffles and a 16 x 16 transpose in zmm registers, for the AVX-512 translation units
// only (built with their flags; internal linkage keeps each unit's copy its own).
#ifndef INVAR_KERNELS_AVX512_TRANSPOSE16_H_
#define INVAR_KERNELS_AVX512_TRANSPOSE16_H_

#include <immintrin.h>

namespace invar::kernels::avx512 {
namespace {

// The shuffles, in their zero-masking forms under a full mask (the same instructions): the plain
// intrinsics pass an undefined vector that trips GCC 12's -Wmaybe-uninitialized inside its own
// header.
constexpr __mmask16 kAll16 = 0xFFFF;
inline __m512 unpacklo(__m512 a, __m512 b) { return _mm512_maskz_unpacklo_ps(kAll16, a, b); }
inline __m512 unpackhi(__m512 a, __m512 b) { return _mm512_maskz_unpackhi_ps(kAll16, a, b); }
template <int kImm>
inline __m512 shuffle(__m512 a, __m512 b) {
  return _mm512_maskz_shuffle_ps(kAll16, a, b, kImm);
}
template <int kImm>
inline __m512 shuffle_lanes(__m512 a, __m512 b) {
  return _mm512_maskz_shuffle_f32x4(kAll16, a, b, kImm);
}

// r[l] holds row l (16 values); afterwards r[q] holds column q, lane l = old r[l][q]. An in-lane
// 4 x 4 transpose of each group of four rows leaves in t[4 g + c], 128-bit lane s, rows
// 4g .. 4g + 3 at column 4 s + c; a 4 x 4 transpose of the 128-bit lanes over the four groups
// then gives each column.
inline __attribute__((always_inline)) void transpose16(__m512 (&r)[16]) {
  __m512 t[16];
  for (int g = 0; g < 4; ++g) {
    const __m512 u0 = unpacklo(r[4 * g], r[4 * g + 1]), u1 = unpackhi(r[4 * g], r[4 * g + 1]);
    const __m512 u2 = unpacklo(r[4 * g + 2], r[4 * g + 3]);
    const __m512 u3 = unpackhi(r[4 * g + 2], r[4 * g + 3]);
    t[4 * g + 0] = shuffle<0x44>(u0, u2);
    t[4 * g + 1] = shuffle<0xEE>(u0, u2);
    t[4 * g + 2] = shuffle<0x44>(u1, u3);
    t[4 * g + 3] = shuffle<0xEE>(u1, u3);
  }
  for (int c = 0; c < 4; ++c) {
    // Lanes (0, 1) and (2, 3) of groups 0 and 1, and of groups 2 and 3.
    const __m512 v0 = shuffle_lanes<0x44>(t[c], t[4 + c]);
    const __m512 v1 = shuffle_lanes<0xEE>(t[c], t[4 + c]);
    const __m512 v2 = shuffle_lanes<0x44>(t[8 + c], t[12 + c]);
    const __m512 v3 = shuffle_lanes<0xEE>(t[8 + c], t[12 + c]);
    // Column 4 s + c: lane s of the four groups.
    r[c] = shuffle_lanes<0x88>(v0, v2);
    r[4 + c] = shuffle_lanes<0xDD>(v0, v2);
    r[8 + c] = shuffle_lanes<0x88>(v1, v3);
    r[12 + c] = shuffle_lanes<0xDD>(v1, v3);
  }
}

}  // namespace
}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_TRANSPOSE16_H_
