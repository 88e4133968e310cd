// The bf16 pair panels of the AVX512_BF16 kernels (layout in kernels/avx512/bf16/bf16.h,
// contract in pack.h).
//
// One micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps; lane l at step p is
// src[l * ls + p * ps]. Steps 2q and 2q + 1 of lane l land at dst[2q * W + 2l + 1] (the high
// half, which the instruction adds first) and dst[2q * W + 2l]; an odd last step lands at
// dst[(kc - 1) * W + l]. The values are copied bit for bit, except that A's are negated when
// alpha is -1: its sign bit flipped, which is -1 * a exactly, but for a NaN, which a multiply
// by -1 returns as it is.
#include "pack/pack.h"
#include "pack/pair_panels.h"

namespace invar::pack {

namespace {

uint16_t same(uint16_t x) { return x; }

uint16_t negated(uint16_t x) {
  return (x & 0x7fff) > 0x7f80 ? x : static_cast<uint16_t>(x ^ 0x8000);
}

template <int MR, class Value>
void pack_a_panels(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs,
                   uint16_t* dst, Value value) {
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    pairs::panel<MR, MR, true>(MR, kc, src + r0 * rs, rs, cs, dst, value);
  if (r0 < mc) pairs::panel<MR, 0, true>(mc - r0, kc, src + r0 * rs, rs, cs, dst, value);
}

}  // namespace

template <int MR>
void pack_a_bf16_pairs(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs,
                       bool negate, uint16_t* dst) {
  if (negate)
    pack_a_panels<MR>(mc, kc, src, rs, cs, dst, [](uint16_t x) { return negated(x); });
  else
    pack_a_panels<MR>(mc, kc, src, rs, cs, dst, [](uint16_t x) { return same(x); });
}

template <int NR>
void pack_b_bf16_pairs(int64_t kc, int64_t nc, const uint16_t* src, int64_t rs, int64_t cs,
                       uint16_t* dst) {
  pairs::b_panels<NR, true>(kc, nc, src, rs, cs, dst, [](uint16_t x) { return same(x); });
}

// The tile shape of the AVX512_BF16 kernel (kernels/avx512/bf16/bf16.h).
template void pack_a_bf16_pairs<12>(int64_t, int64_t, const uint16_t*, int64_t, int64_t, bool,
                                    uint16_t*);
template void pack_b_bf16_pairs<32>(int64_t, int64_t, const uint16_t*, int64_t, int64_t, uint16_t*);

}  // namespace invar::pack
