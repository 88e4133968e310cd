// sgemm_neon_8x12: the f32 AArch64 Advanced SIMD micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 8 floats, element (i, p) at a_panel[8 * p + i], alpha already applied;
//   b_panel: kc steps of 12 floats, element (p, j) at b_panel[12 * p + j];
//   the packed blocks start 64-byte aligned and a panel spans 32 * kc (A) or 48 * kc (B) bytes,
//   so every panel, and every vector loaded from it, is 16-byte aligned (vld1q needs none);
//   c: a whole 8 x 12 tile with row stride ldc, any alignment; kc >= 1.
//
// Each q-register lane of acc[i][v] is the accumulator of one element C[i][4v + lane]: 8 rows x
// 3 vectors = 24 accumulators, plus 3 registers of B and 2 of A per step (29 of the 32). Every
// step is one fmla by element (vfmaq_laneq_f32: acc + b * a[lane], fused, one rounding) per
// accumulator, so each element's chain is the contract's chain in increasing k. Lanes are never
// combined with each other. Nothing in this file is shared with other translation units except
// the declared entry point.
#include <arm_neon.h>

#include "kernels/neon/neon.h"

namespace invar::kernels::neon {
namespace {

constexpr int MR = kSgemmMr;
constexpr int NR = kSgemmNr;
static_assert(MR == 8, "two q vectors of A per step");
static_assert(NR == 12, "three q vectors per row");

// One row's update for one k step: acc[v] = fma(a[L], b_v, acc[v]) lane by lane. The lane index
// must be a constant expression, hence the template.
template <int L>
inline __attribute__((always_inline)) void fma_row(float32x4_t (&acc)[3], float32x4_t a,
                                                   float32x4_t b0, float32x4_t b1, float32x4_t b2) {
  acc[0] = vfmaq_laneq_f32(acc[0], b0, a, L);
  acc[1] = vfmaq_laneq_f32(acc[1], b1, a, L);
  acc[2] = vfmaq_laneq_f32(acc[2], b2, a, L);
}

}  // namespace

void sgemm_neon_8x12(int64_t kc, const float* a_panel, const float* b_panel, float* c, int64_t ldc,
                     AccInit init, float beta) {
  float32x4_t acc[MR][3];
  if (init == AccInit::kZero) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = acc[i][2] = vdupq_n_f32(0.0f);
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vld1q_f32(c + i * ldc);
      acc[i][1] = vld1q_f32(c + i * ldc + 4);
      acc[i][2] = vld1q_f32(c + i * ldc + 8);
    }
  } else {
    const float32x4_t vbeta = vdupq_n_f32(beta);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vmulq_f32(vbeta, vld1q_f32(c + i * ldc));
      acc[i][1] = vmulq_f32(vbeta, vld1q_f32(c + i * ldc + 4));
      acc[i][2] = vmulq_f32(vbeta, vld1q_f32(c + i * ldc + 8));
    }
  }

  const float* a = static_cast<const float*>(__builtin_assume_aligned(a_panel, 16));
  const float* b = static_cast<const float*>(__builtin_assume_aligned(b_panel, 16));
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const float32x4_t b0 = vld1q_f32(b);
    const float32x4_t b1 = vld1q_f32(b + 4);
    const float32x4_t b2 = vld1q_f32(b + 8);
    const float32x4_t a0 = vld1q_f32(a);      // rows 0..3
    const float32x4_t a1 = vld1q_f32(a + 4);  // rows 4..7
    fma_row<0>(acc[0], a0, b0, b1, b2);
    fma_row<1>(acc[1], a0, b0, b1, b2);
    fma_row<2>(acc[2], a0, b0, b1, b2);
    fma_row<3>(acc[3], a0, b0, b1, b2);
    fma_row<0>(acc[4], a1, b0, b1, b2);
    fma_row<1>(acc[5], a1, b0, b1, b2);
    fma_row<2>(acc[6], a1, b0, b1, b2);
    fma_row<3>(acc[7], a1, b0, b1, b2);
    a += MR;
    b += NR;
  }

#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    vst1q_f32(c + i * ldc, acc[i][0]);
    vst1q_f32(c + i * ldc + 4, acc[i][1]);
    vst1q_f32(c + i * ldc + 8, acc[i][2]);
  }
}

}  // namespace invar::kernels::neon
