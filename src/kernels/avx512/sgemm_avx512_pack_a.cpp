// sgemm_avx512_pack_a12: pack an mc x kc block of alpha * A, A row-major (op(A)[i][p] =
// a[i * lda + p]), into the 12-row micro-panels of sgemm_avx512_12x32 (pack.h's layout: panel r
// holds kc steps of 12 values, element (i, p) at 12 p + i). Sixteen steps of the panel's twelve
// rows at a time: one zmm load per row, a whole cache line when the rows are aligned, so each
// line of A is read once and in full. The AVX2 packer reads half a line per row and comes back
// for the other half after the other rows; at a power-of-two lda the twelve rows share one L1
// set of eight ways, and the half it comes back for is gone. Measured on the Zen 4 (a 180 x 1024
// block, ns per element, A in cache / from memory): lda 2048, AVX2 0.29-0.34 / 0.32-0.40, this
// one 0.18-0.19 / 0.24-0.30; lda 1000, 0.11-0.18 / 0.21 against 0.10-0.18 / 0.21-0.27 (bound by
// memory). Inside a 2048^3 product on one thread, packing A went from 1.41 to 1.24 % of the time
// (perf). Software prefetch 2 to 8 lines ahead in each row made it slower. Each value is
// alpha * a, one rounded multiply (none when alpha is 1), as in the other packers: the same bits.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/transpose16.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int kMr = kSgemmMr;
constexpr int kSteps = 16;

// Steps [p, p + 16) of one whole panel's rows (lda apart) into d (12 values per step).
// r[i] holds row i's 16 steps; after an in-lane 4 x 4 transpose of each group of four rows,
// t[4 g + j] holds, in its 128-bit lane s, rows 4g..4g+3 at step 4s + j; a transpose of the
// 128-bit lanes over the three groups (a zero fourth) then gives each step's 12 values, stored
// under a mask of 12 lanes.
template <bool kScale>
inline __attribute__((always_inline)) void pack_16_steps(const float* a, int64_t lda, __m512 valpha,
                                                         float* d) {
  __m512 r[kMr];
  for (int i = 0; i < kMr; ++i) {
    r[i] = _mm512_loadu_ps(a + i * lda);
    if constexpr (kScale) r[i] = _mm512_mul_ps(valpha, r[i]);
  }
  __m512 t[kMr];
  for (int g = 0; g < 3; ++g) {
    const __m512 u0 = unpacklo(r[4 * g], r[4 * g + 1]);
    const __m512 u1 = unpackhi(r[4 * g], r[4 * g + 1]);
    const __m512 u2 = unpacklo(r[4 * g + 2], r[4 * g + 3]);
    const __m512 u3 = unpackhi(r[4 * g + 2], r[4 * g + 3]);
    t[4 * g + 0] = shuffle<0x44>(u0, u2);
    t[4 * g + 1] = shuffle<0xEE>(u0, u2);
    t[4 * g + 2] = shuffle<0x44>(u1, u3);
    t[4 * g + 3] = shuffle<0xEE>(u1, u3);
  }
  const __m512 zero = _mm512_setzero_ps();
  constexpr __mmask16 kTwelve = 0x0FFF;
  for (int j = 0; j < 4; ++j) {
    // Lanes (0, 1) and (2, 3) of groups 0 and 1, and of group 2 beside zeros.
    const __m512 v0 = shuffle_lanes<0x44>(t[j], t[4 + j]);
    const __m512 v1 = shuffle_lanes<0xEE>(t[j], t[4 + j]);
    const __m512 v2 = shuffle_lanes<0x44>(t[8 + j], zero);
    const __m512 v3 = shuffle_lanes<0xEE>(t[8 + j], zero);
    // Step 4s + j: lane s of groups 0, 1, 2.
    _mm512_mask_storeu_ps(d + kMr * (0 + j), kTwelve, shuffle_lanes<0x88>(v0, v2));
    _mm512_mask_storeu_ps(d + kMr * (4 + j), kTwelve, shuffle_lanes<0xDD>(v0, v2));
    _mm512_mask_storeu_ps(d + kMr * (8 + j), kTwelve, shuffle_lanes<0x88>(v1, v3));
    _mm512_mask_storeu_ps(d + kMr * (12 + j), kTwelve, shuffle_lanes<0xDD>(v1, v3));
  }
}

template <bool kScale>
void pack_whole_panels(int64_t panels, int64_t kc, const float* a, int64_t lda, float alpha,
                       float* dst) {
  const __m512 valpha = _mm512_set1_ps(alpha);
  const int64_t whole = kc / kSteps * kSteps;
  for (int64_t r = 0; r < panels; ++r, a += kMr * lda, dst += kMr * kc) {
    for (int64_t p = 0; p < whole; p += kSteps)
      pack_16_steps<kScale>(a + p, lda, valpha, dst + kMr * p);
    // The last kc % 16 steps: one panel of that depth, packed by the AVX2 packer into place.
    if (whole < kc) {
      avx2::sgemm_avx2_pack_a12(kMr, kc - whole, a + whole, lda, alpha, dst + kMr * whole);
    }
  }
}

}  // namespace

void sgemm_avx512_pack_a12(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                           float* dst) {
  const int64_t panels = mc / kMr;
  if (alpha == 1.0f) {
    pack_whole_panels<false>(panels, kc, a, lda, alpha, dst);
  } else {
    pack_whole_panels<true>(panels, kc, a, lda, alpha, dst);
  }
  // A partial last panel (zero-padded rows): the AVX2 packer's.
  const int64_t r0 = panels * kMr;
  if (r0 < mc) avx2::sgemm_avx2_pack_a12(mc - r0, kc, a + r0 * lda, lda, alpha, dst + r0 * kc);
}

}  // namespace invar::kernels::avx512
