// Byte quad packers of the VNNI integer kernels for row-major operands (the layout of ukernel.h;
// pack/pack_quads.cpp is the portable packer of every layout, and these write the same bytes).
//
// A (s8s8s32_avx512vnni_pack_a12, u8...): a quad of row i is four contiguous bytes of the row,
// so eight quads of eight rows are an 8 x 8 matrix of 32-bit lanes: transposed in registers
// (transpose8.h), they are eight steps of the panel; rows 8..11 go through a second transpose
// of four rows. An s8 A gets its top bits flipped (a + 128) on the way.
// B (igemm_avx512vnni_pack_b32): four rows of 32 bytes interleave bytewise into the 128 bytes
// of one quad step (column j's four bytes side by side): two rounds of unpacks and a swap of
// 128-bit halves. Rows go in bands, panel by panel within a band, so each source row is read
// left to right.
//
// Edges (a last panel of fewer rows or columns, the last kc % 4 steps, the quads past a multiple
// of eight in A) are copied byte by byte, as the portable packer does.
#include <immintrin.h>

#include <cstring>

#include "kernels/avx2/transpose8.h"
#include "kernels/avx512/avx512.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int MR = kIgemmMr;
constexpr int NR = kIgemmNr;
static_assert(MR == 12 && NR == 32, "rows 0..7 and 8..11; four ymm of B per quad step");

template <bool kFlip>
inline uint8_t a_byte(uint8_t v) {
  return kFlip ? static_cast<uint8_t>(v ^ 0x80u) : v;
}

// One panel of `rows` <= MR rows, byte by byte: steps [p0, kc), zero (128 for a flipped A) past
// `rows`.
template <bool kFlip>
void a_panel_bytes(int64_t rows, int64_t p0, int64_t kc, const uint8_t* a, int64_t lda,
                   uint8_t* dst) {
  const int64_t quads = kc / 4;
  for (int64_t p = p0; p < kc; ++p) {
    for (int64_t i = 0; i < MR; ++i) {
      const uint8_t v = a_byte<kFlip>(i < rows ? a[i * lda + p] : 0);
      const int64_t at = p < 4 * quads ? (p / 4) * 4 * MR + 4 * i + p % 4 : p * MR + i;
      dst[at] = v;
    }
  }
}

template <bool kFlip>
void pack_a12(int64_t mc, int64_t kc, const uint8_t* a, int64_t lda, uint8_t* dst) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(kFlip ? 0x80 : 0));
  const int64_t quads = kc / 4;
  const int64_t quads8 = quads / 8 * 8;
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, a += MR * lda, dst += MR * kc) {
    for (int64_t q = 0; q < quads8; q += 8) {
      const uint8_t* src = a + 4 * q;
      uint8_t* d = dst + 4 * q * MR;
      __m256 t[8];
      for (int l = 0; l < 8; ++l) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + l * lda));
        t[l] = _mm256_castsi256_ps(_mm256_xor_si256(v, flip));
      }
      avx2::transpose8(t);  // t[s]: the quads of rows 0..7 at quad step q + s
      for (int s = 0; s < 8; ++s) _mm256_storeu_ps(reinterpret_cast<float*>(d + 4 * MR * s), t[s]);
      for (int l = 0; l < 8; ++l) {
        if (l < 4) {
          const __m256i v =
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + (8 + l) * lda));
          t[l] = _mm256_castsi256_ps(_mm256_xor_si256(v, flip));
        } else {
          t[l] = _mm256_setzero_ps();
        }
      }
      avx2::transpose8(t);  // lanes 0..3 of t[s]: the quads of rows 8..11
      for (int s = 0; s < 8; ++s)
        _mm_storeu_ps(reinterpret_cast<float*>(d + 4 * MR * s + 32), _mm256_castps256_ps128(t[s]));
    }
    a_panel_bytes<kFlip>(MR, 4 * quads8, kc, a, lda, dst);
  }
  if (r0 < mc) a_panel_bytes<kFlip>(mc - r0, 0, kc, a, lda, dst);
}

// Steps [p0, kc) of columns [c0, c0 + cols) into one panel at dst, byte by byte, zero past cols.
void b_panel_bytes(int64_t cols, int64_t p0, int64_t kc, const int8_t* b, int64_t ldb,
                   int8_t* dst) {
  const int64_t quads = kc / 4;
  for (int64_t p = p0; p < kc; ++p) {
    for (int64_t j = 0; j < NR; ++j) {
      const int8_t v = j < cols ? b[p * ldb + j] : int8_t{0};
      const int64_t at = p < 4 * quads ? (p / 4) * 4 * NR + 4 * j + p % 4 : p * NR + j;
      dst[at] = v;
    }
  }
}

void pack_b32(int64_t kc, int64_t nc, const int8_t* b, int64_t ldb, int8_t* dst) {
  constexpr int64_t kBand = 8;  // quad steps per band
  const int64_t full = nc / NR;
  const int64_t quads = kc / 4;
  for (int64_t q0 = 0; q0 < quads; q0 += kBand) {
    const int64_t q1 = q0 + kBand < quads ? q0 + kBand : quads;
    for (int64_t s = 0; s < full; ++s) {
      for (int64_t q = q0; q < q1; ++q) {
        const int8_t* src = b + 4 * q * ldb + s * NR;
        auto row = [&](int h) {
          return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + h * ldb));
        };
        const __m256i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
        const __m256i t0 = _mm256_unpacklo_epi8(r0, r1), t1 = _mm256_unpackhi_epi8(r0, r1);
        const __m256i t2 = _mm256_unpacklo_epi8(r2, r3), t3 = _mm256_unpackhi_epi8(r2, r3);
        // Columns 0..3 | 16..19, 4..7 | 20..23, 8..11 | 24..27, 12..15 | 28..31.
        const __m256i u0 = _mm256_unpacklo_epi16(t0, t2), u1 = _mm256_unpackhi_epi16(t0, t2);
        const __m256i u2 = _mm256_unpacklo_epi16(t1, t3), u3 = _mm256_unpackhi_epi16(t1, t3);
        __m256i* d = reinterpret_cast<__m256i*>(dst + s * NR * kc + 4 * q * NR);
        _mm256_storeu_si256(d + 0, _mm256_permute2x128_si256(u0, u1, 0x20));
        _mm256_storeu_si256(d + 1, _mm256_permute2x128_si256(u2, u3, 0x20));
        _mm256_storeu_si256(d + 2, _mm256_permute2x128_si256(u0, u1, 0x31));
        _mm256_storeu_si256(d + 3, _mm256_permute2x128_si256(u2, u3, 0x31));
      }
    }
  }
  for (int64_t s = 0; s < full; ++s)
    b_panel_bytes(NR, 4 * quads, kc, b + s * NR, ldb, dst + s * NR * kc);
  if (full * NR < nc)
    b_panel_bytes(nc - full * NR, 0, kc, b + full * NR, ldb, dst + full * NR * kc);
}

}  // namespace

void s8s8s32_avx512vnni_pack_a12(int64_t mc, int64_t kc, const int8_t* a, int64_t lda,
                                 uint8_t* dst) {
  pack_a12<true>(mc, kc, reinterpret_cast<const uint8_t*>(a), lda, dst);
}

void u8s8s32_avx512vnni_pack_a12(int64_t mc, int64_t kc, const uint8_t* a, int64_t lda,
                                 uint8_t* dst) {
  pack_a12<false>(mc, kc, a, lda, dst);
}

void igemm_avx512vnni_pack_b32(int64_t kc, int64_t nc, const int8_t* b, int64_t ldb, int8_t* dst) {
  pack_b32(kc, nc, b, ldb, dst);
}

}  // namespace invar::kernels::avx512
