// sgemm_avx512_12x32: the f32 AVX-512F micro-kernel, and its edge form.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 12 floats, element (i, p) at a_panel[12 * p + i], alpha already applied;
//   b_panel: kc steps of 32 floats, 64-byte aligned, element (p, j) at b_panel[32 * p + j];
//   c: a whole 12 x 32 tile (the edge form: rows x cols of it) with row stride ldc, any
//   alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over zmm vectors: one vfmadd231ps (A broadcast) per
// accumulator and step (Broadcast::kFolded folds the broadcast into the fma, vec.h), each lane
// one element's chain in increasing k; the edge form's last vector goes through an opmask, and a
// partial tile of at most 8 columns runs on ymm vectors
// instead (avx2/vec.h's F32Vec, VEX-encoded AVX2 and FMA, which every AVX-512F CPU runs and which
// need no AVX-512VL; tile_body.h's edge_tile_narrow). Nothing in this file is shared with other
// translation units except the declared entry points.
#include <type_traits>

#include "kernels/avx2/vec.h"
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/vec.h"
#include "kernels/tile_body.h"

namespace invar::kernels::avx512 {

static_assert(kSgemmNr == kTileVectors * F32Vec::kLanes);

namespace {
template <Broadcast B>
using Vec = std::conditional_t<B == Broadcast::kFolded, F32VecMemBcast, F32Vec>;
}  // namespace

template <Broadcast B>
void sgemm_avx512_12x32(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                        int64_t ldc, AccInit init, float beta) {
  whole_tile<Vec<B>, kSgemmMr>(kc, a_panel, b_panel, c, ldc, init, beta);
}

template <Broadcast B>
void sgemm_avx512_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const float* a_panel,
                             const float* b_panel, float* c, int64_t ldc, AccInit init,
                             float beta) {
  if (cols <= avx2::F32Vec::kLanes) {
    edge_tile_narrow<avx2::F32Vec, kSgemmMr, kSgemmNr>(rows, cols, kc, a_panel, b_panel, c, ldc,
                                                       init, beta);
    return;
  }
  edge_tile<Vec<B>, kSgemmMr>(rows, cols, kc, a_panel, b_panel, c, ldc, init, beta);
}

template <Broadcast B>
void sgemm_avx512_12x32_packing_b(int64_t kc, const float* a_panel, const float* b, int64_t ldb,
                                  float* b_panel, float* c, int64_t ldc, AccInit init, float beta) {
  whole_tile_packing_b<Vec<B>, kSgemmMr>(kc, a_panel, b, ldb, b_panel, c, ldc, init, beta);
}

template <Broadcast B>
void sgemm_avx512_12x32_a_in_place(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, int64_t gs, float* c, int64_t ldc,
                                   AccInit init, float beta) {
  tiles_a_in_place<Vec<B>, kSgemmMr>(m, n, k, a, lda, b, ldb, gs, c, ldc, init, beta);
}

// Both forms, for kernels/sets/avx512.cpp.
#define INVAR_INSTANTIATE(B)                                                                       \
  template void sgemm_avx512_12x32<B>(int64_t, const float*, const float*, float*, int64_t,        \
                                      AccInit, float);                                             \
  template void sgemm_avx512_12x32_edge<B>(int64_t, int64_t, int64_t, const float*, const float*,  \
                                           float*, int64_t, AccInit, float);                       \
  template void sgemm_avx512_12x32_packing_b<B>(int64_t, const float*, const float*, int64_t,      \
                                                float*, float*, int64_t, AccInit, float);          \
  template void sgemm_avx512_12x32_a_in_place<B>(int64_t, int64_t, int64_t, const float*, int64_t, \
                                                 const float*, int64_t, int64_t, float*, int64_t,  \
                                                 AccInit, float);
INVAR_INSTANTIATE(Broadcast::kRegister)
INVAR_INSTANTIATE(Broadcast::kFolded)
#undef INVAR_INSTANTIATE

}  // namespace invar::kernels::avx512
