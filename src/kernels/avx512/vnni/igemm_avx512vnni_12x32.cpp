// s8s8s32_avx512vnni_12x32 and u8s8s32_avx512vnni_12x32: the integer micro-kernels of the
// AVX-512 path on CPUs with AVX-512 VNNI (built with -mavx512bw -mavx512vnni on top of the
// path's flags; chosen at run time from the CPU's own flags, kernels/sets/avx512.cpp).
//
// Assumptions (the byte quad panels of ukernel.h and pack.h):
//   a_panel: kc steps of 12 unsigned bytes, quads of steps, element (i, 4q + h) at
//            a_panel[48q + 4i + h], the last kc % 4 steps at a_panel[48Q + 12h + i]; an s8 A
//            holds a + 128; alpha not applied;
//   b_panel: kc steps of 32 s8, element (4q + h, j) at b_panel[128q + 4j + h], the tail at
//            b_panel[128Q + 32h + j]; any alignment;
//   c: a whole 12 x 32 tile (the _edge forms: rows x cols of it, C under masks) with row stride
//      ldc, any alignment; kc >= 1.
//
// Each int32 lane of acc[i][v] sums the products of one element C[i][16v + lane]. vpdpbusd
// multiplies the quad of row i (broadcast to every lane) by the lane's quad of B bytewise, u8
// by s8, and adds the four products (each |x| <= 255 * 128) to the lane, wrapping modulo 2^32 as
// the contract does; it never saturates (vpdpbusds would). A tail step pairs the zero-extended
// byte of A with B's byte zero-extended to a lane: one product, three zero ones. Sums modulo
// 2^32 do not depend on order, so the tail runs first.
//
// For s8 A (kSignedA) corr[v] sums 128 * b(p, j) over the same steps, which is subtracted at the
// end: sum (a + 128) b - sum 128 b = sum a b. 24 accumulators, 2 corrections, 2 B vectors, the
// broadcast and the 128s: 30 of the 32 zmm registers.
#include <immintrin.h>

#include <array>
#include <utility>

#include "kernels/avx512/avx512.h"
#include "kernels/avx512/vnni/quads.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int MR = kIgemmMr;
constexpr int NR = kIgemmNr;
static_assert(MR == 12 && NR == kQuadNr, "two zmm vectors of int32 per row");

// M rows (1..12) of the panels; kMasked: C's two vectors of each row are read and written under
// m0 and m1 (the columns the block holds; masked-off lanes are neither read nor written), else
// whole.
template <bool kSignedA, int M, bool kMasked>
void igemm_quads(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c, int64_t ldc,
                 AccInit init, int32_t alpha, int32_t beta, __mmask16 m0, __mmask16 m1) {
  static_assert(M >= 1 && M <= MR);
  __m512i acc[M][2];
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  __m512i corr0 = _mm512_setzero_si512(), corr1 = _mm512_setzero_si512();
  const int64_t quads = kc / 4;
  const int tail = static_cast<int>(kc % 4);

  // Sums modulo 2^32 do not depend on order: the tail first.
  if (tail != 0)
    add_tail<kSignedA, M, MR>(tail, a_panel + 4 * quads * MR, b_panel + 4 * quads * NR, acc, corr0,
                              corr1);
  add_quads<kSignedA, M, MR>(quads, a_panel, b_panel, acc, corr0, corr1);

  // C row <- init + alpha * sums, modulo 2^32.
  const __m512i valpha = _mm512_set1_epi32(alpha);
  const __m512i vbeta = _mm512_set1_epi32(beta);
#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
    __m512i lo = acc[i][0], hi = acc[i][1];
    if constexpr (kSignedA) {
      lo = _mm512_sub_epi32(lo, corr0);
      hi = _mm512_sub_epi32(hi, corr1);
    }
    update_row<kMasked>(c + i * ldc, lo, hi, init, alpha, valpha, vbeta, m0, m1);
  }
}

using EdgeFn = void (*)(int64_t, const uint8_t*, const int8_t*, int32_t*, int64_t, AccInit, int32_t,
                        int32_t, __mmask16, __mmask16);

template <bool kSignedA, int... Rows>
constexpr auto edge_table(std::integer_sequence<int, Rows...>) {
  return std::array<EdgeFn, sizeof...(Rows)>{&igemm_quads<kSignedA, Rows + 1, true>...};
}

// rows x cols of the tile (1..12 x 1..32): the instance for the rows, C's lanes under masks.
template <bool kSignedA>
void igemm_quads_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                      const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init, int32_t alpha,
                      int32_t beta) {
  static constexpr auto kTable = edge_table<kSignedA>(std::make_integer_sequence<int, MR>{});
  const auto lanes = [](int64_t n) {
    return static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << n) - 1);
  };
  kTable[rows - 1](kc, a_panel, b_panel, c, ldc, init, alpha, beta, lanes(cols),
                   lanes(cols > 16 ? cols - 16 : 0));
}

}  // namespace

void s8s8s32_avx512vnni_12x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                              int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  igemm_quads<true, MR, false>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, 0, 0);
}

void s8s8s32_avx512vnni_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                                   const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                                   int32_t alpha, int32_t beta) {
  igemm_quads_edge<true>(rows, cols, kc, a_panel, b_panel, c, ldc, init, alpha, beta);
}

void u8s8s32_avx512vnni_12x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                              int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  igemm_quads<false, MR, false>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, 0, 0);
}

void u8s8s32_avx512vnni_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                                   const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                                   int32_t alpha, int32_t beta) {
  igemm_quads_edge<false>(rows, cols, kc, a_panel, b_panel, c, ldc, init, alpha, beta);
}

}  // namespace invar::kernels::avx512
