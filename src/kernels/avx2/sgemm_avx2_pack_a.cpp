// sgemm_avx2_pack_a6 and sgemm_avx2_pack_a12 (and their bf16 and f16 forms): pack an mc x kc
// block of alpha * op(A), with A stored row-major (op(A)[i][p] = a[i * lda + p]), into the 6-row
// micro-panels of sgemm_avx2_6x16 or the 12-row ones of sgemm_avx512_12x32 (pack.h's layout:
// panel r holds kc steps of MR values, element (i, p) at MR p + i, zero-padded past mc). The
// portable packer gathers one element at a time from MR rows; here eight rows and eight k at a
// time are widened to f32 (widen8.h) and transposed in registers. Each value is alpha * a, one
// rounded multiply (none when alpha is 1), as in the portable packer, so the bits are the same;
// only faster. (The 12-row forms serve the AVX-512 path, every AVX-512 CPU running AVX2: the
// bf16 and f16 ones whole, the f32 one for what sgemm_avx512_pack_a12 leaves to it, the last
// kc % 16 steps and a partial panel.)
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/transpose8.h"
#include "kernels/avx2/widen8.h"

namespace invar::kernels::avx2 {
namespace {

// Rows [r0, r0 + 8) of one whole panel (those below MR; the rest read as zero), k steps
// [p, p + 8), transposed: t[q] holds the rows' values at step p + q.
template <class S, bool kScale, int MR>
inline __attribute__((always_inline)) void load_transposed(const typename S::type* a, int64_t lda,
                                                           int r0, __m256 valpha, __m256 (&t)[8]) {
  for (int l = 0; l < 8; ++l) {
    if (r0 + l >= MR) {
      t[l] = _mm256_setzero_ps();
      continue;
    }
    // The next panel's rows, a little ahead: a block's rows are short streams (kc values each)
    // that the hardware prefetchers barely ramp up on. Past the last panel the address is
    // harmless (a prefetch never faults) and formed in unsigned integer arithmetic, never as a
    // pointer beyond the array.
    const auto next = reinterpret_cast<std::uintptr_t>(a + 8) +
                      static_cast<std::uintptr_t>(MR + r0 + l) * static_cast<std::uintptr_t>(lda) *
                          sizeof(typename S::type);
    _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
    t[l] = S::load8(a + (r0 + l) * lda);
    if constexpr (kScale) t[l] = _mm256_mul_ps(valpha, t[l]);
  }
  transpose8(t);
}

// One whole panel's eight steps [p, p + 8), stored MR apart at d.
template <class S, bool kScale, int MR>
inline void pack_8_steps(const typename S::type* a, int64_t lda, __m256 valpha, float* d) {
  __m256 t[8];
  load_transposed<S, kScale, MR>(a, lda, 0, valpha, t);
  if constexpr (MR == 6) {
    // Columns 0..6 are stored as whole vectors, each overwriting the two unused lanes of the one
    // before; column 7 stores just its six values, so nothing is written past step p + 7.
    for (int q = 0; q < 7; ++q) _mm256_storeu_ps(d + MR * q, t[q]);
    _mm_storeu_ps(d + MR * 7, _mm256_castps256_ps128(t[7]));
    _mm_storel_pi(reinterpret_cast<__m64*>(d + MR * 7 + 4), _mm256_extractf128_ps(t[7], 1));
  } else {
    static_assert(MR == 12, "rows 0..7, then rows 8..11 in the low half of a second transpose");
    for (int q = 0; q < 8; ++q) _mm256_storeu_ps(d + MR * q, t[q]);
    load_transposed<S, kScale, MR>(a, lda, 8, valpha, t);
    for (int q = 0; q < 8; ++q) _mm_storeu_ps(d + MR * q + 8, _mm256_castps256_ps128(t[q]));
  }
}

template <class S, bool kScale, int MR>
void pack_whole_panels(int64_t panels, int64_t kc, const typename S::type* a, int64_t lda,
                       float alpha, float* dst) {
  const __m256 valpha = _mm256_set1_ps(alpha);
  for (int64_t r = 0; r < panels; ++r, a += MR * lda, dst += MR * kc) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) pack_8_steps<S, kScale, MR>(a + p, lda, valpha, dst + MR * p);
    for (; p < kc; ++p) {
      for (int i = 0; i < MR; ++i) {
        const float v = S::load1(a + i * lda + p);
        dst[MR * p + i] = kScale ? alpha * v : v;
      }
    }
  }
}

template <class S, int MR>
void pack_rows(int64_t mc, int64_t kc, const typename S::type* a, int64_t lda, float alpha,
               float* dst) {
  const int64_t panels = mc / MR;
  if (alpha == 1.0f) {
    pack_whole_panels<S, false, MR>(panels, kc, a, lda, alpha, dst);
  } else {
    pack_whole_panels<S, true, MR>(panels, kc, a, lda, alpha, dst);
  }
  const int64_t r0 = panels * MR;
  if (r0 < mc) pack_a_edge_panel<S, MR>(mc - r0, kc, a + r0 * lda, lda, 1, alpha, dst + r0 * kc);
}

}  // namespace

void sgemm_avx2_pack_a6(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                        float* dst) {
  pack_rows<F32Source, 6>(mc, kc, a, lda, alpha, dst);
}

void sbgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst) {
  pack_rows<Bf16Source, 6>(mc, kc, a, lda, alpha, dst);
}

void shgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst) {
  pack_rows<F16Source, 6>(mc, kc, a, lda, alpha, dst);
}

void sgemm_avx2_pack_a12(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                         float* dst) {
  pack_rows<F32Source, 12>(mc, kc, a, lda, alpha, dst);
}

void sbgemm_avx2_pack_a12(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                          float* dst) {
  pack_rows<Bf16Source, 12>(mc, kc, a, lda, alpha, dst);
}

void shgemm_avx2_pack_a12(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                          float* dst) {
  pack_rows<F16Source, 12>(mc, kc, a, lda, alpha, dst);
}

}  // namespace invar::kernels::avx2
