// igemm_avx2_6x16: the integer AVX2 micro-kernel (s8 x s8 and u8 x s8 -> s32).
//
// Assumptions (see ukernel.h and pack.h):
//   a_panel: kc steps of 6 int16 in pairs of steps, element (i, 2q + h) at a_panel[12q + 2i + h],
//            the odd last step at a_panel[6 (kc - 1) + i]; alpha not applied;
//   b_panel: kc steps of 16 int16 in pairs, element (2q + h, j) at b_panel[32q + 2j + h], the odd
//            last step at b_panel[16 (kc - 1) + j];
//   c: a whole 6 x 16 tile with row stride ldc, any alignment; kc >= 1.
//
// Each int32 lane of acc[i][v] sums the products of one element C[i][8v + lane]. vpmaddwd
// multiplies the pair {a(i, 2q), a(i, 2q + 1)}, broadcast to every lane, by the lane's pair
// {b(2q, j), b(2q + 1, j)} and adds the two products: exact, since |a * b| <= 255 * 128, and
// unlike vpmaddubsw it never saturates. vpaddd then wraps modulo 2^32, as the contract does.
// The odd last step pairs {b, 0} (zero-extended, so the high half never carries a sign) with
// {a, a}. No load reaches past the panels: the tail reads 16 int16 of B and one int16 of A per row.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kIgemmMr;
constexpr int NR = kIgemmNr;
static_assert(NR == 16, "two ymm vectors of int32 per row");

}  // namespace

void igemm_avx2_6x16(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                     int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  __m256i acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();

  const int16_t* a = a_panel;
  const int16_t* b = b_panel;
  const int64_t pairs = kc / 2;
#pragma GCC unroll 2
  for (int64_t q = 0; q < pairs; ++q) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 16));
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256i ai = _mm256_broadcastd_epi32(_mm_loadu_si32(a + 2 * i));
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(ai, b0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(ai, b1));
    }
    a += 2 * MR;
    b += 2 * NR;
  }
  if (kc % 2 != 0) {
    const __m256i b0 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
    const __m256i b1 =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 8)));
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256i ai = _mm256_set1_epi16(a[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(ai, b0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(ai, b1));
    }
  }

  if (alpha != 1) {
    const __m256i valpha = _mm256_set1_epi32(alpha);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = _mm256_mullo_epi32(acc[i][0], valpha);
      acc[i][1] = _mm256_mullo_epi32(acc[i][1], valpha);
    }
  }
  if (init == AccInit::kLoad) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256i* row = reinterpret_cast<const __m256i*>(c + i * ldc);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_loadu_si256(row));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_loadu_si256(row + 1));
    }
  } else if (init == AccInit::kScale) {
    const __m256i vbeta = _mm256_set1_epi32(beta);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256i* row = reinterpret_cast<const __m256i*>(c + i * ldc);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_mullo_epi32(vbeta, _mm256_loadu_si256(row)));
      acc[i][1] =
          _mm256_add_epi32(acc[i][1], _mm256_mullo_epi32(vbeta, _mm256_loadu_si256(row + 1)));
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    __m256i* row = reinterpret_cast<__m256i*>(c + i * ldc);
    _mm256_storeu_si256(row, acc[i][0]);
    _mm256_storeu_si256(row + 1, acc[i][1]);
  }
}

}  // namespace invar::kernels::avx2
