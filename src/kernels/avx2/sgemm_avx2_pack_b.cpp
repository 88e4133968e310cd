// sgemm_, sbgemm_ and shgemm_avx2_pack_b16 (and the _b32 forms): pack a kc x nc block of a
// row-major f32, bf16 or f16 B (op(B)[p][j] = b[p * ldb + j]) into the 16-column f32
// micro-panels of sgemm_avx2_6x16 or the 32-column ones of sgemm_avx512_12x32 (pack.h's layout,
// zero-padded past nc), eight values per instruction (widen8.h; for f32 a plain copy) where the
// portable packer widens one at a time. Rows go in bands of 8, as in the portable packer: each
// panel receives 8 contiguous rows per band while the source rows are read left to right. The
// same bits as the portable packer; only faster.
#include <immintrin.h>

#include <cstring>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/widen8.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int64_t kBand = 8;

template <class S, int NR>
void pack_b_rows(int64_t kc, int64_t nc, const typename S::type* b, int64_t ldb, float* dst) {
  const int64_t full = nc / NR;
  for (int64_t p0 = 0; p0 < kc; p0 += kBand) {
    const int64_t rows = kc - p0 < kBand ? kc - p0 : kBand;
    for (int64_t s = 0; s < full; ++s) {
      float* d = dst + s * NR * kc + p0 * NR;
      const typename S::type* piece = b + p0 * ldb + s * NR;
      for (int64_t p = 0; p < rows; ++p) {
        for (int v = 0; v < NR / 8; ++v)
          _mm256_store_ps(d + p * NR + 8 * v, S::load8(piece + p * ldb + 8 * v));
      }
    }
  }
  const int64_t c0 = full * NR;
  if (c0 == nc) return;
  float* d = dst + full * NR * kc;
  std::memset(d, 0, sizeof(float) * NR * kc);
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t j = c0; j < nc; ++j) d[p * NR + (j - c0)] = S::load1(b + p * ldb + j);
  }
}

}  // namespace

void sgemm_avx2_pack_b16(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* dst) {
  pack_b_rows<F32Source, 16>(kc, nc, b, ldb, dst);
}

void sgemm_avx2_pack_b32(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* dst) {
  pack_b_rows<F32Source, 32>(kc, nc, b, ldb, dst);
}

void sbgemm_avx2_pack_b16(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst) {
  pack_b_rows<Bf16Source, 16>(kc, nc, b, ldb, dst);
}

void shgemm_avx2_pack_b16(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst) {
  pack_b_rows<F16Source, 16>(kc, nc, b, ldb, dst);
}

void sbgemm_avx2_pack_b32(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst) {
  pack_b_rows<Bf16Source, 32>(kc, nc, b, ldb, dst);
}

void shgemm_avx2_pack_b32(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst) {
  pack_b_rows<F16Source, 32>(kc, nc, b, ldb, dst);
}

}  // namespace invar::kernels::avx2
