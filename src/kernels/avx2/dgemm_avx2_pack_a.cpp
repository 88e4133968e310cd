// dgemm_avx2_pack_a6 and dgemm_avx2_pack_a12: pack an mc x kc block of alpha * op(A), with A
// stored row-major (op(A)[i][p] = a[i * lda + p]), f64, into the 6-row micro-panels of
// dgemm_avx2_6x8 or the 12-row ones of dgemm_avx512_12x16 (pack.h's layout: panel r holds kc
// steps of MR values, element (i, p) at MR p + i, zero-padded past mc). The portable packer
// gathers one element at a time from MR rows; here four rows and four k at a time are
// transposed in registers. Each value is alpha * a, one rounded multiply (none when alpha is 1),
// as in the portable packer, so the bits are the same; only faster.
#include <immintrin.h>

#include <cstring>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

// r[l] holds row l (4 values); afterwards r[q] holds column q, lane l = old r[l][q].
inline __attribute__((always_inline)) void transpose4(__m256d (&r)[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

// One whole panel's four steps [p, p + 4), stored MR apart at d: rows in groups of four, the
// last group of MR = 6 holding two rows (and two zero ones, whose lanes are not stored).
template <bool kScale, int MR>
inline void pack_4_steps(const double* a, int64_t lda, __m256d valpha, double* d) {
  static_assert(MR % 4 == 0 || MR % 4 == 2, "groups of four rows, the last one of two or four");
  for (int r0 = 0; r0 < MR; r0 += 4) {
    __m256d t[4];
    for (int l = 0; l < 4; ++l) {
      if (r0 + l >= MR) {
        t[l] = _mm256_setzero_pd();
        continue;
      }
      t[l] = _mm256_loadu_pd(a + (r0 + l) * lda);
      if constexpr (kScale) t[l] = _mm256_mul_pd(valpha, t[l]);
    }
    transpose4(t);  // t[q]: rows r0.. at step p + q
    for (int q = 0; q < 4; ++q) {
      if (r0 + 4 <= MR) {
        _mm256_storeu_pd(d + MR * q + r0, t[q]);
      } else {
        _mm_storeu_pd(d + MR * q + r0, _mm256_castpd256_pd128(t[q]));
      }
    }
  }
}

// Steps [p0, kc) of one panel of `rows` <= MR rows, one value at a time, zero past `rows`.
template <int MR>
void pack_steps_one_by_one(int64_t rows, int64_t p0, int64_t kc, const double* a, int64_t lda,
                           double alpha, double* dst) {
  for (int64_t p = p0; p < kc; ++p) {
    for (int64_t i = 0; i < MR; ++i) {
      const double v = i < rows ? a[i * lda + p] : 0.0;
      dst[MR * p + i] = i >= rows ? 0.0 : alpha == 1.0 ? v : alpha * v;  // padding: +0
    }
  }
}

template <bool kScale, int MR>
void pack_whole_panels(int64_t panels, int64_t kc, const double* a, int64_t lda, double alpha,
                       double* dst) {
  const __m256d valpha = _mm256_set1_pd(alpha);
  for (int64_t r = 0; r < panels; ++r, a += MR * lda, dst += MR * kc) {
    int64_t p = 0;
    for (; p + 4 <= kc; p += 4) pack_4_steps<kScale, MR>(a + p, lda, valpha, dst + MR * p);
    pack_steps_one_by_one<MR>(MR, p, kc, a, lda, alpha, dst);
  }
}

template <int MR>
void pack_rows(int64_t mc, int64_t kc, const double* a, int64_t lda, double alpha, double* dst) {
  const int64_t panels = mc / MR;
  if (alpha == 1.0) {
    pack_whole_panels<false, MR>(panels, kc, a, lda, alpha, dst);
  } else {
    pack_whole_panels<true, MR>(panels, kc, a, lda, alpha, dst);
  }
  const int64_t r0 = panels * MR;
  if (r0 < mc) pack_steps_one_by_one<MR>(mc - r0, 0, kc, a + r0 * lda, lda, alpha, dst + r0 * kc);
}

}  // namespace

void dgemm_avx2_pack_a6(int64_t mc, int64_t kc, const double* a, int64_t lda, double alpha,
                        double* dst) {
  pack_rows<6>(mc, kc, a, lda, alpha, dst);
}

void dgemm_avx2_pack_a12(int64_t mc, int64_t kc, const double* a, int64_t lda, double alpha,
                         double* dst) {
  pack_rows<12>(mc, kc, a, lda, alpha, dst);
}

}  // namespace invar::kernels::avx2
