// dgemm_avx512_12x16: the f64 AVX-512F micro-kernel, and its edge form.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 12 doubles, element (i, p) at a_panel[12 * p + i], alpha applied;
//   b_panel: kc steps of 16 doubles, 64-byte aligned, element (p, j) at b_panel[16 * p + j];
//   c: a whole 12 x 16 tile (the edge form: rows x cols of it) with row stride ldc, any
//   alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over zmm vectors of 8 doubles: one vfmadd231pd per
// accumulator and step (Broadcast::kFolded folds A's broadcast into it, vec.h), each lane one
// element's chain in increasing k; the edge form's last vector goes through an opmask. Nothing in
// this file is shared with other translation units except the declared entry points.
#include <type_traits>

#include "kernels/avx512/avx512.h"
#include "kernels/avx512/vec.h"
#include "kernels/tile_body.h"

namespace invar::kernels::avx512 {

static_assert(kDgemmNr == kTileVectors * F64Vec::kLanes);

namespace {
template <Broadcast B>
using Vec = std::conditional_t<B == Broadcast::kFolded, F64VecMemBcast, F64Vec>;
}  // namespace

template <Broadcast B>
void dgemm_avx512_12x16(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                        int64_t ldc, AccInit init, double beta) {
  whole_tile<Vec<B>, kDgemmMr>(kc, a_panel, b_panel, c, ldc, init, beta);
}

template <Broadcast B>
void dgemm_avx512_12x16_edge(int64_t rows, int64_t cols, int64_t kc, const double* a_panel,
                             const double* b_panel, double* c, int64_t ldc, AccInit init,
                             double beta) {
  edge_tile<Vec<B>, kDgemmMr>(rows, cols, kc, a_panel, b_panel, c, ldc, init, beta);
}

template <Broadcast B>
void dgemm_avx512_12x16_a_in_place(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                                   const double* b, int64_t ldb, int64_t gs, double* c, int64_t ldc,
                                   AccInit init, double beta) {
  tiles_a_in_place<Vec<B>, kDgemmMr>(m, n, k, a, lda, b, ldb, gs, c, ldc, init, beta);
}

// Both forms, for kernels/sets/avx512.cpp.
#define INVAR_INSTANTIATE(B)                                                                   \
  template void dgemm_avx512_12x16<B>(int64_t, const double*, const double*, double*, int64_t, \
                                      AccInit, double);                                        \
  template void dgemm_avx512_12x16_edge<B>(int64_t, int64_t, int64_t, const double*,           \
                                           const double*, double*, int64_t, AccInit, double);  \
  template void dgemm_avx512_12x16_a_in_place<B>(int64_t, int64_t, int64_t, const double*,     \
                                                 int64_t, const double*, int64_t, int64_t,     \
                                                 double*, int64_t, AccInit, double);
INVAR_INSTANTIATE(Broadcast::kRegister)
INVAR_INSTANTIATE(Broadcast::kFolded)
#undef INVAR_INSTANTIATE

}  // namespace invar::kernels::avx512
