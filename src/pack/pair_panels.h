// The pair panels shared by the integer packers (pack_pairs.cpp) and the bf16 ones
// (pack_bf16_pairs.cpp): one micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps;
// lane l at step p is src[l * ls + p * ps]. Steps 2q and 2q + 1 of lane l land side by side at
// dst[2q * W + 2l] and dst[2q * W + 2l + 1], in that order, or swapped when kSwap (the bf16
// kernels' instruction adds the high half first); an odd last step lands at dst[(kc - 1) * W + l].
// Each value goes through `value` (a widening, a negation, or nothing). Portable code only, for
// the files of src/pack/.
#ifndef INVAR_PACK_PAIR_PANELS_H_
#define INVAR_PACK_PAIR_PANELS_H_

#include <cstdint>
#include <cstring>

namespace invar::pack::pairs {

// One panel of `lanes` lanes (LANES when LANES > 0, else a partial one whose missing lanes are
// zero).
template <int W, int LANES, bool kSwap, class Src, class Dst, class Value>
void panel(int64_t lanes, int64_t kc, const Src* s, int64_t ls, int64_t ps, Dst* dst, Value value) {
  const int64_t n = LANES > 0 ? LANES : lanes;
  if (LANES == 0) std::memset(dst, 0, sizeof(Dst) * W * kc);
  constexpr int lo = kSwap ? 1 : 0;
  int64_t p = 0;
  for (; p + 2 <= kc; p += 2) {
    Dst* d = dst + p * W;
    const Src* s0 = s + p * ps;
    const Src* s1 = s0 + ps;
    for (int64_t l = 0; l < n; ++l) {
      d[2 * l + lo] = value(s0[l * ls]);
      d[2 * l + 1 - lo] = value(s1[l * ls]);
    }
  }
  if (p < kc) {
    Dst* d = dst + p * W;
    const Src* s0 = s + p * ps;
    for (int64_t l = 0; l < n; ++l) d[l] = value(s0[l * ls]);
  }
}

// kc x nc of B (B[p][j] at src[p * rs + j * cs]) into panels of NR columns, kc * NR values
// apart, the last one partial and zero-padded.
template <int NR, bool kSwap, class Src, class Dst, class Value>
void b_panels(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, Dst* dst,
              Value value) {
  const int64_t full = nc / NR;
  constexpr int lo = kSwap ? 1 : 0;
  if (cs == 1) {
    // Row-major B: two source rows at a time, left to right, dealt NR-wide to the panels, so
    // memory is read sequentially (panel by panel would walk a narrow strip down kc rows).
    int64_t p = 0;
    for (; p + 2 <= kc; p += 2) {
      const Src* r0 = src + p * rs;
      const Src* r1 = r0 + rs;
      for (int64_t s = 0; s < full; ++s) {
        Dst* d = dst + s * NR * kc + p * NR;
        for (int j = 0; j < NR; ++j) {
          d[2 * j + lo] = value(r0[s * NR + j]);
          d[2 * j + 1 - lo] = value(r1[s * NR + j]);
        }
      }
    }
    if (p < kc) {
      const Src* r0 = src + p * rs;
      for (int64_t s = 0; s < full; ++s) {
        Dst* d = dst + s * NR * kc + p * NR;
        for (int j = 0; j < NR; ++j) d[j] = value(r0[s * NR + j]);
      }
    }
  } else {
    for (int64_t s = 0; s < full; ++s)
      panel<NR, NR, kSwap>(NR, kc, src + s * NR * cs, cs, rs, dst + s * NR * kc, value);
  }
  const int64_t c0 = full * NR;
  if (c0 < nc) panel<NR, 0, kSwap>(nc - c0, kc, src + c0 * cs, cs, rs, dst + full * NR * kc, value);
}

}  // namespace invar::pack::pairs

#endif  // INVAR_PACK_PAIR_PANELS_H_
