// sgemm_avx2_pack_a6_t (and its bf16 and f16 forms): packs an mc x kc block of alpha * op(A), with
// A stored transposed (op(A)[i][p] = a[p * lda + i]), into the 6-row micro-panels of
// sgemm_avx2_6x16 (pack.h's layout: panel r holds kc steps of 6 values, element (i, p) at 6 p + i,
// zero-padded past mc). A step's six values are contiguous in the source: one load (widened to
// f32, widen8.h), one multiply by alpha (none when alpha is 1, as in the portable packer, so the
// bits are the same) and one store per step.
//
// Steps go in bands of 8, and within a band panel after panel: each source row is read left to
// right, and each panel receives 48 contiguous values per band.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/widen8.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kSgemmMr;
static_assert(MR == 6, "six of a vector's eight lanes per step");
constexpr int64_t kBand = 8;

template <class S, bool kScale>
void pack_whole_panels(int64_t mc, int64_t kc, const typename S::type* a, int64_t lda, float alpha,
                       float* dst) {
  const __m256 valpha = _mm256_set1_ps(alpha);
  const int64_t panels = mc / MR;
  for (int64_t p0 = 0; p0 < kc; p0 += kBand) {
    const int64_t steps = kc - p0 < kBand ? kc - p0 : kBand;
    for (int64_t r = 0; r < panels; ++r) {
      const typename S::type* src = a + p0 * lda + r * MR;
      float* d = dst + r * MR * kc + p0 * MR;
      // Eight values readable after the panel's six: the last whole panel may end the rows.
      const bool wide = r * MR + 8 <= mc;
      for (int64_t q = 0; q < steps; ++q) {
        __m256 v = wide ? S::load8(src + q * lda) : S::load6(src + q * lda);
        if constexpr (kScale) v = _mm256_mul_ps(valpha, v);
        if (p0 + q + 1 < kc) {
          // Lanes 6 and 7 land on the next step's first two values, written after this.
          _mm256_storeu_ps(d + q * MR, v);
        } else {
          _mm_storeu_ps(d + q * MR, _mm256_castps256_ps128(v));
          _mm_storel_pi(reinterpret_cast<__m64*>(d + q * MR + 4), _mm256_extractf128_ps(v, 1));
        }
      }
    }
  }
}

template <class S>
void pack_a6_t(int64_t mc, int64_t kc, const typename S::type* a, int64_t lda, float alpha,
               float* dst) {
  if (alpha == 1.0f) {
    pack_whole_panels<S, false>(mc, kc, a, lda, alpha, dst);
  } else {
    pack_whole_panels<S, true>(mc, kc, a, lda, alpha, dst);
  }
  const int64_t r0 = mc / MR * MR;
  if (r0 < mc) pack_a_edge_panel<S, MR>(mc - r0, kc, a + r0, 1, lda, alpha, dst + r0 * kc);
}

}  // namespace

void sgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                          float* dst) {
  pack_a6_t<F32Source>(mc, kc, a, lda, alpha, dst);
}

void sbgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                           float* dst) {
  pack_a6_t<Bf16Source>(mc, kc, a, lda, alpha, dst);
}

void shgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                           float* dst) {
  pack_a6_t<F16Source>(mc, kc, a, lda, alpha, dst);
}

}  // namespace invar::kernels::avx2
