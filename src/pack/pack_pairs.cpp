// The int16 pair panels of the integer kernels (layout in kernels/ukernel.h, contract in pack.h).
//
// One micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps; lane l at step p is
// src[l * ls + p * ps]. Steps 2q and 2q + 1 of lane l land side by side at dst[2q * W + 2l] and
// dst[2q * W + 2l + 1]; an odd last step lands at dst[(kc - 1) * W + l].
#include <cstring>

#include "pack/pack.h"

namespace invar::pack {

namespace {

template <class Src, int W, int LANES>
void pair_panel(int64_t lanes, int64_t kc, const Src* s, int64_t ls, int64_t ps, int16_t* dst) {
  const int64_t n = LANES > 0 ? LANES : lanes;
  if (LANES == 0) std::memset(dst, 0, sizeof(int16_t) * W * kc);
  int64_t p = 0;
  for (; p + 2 <= kc; p += 2) {
    int16_t* d = dst + p * W;
    const Src* s0 = s + p * ps;
    const Src* s1 = s0 + ps;
    for (int64_t l = 0; l < n; ++l) {
      d[2 * l] = s0[l * ls];
      d[2 * l + 1] = s1[l * ls];
    }
  }
  if (p < kc) {
    int16_t* d = dst + p * W;
    const Src* s0 = s + p * ps;
    for (int64_t l = 0; l < n; ++l) d[l] = s0[l * ls];
  }
}

}  // namespace

template <class Src, int MR>
void pack_a_pairs(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, int16_t* dst) {
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    pair_panel<Src, MR, MR>(MR, kc, src + r0 * rs, rs, cs, dst);
  if (r0 < mc) pair_panel<Src, MR, 0>(mc - r0, kc, src + r0 * rs, rs, cs, dst);
}

template <class Src, int NR>
void pack_b_pairs(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, int16_t* dst) {
  const int64_t full = nc / NR;
  if (cs == 1) {
    // Row-major B: two source rows at a time, left to right, dealt NR-wide to the panels, so
    // memory is read sequentially (panel by panel would walk a narrow strip down kc rows).
    int64_t p = 0;
    for (; p + 2 <= kc; p += 2) {
      const Src* r0 = src + p * rs;
      const Src* r1 = r0 + rs;
      for (int64_t s = 0; s < full; ++s) {
        int16_t* d = dst + s * NR * kc + p * NR;
        for (int j = 0; j < NR; ++j) {
          d[2 * j] = r0[s * NR + j];
          d[2 * j + 1] = r1[s * NR + j];
        }
      }
    }
    if (p < kc) {
      const Src* r0 = src + p * rs;
      for (int64_t s = 0; s < full; ++s) {
        int16_t* d = dst + s * NR * kc + p * NR;
        for (int j = 0; j < NR; ++j) d[j] = r0[s * NR + j];
      }
    }
  } else {
    for (int64_t s = 0; s < full; ++s)
      pair_panel<Src, NR, NR>(NR, kc, src + s * NR * cs, cs, rs, dst + s * NR * kc);
  }
  const int64_t c0 = full * NR;
  if (c0 < nc) pair_panel<Src, NR, 0>(nc - c0, kc, src + c0 * cs, cs, rs, dst + full * NR * kc);
}

// The tile shapes of the compiled integer kernels (kernels/sets/). B is always int8_t.
template void pack_a_pairs<int8_t, 4>(int64_t, int64_t, const int8_t*, int64_t, int64_t, int16_t*);
template void pack_a_pairs<int8_t, 6>(int64_t, int64_t, const int8_t*, int64_t, int64_t, int16_t*);
template void pack_a_pairs<uint8_t, 4>(int64_t, int64_t, const uint8_t*, int64_t, int64_t,
                                       int16_t*);
template void pack_a_pairs<uint8_t, 6>(int64_t, int64_t, const uint8_t*, int64_t, int64_t,
                                       int16_t*);
template void pack_b_pairs<int8_t, 8>(int64_t, int64_t, const int8_t*, int64_t, int64_t, int16_t*);
template void pack_b_pairs<int8_t, 16>(int64_t, int64_t, const int8_t*, int64_t, int64_t, int16_t*);

}  // namespace invar::pack
