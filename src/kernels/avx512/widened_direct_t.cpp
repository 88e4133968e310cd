// The decode step over bf16 operands with B stored transposed (x * W^T; ukernel.h,
// WidenedDirectFn) on the AVX-512 path: m <= kDirectMaxRows rows x any n columns of C, each bf16
// value of W widened exactly to f32 in zmm registers, sixteen rows of W (C's columns) per
// vector, one lane per element and one chain per lane: acc = fma(alpha * op(A)[i][k], W[j][k],
// acc) in increasing k, as the AVX2 kernels (avx2/widened_direct.cpp) and the f32 direct kernels
// compute it, so the bits are those of sgemm on the widened operands.
//
// Each row's 64 bytes (one load, a cache line when W is aligned) are sixteen 32-bit pairs
// (k, k+1); a 16 x 16 transpose of those pairs leaves pair q of the sixteen rows in one vector:
// its low halves shifted up are step 2q widened, its high halves masked step 2q + 1. The
// transposed vectors go through an L1 buffer so that the fmas of two blocks of sixteen rows
// interleave: a decode step's chains are few (m per column of C), each waits for the fma's
// latency, and the chains of one block alone leave the pipes idle (the out-of-order window does
// not reach the next block's). A NaN in W is not given its quiet bit: x86's fma returns the first
// NaN operand by position, quieted, so the result has the bits of the quieted widening.
//
// A is widened into a stack buffer (kBufferFloats), quieted as numeric/half.h does and
// multiplied by alpha (one rounding); past the buffer K is taken in chunks, the accumulators
// stored to C after one and loaded back for the next: the same chain.
//
// f16 stays on the AVX2 kernel: widened by VCVTPH2PS before a 16 x 16 transpose of floats it
// needs twice the shuffles of the bf16 pairs, and the zmm shuffles have one port against the
// ymm ones' two; it ran at 0.8x the AVX2 kernel (Intel Xeon family 6 model 207, W 4096 x 4096,
// M = 1, one thread).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/avx512/avx512.h"

namespace invar::kernels::avx512 {
namespace {

// A's buffer on the stack: step p of row i at p * m + i, 4096 / m steps (rounded down to 32) per
// pass over W, all of K in one pass up to 4096 steps for one row.
constexpr int64_t kBufferFloats = 4096;

// Steps per iteration: a row's 64 bytes.
constexpr int kSteps = 32;

// Blocks of sixteen rows of W side by side (their chains interleaved).
constexpr int kBlocks = 2;

// Software prefetch distance along each row of W, in bytes, into L2 only: the 32 rows in flight
// are often a power of two apart, in one L1 set, where lines prefetched ahead would evict one
// another before their load. (Into L1 at 512 bytes measured the same, within the noise.)
constexpr int64_t kAheadBytes = 1024;

// One W value, widened (not quieted: see above).
float w_value(const uint16_t* p) {
  const uint32_t u = static_cast<uint32_t>(*p) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// One A value, widened as numeric/half.h widens it (a NaN gets its quiet bit).
float a_value(const uint16_t* p) {
  uint32_t u = static_cast<uint32_t>(*p) << 16;
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The shuffles and the shift, in their zero-masking forms under a full mask (the
// same instructions): the plain intrinsics pass an undefined vector that trips GCC 12's
// -Wmaybe-uninitialized inside its own header.
constexpr __mmask16 kAll = 0xFFFF;
inline __m512i unpacklo32(__m512i a, __m512i b) { return _mm512_maskz_unpacklo_epi32(kAll, a, b); }
inline __m512i unpackhi32(__m512i a, __m512i b) { return _mm512_maskz_unpackhi_epi32(kAll, a, b); }
inline __m512i unpacklo64(__m512i a, __m512i b) { return _mm512_maskz_unpacklo_epi64(0xFF, a, b); }
inline __m512i unpackhi64(__m512i a, __m512i b) { return _mm512_maskz_unpackhi_epi64(0xFF, a, b); }
inline __m512i shift_up16(__m512i a) { return _mm512_maskz_slli_epi32(kAll, a, 16); }
template <int kImm>
inline __m512i lanes(__m512i a, __m512i b) {
  return _mm512_maskz_shuffle_i32x4(kAll, a, b, kImm);
}

// r[l] holds row l (sixteen 32-bit values); afterwards r[q] holds column q, lane l = old r[l][q].
inline __attribute__((always_inline)) void transpose16(__m512i (&r)[16]) {
  __m512i a[16], b[16];
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = unpacklo32(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = unpackhi32(r[2 * i], r[2 * i + 1]);
  }
  // b[4g + e], 128-bit lane L: column 4L + e of rows 4g .. 4g + 3.
  for (int g = 0; g < 4; ++g) {
    b[4 * g] = unpacklo64(a[4 * g], a[4 * g + 2]);
    b[4 * g + 1] = unpackhi64(a[4 * g], a[4 * g + 2]);
    b[4 * g + 2] = unpacklo64(a[4 * g + 1], a[4 * g + 3]);
    b[4 * g + 3] = unpackhi64(a[4 * g + 1], a[4 * g + 3]);
  }
  for (int e = 0; e < 4; ++e) {
    const __m512i c0 = lanes<0x88>(b[e], b[4 + e]);
    const __m512i c1 = lanes<0xDD>(b[e], b[4 + e]);
    const __m512i c2 = lanes<0x88>(b[8 + e], b[12 + e]);
    const __m512i c3 = lanes<0xDD>(b[8 + e], b[12 + e]);
    r[e] = lanes<0x88>(c0, c2);
    r[4 + e] = lanes<0x88>(c1, c3);
    r[8 + e] = lanes<0xDD>(c0, c2);
    r[12 + e] = lanes<0xDD>(c1, c3);
  }
}

template <int M, int G>
using Acc = __m512[M][G];

// Sixteen rows of W (row l at row[l]), steps [p, p + 32): t[q] lane l = row l's pair
// (p + 2q, p + 2q + 1), unwidened.
inline __attribute__((always_inline)) void transpose_pairs(const uint16_t* const* row, int64_t p,
                                                           __m512i* t) {
  __m512i r[16];
  for (int l = 0; l < 16; ++l) r[l] = _mm512_loadu_si512(row[l] + p);
  transpose16(r);
  for (int q = 0; q < 16; ++q) _mm512_store_si512(t + q, r[q]);
}

// The chains of G blocks side by side over steps [p, p + 32), from their transposed pairs.
template <int M, int G>
void fmas(Acc<M, G>& acc, const float* abuf, const __m512i (*t)[16], int64_t p) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
#pragma GCC unroll 16
  for (int q = 0; q < 16; ++q) {
    __m512 even[G], odd[G];
    for (int h = 0; h < G; ++h) {
      const __m512i bits = _mm512_load_si512(&t[h][q]);
      even[h] = _mm512_castsi512_ps(shift_up16(bits));
      odd[h] = _mm512_castsi512_ps(_mm512_and_si512(bits, high));
    }
    const float* a0 = abuf + (p + 2 * q) * M;
    for (int i = 0; i < M; ++i) {
      const __m512 av = _mm512_set1_ps(a0[i]);
      for (int h = 0; h < G; ++h) acc[i][h] = _mm512_fmadd_ps(av, even[h], acc[i][h]);
    }
    for (int i = 0; i < M; ++i) {
      const __m512 av = _mm512_set1_ps(a0[M + i]);
      for (int h = 0; h < G; ++h) acc[i][h] = _mm512_fmadd_ps(av, odd[h], acc[i][h]);
    }
  }
}

// Rows [0, m) of op(A) over steps [p0, p0 + kc), widened, times alpha when alpha != 1, at
// abuf[p * m + i].
void widen_a(int64_t m, int64_t p0, int64_t kc, float alpha, const uint16_t* a, int64_t a_rs,
             int64_t a_cs, float* abuf) {
  const bool scale = alpha != 1.0f;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < kc; ++p) {
      const float x = a_value(a + i * a_rs + (p0 + p) * a_cs);
      abuf[p * m + i] = scale ? alpha * x : x;
    }
  }
}

// G blocks of sixteen rows of W from b (the first `valid` rows real: the others repeat row 0 and
// their lanes are never stored) over kc steps, for M rows of C at c.
template <int M, int G>
void t_block(int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, int64_t valid, float* c,
             int64_t ldc, AccInit init, float beta) {
  const uint16_t* row[G][16];
  for (int h = 0; h < G; ++h)
    for (int l = 0; l < 16; ++l) row[h][l] = b + (16 * h + l < valid ? 16 * h + l : 0) * ldb;
  __mmask16 mask[G];
  for (int h = 0; h < G; ++h) {
    const int64_t left = valid - 16 * h;
    mask[h] = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  }
  Acc<M, G> acc;
  const __m512 vbeta = _mm512_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    for (int h = 0; h < G; ++h) {
      if (init == AccInit::kZero) {
        acc[i][h] = _mm512_setzero_ps();
      } else {
        const __m512 cv = _mm512_maskz_loadu_ps(mask[h], c + i * ldc + 16 * h);
        acc[i][h] = init == AccInit::kLoad ? cv : _mm512_mul_ps(vbeta, cv);
      }
    }
  }
  alignas(64) __m512i t[G][16];
  int64_t p = 0;
  for (; p + kSteps <= kc; p += kSteps) {
    for (int h = 0; h < G; ++h)
      for (int l = 0; l < 16; ++l)
        _mm_prefetch(reinterpret_cast<const char*>(row[h][l] + p) + kAheadBytes, _MM_HINT_T1);
    for (int h = 0; h < G; ++h) transpose_pairs(row[h], p, t[h]);
    fmas<M, G>(acc, abuf, t, p);
  }
  for (; p < kc; ++p) {
    for (int h = 0; h < G; ++h) {
      alignas(64) float w[16];
      for (int l = 0; l < 16; ++l) w[l] = w_value(row[h][l] + p);
      const __m512 wv = _mm512_load_ps(w);
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm512_fmadd_ps(_mm512_set1_ps(abuf[p * M + i]), wv, acc[i][h]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int h = 0; h < G; ++h) _mm512_mask_storeu_ps(c + i * ldc + 16 * h, mask[h], acc[i][h]);
}

template <int M>
void t_all(int64_t n, int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c,
           int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 16 * kBlocks <= n; j += 16 * kBlocks)
    t_block<M, kBlocks>(kc, abuf, b + j * ldb, ldb, 16 * kBlocks, c + j, ldc, init, beta);
  for (; j < n; j += 16)
    t_block<M, 1>(kc, abuf, b + j * ldb, ldb, n - j < 16 ? n - j : 16, c + j, ldc, init, beta);
}

}  // namespace

void sbgemm_avx512_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                            int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta) {
  alignas(64) float abuf[kBufferFloats];
  const int64_t chunk = kBufferFloats / m / kSteps * kSteps;
  for (int64_t p0 = 0; p0 < k; p0 += chunk) {
    const int64_t kc = k - p0 < chunk ? k - p0 : chunk;
    widen_a(m, p0, kc, alpha, a, a_rs, a_cs, abuf);
    const AccInit first = p0 == 0 ? init : AccInit::kLoad;
    switch (m) {
      case 1: t_all<1>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta); break;
      case 2: t_all<2>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta); break;
      case 3: t_all<3>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta); break;
      default: t_all<4>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta); break;
    }
  }
}

}  // namespace invar::kernels::avx512
