// sgemm_avx512_direct_16 and dgemm_avx512_direct_8, and their record forms: the AVX-512 set's
// direct kernels over a row-major B. Up to kDirectMaxRows rows run kernels/few_rows_body.h over
// 512-bit vectors (twice the multiply-adds per instruction of the AVX2 form, which a B in cache
// lets the core use: at 4 x 256 x 256 the AVX2 form ran at half libxsmm's rate on the Intel
// Xeon of block_sizes.h); five and six rows the AVX2 direct kernel's blocks (avx2/direct.h),
// as before. Same chains either way.
#include "kernels/avx2/direct.h"
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/vec.h"
#include "kernels/few_rows_body.h"

namespace invar::kernels::avx512 {

void sgemm_avx512_direct_args(const DirectArgs& args) { few_rows<F32Vec>(args); }

void dgemm_avx512_direct_args(const DirectArgs& args) { few_rows<F64Vec>(args); }

void sgemm_avx512_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                               int64_t b_stride, int64_t c_stride) {
  few_rows_batch<F32Vec>(first, count, a_stride, b_stride, c_stride);
}

void dgemm_avx512_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                               int64_t b_stride, int64_t c_stride) {
  few_rows_batch<F64Vec>(first, count, a_stride, b_stride, c_stride);
}

void sgemm_avx512_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta) {
  if (m <= kDirectMaxRows) {
    few_rows<F32Vec>({m, n, k, &alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, &beta});
    return;
  }
  avx2::direct_any<avx2::F32Vec>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, avx2::kSgemmNr, 1, false, c,
                                 ldc, init, beta);
}

void dgemm_avx512_direct_8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                           int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                           int64_t ldc, AccInit init, double beta) {
  if (m <= kDirectMaxRows) {
    few_rows<F64Vec>({m, n, k, &alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, &beta});
    return;
  }
  avx2::direct_any<avx2::F64Vec>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, avx2::kDgemmNr, 1, false, c,
                                 ldc, init, beta);
}

}  // namespace invar::kernels::avx512
