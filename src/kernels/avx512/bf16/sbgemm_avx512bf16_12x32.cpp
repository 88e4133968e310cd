// sbgemm_avx512bf16_12x32: bf16 x bf16 -> f32 with vdpbf16ps over pair panels (bf16.h), the
// instruction alone for the check at detection, and the exponent scan of the guard.
//
// Assumptions (checked by the packers, pack/pack_bf16_pairs.cpp, and the driver):
//   a_panel: kc steps of 12 bf16 values in pairs, alpha (+-1) already applied, element-aligned;
//   b_panel: kc steps of 32 bf16 values in pairs, 64-byte aligned;
//   c: a whole 12 x 32 tile with row stride ldc, any alignment; kc >= 1.
// Nothing in this file is shared with other translation units except the declared entry points.
#include <immintrin.h>

#include "kernels/avx512/bf16/bf16.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int kMr = kSbgemmDotMr;
static_assert(kSbgemmDotNr == 32, "two zmm vectors of 16 pairs per step pair");

// The 32-bit lane {low: p[0], high: p[1]} in every lane.
__m512 broadcast_pair(const uint16_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return _mm512_castsi512_ps(_mm512_set1_epi32(v));
}

// The high and the low bf16 of each lane, widened exactly to f32.
__m512 high_f32(__m512 v) {
  return _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
}
__m512 low_f32(__m512 v) {
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, _mm512_castps_si512(v), 16));
}

// 16 consecutive bf16 values widened exactly to f32.
__m512 widen16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(
      _mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16));
}

float widen1(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

__m512 dot_step(__m512 acc, __m512 a, __m512 b) {
  return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_castps_si512(a), (__m512bh)_mm512_castps_si512(b));
}

// Lanes that are zero or have an exponent of at least -103 (a biased field of 24 or more): the
// multiples of 2^-126 that bf16_dot.h's guard asks of a chain's start.
__mmask16 safe_start(__m512 v) {
  const __m512i mag = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
  return static_cast<__mmask16>(_mm512_cmpeq_epi32_mask(mag, _mm512_setzero_si512()) |
                                _mm512_cmpge_epu32_mask(mag, _mm512_set1_epi32(24 << 23)));
}

}  // namespace

void sbgemm_avx512bf16_12x32(int64_t kc, const uint16_t* a, const uint16_t* b, float* c,
                             int64_t ldc, AccInit init, float beta) {
  __m512 acc[kMr][2];
  bool dot_safe = true;
  if (init == AccInit::kZero) {
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  } else {
    const __m512 vbeta = _mm512_set1_ps(beta);
    __mmask16 ok = 0xffff;
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v) {
        __m512 x = _mm512_loadu_ps(c + i * ldc + 16 * v);
        if (init == AccInit::kScale) x = _mm512_mul_ps(x, vbeta);
        acc[i][v] = x;
        ok = static_cast<__mmask16>(ok & safe_start(x));
      }
    }
    dot_safe = ok == 0xffff;
  }
  const int64_t pairs = kc / 2;
  if (dot_safe) {
    for (int64_t q = 0; q < pairs; ++q, a += 2 * kMr, b += 64) {
      const __m512 b0 = _mm512_load_ps(reinterpret_cast<const float*>(b));
      const __m512 b1 = _mm512_load_ps(reinterpret_cast<const float*>(b + 32));
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        const __m512 ai = broadcast_pair(a + 2 * i);
        acc[i][0] = dot_step(acc[i][0], ai, b0);
        acc[i][1] = dot_step(acc[i][1], ai, b1);
      }
    }
  } else {
    // The same chain, one fma per step on the widened values: step 2q (the high halves), then
    // step 2q + 1 (the low ones).
    for (int64_t q = 0; q < pairs; ++q, a += 2 * kMr, b += 64) {
      const __m512 b0 = _mm512_load_ps(reinterpret_cast<const float*>(b));
      const __m512 b1 = _mm512_load_ps(reinterpret_cast<const float*>(b + 32));
      const __m512 b0h = high_f32(b0), b0l = low_f32(b0), b1h = high_f32(b1), b1l = low_f32(b1);
#pragma GCC unroll 12
      for (int i = 0; i < kMr; ++i) {
        const __m512 ai = broadcast_pair(a + 2 * i);
        const __m512 ah = high_f32(ai), al = low_f32(ai);
        acc[i][0] = _mm512_fmadd_ps(ah, b0h, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(ah, b1h, acc[i][1]);
        acc[i][0] = _mm512_fmadd_ps(al, b0l, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(al, b1l, acc[i][1]);
      }
    }
  }
  if (kc % 2 != 0) {
    // The odd last step alone: one fma on the widened values, so no padding product is added.
    const __m512 b0 = widen16(b), b1 = widen16(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      const __m512 ai = _mm512_set1_ps(widen1(a[i]));
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    _mm512_storeu_ps(c + i * ldc, acc[i][0]);
    _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
  }
  _mm256_zeroupper();
}

void sbgemm_avx512bf16_lanes(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                             float* out) {
  for (int64_t l = 0; l + 16 <= lanes; l += 16) {
    const __m512 va = _mm512_castsi512_ps(_mm512_loadu_si512(a + 2 * l));
    const __m512 vb = _mm512_castsi512_ps(_mm512_loadu_si512(b + 2 * l));
    _mm512_storeu_ps(out + l, dot_step(_mm512_loadu_ps(acc + l), va, vb));
  }
  _mm256_zeroupper();
}

void sbgemm_avx512bf16_spin(int64_t iterations, bool dot) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  __m512 x = _mm512_castsi512_ps(_mm512_set1_epi32(0x3f803f80));  // bf16 pairs {1, 1}
  if (dot) {
    for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; ++i) acc[i] = dot_step(acc[i], x, x);
      __asm__ volatile("" : "+v"(x));  // kept in the loop
    }
  } else {
    for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(x, x, acc[i]);
      __asm__ volatile("" : "+v"(x));
    }
  }
  for (int i = 0; i < 24; ++i) __asm__ volatile("" : : "v"(acc[i]));  // the results are used
  _mm256_zeroupper();
}

int bf16_min_exponent_field(int64_t rows, int64_t cols, const uint16_t* p, int64_t ld) {
  // The smallest of (|x| - 1) as unsigned 16-bit values is that of the smallest nonzero |x|
  // (a zero wraps to 0xffff); its exponent field is then (|x| - 1 + 1) >> 7.
  const __m512i magnitude = _mm512_set1_epi16(0x7fff);
  const __m512i one = _mm512_set1_epi16(1);
  __m512i lowest = _mm512_set1_epi16(-1);
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* row = p + r * ld;
    int64_t j = 0;
    for (; j + 32 <= cols; j += 32) {
      const __m512i x = _mm512_loadu_si512(row + j);
      lowest = _mm512_min_epu16(lowest, _mm512_sub_epi16(_mm512_and_si512(x, magnitude), one));
    }
    if (j < cols) {
      const __mmask32 m = static_cast<__mmask32>((uint64_t{1} << (cols - j)) - 1);
      const __m512i x = _mm512_maskz_loadu_epi16(m, row + j);  // left-out lanes: zeros
      lowest = _mm512_min_epu16(lowest, _mm512_sub_epi16(_mm512_and_si512(x, magnitude), one));
    }
  }
  alignas(64) uint16_t lanes[32];
  _mm512_store_si512(lanes, lowest);
  _mm256_zeroupper();
  uint32_t smallest = 0xffff;
  for (int l = 0; l < 32; ++l) smallest = lanes[l] < smallest ? lanes[l] : smallest;
  return smallest == 0xffff ? 256 : static_cast<int>((smallest + 1) >> 7);
}

}  // namespace invar::kernels::avx512
