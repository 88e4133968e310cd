// The decode step over bf16 and f16 operands (ukernel.h, WidenedDirectFn): m <= kDirectMaxRows
// rows x any n columns of C from A and B in place, B row-major, stored transposed (x * W^T) or in
// 16-bit panels, each 16-bit value widened exactly to f32 in registers and fed to the chains of
// the f32 direct kernels: acc = fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k, one lane
// per element. The bits are those of the f32 kernels on the widened operands, and B is read at
// two bytes an element, half the traffic of an f32 weight.
//
// Widening: bf16 is the 16 bits at the top of the f32 (vpmovzxwd and a shift, or a shift or mask
// of two values that a 32-bit transpose moved together); f16 goes through VCVTPH2PS (F16C),
// exact for every value. A bf16 NaN in B is not given its quiet bit: x86's fused multiply-add
// returns the first NaN operand by position, quieted, whether it was signaling or not, so a
// signaling B value yields the bits of its quieted widening (the tests hold signaling NaNs to
// that). A is widened into a buffer on the stack (kBufferFloats below), quieted as numeric/half.h
// does and multiplied by alpha (one rounding, as every f32 kernel does it); past the buffer K is
// taken in chunks, the accumulators stored to C after one and loaded back for the next, which is
// exact: the same chain.
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

namespace invar::kernels::avx2 {
namespace {

// A is widened into a stack buffer of this many floats, step p of row i at p * m + i: all of K
// in one pass up to 4096 / m steps (4096 for one row), chunks of that many (rounded down to 32)
// beyond. No allocation per call. A pass over a transposed W in short chunks reads each row a
// piece at a time and the prefetchers lose the streams: W 16384 x 8192, M = 1, one thread, bf16
// x * W^T ran at 1.3-1.4x the f32 decode in chunks of 2048 steps and 1.9x in one pass (Intel
// Xeon of block_sizes.h).
constexpr int64_t kBufferFloats = 4096;

// Prefetch distance along each row of a transposed W, in bytes (the f32 kernel's 128 floats).
constexpr int64_t kAheadBytes = 512;

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
  static constexpr bool kBf16 = true;
  static constexpr int kSteps = 16;
  static __m256 load8(const uint16_t* p) {
    const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
  }
  static float load1(const uint16_t* p) { return bf16_value(p); }
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
  static constexpr bool kBf16 = false;
  static constexpr int kSteps = 8;
  static __m256 load8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static float load1(const uint16_t* p) { return f16_value(p); }
  static float widen_a(const uint16_t* p) { return f16_value(p); }
  // Eight rows of W, eight steps from p: each row's eight values widened (VCVTPH2PS), then the
  // f32 transpose.
  template <int M, int G>
  static void steps(Acc<M, G>& acc, int h, const float* abuf, const uint16_t* bh, int64_t ldb,
                    int64_t p) {
    __m256 r[8];
    for (int l = 0; l < 8; ++l) r[l] = load8(bh + l * ldb + p);
    transpose8(r);  // r[q] = B[p + q][8h .. 8h + 7]
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(abuf + (p + q) * M + i), r[q], acc[i][h]);
    }
  }
};

// Rows [0, m) of op(A) over steps [p0, p0 + kc), widened, times alpha when alpha != 1, at
// abuf[p * m + i].
template <class S>
void widen_a(int64_t m, int64_t p0, int64_t kc, float alpha, const uint16_t* a, int64_t a_rs,
             int64_t a_cs, float* abuf) {
  const bool scale = alpha != 1.0f;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < kc; ++p) {
      const float x = S::widen_a(a + i * a_rs + (p0 + p) * a_cs);
      abuf[p * m + i] = scale ? alpha * x : x;
    }
  }
}

template <int M>
struct Rows {
  static constexpr int kM = M;
};

// The whole product: A widened a chunk of steps at a time into the stack buffer, and
// pass(rows, p0, kc, abuf, init) over those steps for every column, rows a Rows<m>; the first
// chunk starts the accumulators as `init` says, the next ones from C.
template <class S, class Pass>
void in_chunks(int64_t m, int64_t k, float alpha, const uint16_t* a, int64_t a_rs, int64_t a_cs,
               AccInit init, Pass pass) {
  alignas(64) float abuf[kBufferFloats];
  const int64_t chunk = kBufferFloats / m / 32 * 32;
  for (int64_t p0 = 0; p0 < k; p0 += chunk) {
    const int64_t kc = k - p0 < chunk ? k - p0 : chunk;
    widen_a<S>(m, p0, kc, alpha, a, a_rs, a_cs, abuf);
    const AccInit first = p0 == 0 ? init : AccInit::kLoad;
    switch (m) {
      case 1: pass(Rows<1>{}, p0, kc, abuf, first); break;
      case 2: pass(Rows<2>{}, p0, kc, abuf, first); break;
      case 3: pass(Rows<3>{}, p0, kc, abuf, first); break;
      default: pass(Rows<4>{}, p0, kc, abuf, first); break;
    }
  }
}

template <int M, int W>
void init_acc(Acc<M, W>& acc, const float* c, int64_t ldc, AccInit init, float beta) {
  const __m256 vbeta = _mm256_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < W; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = _mm256_setzero_ps();
      } else if (init == AccInit::kLoad) {
        acc[i][v] = _mm256_loadu_ps(c + i * ldc + 8 * v);
      } else {
        acc[i][v] = _mm256_mul_ps(vbeta, _mm256_loadu_ps(c + i * ldc + 8 * v));
      }
    }
  }
}

template <int M, int W>
void store_acc(const Acc<M, W>& acc, float* c, int64_t ldc) {
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < W; ++v) _mm256_storeu_ps(c + i * ldc + 8 * v, acc[i][v]);
}

// Fewer than eight columns, one scalar chain each (vfmadd231ss, the same rounding); column j's
// values are at col[j][p * step].
template <class S, int M>
void scalar_cols(int64_t cols, int64_t kc, const float* abuf, const uint16_t* const* col,
                 int64_t step, float* c, int64_t ldc, AccInit init, float beta) {
  float acc[M][8];
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float cij = init == AccInit::kZero ? 0.0f : c[i * ldc + j];
      acc[i][j] = init == AccInit::kScale ? beta * cij : cij;
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t j = 0; j < cols; ++j) {
      const float bj = S::load1(col[j] + p * step);
      for (int i = 0; i < M; ++i) acc[i][j] = __builtin_fmaf(abuf[p * M + i], bj, acc[i][j]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

// ---- B row-major, or 16-bit panels -----------------------------------------------------------
//
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

// M rows x W vectors of eight columns from column j (a multiple of 8).
template <class S, int M, int W>
void rows_block(int64_t kc, const float* abuf, const Groups& g, int64_t j, float* c, int64_t ldc,
                AccInit init, float beta) {
  const uint16_t* bp[W];
  for (int v = 0; v < W; ++v) bp[v] = g.column(j + 8 * v);
  Acc<M, W> acc;
  init_acc<M, W>(acc, c, ldc, init, beta);
  const int64_t ldb = g.ldb;
  for (int64_t p = 0; p < kc; ++p) {
    __m256 va[M];
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) va[i] = _mm256_broadcast_ss(abuf + p * M + i);
#pragma GCC unroll 8
    for (int v = 0; v < W; ++v) {
      const __m256 bv = S::load8(bp[v] + p * ldb);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) acc[i][v] = _mm256_fmadd_ps(va[i], bv, acc[i][v]);
    }
  }
  store_acc<M, W>(acc, c, ldc);
}

template <class S, int M>
void rows_all(int64_t n, int64_t kc, const float* abuf, const Groups& g, float* c, int64_t ldc,
              AccInit init, float beta) {
  constexpr int kWide = M == 1 ? 8 : M == 2 ? 4 : 2;  // M * kWide + M + 1 registers of 16
  int64_t j = 0;
  for (; j + 8 * kWide <= n; j += 8 * kWide)
    rows_block<S, M, kWide>(kc, abuf, g, j, c + j, ldc, init, beta);
  for (; j + 8 <= n; j += 8) rows_block<S, M, 1>(kc, abuf, g, j, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[8];
    for (int64_t t = 0; j + t < n; ++t) col[t] = g.column(j + t);
    scalar_cols<S, M>(n - j, kc, abuf, col, g.ldb, c + j, ldc, init, beta);
  }
}

template <class S>
void direct_groups(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                   int64_t a_cs, Groups g, float* c, int64_t ldc, AccInit init, float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 Groups at = g;
                 at.b = g.b + p0 * g.ldb;
                 rows_all<S, decltype(rows)::kM>(n, kc, abuf, at, c, ldc, first, beta);
               });
}

// ---- B stored transposed ---------------------------------------------------------------------

// G blocks of eight rows of W (C's columns), side by side; S::steps takes S::kSteps steps of a
// block at once, the last kc % S::kSteps steps go one by one.
template <class S, int M, int G>
void t_block(int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
             AccInit init, float beta) {
  Acc<M, G> acc;
  init_acc<M, G>(acc, c, ldc, init, beta);
  int64_t p = 0;
  for (; p + S::kSteps <= kc; p += S::kSteps) {
    if (p % 32 == 0) {
      for (int l = 0; l < 8 * G; ++l) {
        const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + kAheadBytes;
        _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
      }
    }
    for (int h = 0; h < G; ++h) S::template steps<M, G>(acc, h, abuf, b + 8 * h * ldb, ldb, p);
  }
  for (; p < kc; ++p) {
    for (int h = 0; h < G; ++h) {
      const uint16_t* col = b + 8 * h * ldb + p;
      const __m256 t =
          _mm256_setr_ps(S::load1(col), S::load1(col + ldb), S::load1(col + 2 * ldb),
                         S::load1(col + 3 * ldb), S::load1(col + 4 * ldb), S::load1(col + 5 * ldb),
                         S::load1(col + 6 * ldb), S::load1(col + 7 * ldb));
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(abuf + p * M + i), t, acc[i][h]);
    }
  }
  store_acc<M, G>(acc, c, ldc);
}

template <class S, int M>
void t_all(int64_t n, int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c,
           int64_t ldc, AccInit init, float beta) {
  constexpr int G = M <= kTwinRows ? 2 : 1;  // blocks of eight rows of W side by side
  int64_t j = 0;
  for (; j + 8 * G <= n; j += 8 * G)
    t_block<S, M, G>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  for (; j + 8 <= n; j += 8) t_block<S, M, 1>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[8];
    for (int64_t t = 0; j + t < n; ++t) col[t] = b + (j + t) * ldb;
    scalar_cols<S, M>(n - j, kc, abuf, col, 1, c + j, ldc, init, beta);
  }
}

template <class S>
void direct_t_any(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                  int64_t a_cs, const uint16_t* b, int64_t ldb, float* c, int64_t ldc, AccInit init,
                  float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 t_all<S, decltype(rows)::kM>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta);
               });
}

}  // namespace

#define INVAR_WIDENED_DIRECT(name, S)                                                            \
  void name##_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,            \
                     int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,       \
                     int64_t ldc, AccInit init, float beta) {                                    \
    direct_groups<S>(m, n, k, alpha, a, a_rs, a_cs, Groups{b, ldb, 16, 1}, c, ldc, init, beta);  \
  }                                                                                              \
  void name##_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,          \
                       int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,     \
                       int64_t ldc, AccInit init, float beta) {                                  \
    direct_t_any<S>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);                  \
  }                                                                                              \
  void name##_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,   \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,                \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,         \
                              float beta) {                                                      \
    direct_groups<S>(m, n, k, alpha, a, a_rs, a_cs, Groups{panels, 16, panel_stride, 1}, c, ldc, \
                     init, beta);                                                                \
  }                                                                                              \
  void name##_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,   \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,                \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,         \
                              float beta) {                                                      \
    direct_groups<S>(m, n, k, alpha, a, a_rs, a_cs, Groups{panels, 32, panel_stride, 2}, c, ldc, \
                     init, beta);                                                                \
  }
INVAR_WIDENED_DIRECT(sbgemm_avx2, Bf16)
INVAR_WIDENED_DIRECT(shgemm_avx2, F16)
#undef INVAR_WIDENED_DIRECT

}  // namespace invar::kernels::avx2
