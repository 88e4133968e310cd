// sgemm_avx2_pack_b16_t and sgemm_avx2_pack_b32_t (and their bf16 and f16 forms): pack a kc x nc
// block of op(B) = W^T, with W stored row-major (op(B)[p][j] = w[j * ldw + p]), into the
// 16-column micro-panels of sgemm_avx2_6x16 or the 32-column ones of sgemm_avx512_12x32 (pack.h's
// layout: panel s holds kc rows of NR values, zero-padded past nc). This
// is the transposed copy the portable packer makes one element at a time; here eight rows of W and
// eight k at a time are widened to f32 (widen8.h) and transposed in registers. The same bits as
// the portable packer; only faster.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/transpose8.h"
#include "kernels/avx2/widen8.h"

namespace invar::kernels::avx2 {
namespace {

template <class S, int NR>
void pack_b_t(int64_t kc, int64_t nc, const typename S::type* w, int64_t ldw, float* dst) {
  int64_t j0 = 0;
  for (; j0 + NR <= nc; j0 += NR, dst += NR * kc) {
    const int64_t k8 = kc / 8 * 8;
    for (int half = 0; half < NR / 8; ++half) {
      for (int64_t p = 0; p < k8; p += 8) {
        __m256 t[8];
        for (int l = 0; l < 8; ++l) t[l] = S::load8(w + (j0 + 8 * half + l) * ldw + p);
        transpose8(t);  // t[q] = op(B)[p + q][j0 + 8 half .. + 7]
        for (int q = 0; q < 8; ++q) _mm256_store_ps(dst + (p + q) * NR + 8 * half, t[q]);
      }
    }
    int64_t p = k8;
    for (; p < kc; ++p) {
      for (int j = 0; j < NR; ++j) dst[p * NR + j] = S::load1(w + (j0 + j) * ldw + p);
    }
  }
  if (j0 < nc) {
    const int64_t cols = nc - j0;
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t j = 0; j < NR; ++j)
        dst[p * NR + j] = j < cols ? S::load1(w + (j0 + j) * ldw + p) : 0.0f;
    }
  }
}

}  // namespace

void sgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const float* w, int64_t ldw, float* dst) {
  pack_b_t<F32Source, 16>(kc, nc, w, ldw, dst);
}

void sbgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst) {
  pack_b_t<Bf16Source, 16>(kc, nc, w, ldw, dst);
}

void shgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst) {
  pack_b_t<F16Source, 16>(kc, nc, w, ldw, dst);
}

void sgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const float* w, int64_t ldw, float* dst) {
  pack_b_t<F32Source, 32>(kc, nc, w, ldw, dst);
}

void sbgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst) {
  pack_b_t<Bf16Source, 32>(kc, nc, w, ldw, dst);
}

void shgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst) {
  pack_b_t<F16Source, 32>(kc, nc, w, ldw, dst);
}

}  // namespace invar::kernels::avx2
