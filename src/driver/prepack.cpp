// Operands packed ahead of time (GemmProblem::a_panels, b_panels): the whole of K in one block.
#include "driver/gemm_driver.h"

namespace invar::driver {

void pack_a_whole(const kernels::GemmKernel& kern, int64_t m, int64_t k, const void* a,
                  int64_t a_rs, int64_t a_cs, const void* alpha, void* dst) {
  // One block of m rows and depth k: panel r lands at r * k * MR, the prepacked layout.
  kern.pack_a(m, k, a, a_rs, a_cs, alpha, dst);
}

void pack_b_whole(const kernels::GemmKernel& kern, int64_t k, int64_t n, const void* b,
                  int64_t b_rs, int64_t b_cs, void* dst) {
  // One k-block of depth k: panel s lands at s * k * NR, the prepacked layout.
  kern.pack_b(k, n, b, b_rs, b_cs, dst);
}

}  // namespace invar::driver
