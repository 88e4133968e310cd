// sgemm_avx2_6x16: the f32 AVX2 + FMA3 micro-kernel, and its edge form.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 6 floats, element (i, p) at a_panel[6 * p + i], alpha already applied;
//   b_panel: kc steps of 16 floats, 32-byte aligned, element (p, j) at b_panel[16 * p + j];
//   c: a whole 6 x 16 tile (the edge form: rows x cols of it) with row stride ldc, any
//   alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over ymm vectors: one vfmadd231ps per accumulator and step,
// each lane one element's chain in increasing k; the edge form's last vector is read under a
// mask and written lane by lane (F32Vec::maskstore), touching none of the lanes it leaves out.
// Nothing in this file is shared with other translation units except the declared entry points.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vec.h"
#include "kernels/tile_body.h"

namespace invar::kernels::avx2 {

static_assert(kSgemmNr == kTileVectors * F32Vec::kLanes);

void sgemm_avx2_6x16(int64_t kc, const float* a_panel, const float* b_panel, float* c, int64_t ldc,
                     AccInit init, float beta) {
  whole_tile<F32Vec, kSgemmMr>(kc, a_panel, b_panel, c, ldc, init, beta);
}

void sgemm_avx2_6x16_edge(int64_t rows, int64_t cols, int64_t kc, const float* a_panel,
                          const float* b_panel, float* c, int64_t ldc, AccInit init, float beta) {
  edge_tile<F32Vec, kSgemmMr>(rows, cols, kc, a_panel, b_panel, c, ldc, init, beta);
}

void sgemm_avx2_6x16_a_in_place(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                const float* b, int64_t ldb, int64_t gs, float* c, int64_t ldc,
                                AccInit init, float beta) {
  tiles_a_in_place<F32Vec, kSgemmMr, true>(m, n, k, a, lda, b, ldb, gs, c, ldc, init, beta);
}

}  // namespace invar::kernels::avx2
