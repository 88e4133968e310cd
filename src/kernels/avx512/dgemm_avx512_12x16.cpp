// dgemm_avx512_12x16: the f64 AVX-512F micro-kernel, and its edge form.
//
// Assumptions (checked by the driver and the packers, see ukernel.h and pack.h):
//   a_panel: kc steps of 12 doubles, element (i, p) at a_panel[12 * p + i], alpha applied;
//   b_panel: kc steps of 16 doubles, 64-byte aligned, element (p, j) at b_panel[16 * p + j];
//   c: a whole 12 x 16 tile (the edge form: rows x cols of it) with row stride ldc, any
//   alignment; kc >= 1.
//
// The body is kernels/tile_body.h's over zmm vectors of 8 doubles: one vfmadd231pd per
// accumulator and step, each lane one element's chain in increasing k; the edge form's last
// vector goes through an opmask. Nothing in this file is shared with other translation units
// except the declared entry points.
#include <immintrin.h>

#include "kernels/avx512/avx512.h"
#include "kernels/tile_body.h"

namespace invar::kernels::avx512 {
namespace {

struct Zmm64 {
  using T = double;
  using Vec = __m512d;
  using Mask = __mmask8;
  static constexpr int kLanes = 8;
  static Vec zero() { return _mm512_setzero_pd(); }
  static Vec set1(T x) { return _mm512_set1_pd(x); }
  static Vec load(const T* p) { return _mm512_load_pd(p); }
  static Vec loadu(const T* p) { return _mm512_loadu_pd(p); }
  static Vec loadu(const T* p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void storeu(T* p, Vec v) { _mm512_storeu_pd(p, v); }
  static void storeu(T* p, Vec v, Mask m) { _mm512_mask_storeu_pd(p, m, v); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
  static Mask mask(int lanes) { return static_cast<Mask>((uint32_t{1} << lanes) - 1); }
};

static_assert(kDgemmNr == kTileVectors * Zmm64::kLanes);

}  // namespace

void dgemm_avx512_12x16(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                        int64_t ldc, AccInit init, double beta) {
  whole_tile<Zmm64, kDgemmMr>(kc, a_panel, b_panel, c, ldc, init, beta);
}

void dgemm_avx512_12x16_edge(int64_t rows, int64_t cols, int64_t kc, const double* a_panel,
                             const double* b_panel, double* c, int64_t ldc, AccInit init,
                             double beta) {
  edge_tile<Zmm64, kDgemmMr>(rows, cols, kc, a_panel, b_panel, c, ldc, init, beta);
}

void dgemm_avx512_12x16_small(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                              const double* b, int64_t ldb, double* c, int64_t ldc, AccInit init,
                              double beta) {
  small_tiles<Zmm64, kDgemmMr>(m, n, k, a, lda, b, ldb, c, ldc, init, beta);
}

}  // namespace invar::kernels::avx512
