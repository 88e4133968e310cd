// dgemm_avx2_6x8: the f64 AVX2 + FMA3 micro-kernel, and its edge form.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 6 doubles, element (i, p) at a_panel[6 * p + i], alpha already applied;
//   b_panel: kc steps of 8 doubles, 64-byte aligned, element (p, j) at b_panel[8 * p + j];
//   c: a whole 6 x 8 tile (the edge form: rows x cols of it) with row stride ldc, any
//   alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over ymm vectors of 4 doubles: one vfmadd231pd per
// accumulator and step, each lane one element's chain in increasing k; the edge form's last
// vector is read under a mask and written lane by lane (F64Vec::maskstore). Nothing in this file
// is shared with other translation units except the declared entry points.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vec.h"
#include "kernels/tile_body.h"

namespace invar::kernels::avx2 {

static_assert(kDgemmNr == kTileVectors * F64Vec::kLanes);

void dgemm_avx2_6x8(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                    int64_t ldc, AccInit init, double beta) {
  whole_tile<F64Vec, kDgemmMr>(kc, a_panel, b_panel, c, ldc, init, beta);
}

void dgemm_avx2_6x8_edge(int64_t rows, int64_t cols, int64_t kc, const double* a_panel,
                         const double* b_panel, double* c, int64_t ldc, AccInit init, double beta) {
  edge_tile<F64Vec, kDgemmMr>(rows, cols, kc, a_panel, b_panel, c, ldc, init, beta);
}

void dgemm_avx2_6x8_a_in_place(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                               const double* b, int64_t ldb, int64_t gs, double* c, int64_t ldc,
                               AccInit init, double beta) {
  tiles_a_in_place<F64Vec, kDgemmMr, true>(m, n, k, a, lda, b, ldb, gs, c, ldc, init, beta);
}

}  // namespace invar::kernels::avx2
