// The int16 pair panels of the integer kernels (layout in kernels/ukernel.h, contract in pack.h).
//
// One micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps; lane l at step p is
// src[l * ls + p * ps]. Steps 2q and 2q + 1 of lane l land side by side at dst[2q * W + 2l] and
// dst[2q * W + 2l + 1]; an odd last step lands at dst[(kc - 1) * W + l].
#include "pack/pack.h"
#include "pack/pair_panels.h"

namespace invar::pack {

namespace {

// Each value widened exactly to int16.
template <class Src>
constexpr auto widen = [](Src x) { return static_cast<int16_t>(x); };

}  // namespace

template <class Src, int MR>
void pack_a_pairs(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, int16_t* dst) {
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    pairs::panel<MR, MR, false>(MR, kc, src + r0 * rs, rs, cs, dst, widen<Src>);
  if (r0 < mc) pairs::panel<MR, 0, false>(mc - r0, kc, src + r0 * rs, rs, cs, dst, widen<Src>);
}

template <class Src, int NR>
void pack_b_pairs(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, int16_t* dst) {
  pairs::b_panels<NR, false>(kc, nc, src, rs, cs, dst, widen<Src>);
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
