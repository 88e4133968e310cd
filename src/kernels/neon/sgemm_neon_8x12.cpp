// sgemm_neon_8x12: the f32 AArch64 Advanced SIMD micro-kernel.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 8 floats, element (i, p) at a_panel[8 * p + i], alpha already applied;
//   b_panel: kc steps of 12 floats, element (p, j) at b_panel[12 * p + j];
//   the packed blocks start 64-byte aligned and a panel spans 32 * kc (A) or 48 * kc (B) bytes,
//   so every panel, and every vector loaded from it, is 16-byte aligned (vld1q needs none);
//   c: a whole 8 x 12 tile with row stride ldc, any alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over q registers (vec.h): each lane of acc[i][v] is the
// accumulator of one element C[i][4v + lane], 8 rows x 3 vectors = 24 accumulators, plus 3
// registers of B and 2 of A per step (29 of the 32). Every step is one fmla by element
// (vfmaq_laneq_f32: acc + b * a[lane], fused, one rounding) per accumulator, so each element's
// chain is the contract's chain in increasing k. Lanes are never combined with each other.
// Nothing in this file is shared with other translation units except the declared entry point.
#include "kernels/neon/neon.h"
#include "kernels/neon/vec.h"
#include "kernels/tile_body.h"

namespace invar::kernels::neon {

static_assert(kSgemmMr == 8, "two q vectors of A per step");
static_assert(kSgemmNr == 3 * F32Vec::kLanes, "three q vectors per row");

void sgemm_neon_8x12(int64_t kc, const float* a_panel, const float* b_panel, float* c, int64_t ldc,
                     AccInit init, float beta) {
  whole_tile<F32Vec, kSgemmMr, 3>(kc, a_panel, b_panel, c, ldc, init, beta);
}

}  // namespace invar::kernels::neon
