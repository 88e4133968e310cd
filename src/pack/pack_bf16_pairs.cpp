// The bf16 pair panels of the AVX512_BF16 kernels (layout in kernels/avx512/bf16/bf16.h,
// contract in pack.h).
//
// One micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps; lane l at step p is
// src[l * ls + p * ps]. Steps 2q and 2q + 1 of lane l land at dst[2q * W + 2l + 1] (the high
// half, which the instruction adds first) and dst[2q * W + 2l]; an odd last step lands at
// dst[(kc - 1) * W + l]. The values are copied bit for bit, except that A's are negated when
// alpha is -1: its sign bit flipped, which is -1 * a exactly, but for a NaN, which a multiply
// by -1 returns as it is.
#include <cstring>

#include "pack/pack.h"

namespace invar::pack {

namespace {

template <bool kNegate>
inline uint16_t value(uint16_t x) {
  if constexpr (kNegate) return (x & 0x7fff) > 0x7f80 ? x : static_cast<uint16_t>(x ^ 0x8000);
  return x;
}

template <int W, int LANES, bool kNegate>
void pair_panel(int64_t lanes, int64_t kc, const uint16_t* s, int64_t ls, int64_t ps,
                uint16_t* dst) {
  const int64_t n = LANES > 0 ? LANES : lanes;
  if (LANES == 0) std::memset(dst, 0, sizeof(uint16_t) * W * kc);
  int64_t p = 0;
  for (; p + 2 <= kc; p += 2) {
    uint16_t* d = dst + p * W;
    const uint16_t* s0 = s + p * ps;
    const uint16_t* s1 = s0 + ps;
    for (int64_t l = 0; l < n; ++l) {
      d[2 * l] = value<kNegate>(s1[l * ls]);
      d[2 * l + 1] = value<kNegate>(s0[l * ls]);
    }
  }
  if (p < kc) {
    uint16_t* d = dst + p * W;
    const uint16_t* s0 = s + p * ps;
    for (int64_t l = 0; l < n; ++l) d[l] = value<kNegate>(s0[l * ls]);
  }
}

template <int MR, bool kNegate>
void pack_a_panels(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs,
                   uint16_t* dst) {
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    pair_panel<MR, MR, kNegate>(MR, kc, src + r0 * rs, rs, cs, dst);
  if (r0 < mc) pair_panel<MR, 0, kNegate>(mc - r0, kc, src + r0 * rs, rs, cs, dst);
}

}  // namespace

template <int MR>
void pack_a_bf16_pairs(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs,
                       bool negate, uint16_t* dst) {
  if (negate)
    pack_a_panels<MR, true>(mc, kc, src, rs, cs, dst);
  else
    pack_a_panels<MR, false>(mc, kc, src, rs, cs, dst);
}

template <int NR>
void pack_b_bf16_pairs(int64_t kc, int64_t nc, const uint16_t* src, int64_t rs, int64_t cs,
                       uint16_t* dst) {
  const int64_t full = nc / NR;
  if (cs == 1) {
    // Row-major B: two source rows at a time, left to right, dealt NR-wide to the panels, so
    // memory is read sequentially.
    int64_t p = 0;
    for (; p + 2 <= kc; p += 2) {
      const uint16_t* r0 = src + p * rs;
      const uint16_t* r1 = r0 + rs;
      for (int64_t s = 0; s < full; ++s) {
        uint16_t* d = dst + s * NR * kc + p * NR;
        for (int j = 0; j < NR; ++j) {
          d[2 * j] = r1[s * NR + j];
          d[2 * j + 1] = r0[s * NR + j];
        }
      }
    }
    if (p < kc) {
      const uint16_t* r0 = src + p * rs;
      for (int64_t s = 0; s < full; ++s)
        std::memcpy(dst + s * NR * kc + p * NR, r0 + s * NR, sizeof(uint16_t) * NR);
    }
  } else {
    for (int64_t s = 0; s < full; ++s)
      pair_panel<NR, NR, false>(NR, kc, src + s * NR * cs, cs, rs, dst + s * NR * kc);
  }
  const int64_t c0 = full * NR;
  if (c0 < nc) pair_panel<NR, 0, false>(nc - c0, kc, src + c0 * cs, cs, rs, dst + full * NR * kc);
}

// The tile shape of the AVX512_BF16 kernel (kernels/avx512/bf16/bf16.h).
template void pack_a_bf16_pairs<12>(int64_t, int64_t, const uint16_t*, int64_t, int64_t, bool,
                                    uint16_t*);
template void pack_b_bf16_pairs<32>(int64_t, int64_t, const uint16_t*, int64_t, int64_t, uint16_t*);

}  // namespace invar::pack
