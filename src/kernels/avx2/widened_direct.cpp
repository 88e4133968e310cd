// The decode step over bf16 and f16 operands (ukernel.h, WidenedDirectFn) on AVX2: the body is
// kernels/widened_direct_body.h's over ymm vectors of eight f32 (vec.h), B in groups of 16
// columns (row-major, or 16-bit panels of 16 or 32 columns) or stored transposed.
//
// Widening: bf16 is the 16 bits at the top of the f32 (vpmovzxwd and a shift, or a shift or mask
// of two values that a 32-bit transpose moved together); f16 goes through VCVTPH2PS (F16C),
// exact for every value. A bf16 NaN in B is not given its quiet bit: x86's fused multiply-add
// returns the first NaN operand by position, quieted, whether it was signaling or not, so a
// signaling B value yields the bits of its quieted widening (the tests hold signaling NaNs to
// that). A is quieted as numeric/half.h does.
//
// The AVX-512 path runs these kernels too. A zmm kernel for bf16 x * W^T (sixteen rows of W per
// vector, a row's 64 bytes as sixteen pairs through a 16 x 16 transpose, two blocks of sixteen
// rows with their chains interleaved) was 1.1-1.25x this one with W in L2 but slower in the
// decode bench at W 4096 x 4096 (best of 21: 1.40-1.75x the f32 decode against 1.67-1.86x for
// this kernel; Intel Xeon family 6 model 207, one thread): zmm shuffles have one port where ymm
// ones have two, and 32 rows of W in flight stream worse than 16. f16 widened before the
// transpose needs twice the shuffles and ran at 0.8x.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/transpose8.h"
#include "kernels/avx2/vec.h"
#include "kernels/widened_direct_body.h"

namespace invar::kernels::avx2 {
namespace {

// Up to this many rows, the transposed kernels run two blocks of eight rows of W side by side:
// one block gives each row of C a single chain per eight columns, bound by the fma's latency,
// and a 16-bit W streams fast enough for that to show. Measured on the Intel Xeon of
// block_sizes.h (machine shared and loaded), x * W^T, M = 1, one thread, bf16 against f32: W
// 4096 x 4096 1.05x with one block, 1.50x with two; 512 x 1024 (in L2) 0.92x and 1.27x. Four
// blocks (32 rows of W, in as few L1 sets) fell to 0.88x in L2.
constexpr int kTwinRows = 2;

// One B value, widened (not quieted: see above).
float bf16_value(const uint16_t* p) {
  const uint32_t u = static_cast<uint32_t>(*p) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

float f16_value(const uint16_t* p) { return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(*p))); }

// The accumulators of M rows of C by G vectors of eight columns.
template <int M, int G>
using Acc = __m256[M][G];

struct Bf16 {
  static constexpr int kSteps = 16;
  static __m256 widen(const uint16_t* p) {
    const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
  }
  static float widen1(const uint16_t* p) { return bf16_value(p); }
  // One A value, widened as numeric/half.h widens it (a NaN gets its quiet bit).
  static float widen_a(const uint16_t* p) {
    uint32_t u = static_cast<uint32_t>(*p) << 16;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  // Eight rows of W (bh, ldb apart), sixteen steps from p. Each row's 32 bytes are eight 32-bit
  // pairs (k, k+1) and an 8 x 8 transpose of those pairs leaves pair q of all eight rows in one
  // vector: its low halves shifted up are step 2q widened, its high halves masked are step
  // 2q + 1. Half the shuffles of widening first and transposing floats.
  template <int M, int G>
  static void steps(Acc<M, G>& acc, int h, const float* abuf, const uint16_t* bh, int64_t ldb,
                    int64_t p) {
    const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
    __m256 r[8];
    for (int l = 0; l < 8; ++l)
      r[l] = _mm256_castsi256_ps(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bh + l * ldb + p)));
    transpose8(r);  // r[q] lane l = row l's pair (p + 2q, p + 2q + 1)
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
      const __m256i bits = _mm256_castps_si256(r[q]);
      const __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(bits, 16));
      const __m256 odd = _mm256_castsi256_ps(_mm256_and_si256(bits, high));
      const float* a0 = abuf + (p + 2 * q) * M;
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + i), even, acc[i][h]);
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + M + i), odd, acc[i][h]);
    }
  }
};

struct F16 {
  static constexpr int kSteps = 8;
  static __m256 widen(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static float widen1(const uint16_t* p) { return f16_value(p); }
  static float widen_a(const uint16_t* p) { return f16_value(p); }
  // Eight rows of W, eight steps from p: each row's eight values widened (VCVTPH2PS), then the
  // f32 transpose.
  template <int M, int G>
  static void steps(Acc<M, G>& acc, int h, const float* abuf, const uint16_t* bh, int64_t ldb,
                    int64_t p) {
    __m256 r[8];
    for (int l = 0; l < 8; ++l) r[l] = widen(bh + l * ldb + p);
    transpose8(r);  // r[q] = B[p + q][8h .. 8h + 7]
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(abuf + (p + q) * M + i), r[q], acc[i][h]);
    }
  }
};

// The operations of the body over ymm vectors (widened_direct_body.h) for the widening H, Bf16 or
// F16: A's value broadcast once per step, then vfmadd231ps with it first, as in the f32 kernels.
template <class H>
struct Avx2 : F32Vec, H {
  using A = __m256;
  static constexpr int kChunkSteps = 32;  // a multiple of kSteps
  // Prefetch distance along each row of a transposed W (the f32 kernel's 128 floats).
  static constexpr int64_t kAheadBytes = 512;
  static constexpr int64_t kRowsAhead = 16;
  static A a(const float* p) { return _mm256_broadcast_ss(p); }
  static __m256 fma_a(A a, __m256 b, __m256 acc) { return _mm256_fmadd_ps(a, b, acc); }
  static __m256 gather(const uint16_t* p, int64_t ld) {
    return _mm256_setr_ps(H::widen1(p), H::widen1(p + ld), H::widen1(p + 2 * ld),
                          H::widen1(p + 3 * ld), H::widen1(p + 4 * ld), H::widen1(p + 5 * ld),
                          H::widen1(p + 6 * ld), H::widen1(p + 7 * ld));
  }
  // M * rows_wide(M) + M + 1 registers of 16.
  static constexpr int rows_wide(int m) { return m == 1 ? 8 : m == 2 ? 4 : 2; }
  static constexpr int t_blocks(int m) { return m <= kTwinRows ? 2 : 1; }
};

// B is read in groups of 16 columns, gpp groups side by side in each panel, panels gs elements
// apart, rows ldb apart: group g starts at b[(g / gpp) * gs + (g % gpp) * 16]. A row-major B is
// gpp = 1, gs = 16; panels of NR columns are ldb = NR, gpp = NR / 16, gs = the panel's size.
struct Groups {
  const uint16_t* b;
  int64_t ldb, gs;
  int gpp;
  const uint16_t* column(int64_t j) const {
    const int64_t g = j / 16;
    return b + (g / gpp) * gs + (g % gpp) * 16 + j % 16;
  }
};

}  // namespace

#define INVAR_WIDENED_DIRECT(name, S)                                                           \
  void name##_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,           \
                     int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,      \
                     int64_t ldc, AccInit init, float beta) {                                   \
    widened::direct_rows<Avx2<S>>(m, n, k, alpha, a, a_rs, a_cs, Groups{b, ldb, 16, 1}, c, ldc, \
                                  init, beta);                                                  \
  }                                                                                             \
  void name##_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,         \
                       int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,    \
                       int64_t ldc, AccInit init, float beta) {                                 \
    widened::direct_t<Avx2<S>>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);      \
  }                                                                                             \
  void name##_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,  \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,               \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,        \
                              float beta) {                                                     \
    widened::direct_rows<Avx2<S>>(m, n, k, alpha, a, a_rs, a_cs,                                \
                                  Groups{panels, 16, panel_stride, 1}, c, ldc, init, beta);     \
  }                                                                                             \
  void name##_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,  \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,               \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,        \
                              float beta) {                                                     \
    widened::direct_rows<Avx2<S>>(m, n, k, alpha, a, a_rs, a_cs,                                \
                                  Groups{panels, 32, panel_stride, 2}, c, ldc, init, beta);     \
  }
INVAR_WIDENED_DIRECT(sbgemm_avx2, Bf16)
INVAR_WIDENED_DIRECT(shgemm_avx2, F16)
#undef INVAR_WIDENED_DIRECT

}  // namespace invar::kernels::avx2
