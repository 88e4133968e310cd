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

// Steps [p, p + 16) of one whole panel's rows (lda apart) into d (12 values per step): the
// twelve rows and four of zeros transposed (transpose16.h), each step's twelve values stored
// under a mask.
template <bool kScale>
inline __attribute__((always_inline)) void pack_16_steps(const float* a, int64_t lda, __m512 valpha,
                                                         float* d) {
  __m512 r[kSteps];
  for (int i = 0; i < kMr; ++i) {
    r[i] = _mm512_loadu_ps(a + i * lda);
    if constexpr (kScale) r[i] = _mm512_mul_ps(valpha, r[i]);
  }
  for (int i = kMr; i < kSteps; ++i) r[i] = _mm512_setzero_ps();
  transpose16(r);  // r[q] = step p + q, lanes 0 .. 11 the rows
  constexpr __mmask16 kTwelve = 0x0FFF;
  for (int q = 0; q < kSteps; ++q) _mm512_mask_storeu_ps(d + kMr * q, kTwelve, r[q]);
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
