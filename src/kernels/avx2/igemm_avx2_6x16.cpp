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
// {a, a}, and runs first: sums modulo 2^32 do not depend on order, and with the step after the
// loop GCC's partial redundancy elimination (-O3) kept the accumulators in memory across the
// loop. No load reaches past the panels: the odd step reads 16 int16 of B and one int16 of A
// per row.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int MR = kIgemmMr;
constexpr int NR = kIgemmNr;
static_assert(MR == 6, "six named rows below");
static_assert(NR == 16, "two ymm vectors of int32 per row");

// One row of the tile: columns 0..7 and 8..15; twelve accumulators, two B vectors, one A pair
// and one product fill the 16 ymm registers.
struct Row {
  __m256i lo, hi;
};

inline __attribute__((always_inline)) void madd_row(Row& r, __m256i a, __m256i b0, __m256i b1) {
  r.lo = _mm256_add_epi32(r.lo, _mm256_madd_epi16(a, b0));
  r.hi = _mm256_add_epi32(r.hi, _mm256_madd_epi16(a, b1));
}

// The pair {a(i, 2q), a(i, 2q + 1)} in every int32 lane.
inline __attribute__((always_inline)) __m256i pair(const int16_t* a) {
  return _mm256_broadcastd_epi32(_mm_loadu_si32(a));
}

// C row <- init + alpha * sums (alpha == 1 skips the multiply), modulo 2^32.
inline __attribute__((always_inline)) void store_row(Row r, int32_t* c, AccInit init,
                                                     __m256i valpha, bool scale, __m256i vbeta) {
  if (scale) {
    r.lo = _mm256_mullo_epi32(r.lo, valpha);
    r.hi = _mm256_mullo_epi32(r.hi, valpha);
  }
  __m256i* row = reinterpret_cast<__m256i*>(c);
  if (init == AccInit::kLoad) {
    r.lo = _mm256_add_epi32(r.lo, _mm256_loadu_si256(row));
    r.hi = _mm256_add_epi32(r.hi, _mm256_loadu_si256(row + 1));
  } else if (init == AccInit::kScale) {
    r.lo = _mm256_add_epi32(r.lo, _mm256_mullo_epi32(vbeta, _mm256_loadu_si256(row)));
    r.hi = _mm256_add_epi32(r.hi, _mm256_mullo_epi32(vbeta, _mm256_loadu_si256(row + 1)));
  }
  _mm256_storeu_si256(row, r.lo);
  _mm256_storeu_si256(row + 1, r.hi);
}

}  // namespace

void igemm_avx2_6x16(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                     int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  const __m256i zero = _mm256_setzero_si256();
  Row r0{zero, zero}, r1{zero, zero}, r2{zero, zero}, r3{zero, zero}, r4{zero, zero},
      r5{zero, zero};
  if (kc % 2 != 0) {
    const int16_t* at = a_panel + (kc - 1) * MR;
    const int16_t* bt = b_panel + (kc - 1) * NR;
    const __m256i b0 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bt)));
    const __m256i b1 =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bt + 8)));
    madd_row(r0, _mm256_set1_epi16(at[0]), b0, b1);
    madd_row(r1, _mm256_set1_epi16(at[1]), b0, b1);
    madd_row(r2, _mm256_set1_epi16(at[2]), b0, b1);
    madd_row(r3, _mm256_set1_epi16(at[3]), b0, b1);
    madd_row(r4, _mm256_set1_epi16(at[4]), b0, b1);
    madd_row(r5, _mm256_set1_epi16(at[5]), b0, b1);
  }

  const int16_t* a = a_panel;
  const int16_t* b = b_panel;
  for (int64_t q = kc / 2; q > 0; --q) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 16));
    madd_row(r0, pair(a + 0), b0, b1);
    madd_row(r1, pair(a + 2), b0, b1);
    madd_row(r2, pair(a + 4), b0, b1);
    madd_row(r3, pair(a + 6), b0, b1);
    madd_row(r4, pair(a + 8), b0, b1);
    madd_row(r5, pair(a + 10), b0, b1);
    a += 2 * MR;
    b += 2 * NR;
  }
  const __m256i valpha = _mm256_set1_epi32(alpha);
  const __m256i vbeta = _mm256_set1_epi32(beta);
  const bool scale = alpha != 1;
  store_row(r0, c + 0 * ldc, init, valpha, scale, vbeta);
  store_row(r1, c + 1 * ldc, init, valpha, scale, vbeta);
  store_row(r2, c + 2 * ldc, init, valpha, scale, vbeta);
  store_row(r3, c + 3 * ldc, init, valpha, scale, vbeta);
  store_row(r4, c + 4 * ldc, init, valpha, scale, vbeta);
  store_row(r5, c + 5 * ldc, init, valpha, scale, vbeta);
}

}  // namespace invar::kernels::avx2
