// sgemm_avx2_direct_16 and sgemm_avx2_direct_panels{16,32}: the f32 direct kernels (direct.h;
// kernels/few_rows_body.h for up to kDirectMaxRows rows over a row-major B, also as
// sgemm_avx2_direct_args), over a row-major B and over prepacked panels of 16 columns (the AVX2
// tile) or 32 (AVX-512).
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/direct.h"
#include "kernels/avx2/vec.h"
#include "kernels/few_rows_body.h"

namespace invar::kernels::avx2 {

static_assert(2 * F32Vec::kLanes == kSgemmNr, "a direct group is one AVX2 panel wide");

void sgemm_avx2_direct_args(const DirectArgs& args) { few_rows<F32Vec>(args); }

void sgemm_avx2_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                             int64_t b_stride, int64_t c_stride) {
  few_rows_batch<F32Vec>(first, count, a_stride, b_stride, c_stride);
}

void sgemm_avx2_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta) {
  if (m <= kDirectMaxRows) {
    few_rows<F32Vec>({m, n, k, &alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, &beta});
    return;
  }
  direct_any<F32Vec>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, kSgemmNr, 1, false, c, ldc, init, beta);
}

void sgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta) {
  direct_any<F32Vec>(m, n, k, alpha, a, a_rs, a_cs, panels, 16, panel_stride, 1, true, c, ldc, init,
                     beta);
}

void sgemm_avx2_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta) {
  direct_any<F32Vec>(m, n, k, alpha, a, a_rs, a_cs, panels, 32, panel_stride, 2, true, c, ldc, init,
                     beta);
}

}  // namespace invar::kernels::avx2
