// dgemm_avx2_direct_8 and dgemm_avx2_direct_panels{8,16}: the f64 direct kernels (direct.h;
// kernels/few_rows_body.h for up to kDirectMaxRows rows over a row-major B, also as
// dgemm_avx2_direct_args), over a row-major B and over prepacked panels of 8 columns (the AVX2
// tile) or 16 (AVX-512).
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/direct.h"
#include "kernels/avx2/vec.h"
#include "kernels/few_rows_body.h"

namespace invar::kernels::avx2 {

static_assert(2 * F64Vec::kLanes == kDgemmNr, "a direct group is one AVX2 panel wide");

void dgemm_avx2_direct_args(const DirectArgs& args) { few_rows<F64Vec>(args); }

void dgemm_avx2_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                             int64_t b_stride, int64_t c_stride) {
  few_rows_batch<F64Vec>(first, count, a_stride, b_stride, c_stride);
}

void dgemm_avx2_direct_8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                         int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                         int64_t ldc, AccInit init, double beta) {
  if (m <= kDirectMaxRows) {
    few_rows<F64Vec>({m, n, k, &alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, &beta});
    return;
  }
  direct_any<F64Vec>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, kDgemmNr, 1, false, c, ldc, init, beta);
}

void dgemm_avx2_direct_panels8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                               int64_t a_rs, int64_t a_cs, const double* panels,
                               int64_t panel_stride, double* c, int64_t ldc, AccInit init,
                               double beta) {
  direct_any<F64Vec>(m, n, k, alpha, a, a_rs, a_cs, panels, 8, panel_stride, 1, true, c, ldc, init,
                     beta);
}

void dgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                                int64_t a_rs, int64_t a_cs, const double* panels,
                                int64_t panel_stride, double* c, int64_t ldc, AccInit init,
                                double beta) {
  direct_any<F64Vec>(m, n, k, alpha, a, a_rs, a_cs, panels, 16, panel_stride, 2, true, c, ldc, init,
                     beta);
}

}  // namespace invar::kernels::avx2
