#include "pack/pack.h"

#include <cstring>

namespace invar::pack {

template <int MR>
void pack_a_f32(int64_t mc, int64_t kc, const float* src, int64_t rs, int64_t cs, float alpha,
                float* dst) {
  for (int64_t r0 = 0; r0 < mc; r0 += MR, dst += MR * kc) {
    const int64_t rows = mc - r0 < MR ? mc - r0 : MR;
    const float* s = src + r0 * rs;
    if (rows < MR) std::memset(dst, 0, sizeof(float) * MR * kc);
    if (rs == 1) {
      // op(A) is a transposed matrix: each k holds MR consecutive rows.
      for (int64_t p = 0; p < kc; ++p) {
        const float* sp = s + p * cs;
        float* d = dst + p * MR;
        if (alpha == 1.0f) {
          for (int64_t i = 0; i < rows; ++i) d[i] = sp[i];
        } else {
          for (int64_t i = 0; i < rows; ++i) d[i] = alpha * sp[i];
        }
      }
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        const float* si = s + i * rs;
        float* d = dst + i;
        if (alpha == 1.0f) {
          for (int64_t p = 0; p < kc; ++p) d[p * MR] = si[p * cs];
        } else {
          for (int64_t p = 0; p < kc; ++p) d[p * MR] = alpha * si[p * cs];
        }
      }
    }
  }
}

template <int NR>
void pack_b_f32(int64_t kc, int64_t nc, const float* src, int64_t rs, int64_t cs, float* dst) {
  for (int64_t c0 = 0; c0 < nc; c0 += NR, dst += NR * kc) {
    const int64_t cols = nc - c0 < NR ? nc - c0 : NR;
    const float* s = src + c0 * cs;
    if (cols < NR) std::memset(dst, 0, sizeof(float) * NR * kc);
    if (cs == 1) {
      for (int64_t p = 0; p < kc; ++p) std::memcpy(dst + p * NR, s + p * rs, sizeof(float) * cols);
    } else {
      // op(B) is a transposed matrix: column j of op(B) is contiguous in k.
      for (int64_t j = 0; j < cols; ++j) {
        const float* sj = s + j * cs;
        float* d = dst + j;
        for (int64_t p = 0; p < kc; ++p) d[p * NR] = sj[p * rs];
      }
    }
  }
}

// The tile shapes of the compiled kernels (kernels/kernel_set.cpp).
template void pack_a_f32<4>(int64_t, int64_t, const float*, int64_t, int64_t, float, float*);
template void pack_a_f32<6>(int64_t, int64_t, const float*, int64_t, int64_t, float, float*);
template void pack_a_f32<8>(int64_t, int64_t, const float*, int64_t, int64_t, float, float*);
template void pack_a_f32<12>(int64_t, int64_t, const float*, int64_t, int64_t, float, float*);
template void pack_a_f32<14>(int64_t, int64_t, const float*, int64_t, int64_t, float, float*);
template void pack_b_f32<8>(int64_t, int64_t, const float*, int64_t, int64_t, float*);
template void pack_b_f32<12>(int64_t, int64_t, const float*, int64_t, int64_t, float*);
template void pack_b_f32<16>(int64_t, int64_t, const float*, int64_t, int64_t, float*);
template void pack_b_f32<32>(int64_t, int64_t, const float*, int64_t, int64_t, float*);

}  // namespace invar::pack
