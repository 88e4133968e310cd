// AArch64 Advanced SIMD micro-kernels. Only declared here.
#ifndef INVAR_KERNELS_NEON_NEON_H_
#define INVAR_KERNELS_NEON_NEON_H_

#include "kernels/ukernel.h"

namespace invar::kernels::neon {

// 8 x 12: 24 q-register accumulators (8 rows x 3 vectors of 4), A and B loaded as vectors and
// multiplied by lane (fmla by element is a fused multiply-add, one rounding, like every other
// path).
inline constexpr int kSgemmMr = 8;
inline constexpr int kSgemmNr = 12;
void sgemm_neon_8x12(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                     int64_t ldc, AccInit init, float beta);

}  // namespace invar::kernels::neon

#endif  // INVAR_KERNELS_NEON_NEON_H_
