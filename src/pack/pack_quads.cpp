// The byte quad panels of the VNNI integer kernels (layout in kernels/ukernel.h, contract in
// pack.h).
//
// One micro-panel is W lanes (MR rows of A or NR columns of B) by kc steps; lane l at step p is
// src[l * ls + p * ps]. Steps 4q .. 4q + 3 of lane l land side by side at dst[4q * W + 4l + h];
// the last kc % 4 steps land one by one, step 4Q + h at dst[4Q * W + h * W + l]. An s8 A is
// stored as the unsigned byte a + 128 (Flip), which the kernel's correction takes back.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "pack/pack.h"

namespace invar::pack {

namespace {

template <class Src, int W, int LANES, bool Flip, class Dst>
void quad_panel(int64_t lanes, int64_t kc, const Src* s, int64_t ls, int64_t ps, Dst* dst) {
  const int64_t n = LANES > 0 ? LANES : lanes;
  // Padding lanes hold zero as the kernel reads it: 0 for B, and for a flipped A the byte 128
  // (the value 0), so that a padded row's correction is as exact as a real one's.
  if (LANES == 0) std::memset(dst, Flip ? 0x80 : 0, static_cast<std::size_t>(W) * kc);
  auto put = [](Src v) {
    const auto bits = static_cast<uint8_t>(v);
    return static_cast<Dst>(Flip ? bits ^ 0x80u : bits);
  };
  const int64_t quads = kc / 4;
  for (int64_t q = 0; q < quads; ++q) {
    Dst* d = dst + 4 * q * W;
    const Src* s0 = s + 4 * q * ps;
    for (int64_t l = 0; l < n; ++l) {
      for (int h = 0; h < 4; ++h) d[4 * l + h] = put(s0[l * ls + h * ps]);
    }
  }
  for (int64_t p = 4 * quads; p < kc; ++p) {
    Dst* d = dst + p * W;
    const Src* s0 = s + p * ps;
    for (int64_t l = 0; l < n; ++l) d[l] = put(s0[l * ls]);
  }
}

}  // namespace

template <class Src, int MR>
void pack_a_quads(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, uint8_t* dst) {
  constexpr bool kFlip = std::is_same_v<Src, int8_t>;
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    quad_panel<Src, MR, MR, kFlip>(MR, kc, src + r0 * rs, rs, cs, dst);
  if (r0 < mc) quad_panel<Src, MR, 0, kFlip>(mc - r0, kc, src + r0 * rs, rs, cs, dst);
}

template <class Src, int MR>
void pack_a_chunks(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, uint8_t* dst) {
  constexpr int64_t kChunk = 64;
  const int64_t chunks = kc / kChunk;
  const int64_t rem = kc - chunks * kChunk;
  for (int64_t r0 = 0; r0 < mc; r0 += MR, dst += MR * kc) {
    const int64_t lanes = std::min<int64_t>(MR, mc - r0);
    const Src* s = src + r0 * rs;
    if (cs == 1) {
      // Chunk by chunk, its rows' 64 bytes each a copy. (Row by row, each row read as one
      // sequential stream, measured level on the Intel Xeon with AMX of block_sizes.h: 4096^3 on
      // one thread.)
      for (int64_t t = 0; t < chunks; ++t) {
        uint8_t* d = dst + t * kChunk * MR;
        for (int64_t i = 0; i < lanes; ++i)
          std::memcpy(d + i * kChunk, s + i * rs + t * kChunk, kChunk);
        std::memset(d + lanes * kChunk, 0, static_cast<std::size_t>((MR - lanes) * kChunk));
      }
    } else {
      // Step by step, the rows of a step side by side in the source when A is stored transposed
      // (rs == 1): each step's bytes are read once, written 64 bytes apart within the chunk.
      for (int64_t t = 0; t < chunks; ++t) {
        uint8_t* d = dst + t * kChunk * MR;
        for (int64_t h = 0; h < kChunk; ++h) {
          const Src* step = s + (t * kChunk + h) * cs;
          for (int64_t i = 0; i < lanes; ++i)
            d[i * kChunk + h] = static_cast<uint8_t>(step[i * rs]);
          for (int64_t i = lanes; i < MR; ++i) d[i * kChunk + h] = 0;
        }
      }
    }
    if (rem == 0) continue;
    constexpr bool kFlip = std::is_same_v<Src, int8_t>;
    const Src* s_rem = s + chunks * kChunk * cs;
    uint8_t* d_rem = dst + chunks * kChunk * MR;
    if (lanes == MR)
      quad_panel<Src, MR, MR, kFlip>(MR, rem, s_rem, rs, cs, d_rem);
    else
      quad_panel<Src, MR, 0, kFlip>(lanes, rem, s_rem, rs, cs, d_rem);
  }
}

template <int NR>
void pack_b_quads(int64_t kc, int64_t nc, const int8_t* src, int64_t rs, int64_t cs, int8_t* dst) {
  const int64_t full = nc / NR;
  if (cs == 1) {
    // Row-major B: four source rows at a time, left to right, dealt NR-wide to the panels, so
    // memory is read sequentially.
    const int64_t quads = kc / 4;
    for (int64_t q = 0; q < quads; ++q) {
      const int8_t* r = src + 4 * q * rs;
      for (int64_t s = 0; s < full; ++s) {
        int8_t* d = dst + s * NR * kc + 4 * q * NR;
        const int8_t* col = r + s * NR;
        for (int j = 0; j < NR; ++j) {
          d[4 * j] = col[j];
          d[4 * j + 1] = col[rs + j];
          d[4 * j + 2] = col[2 * rs + j];
          d[4 * j + 3] = col[3 * rs + j];
        }
      }
    }
    for (int64_t p = 4 * quads; p < kc; ++p) {
      for (int64_t s = 0; s < full; ++s)
        std::memcpy(dst + s * NR * kc + p * NR, src + p * rs + s * NR, NR);
    }
  } else {
    for (int64_t s = 0; s < full; ++s)
      quad_panel<int8_t, NR, NR, false>(NR, kc, src + s * NR * cs, cs, rs, dst + s * NR * kc);
  }
  const int64_t c0 = full * NR;
  if (c0 < nc)
    quad_panel<int8_t, NR, 0, false>(nc - c0, kc, src + c0 * cs, cs, rs, dst + full * NR * kc);
}

// The tile shapes of the compiled quad kernels (kernels/sets/).
template void pack_a_quads<int8_t, 12>(int64_t, int64_t, const int8_t*, int64_t, int64_t, uint8_t*);
template void pack_a_quads<uint8_t, 12>(int64_t, int64_t, const uint8_t*, int64_t, int64_t,
                                        uint8_t*);
template void pack_a_chunks<int8_t, 32>(int64_t, int64_t, const int8_t*, int64_t, int64_t,
                                        uint8_t*);
template void pack_a_chunks<uint8_t, 32>(int64_t, int64_t, const uint8_t*, int64_t, int64_t,
                                         uint8_t*);
template void pack_b_quads<32>(int64_t, int64_t, const int8_t*, int64_t, int64_t, int8_t*);

}  // namespace invar::pack
