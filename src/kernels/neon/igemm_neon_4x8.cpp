// igemm_neon_4x8: the integer AArch64 Advanced SIMD micro-kernel (s8 x s8 and u8 x s8 -> s32).
//
// Assumptions (see ukernel.h and pack.h):
//   a_panel: kc steps of 4 int16 in pairs of steps, element (i, 2q + h) at a_panel[8q + 2i + h],
//            the odd last step at a_panel[4 (kc - 1) + i]; alpha not applied;
//   b_panel: kc steps of 8 int16 in pairs, element (2q + h, j) at b_panel[16q + 2j + h], the odd
//            last step at b_panel[8 (kc - 1) + j];
//   c: a whole 4 x 8 tile with row stride ldc, any alignment; kc >= 1.
//
// A B vector of a step pair holds {b(2q, j), b(2q + 1, j)} for four columns j; the row's pair
// {a(i, 2q), a(i, 2q + 1)} is duplicated to match. smlal (low four int16) and smlal2 (high four)
// multiply lane by lane into int32, exact, and add modulo 2^32: lo[i][v] sums steps 2q and
// 2q + 1 of columns 4v, 4v + 1 side by side, hi[i][v] those of 4v + 2, 4v + 3. One addp per
// vector at the end adds each column's even and odd sums. The odd last step multiplies the B
// step by a(i, kc - 1) (smlal by scalar). Integer addition is associative modulo 2^32, so this
// grouping gives the bits of every other path.
#include <arm_neon.h>

#include "kernels/neon/neon.h"

namespace invar::kernels::neon {
namespace {

constexpr int MR = kIgemmMr;
constexpr int NR = kIgemmNr;
static_assert(MR == 4, "one q vector of A pairs per step pair");
static_assert(NR == 8, "two q vectors of B pairs per step pair");

// Row L's update for one step pair. The lane index must be a constant expression.
template <int L>
inline __attribute__((always_inline)) void mlal_row(int32x4_t (&lo)[2], int32x4_t (&hi)[2],
                                                    int32x4_t a, int16x8_t b0, int16x8_t b1) {
  const int16x8_t ai = vreinterpretq_s16_s32(vdupq_laneq_s32(a, L));
  lo[0] = vmlal_s16(lo[0], vget_low_s16(b0), vget_low_s16(ai));
  hi[0] = vmlal_high_s16(hi[0], b0, ai);
  lo[1] = vmlal_s16(lo[1], vget_low_s16(b1), vget_low_s16(ai));
  hi[1] = vmlal_high_s16(hi[1], b1, ai);
}

}  // namespace

void igemm_neon_4x8(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                    int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  int32x4_t lo[MR][2], hi[MR][2];
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) lo[i][0] = lo[i][1] = hi[i][0] = hi[i][1] = vdupq_n_s32(0);

  const int16_t* a = a_panel;
  const int16_t* b = b_panel;
  const int64_t pairs = kc / 2;
#pragma GCC unroll 2
  for (int64_t q = 0; q < pairs; ++q) {
    const int16x8_t b0 = vld1q_s16(b);
    const int16x8_t b1 = vld1q_s16(b + 8);
    const int32x4_t av = vreinterpretq_s32_s16(vld1q_s16(a));
    mlal_row<0>(lo[0], hi[0], av, b0, b1);
    mlal_row<1>(lo[1], hi[1], av, b0, b1);
    mlal_row<2>(lo[2], hi[2], av, b0, b1);
    mlal_row<3>(lo[3], hi[3], av, b0, b1);
    a += 2 * MR;
    b += 2 * NR;
  }

  int32x4_t acc[MR][2];
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = vpaddq_s32(lo[i][0], hi[i][0]);
    acc[i][1] = vpaddq_s32(lo[i][1], hi[i][1]);
  }
  if (kc % 2 != 0) {
    const int16x8_t bt = vld1q_s16(b);
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vmlal_n_s16(acc[i][0], vget_low_s16(bt), a[i]);
      acc[i][1] = vmlal_high_n_s16(acc[i][1], bt, a[i]);
    }
  }

  if (alpha != 1) {
    const int32x4_t valpha = vdupq_n_s32(alpha);
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vmulq_s32(acc[i][0], valpha);
      acc[i][1] = vmulq_s32(acc[i][1], valpha);
    }
  }
  if (init == AccInit::kLoad) {
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vaddq_s32(acc[i][0], vld1q_s32(c + i * ldc));
      acc[i][1] = vaddq_s32(acc[i][1], vld1q_s32(c + i * ldc + 4));
    }
  } else if (init == AccInit::kScale) {
    const int32x4_t vbeta = vdupq_n_s32(beta);
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) {
      acc[i][0] = vmlaq_s32(acc[i][0], vbeta, vld1q_s32(c + i * ldc));
      acc[i][1] = vmlaq_s32(acc[i][1], vbeta, vld1q_s32(c + i * ldc + 4));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) {
    vst1q_s32(c + i * ldc, acc[i][0]);
    vst1q_s32(c + i * ldc + 4, acc[i][1]);
  }
}

}  // namespace invar::kernels::neon
