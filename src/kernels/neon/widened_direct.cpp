// The decode step over bf16 and f16 operands on NEON (ukernel.h, WidenedDirectFn): m <=
// kDirectMaxRows rows x any n columns of C from A and B in place, B row-major, stored transposed
// (x * W^T) or in 16-bit panels of kSgemmNr columns, each 16-bit value widened exactly to f32 in
// registers and fed to the chains of the f32 direct kernels: acc = fma(alpha * op(A)[i][k],
// B[k][j], acc) in increasing k, one lane per element (fmla, B the multiplicand as in
// sgemm_neon_direct_16 and sgemm_neon_direct_t8; the scalar tails' fmadd as scalar_chain.h's).
// The bits are those of the f32 kernels on the widened operands, and B is read at two bytes an
// element.
//
// Widening: bf16 is the 16 bits at the top of the f32 (ushll by 16), f16 goes through FCVT
// (vcvt_f32_f16), exact for every value with FZ16 off (runtime/fp_mode.h). A NaN is given its
// quiet bit, as numeric/half.h widens it (FCVT does so itself): AArch64's fused multiply-add
// returns a signaling NaN operand before a quiet one, so an unquieted value could change which
// NaN a chain returns. A is widened into a stack buffer (kBufferFloats), multiplied by alpha (one
// rounding); past the buffer K is taken in chunks, the accumulators stored to C after one and
// loaded back for the next: the same chain. Nothing in this file is shared with other
// translation units except the entry points.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "kernels/neon/neon.h"

namespace invar::kernels::neon {
namespace {

// A's buffer on the stack: step p of row i at p * m + i, 4096 / m steps (rounded down to 4) per
// pass over B.
constexpr int64_t kBufferFloats = 4096;

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

struct Bf16 {
  static float32x4_t widen4(uint16x4_t h) {
    const uint32x4_t u = vshll_n_u16(h, 16);
    const uint32x4_t nan =
        vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7FFFFFFFu)), vdupq_n_u32(0x7F800000u));
    return vreinterpretq_f32_u32(vorrq_u32(u, vandq_u32(nan, vdupq_n_u32(0x00400000u))));
  }
  static float widen1(uint16_t h) {
    uint32_t u = static_cast<uint32_t>(h) << 16;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
    return bits_float(u);
  }
};

struct F16 {
  static float32x4_t widen4(uint16x4_t h) { return vcvt_f32_f16(vreinterpret_f16_u16(h)); }
  static float widen1(uint16_t h) {
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
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
      const float x = S::widen1(a[i * a_rs + (p0 + p) * a_cs]);
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
  alignas(16) float abuf[kBufferFloats];
  const int64_t chunk = kBufferFloats / m / 4 * 4;
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
void init_acc(float32x4_t (&acc)[M][W], const float* c, int64_t ldc, AccInit init, float beta) {
  const float32x4_t vbeta = vdupq_n_f32(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < W; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = vdupq_n_f32(0.0f);
      } else if (init == AccInit::kLoad) {
        acc[i][v] = vld1q_f32(c + i * ldc + 4 * v);
      } else {
        acc[i][v] = vmulq_f32(vbeta, vld1q_f32(c + i * ldc + 4 * v));
      }
    }
  }
}

template <int M, int W>
void store_acc(const float32x4_t (&acc)[M][W], float* c, int64_t ldc) {
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < W; ++v) vst1q_f32(c + i * ldc + 4 * v, acc[i][v]);
}

// Fewer than four columns, one scalar chain each; column j's values are at col[j][p * step].
template <class S, int M>
void scalar_cols(int64_t cols, int64_t kc, const float* abuf, const uint16_t* const* col,
                 int64_t step, float* c, int64_t ldc, AccInit init, float beta) {
  float acc[M][4];
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float cij = init == AccInit::kZero ? 0.0f : c[i * ldc + j];
      acc[i][j] = init == AccInit::kScale ? beta * cij : cij;
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t j = 0; j < cols; ++j) {
      const float bj = S::widen1(col[j][p * step]);
      for (int i = 0; i < M; ++i) acc[i][j] = __builtin_fmaf(abuf[p * M + i], bj, acc[i][j]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

// ---- B row-major, or 16-bit panels -----------------------------------------------------------
//
// Column j of B starts at b + (j / width) * gs + j % width, rows ldb apart: a row-major B is one
// group as wide as B (gs unused), panels of kSgemmNr columns are width kSgemmNr, ldb kSgemmNr and
// gs the panel's size. Four columns at a time never straddle a panel (kSgemmNr % 4 == 0).
struct Cols {
  const uint16_t* b;
  int64_t ldb, width, gs;
  const uint16_t* column(int64_t j) const { return b + (j / width) * gs + j % width; }
};

// M rows x W vectors of four columns from column j (a multiple of 4).
template <class S, int M, int W>
void rows_block(int64_t kc, const float* abuf, const Cols& g, int64_t j, float* c, int64_t ldc,
                AccInit init, float beta) {
  const uint16_t* bp[W];
  for (int v = 0; v < W; ++v) bp[v] = g.column(j + 4 * v);
  float32x4_t acc[M][W];
  init_acc<M, W>(acc, c, ldc, init, beta);
  const int64_t ldb = g.ldb;
  for (int64_t p = 0; p < kc; ++p) {
    float32x4_t bv[W];
    for (int v = 0; v < W; ++v) bv[v] = S::widen4(vld1_u16(bp[v] + p * ldb));
    for (int i = 0; i < M; ++i) {
      const float ai = abuf[p * M + i];
      for (int v = 0; v < W; ++v) acc[i][v] = vfmaq_n_f32(acc[i][v], bv[v], ai);
    }
  }
  store_acc<M, W>(acc, c, ldc);
}

template <class S, int M>
void rows_all(int64_t n, int64_t kc, const float* abuf, const Cols& g, float* c, int64_t ldc,
              AccInit init, float beta) {
  constexpr int kWide = M <= 2 ? 6 : 4;  // M * kWide accumulators, up to 16 of the 32 registers
  int64_t j = 0;
  for (; j + 4 * kWide <= n; j += 4 * kWide)
    rows_block<S, M, kWide>(kc, abuf, g, j, c + j, ldc, init, beta);
  for (; j + 4 <= n; j += 4) rows_block<S, M, 1>(kc, abuf, g, j, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[4];
    for (int64_t t = 0; j + t < n; ++t) col[t] = g.column(j + t);
    scalar_cols<S, M>(n - j, kc, abuf, col, g.ldb, c + j, ldc, init, beta);
  }
}

template <class S>
void direct_cols(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                 int64_t a_cs, Cols g, float* c, int64_t ldc, AccInit init, float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 Cols at = g;
                 at.b = g.b + p0 * g.ldb;
                 rows_all<S, decltype(rows)::kM>(n, kc, abuf, at, c, ldc, first, beta);
               });
}

// ---- B stored transposed ---------------------------------------------------------------------

// r[l] holds four k of row l; afterwards r[q] holds k = q of the four rows.
inline __attribute__((always_inline)) void transpose4(float32x4_t (&r)[4]) {
  const float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
  const float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
  r[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  r[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
  r[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  r[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

// G blocks of four rows of W (C's columns) side by side, four steps at a time (each row's four
// values widened, then transposed), the last kc % 4 steps one by one.
template <class S, int M, int G>
void t_block(int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
             AccInit init, float beta) {
  float32x4_t acc[M][G];
  init_acc<M, G>(acc, c, ldc, init, beta);
  int64_t p = 0;
  for (; p + 4 <= kc; p += 4) {
    for (int h = 0; h < G; ++h) {
      float32x4_t t[4];
      for (int l = 0; l < 4; ++l) t[l] = S::widen4(vld1_u16(b + (4 * h + l) * ldb + p));
      transpose4(t);  // t[q] = B[p + q][4h .. 4h + 3]
      for (int q = 0; q < 4; ++q) {
        for (int i = 0; i < M; ++i) acc[i][h] = vfmaq_n_f32(acc[i][h], t[q], abuf[(p + q) * M + i]);
      }
    }
  }
  for (; p < kc; ++p) {
    for (int h = 0; h < G; ++h) {
      const uint16_t* col = b + 4 * h * ldb + p;
      const uint16_t g[4] = {col[0], col[ldb], col[2 * ldb], col[3 * ldb]};
      const float32x4_t t = S::widen4(vld1_u16(g));
      for (int i = 0; i < M; ++i) acc[i][h] = vfmaq_n_f32(acc[i][h], t, abuf[p * M + i]);
    }
  }
  store_acc<M, G>(acc, c, ldc);
}

template <class S, int M>
void t_all(int64_t n, int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c,
           int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) t_block<S, M, 2>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  for (; j + 4 <= n; j += 4) t_block<S, M, 1>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[4];
    for (int64_t t = 0; j + t < n; ++t) col[t] = b + (j + t) * ldb;
    scalar_cols<S, M>(n - j, kc, abuf, col, 1, c + j, ldc, init, beta);
  }
}

template <class S>
void direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
              int64_t a_cs, const uint16_t* b, int64_t ldb, float* c, int64_t ldc, AccInit init,
              float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 t_all<S, decltype(rows)::kM>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta);
               });
}

}  // namespace

#define INVAR_NEON_WIDENED_DIRECT(name, S)                                                        \
  void name##_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,             \
                     int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,        \
                     int64_t ldc, AccInit init, float beta) {                                     \
    direct_cols<S>(m, n, k, alpha, a, a_rs, a_cs, Cols{b, ldb, n, 0}, c, ldc, init, beta);        \
  }                                                                                               \
  void name##_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,           \
                       int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,      \
                       int64_t ldc, AccInit init, float beta) {                                   \
    direct_t<S>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);                       \
  }                                                                                               \
  void name##_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,    \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,                 \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,          \
                              float beta) {                                                       \
    direct_cols<S>(m, n, k, alpha, a, a_rs, a_cs, Cols{panels, kSgemmNr, kSgemmNr, panel_stride}, \
                   c, ldc, init, beta);                                                           \
  }
INVAR_NEON_WIDENED_DIRECT(sbgemm_neon, Bf16)
INVAR_NEON_WIDENED_DIRECT(shgemm_neon, F16)
#undef INVAR_NEON_WIDENED_DIRECT

}  // namespace invar::kernels::neon
