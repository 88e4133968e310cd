// The decode step over bf16 and f16 operands on NEON (ukernel.h, WidenedDirectFn): the body is
// kernels/widened_direct_body.h's over q registers of four f32 (vec.h), B row-major, in 16-bit
// panels of kSgemmNr columns or stored transposed; fmla by element, B the multiplicand as in
// sgemm_neon_direct_16 and sgemm_neon_direct_t8, the scalar tails' fmadd as scalar_chain.h's.
//
// Widening: bf16 is the 16 bits at the top of the f32 (ushll by 16), f16 goes through FCVT
// (vcvt_f32_f16), exact for every value with FZ16 off (runtime/fp_mode.h). A NaN is given its
// quiet bit, as numeric/half.h widens it (FCVT does so itself): AArch64's fused multiply-add
// returns a signaling NaN operand before a quiet one, so an unquieted value could change which
// NaN a chain returns. Nothing in this file is shared with other translation units except the
// entry points.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "kernels/neon/neon.h"
#include "kernels/neon/vec.h"
#include "kernels/widened_direct_body.h"

namespace invar::kernels::neon {
namespace {

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
  static float widen_bits(uint16_t h) {
    uint32_t u = static_cast<uint32_t>(h) << 16;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
    return bits_float(u);
  }
};

struct F16 {
  static float32x4_t widen4(uint16x4_t h) { return vcvt_f32_f16(vreinterpret_f16_u16(h)); }
  static float widen_bits(uint16_t h) {
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
  }
};

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

// The operations of the body over q registers (widened_direct_body.h) for the widening H, Bf16 or
// F16: A's value a scalar, multiplied by element.
template <class H>
struct Neon : F32Vec {
  using A = float;
  static constexpr int kSteps = 4;
  static constexpr int kChunkSteps = 4;
  static constexpr int64_t kAheadBytes = 0;
  static constexpr int64_t kRowsAhead = 0;
  static A a(const float* p) { return *p; }
  static float32x4_t fma_a(A a, float32x4_t b, float32x4_t acc) { return vfmaq_n_f32(acc, b, a); }
  static float widen_a(const uint16_t* p) { return H::widen_bits(*p); }
  static float widen1(const uint16_t* p) { return H::widen_bits(*p); }
  static float32x4_t widen(const uint16_t* p) { return H::widen4(vld1_u16(p)); }
  static float32x4_t gather(const uint16_t* p, int64_t ld) {
    const uint16_t g[4] = {p[0], p[ld], p[2 * ld], p[3 * ld]};
    return H::widen4(vld1_u16(g));
  }
  // Four rows of W (bh, ldb apart), four steps from p: each row's four values widened, then
  // transposed.
  template <int M, int G>
  static void steps(float32x4_t (&acc)[M][G], int h, const float* abuf, const uint16_t* bh,
                    int64_t ldb, int64_t p) {
    float32x4_t t[4];
    for (int l = 0; l < 4; ++l) t[l] = widen(bh + l * ldb + p);
    transpose4(t);  // t[q] = B[p + q][4h .. 4h + 3]
    for (int q = 0; q < 4; ++q) {
      for (int i = 0; i < M; ++i) acc[i][h] = vfmaq_n_f32(acc[i][h], t[q], abuf[(p + q) * M + i]);
    }
  }
  // M * rows_wide(M) accumulators, up to 16 of the 32 registers.
  static constexpr int rows_wide(int m) { return m <= 2 ? 6 : 4; }
  static constexpr int t_blocks(int) { return 2; }
};

}  // namespace

#define INVAR_NEON_WIDENED_DIRECT(name, S)                                                         \
  void name##_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,              \
                     int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,         \
                     int64_t ldc, AccInit init, float beta) {                                      \
    widened::direct_rows<Neon<S>>(m, n, k, alpha, a, a_rs, a_cs, Cols{b, ldb, n, 0}, c, ldc, init, \
                                  beta);                                                           \
  }                                                                                                \
  void name##_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,            \
                       int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,       \
                       int64_t ldc, AccInit init, float beta) {                                    \
    widened::direct_t<Neon<S>>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);         \
  }                                                                                                \
  void name##_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,     \
                              int64_t a_rs, int64_t a_cs, const uint16_t* panels,                  \
                              int64_t panel_stride, float* c, int64_t ldc, AccInit init,           \
                              float beta) {                                                        \
    widened::direct_rows<Neon<S>>(m, n, k, alpha, a, a_rs, a_cs,                                   \
                                  Cols{panels, kSgemmNr, kSgemmNr, panel_stride}, c, ldc, init,    \
                                  beta);                                                           \
  }
INVAR_NEON_WIDENED_DIRECT(sbgemm_neon, Bf16)
INVAR_NEON_WIDENED_DIRECT(shgemm_neon, F16)
#undef INVAR_NEON_WIDENED_DIRECT

}  // namespace invar::kernels::neon
