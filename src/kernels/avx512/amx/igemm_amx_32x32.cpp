// s8s8s32_amx_32x32 and u8s8s32_amx_32x32: the integer micro-kernels of the AVX-512 path on CPUs
// with AMX-INT8 (built with -mamx-tile -mamx-int8 on top of the VNNI kernels' flags; chosen at
// run time from the CPU's own flags and the process's tile permission, arch/cpu_features.h).
//
// Assumptions (the AMX panels of ukernel.h and pack.h):
//   a_panel: chunk t < kc / 64 holds rows 0..31 of steps 64t.. at a_panel[2048t + 64i + h], s8 A
//            as it is; the remainder (kc % 64 steps) follows in the byte quad layout with MR = 32,
//            s8 A as a + 128;
//   b_panel: the byte quad layout with NR = 32: element (4q + h, j) at b_panel[128q + 4j + h],
//            the last kc % 4 steps at b_panel[128Q + 32h + j]; any alignment;
//   c: a whole 32 x 32 tile (the _edge forms: rows x cols of it) with row stride ldc, any
//      alignment; kc >= 1.
//
// Eight tile registers: tmm0..3 C's four 16 x 16 quarters (C[16r..][16s..] in tmm(2r + s)),
// tmm4 and tmm5 rows 0..15 and 16..31 of A's chunk, tmm6 and tmm7 columns 0..15 and 16..31 of
// B's. Each chunk is four tile products: every element of C gets the 64 products of its row and
// column, exact (|a * b| <= 255 * 128), added to its int32 modulo 2^32: tdpbusd for u8 A, tdpbssd
// for s8 A. The remainder runs first, on zmm registers as the VNNI kernel runs it (vpdpbusd, an
// s8 A's correction subtracted); its sums seed the C tiles. Integer sums modulo 2^32 do not depend
// on order or grouping, so every element's bits are the quad and pair kernels'.
//
// A thread's first tile configures the tiles (ldtilecfg, which costs about as much as a short
// tile's work), and they stay configured across its tiles until amx_release_tiles: the driver
// calls it when a thread has run its last tile of a product (GemmKernel::release), which returns
// the thread's tile state to its initial one, so the OS need not save 8 KiB of tiles per context
// switch after the call, and a caller's own use of the tiles between calls meets no state of
// ours.
//
// C goes straight between memory and the C tiles (tileloadd from C, tilestored to C) for a whole
// tile with alpha 1 that adds to C or overwrites it, without a remainder; every other call
// passes the sums through a buffer and applies alpha, beta and the masks on zmm registers.
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx512/avx512.h"
#include "kernels/avx512/vnni/quads.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int MR = kIgemmAmxMr;
constexpr int NR = kIgemmAmxNr;
constexpr int kChunk = 64;  // k steps per tile product: 64 bytes of an A tile row
static_assert(MR == 32 && NR == kQuadNr, "two by two tiles of 16 x 16 int32");

// LDTILECFG's 64-byte operand, palette 1: eight tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
static_assert(sizeof(TileConfig) == 64);
const TileConfig kTileConfig;

// Whether this thread's tiles hold kTileConfig (set by the first tile, cleared by the release).
thread_local bool t_tiles_configured = false;

inline void configure_tiles() {
  if (!t_tiles_configured) {
    _tile_loadconfig(&kTileConfig);
    t_tiles_configured = true;
  }
}

// tmm0..3 += the chunks' products, chunk by chunk.
template <bool kSignedA>
inline __attribute__((always_inline)) void chunk_products(int64_t chunks, const uint8_t* a,
                                                          const int8_t* b) {
  for (int64_t t = 0; t < chunks; ++t) {
    _tile_loadd(4, a, kChunk);
    _tile_loadd(6, b, NR * 4);
    _tile_loadd(7, b + 64, NR * 4);
    _tile_loadd(5, a + 16 * kChunk, kChunk);
    if constexpr (kSignedA) {
      _tile_dpbssd(0, 4, 6);
      _tile_dpbssd(1, 4, 7);
      _tile_dpbssd(2, 5, 6);
      _tile_dpbssd(3, 5, 7);
    } else {
      _tile_dpbusd(0, 4, 6);
      _tile_dpbusd(1, 4, 7);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
    a += kChunk * MR;
    b += kChunk * NR;
  }
}

// sums[i0 + i][j] (row stride NR) <- rows i0 .. i0 + 7 of the remainder's sums, the VNNI
// kernels' chains over its quads and tail steps (vnni/quads.h); kCorr: this group also sums the
// s8 A's correction into corr, which every group subtracts.
template <bool kCorr, bool kSignedA>
void remainder_rows(int i0, int quads, int tail, const uint8_t* a, const int8_t* b, __m512i& corr0,
                    __m512i& corr1, int32_t* sums) {
  constexpr int kRows = 8;  // 16 accumulators
  __m512i acc[kRows][2];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  add_quads<kCorr, kRows, MR>(quads, a + 4 * i0, b, acc, corr0, corr1);
  add_tail<kCorr, kRows, MR>(tail, a + 4 * quads * MR + i0, b + 4 * quads * NR, acc, corr0, corr1);
  const __m512i c0 = kSignedA ? corr0 : _mm512_setzero_si512();
  const __m512i c1 = kSignedA ? corr1 : _mm512_setzero_si512();
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
    _mm512_store_si512(sums + (i0 + i) * NR, _mm512_sub_epi32(acc[i][0], c0));
    _mm512_store_si512(sums + (i0 + i) * NR + 16, _mm512_sub_epi32(acc[i][1], c1));
  }
}

// sums (32 x 32, row stride NR) <- the sums of the remainder's rem steps (1..63) for all rows,
// eight rows at a time, the first group taking the correction for all.
template <bool kSignedA>
void remainder_sums(int rem, const uint8_t* a, const int8_t* b, int32_t* sums) {
  __m512i corr0 = _mm512_setzero_si512(), corr1 = _mm512_setzero_si512();
  remainder_rows<kSignedA, kSignedA>(0, rem / 4, rem % 4, a, b, corr0, corr1, sums);
  for (int i0 = 8; i0 < MR; i0 += 8)
    remainder_rows<false, kSignedA>(i0, rem / 4, rem % 4, a, b, corr0, corr1, sums);
}

// rows x cols of the tile (1..32 x 1..32): the sums of all 32 x 32 in the tiles, then C's rows
// under masks (masked-off lanes are neither read nor written).
template <bool kSignedA>
void igemm_amx(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c, int64_t ldc,
               AccInit init, int32_t alpha, int32_t beta, int64_t rows, int64_t cols) {
  const int64_t chunks = kc / kChunk;
  const int rem = static_cast<int>(kc % kChunk);
  if (rem == 0 && alpha == 1 && rows == MR && cols == NR && init != AccInit::kScale) {
    const int64_t stride = ldc * 4;
    configure_tiles();
    if (init == AccInit::kLoad) {
      _tile_loadd(0, c, stride);
      _tile_loadd(1, c + 16, stride);
      _tile_loadd(2, c + 16 * ldc, stride);
      _tile_loadd(3, c + 16 * ldc + 16, stride);
    } else {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    }
    chunk_products<kSignedA>(chunks, a_panel, b_panel);
    _tile_stored(0, c, stride);
    _tile_stored(1, c + 16, stride);
    _tile_stored(2, c + 16 * ldc, stride);
    _tile_stored(3, c + 16 * ldc + 16, stride);
    return;
  }

  alignas(64) int32_t sums[MR * NR];
  if (rem != 0)
    remainder_sums<kSignedA>(rem, a_panel + chunks * kChunk * MR, b_panel + chunks * kChunk * NR,
                             sums);
  configure_tiles();
  if (rem != 0) {
    _tile_loadd(0, sums, NR * 4);
    _tile_loadd(1, sums + 16, NR * 4);
    _tile_loadd(2, sums + 16 * NR, NR * 4);
    _tile_loadd(3, sums + 16 * NR + 16, NR * 4);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  chunk_products<kSignedA>(chunks, a_panel, b_panel);
  _tile_stored(0, sums, NR * 4);
  _tile_stored(1, sums + 16, NR * 4);
  _tile_stored(2, sums + 16 * NR, NR * 4);
  _tile_stored(3, sums + 16 * NR + 16, NR * 4);

  // C row <- init + alpha * sums, modulo 2^32, under masks.
  const auto lanes = [](int64_t n) {
    return static_cast<__mmask16>(n >= 16 ? 0xFFFFu : n <= 0 ? 0u : (1u << n) - 1);
  };
  const __mmask16 m0 = lanes(cols), m1 = lanes(cols - 16);
  const __m512i valpha = _mm512_set1_epi32(alpha);
  const __m512i vbeta = _mm512_set1_epi32(beta);
  for (int64_t i = 0; i < rows; ++i) {
    update_row<true>(c + i * ldc, _mm512_load_si512(sums + i * NR),
                     _mm512_load_si512(sums + i * NR + 16), init, alpha, valpha, vbeta, m0, m1);
  }
  _mm256_zeroupper();
}

}  // namespace

void amx_release_tiles() {
  if (t_tiles_configured) {
    _tile_release();
    t_tiles_configured = false;
  }
}

void s8s8s32_amx_32x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  igemm_amx<true>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, MR, NR);
}

void s8s8s32_amx_32x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                            const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                            int32_t alpha, int32_t beta) {
  igemm_amx<true>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, rows, cols);
}

void u8s8s32_amx_32x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  igemm_amx<false>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, MR, NR);
}

void u8s8s32_amx_32x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                            const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                            int32_t alpha, int32_t beta) {
  igemm_amx<false>(kc, a_panel, b_panel, c, ldc, init, alpha, beta, rows, cols);
}

}  // namespace invar::kernels::avx512
