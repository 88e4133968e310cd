// sgemm_avx2_pack_a6 (and its bf16 and f16 forms): packs an mc x kc block of alpha * op(A), with A
// stored row-major (op(A)[i][p] = a[i * lda + p]), into the 6-row micro-panels of sgemm_avx2_6x16
// (pack.h's layout: panel r holds kc steps of 6 values, element (i, p) at 6 p + i, zero-padded past
// mc). The portable packer gathers one element at a time from six rows; here six rows and eight k
// at a time are widened to f32 (widen8.h) and transposed in registers. Each value is alpha * a,
// one rounded multiply (none when alpha is 1), as in the portable packer, so the bits are the
// same; only faster.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/transpose8.h"
#include "kernels/avx2/widen8.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kSgemmMr;
static_assert(MR == 6, "six rows of eight k are transposed as an 8 x 8 block");

// Rows r of one whole panel, k steps [p, p + 8): eight columns of six values, stored 6 apart.
// Columns 0..6 are stored as whole vectors, each overwriting the two unused lanes of the one
// before; column 7 stores just its six values, so nothing is written past step p + 7.
template <class S, bool kScale>
inline void pack_8_steps(const typename S::type* a, int64_t lda, __m256 valpha, float* d) {
  __m256 t[8];
  for (int l = 0; l < MR; ++l) {
    // The next panel's rows, a little ahead: a block's rows are short streams (kc values each)
    // that the hardware prefetchers barely ramp up on.
    _mm_prefetch(reinterpret_cast<const char*>(a + (MR + l) * lda + 8), _MM_HINT_T0);
    t[l] = S::load8(a + l * lda);
    if constexpr (kScale) t[l] = _mm256_mul_ps(valpha, t[l]);
  }
  t[6] = t[7] = _mm256_setzero_ps();
  transpose8(t);  // lanes 0..5 of t[q]: rows 0..5 at step q
  for (int q = 0; q < 7; ++q) _mm256_storeu_ps(d + MR * q, t[q]);
  _mm_storeu_ps(d + MR * 7, _mm256_castps256_ps128(t[7]));
  _mm_storel_pi(reinterpret_cast<__m64*>(d + MR * 7 + 4), _mm256_extractf128_ps(t[7], 1));
}

template <class S, bool kScale>
void pack_whole_panels(int64_t panels, int64_t kc, const typename S::type* a, int64_t lda,
                       float alpha, float* dst) {
  const __m256 valpha = _mm256_set1_ps(alpha);
  for (int64_t r = 0; r < panels; ++r, a += MR * lda, dst += MR * kc) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) pack_8_steps<S, kScale>(a + p, lda, valpha, dst + MR * p);
    for (; p < kc; ++p) {
      for (int i = 0; i < MR; ++i) {
        const float v = S::load1(a + i * lda + p);
        dst[MR * p + i] = kScale ? alpha * v : v;
      }
    }
  }
}

template <class S>
void pack_a6(int64_t mc, int64_t kc, const typename S::type* a, int64_t lda, float alpha,
             float* dst) {
  const int64_t panels = mc / MR;
  if (alpha == 1.0f) {
    pack_whole_panels<S, false>(panels, kc, a, lda, alpha, dst);
  } else {
    pack_whole_panels<S, true>(panels, kc, a, lda, alpha, dst);
  }
  const int64_t r0 = panels * MR;
  if (r0 < mc) pack_a_edge_panel<S, MR>(mc - r0, kc, a + r0 * lda, lda, 1, alpha, dst + r0 * kc);
}

}  // namespace

void sgemm_avx2_pack_a6(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                        float* dst) {
  pack_a6<F32Source>(mc, kc, a, lda, alpha, dst);
}

void sbgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst) {
  pack_a6<Bf16Source>(mc, kc, a, lda, alpha, dst);
}

void shgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst) {
  pack_a6<F16Source>(mc, kc, a, lda, alpha, dst);
}

}  // namespace invar::kernels::avx2
