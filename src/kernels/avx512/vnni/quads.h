// The byte quad operations that the VNNI and AMX integer kernels share (kernels/ukernel.h's
// layouts). For the translation units built with AVX-512 BW and VNNI (vnni/ and amx/, each with
// its own flags; internal linkage keeps each unit's copy its own).
#ifndef INVAR_KERNELS_AVX512_VNNI_QUADS_H_
#define INVAR_KERNELS_AVX512_VNNI_QUADS_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/ukernel.h"

namespace invar::kernels::avx512 {
namespace {

// A row's quad of unsigned bytes (four k steps), in every int32 lane.
inline __attribute__((always_inline)) __m512i quad(const uint8_t* a) {
  int32_t v;
  std::memcpy(&v, a, sizeof v);
  return _mm512_set1_epi32(v);
}

// Sixteen bytes, each zero-extended to its own int32 lane: a tail step's B row as quads {b, 0, 0,
// 0}. (The masked form with every lane selected is the same instruction; the unmasked intrinsic
// trips GCC 12's -Wmaybe-uninitialized inside its own header.)
inline __attribute__((always_inline)) __m512i bytes_to_lanes(const int8_t* b) {
  return _mm512_maskz_cvtepu8_epi32(__mmask16{0xFFFF},
                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
}

// The kernels' panels of B are 32 columns wide: a quad step's two vectors are 128 bytes.
inline constexpr int kQuadNr = 32;

// acc[i][v] += the products of `quads` quad steps, rows i < R of A against the 32 columns of B:
// row i's quad of step q at a[4 * (q * W + i)] (a panel W rows wide, from its row 0 or a later
// one), B's at b[128 q]. kCorr: corr[v] += 128 * the same quads of B (an s8 A's correction,
// ukernel.h), which one group of rows takes for all.
template <bool kCorr, int R, int W>
inline __attribute__((always_inline)) void add_quads(int64_t quads, const uint8_t* a,
                                                     const int8_t* b, __m512i (&acc)[R][2],
                                                     __m512i& corr0, __m512i& corr1) {
  const __m512i all128 = _mm512_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 2
  for (int64_t q = 0; q < quads; ++q) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 64);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const __m512i ai = quad(a + 4 * i);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
    }
    if constexpr (kCorr) {
      corr0 = _mm512_dpbusd_epi32(corr0, all128, b0);
      corr1 = _mm512_dpbusd_epi32(corr1, all128, b1);
    }
    a += 4 * W;
    b += 4 * kQuadNr;
  }
}

// The same for the `tail` (< 4) single steps after the quads: row i's byte of step h at
// at[W * h + i], B's 32 bytes at bt + 32 h. A step pairs the zero-extended byte of A with B's
// byte zero-extended to a lane: one product, three zero ones.
template <bool kCorr, int R, int W>
inline __attribute__((always_inline)) void add_tail(int tail, const uint8_t* at, const int8_t* bt,
                                                    __m512i (&acc)[R][2], __m512i& corr0,
                                                    __m512i& corr1) {
  const __m512i one128 = _mm512_set1_epi32(0x80);
  for (int h = 0; h < tail; ++h) {
    const __m512i b0 = bytes_to_lanes(bt + kQuadNr * h);
    const __m512i b1 = bytes_to_lanes(bt + kQuadNr * h + 16);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      const __m512i ai = _mm512_set1_epi32(at[W * h + i]);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
    }
    if constexpr (kCorr) {
      corr0 = _mm512_dpbusd_epi32(corr0, one128, b0);
      corr1 = _mm512_dpbusd_epi32(corr1, one128, b1);
    }
  }
}

// A row of 32 C elements <- init + alpha * (lo, hi), modulo 2^32 (alpha == 1 skips the multiply;
// valpha and vbeta hold alpha and beta in every lane). kMasked: C's two vectors are read and
// written under m0 and m1 (masked-off lanes are neither read nor written), else whole.
template <bool kMasked>
inline __attribute__((always_inline)) void update_row(int32_t* row, __m512i lo, __m512i hi,
                                                      AccInit init, int32_t alpha, __m512i valpha,
                                                      __m512i vbeta, __mmask16 m0, __mmask16 m1) {
  auto load = [](const int32_t* p, __mmask16 m) {
    return kMasked ? _mm512_maskz_loadu_epi32(m, p) : _mm512_loadu_si512(p);
  };
  if (alpha != 1) {
    lo = _mm512_mullo_epi32(lo, valpha);
    hi = _mm512_mullo_epi32(hi, valpha);
  }
  if (init == AccInit::kLoad) {
    lo = _mm512_add_epi32(lo, load(row, m0));
    hi = _mm512_add_epi32(hi, load(row + 16, m1));
  } else if (init == AccInit::kScale) {
    lo = _mm512_add_epi32(lo, _mm512_mullo_epi32(vbeta, load(row, m0)));
    hi = _mm512_add_epi32(hi, _mm512_mullo_epi32(vbeta, load(row + 16, m1)));
  }
  if constexpr (kMasked) {
    _mm512_mask_storeu_epi32(row, m0, lo);
    _mm512_mask_storeu_epi32(row + 16, m1, hi);
  } else {
    _mm512_storeu_si512(row, lo);
    _mm512_storeu_si512(row + 16, hi);
  }
}

}  // namespace
}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_VNNI_QUADS_H_
